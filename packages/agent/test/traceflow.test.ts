// Traceflow on the agent side, pure parts: the probe it injects (checksums right, fields from
// spec.packet), the live-traffic match, and the observations it reads from a packet-in.
import type { Traceflow } from '@switchyard/apis/types';
import {
  APConjIDField, APDenyRegMark, DispositionRejectRegMark, EgressMarkField, OutputToOFPortRegMark, Pipeline, TABLE_DECLS, TFEgressConjIDField, TFIngressConjIDField, TargetOFPortField,
  type LocalPod,
} from '@switchyard/openflow-pipeline';
import type { Match } from '@switchyard/openflow/codec';
import { buildProbe, checksum, parseIpv4, sum16, type ParsedIpv4 } from '../src/packet';
import { isFinal, observe, type TracedEgress, type TraceNodeView } from '../src/features/traceflow/observations';
import { probeSpec, protocolOf, traceMatchOf } from '../src/features/traceflow/probe';

const A: LocalPod = { name: 'a', namespace: 'ns', ofport: 10, ips: ['10.10.1.5'], mac: '02:00:00:00:00:0a' };
const B: LocalPod = { name: 'b', namespace: 'ns', ofport: 11, ips: ['10.10.1.6'], mac: '02:00:00:00:00:0b' };
const GW_MAC = '02:00:00:00:00:01';

const tf = (spec: Partial<Traceflow['spec']>, tag = 11): Traceflow => ({
  metadata: { name: 't' },
  spec: { source: { namespace: 'ns', pod: 'a' }, destination: { namespace: 'ns', pod: 'b' }, ...spec },
  status: { phase: 'Running', dataplaneTag: tag },
});

describe('the probe', () => {
  it('TCP to a pod on another node: to the gateway MAC, SYN, source port fixed per tag, IP and TCP checksums verify', () => {
    const spec = probeSpec(tf({ packet: { transportHeader: { tcp: { dstPort: 8080 } } } }), A, { ip: '10.10.2.7' }, [A, B], GW_MAC);
    expect(spec).toEqual({ srcMac: A.mac, dstMac: GW_MAC, srcIP: '10.10.1.5', dstIP: '10.10.2.7', protocol: 6, srcPort: 40011, dstPort: 8080 });
    const frame = buildProbe(spec);
    expect(parseIpv4(frame)).toEqual({ srcIP: '10.10.1.5', dstIP: '10.10.2.7', dscp: 0, ttl: 64, protocol: 6, flags: 2, length: 40, srcPort: 40011, dstPort: 8080, tcpFlags: 2 });
    expect(checksum(frame, 14, 34)).toBe(0);
    const pseudo = Uint8Array.from([10, 10, 1, 5, 10, 10, 2, 7, 0, 6, 0, 20]);
    expect(checksum(frame, 34, frame.length, sum16(pseudo))).toBe(0);
  });

  it('a pod on this node gets its own MAC; a Service gives its port unless the packet names one; ICMP echo by default with the tag as id', () => {
    expect(probeSpec(tf({}), A, { ip: B.ips[0]! }, [A, B], GW_MAC)).toMatchObject({ dstMac: B.mac, protocol: 1, icmpId: 11, icmpSequence: 0 });
    expect(probeSpec(tf({ packet: { ipHeader: { protocol: 17, ttl: 3 } } }), A, { ip: '10.96.0.10', port: 53 }, [A], GW_MAC)).toMatchObject({ protocol: 17, dstPort: 53, ttl: 3 });
    const icmp = buildProbe(probeSpec(tf({}), A, { ip: '8.8.8.8' }, [A], GW_MAC));
    expect(checksum(icmp, 34, icmp.length)).toBe(0);
    expect(icmp[34]).toBe(8);
  });

  it('the protocol: ipHeader first, then the transport header, else ICMP', () => {
    expect(protocolOf(tf({ packet: { ipHeader: { protocol: 132 } } }))).toBe(132);
    expect(protocolOf(tf({ packet: { transportHeader: { udp: {} } } }))).toBe(17);
    expect(protocolOf(tf({}))).toBe(1);
  });

  it('a probe is IPv4 only: an IPv6 destination is refused naming the field', () => {
    expect(() => buildProbe(probeSpec(tf({}), A, { ip: 'fd00::1' }, [A], GW_MAC))).toThrow(expect.objectContaining({ path: 'dstIP', value: 'fd00::1' }));
  });
});

describe('the live-traffic match', () => {
  it('the source pod\'s address, the destination, and only the protocol and ports the spec names', () => {
    expect(traceMatchOf(tf({ liveTraffic: true }), A, { ip: '10.10.2.7' })).toEqual({ ipv4Src: '10.10.1.5', ipv4Dst: '10.10.2.7' });
    expect(traceMatchOf(tf({ liveTraffic: true, packet: { transportHeader: { tcp: { dstPort: 80 } } } }), A, { ip: '10.96.0.1', port: 443 })).toEqual({ ipv4Src: '10.10.1.5', ipv4Dst: '10.96.0.1', ipProto: 6, tcpDst: 80 });
    expect(traceMatchOf(tf({ liveTraffic: true, packet: { ipHeader: { protocol: 17 } } }), A, { ip: '10.96.0.10', port: 53 })).toEqual({ ipv4Src: '10.10.1.5', ipv4Dst: '10.96.0.10', ipProto: 17, udpDst: 53 });
    expect(traceMatchOf(tf({ liveTraffic: true, destination: {} }), A, undefined)).toEqual({ ipv4Src: '10.10.1.5' });
    // Only the destination pod named: its node matches what arrives for it, from anywhere.
    expect(traceMatchOf(tf({ liveTraffic: true, source: {}, packet: { ipHeader: { protocol: 6 } } }), undefined, { ip: B.ips[0]! })).toEqual({ ipv4Dst: '10.10.1.6', ipProto: 6 });
  });
});

describe('observations from a Traceflow packet-in', () => {
  const p = Pipeline.build(TABLE_DECLS.map((d) => d.name));
  const view: TraceNodeView = {
    tableName: (id) => p.nameOf(id),
    gateway: { ofport: 2, ip: '10.10.1.1' },
    tunnelOfport: 1,
    nodeIP: '192.168.77.1',
    podCIDR: '10.10.1.0/24',
    pods: [A, B],
    remoteNodes: [{ name: 'n2', podCIDR: '10.10.2.0/24', nodeIP: '192.168.77.2', gatewayIP: '10.10.2.1' }],
    rules: new Map([[5, { policy: 'AntreaClusterNetworkPolicy:deny', rule: 'drop-9000' }], [6, { policy: 'K8sNetworkPolicy:ns/web', rule: 'rule 0' }]]),
  };
  const pkt = (dstIP: string, srcIP = A.ips[0]!): ParsedIpv4 => ({ srcIP, dstIP, dscp: 11, ttl: 64, protocol: 6, flags: 2, length: 40 });
  const output = (port: number): Match => ({ reg0: OutputToOFPortRegMark.field.shift(OutputToOFPortRegMark.value), reg1: TargetOFPortField.shift(port) });

  it('the sender, to a pod on another node: SpoofGuard, the egress rule that allowed it, out through the tunnel to the peer (not final)', () => {
    const obs = observe(view, { tableId: p.id('Output'), metadata: { ...output(1), reg5: TFEgressConjIDField.shift(6), tunIpv4Dst: '192.168.77.2' }, packet: pkt('10.10.2.7') }, { sender: true, dstIP: '10.10.2.7' });
    expect(obs).toEqual([
      { component: 'SpoofGuard', action: 'Forwarded' },
      { component: 'NetworkPolicy', componentInfo: 'EgressRule', action: 'Forwarded', networkPolicy: 'K8sNetworkPolicy:ns/web', networkPolicyRule: 'rule 0' },
      { component: 'Forwarding', componentInfo: 'Output', action: 'Forwarded', tunnelDstIP: '192.168.77.2' },
    ]);
    expect(isFinal(obs.at(-1))).toBe(false);
  });

  it('a Service: the endpoint the LB chose, then delivery to the local pod (final)', () => {
    const obs = observe(view, { tableId: p.id('Output'), metadata: output(B.ofport), packet: pkt(B.ips[0]!) }, { sender: true, dstIP: '10.96.0.11' });
    expect(obs.map((o) => [o.component, o.action, o.translatedDstIP ?? o.pod])).toEqual([['SpoofGuard', 'Forwarded', undefined], ['LB', 'Forwarded', '10.10.1.6'], ['Forwarding', 'Delivered', 'ns/b']]);
    expect(isFinal(obs.at(-1))).toBe(true);
  });

  it('the receiver: received from the tunnel, dropped by an Antrea-native rule (its conj id) or rejected', () => {
    const md = { reg0: APDenyRegMark.field.shift(APDenyRegMark.value), reg3: APConjIDField.shift(5) };
    const dropped = observe(view, { tableId: p.id('IngressMetric'), metadata: md, packet: pkt(B.ips[0]!, '10.10.2.9') }, { sender: false });
    expect(dropped).toEqual([
      { component: 'Forwarding', componentInfo: 'Classification', action: 'Received' },
      { component: 'NetworkPolicy', componentInfo: 'IngressMetric', action: 'Dropped', networkPolicy: 'AntreaClusterNetworkPolicy:deny', networkPolicyRule: 'drop-9000' },
    ]);
    const reject = { ...md, reg0: md.reg0 | DispositionRejectRegMark.field.shift(DispositionRejectRegMark.value) };
    expect(observe(view, { tableId: p.id('IngressMetric'), metadata: reject, packet: pkt(B.ips[0]!) }, { sender: false }).at(-1)?.action).toBe('Rejected');
  });

  it('a K8s default drop names its table; an allowing ingress rule is listed before delivery', () => {
    expect(observe(view, { tableId: p.id('IngressDefaultRule'), metadata: {}, packet: pkt(B.ips[0]!) }, { sender: false }).at(-1)).toEqual({ component: 'NetworkPolicy', componentInfo: 'IngressDefaultRule', action: 'Dropped' });
    const obs = observe(view, { tableId: p.id('Output'), metadata: { ...output(B.ofport), reg6: TFIngressConjIDField.shift(6) }, packet: pkt(B.ips[0]!) }, { sender: false });
    expect(obs.map((o) => `${o.component}/${o.action}`)).toEqual(['Forwarding/Received', 'NetworkPolicy/Forwarded', 'Forwarding/Delivered']);
  });

  it('out of the cluster through the gateway: masqueraded to the node IP; to a peer through host routes: forwarded to it; to the node: delivered', () => {
    expect(observe(view, { tableId: p.id('Output'), metadata: output(2), packet: pkt('8.8.8.8') }, { sender: true, dstIP: '8.8.8.8' }).at(-1))
      .toEqual({ component: 'Forwarding', componentInfo: 'Output', action: 'ForwardedOutOfOverlay', translatedSrcIP: '192.168.77.1' });
    expect(observe(view, { tableId: p.id('Output'), metadata: output(2), packet: pkt('10.10.2.7') }, { sender: true, dstIP: '10.10.2.7' }).at(-1))
      .toEqual({ component: 'Forwarding', componentInfo: 'Output', action: 'Forwarded', tunnelDstIP: '192.168.77.2' });
    expect(observe(view, { tableId: p.id('Output'), metadata: output(2), packet: pkt('10.10.1.1') }, { sender: true, dstIP: '10.10.1.1' }).at(-1)?.action).toBe('Delivered');
    // An address of the local pod CIDR no pod has: to the host, not masqueraded.
    expect(observe(view, { tableId: p.id('Output'), metadata: output(2), packet: pkt('10.10.1.99') }, { sender: true, dstIP: '10.10.1.99' }).at(-1))
      .toEqual({ component: 'Forwarding', componentInfo: 'Output', action: 'ForwardedOutOfOverlay' });
  });

  it('drops with a reason: SpoofGuard, an invalid connection, no output port', () => {
    expect(observe(view, { tableId: p.id('SpoofGuard'), metadata: {}, packet: pkt('10.10.2.7', '10.10.1.99') }, { sender: true })).toEqual([{ component: 'SpoofGuard', action: 'Dropped' }]);
    expect(observe(view, { tableId: p.id('ConntrackState'), metadata: {}, packet: pkt('10.10.2.7') }, { sender: true }).at(-1)?.componentInfo).toBe('ConntrackState: invalid connection');
    expect(observe(view, { tableId: p.id('Output'), metadata: {}, packet: pkt('10.10.2.7') }, { sender: true }).at(-1)).toEqual({ component: 'Forwarding', componentInfo: 'Output', action: 'Dropped' });
  });
});

describe('the Egress hop in a Traceflow (as Antrea reports it)', () => {
  const p = Pipeline.build(TABLE_DECLS.map((d) => d.name));
  const EGRESS_IP = '192.168.77.220';
  const REMOTE_MEMBER = '10.10.2.5';
  const base = {
    tableName: (id: number) => p.nameOf(id), gateway: { ofport: 2, ip: '10.10.1.1' }, tunnelOfport: 1, podCIDR: '10.10.1.0/24', pods: [A, B], rules: new Map(),
  };
  /** node1: A is a member of eg-a, whose IP node2 owns. */
  const node1: TraceNodeView = {
    ...base, nodeIP: '192.168.77.1',
    remoteNodes: [{ name: 'node2', podCIDR: '10.10.2.0/24', nodeIP: '192.168.77.2', gatewayIP: '10.10.2.1' }],
    egresses: [{ name: 'eg-a', ip: EGRESS_IP, local: false, ownerIP: '192.168.77.2', localPods: [A.ips[0]!], egressNode: 'node2' } satisfies TracedEgress],
  };
  /** node2: owns eg-a's IP under mark 3. */
  const node2: TraceNodeView = {
    ...base, nodeIP: '192.168.77.2', podCIDR: '10.10.2.0/24',
    remoteNodes: [{ name: 'node1', podCIDR: '10.10.1.0/24', nodeIP: '192.168.77.1', gatewayIP: '10.10.1.1' }],
    egresses: [{ name: 'eg-a', ip: EGRESS_IP, local: true, mark: 3, localPods: [], egressNode: 'node2' }],
  };
  const pkt = (srcIP: string, dstIP: string): ParsedIpv4 => ({ srcIP, dstIP, dscp: 11, ttl: 64, protocol: 6, flags: 2, length: 40 });
  const output = (port: number, extra: Match = {}): Match => ({ reg0: OutputToOFPortRegMark.field.shift(OutputToOFPortRegMark.value), reg1: TargetOFPortField.shift(port), ...extra });

  it('on a node that does not own the IP: the member is forwarded to the egress node, tunnelled to it (not final)', () => {
    const obs = observe(node1, { tableId: p.id('Output'), metadata: output(1, { tunIpv4Dst: '192.168.77.2' }), packet: pkt(A.ips[0]!, '192.168.77.254') }, { sender: true, dstIP: '192.168.77.254' });
    expect(obs).toEqual([
      { component: 'SpoofGuard', action: 'Forwarded' },
      { component: 'Egress', action: 'ForwardedToEgressNode', egress: 'eg-a', egressIP: EGRESS_IP, egressNode: 'node2' },
      { component: 'Forwarding', componentInfo: 'Output', action: 'Forwarded', tunnelDstIP: '192.168.77.2' },
    ]);
    expect(isFinal(obs.at(-1))).toBe(false);
  });

  it('on the egress node: received from the tunnel, marked for SNAT to the Egress IP, out of the overlay with that source (final)', () => {
    const obs = observe(node2, { tableId: p.id('Output'), metadata: output(2, { reg10: EgressMarkField.shift(3) }), packet: pkt(EGRESS_IP, '192.168.77.254') }, { sender: false });
    expect(obs).toEqual([
      { component: 'Forwarding', componentInfo: 'Classification', action: 'Received' },
      { component: 'Egress', action: 'MarkedForSNAT', egress: 'eg-a', egressIP: EGRESS_IP, egressNode: 'node2' },
      { component: 'Forwarding', componentInfo: 'Output', action: 'ForwardedOutOfOverlay', translatedSrcIP: EGRESS_IP },
    ]);
    expect(isFinal(obs.at(-1))).toBe(true);
  });

  it("a member on the egress node itself: SNAT to the Egress IP, not the node's masquerade", () => {
    const own = { ...node2, pods: [{ ...B, ips: ['10.10.2.9'] }] };
    const obs = observe(own, { tableId: p.id('Output'), metadata: output(2, { reg10: EgressMarkField.shift(3) }), packet: pkt('10.10.2.9', '192.168.77.254') }, { sender: true, dstIP: '192.168.77.254' });
    expect(obs.slice(1)).toEqual([
      { component: 'Egress', action: 'MarkedForSNAT', egress: 'eg-a', egressIP: EGRESS_IP, egressNode: 'node2' },
      { component: 'Forwarding', componentInfo: 'Output', action: 'ForwardedOutOfOverlay', translatedSrcIP: EGRESS_IP },
    ]);
  });

  it('no Egress hop for a member going to a pod on the egress node, for a non-member, or for an unknown mark', () => {
    const toPod = observe(node1, { tableId: p.id('Output'), metadata: output(1, { tunIpv4Dst: '192.168.77.2' }), packet: pkt(A.ips[0]!, REMOTE_MEMBER) }, { sender: true, dstIP: REMOTE_MEMBER });
    expect(toPod.map((o) => o.component)).toEqual(['SpoofGuard', 'Forwarding']);
    const nonMember = observe(node1, { tableId: p.id('Output'), metadata: output(2), packet: pkt(B.ips[0]!, '192.168.77.254') }, { sender: true, dstIP: '192.168.77.254' });
    expect(nonMember.at(-1)).toEqual({ component: 'Forwarding', componentInfo: 'Output', action: 'ForwardedOutOfOverlay', translatedSrcIP: '192.168.77.1' });
    expect(nonMember.some((o) => o.component === 'Egress')).toBe(false);
    const unknown = observe(node2, { tableId: p.id('Output'), metadata: output(2, { reg10: EgressMarkField.shift(9) }), packet: pkt('10.10.1.5', '192.168.77.254') }, { sender: false });
    expect(unknown.some((o) => o.component === 'Egress')).toBe(false);
  });
});
