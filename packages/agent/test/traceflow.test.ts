// Traceflow on the agent side, pure parts: the probe it injects (checksums right, fields from
// spec.packet), the live-traffic match, and the observations it reads from a packet-in.
import { ipToBytes, traceflowFamily, type Traceflow } from '@switchyard/apis/types';
import {
  APConjIDField, APDenyRegMark, DispositionRejectRegMark, EgressMarkField, OutputToOFPortRegMark, Pipeline, TABLE_DECLS, TFEgressConjIDField, TFIngressConjIDField, TargetOFPortField,
  type LocalPod,
} from '@switchyard/openflow-pipeline';
import type { Match } from '@switchyard/openflow/codec';
import { buildProbe, checksum, parseIpPacket, parseIpv4, parseIpv6, sum16, type ParsedIp } from '../src/packet';
import { isFinal, observe, type TracedEgress, type TraceNodeView } from '../src/features/traceflow/observations';
import { probeSpec, protocolOf, traceMatchOf } from '../src/features/traceflow/probe';

const A: LocalPod = { name: 'a', namespace: 'ns', ofport: 10, ips: ['10.10.1.5'], mac: '02:00:00:00:00:0a' };
const B: LocalPod = { name: 'b', namespace: 'ns', ofport: 11, ips: ['10.10.1.6'], mac: '02:00:00:00:00:0b' };
const GW_MAC = '02:00:00:00:00:01';
/** A dual-stack pod. */
const A6: LocalPod = { ...A, ips: ['10.10.1.5', 'fd00:10:10:1::5'] };

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
    expect(parseIpv4(frame)).toEqual({ family: 4, srcIP: '10.10.1.5', dstIP: '10.10.2.7', dscp: 0, ttl: 64, protocol: 6, flags: 2, length: 40, srcPort: 40011, dstPort: 8080, tcpFlags: 2 });
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

  it('IPv6 TCP from a dual-stack pod: its IPv6 address, the tag in the traffic class on the wire, the TCP checksum over the IPv6 pseudo-header verifies', () => {
    const spec = probeSpec(tf({ packet: { ipv6Header: { hopLimit: 9 }, transportHeader: { tcp: { dstPort: 80 } } } }), A6, { ip: 'fd00:10:10:2::7' }, [A6], GW_MAC);
    expect(spec).toEqual({ srcMac: A6.mac, dstMac: GW_MAC, srcIP: 'fd00:10:10:1::5', dstIP: 'fd00:10:10:2::7', protocol: 6, ttl: 9, srcPort: 40011, dstPort: 80 });
    const frame = buildProbe(spec);
    expect(frame.length).toBe(14 + 40 + 20);
    expect([frame[12], frame[13], frame[14]! >> 4]).toEqual([0x86, 0xdd, 6]);
    // The switch loads the tag into the traffic class's DSCP bits (a packet-out action); a parse reads it back.
    const tagged = Uint8Array.from(frame);
    tagged[14] = 0x60 | (11 >> 2);
    tagged[15] = ((11 & 3) << 6) | (tagged[15]! & 0x0f);
    expect(parseIpv6(tagged)).toEqual({ family: 6, srcIP: 'fd00:10:10:1::5', dstIP: 'fd00:10:10:2::7', dscp: 11, ttl: 9, protocol: 6, flags: 0, length: 60, srcPort: 40011, dstPort: 80, tcpFlags: 2 });
    expect(parseIpPacket(tagged)).toEqual(parseIpv6(tagged));
    expect(parseIpv4(frame)).toBeUndefined();
    const pseudo = Uint8Array.from([...ipToBytes('fd00:10:10:1::5')!, ...ipToBytes('fd00:10:10:2::7')!, 0, 0, 0, 20, 0, 0, 0, 6]);
    expect(checksum(frame, 54, frame.length, sum16(pseudo))).toBe(0);
  });

  it('IPv6 by default is an ICMPv6 echo request (type 128) whose checksum covers the pseudo-header; UDP over IPv6 too', () => {
    const spec = probeSpec(tf({ packet: { ipv6Header: {} } }), A6, { ip: 'fd00:10:10:2::7' }, [A6], GW_MAC);
    expect(spec).toMatchObject({ protocol: 58, icmpId: 11, icmpSequence: 0 });
    const frame = buildProbe(spec);
    expect(frame[54]).toBe(128);
    const pseudo = (len: number, proto: number): Uint8Array => Uint8Array.from([...ipToBytes('fd00:10:10:1::5')!, ...ipToBytes('fd00:10:10:2::7')!, 0, 0, 0, len, 0, 0, 0, proto]);
    expect(checksum(frame, 54, frame.length, sum16(pseudo(16, 58)))).toBe(0);
    const udp = buildProbe(probeSpec(tf({ packet: { ipv6Header: { nextHeader: 17 } } }), A6, { ip: 'fd00:10:10:2::7', port: 53 }, [A6], GW_MAC));
    expect(checksum(udp, 54, udp.length, sum16(pseudo(8, 17)))).toBe(0);
    expect(protocolOf(tf({ packet: { ipv6Header: { nextHeader: 17 } } }), 6)).toBe(17);
  });

  it('the family: ipv6Header or an IPv6 address named asks for IPv6; an IPv6-only source pod is IPv6; a dual-stack pod without them IPv4', () => {
    expect(traceflowFamily(tf({ packet: { ipv6Header: {} } }).spec)).toBe(6);
    expect(traceflowFamily(tf({ destination: { ip: 'fd00::1' } }).spec)).toBe(6);
    expect(traceflowFamily(tf({}).spec, ['fd00:10:10:1::5'])).toBe(6);
    expect(traceflowFamily(tf({}).spec, A6.ips)).toBe(4);
  });

  it('an IPv6 trace from a pod without an IPv6 address is refused naming spec.source.pod; mixed families are refused', () => {
    expect(() => probeSpec(tf({ packet: { ipv6Header: {} } }), A, { ip: 'fd00::1' }, [A], GW_MAC)).toThrow(expect.objectContaining({ path: 'spec.source.pod', value: 'a', message: expect.stringContaining('has no IPv6 address') }));
    expect(() => buildProbe({ srcMac: A.mac, dstMac: GW_MAC, srcIP: '10.10.1.5', dstIP: 'fd00::1', protocol: 6 })).toThrow(expect.objectContaining({ path: 'dstIP' }));
    expect(() => buildProbe({ srcMac: A.mac, dstMac: GW_MAC, srcIP: 'fd00::5', dstIP: 'fd00::1', protocol: 1 })).toThrow(expect.objectContaining({ path: 'protocol', value: 1 }));
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

  it('IPv6: the packets of the pod\'s IPv6 address (ethType 0x86dd), the protocol from ipv6Header.nextHeader', () => {
    expect(traceMatchOf(tf({ liveTraffic: true, packet: { ipv6Header: { nextHeader: 17 }, transportHeader: { udp: { dstPort: 53 } } } }), A6, { ip: 'fd00:10:10:2::7' })).toEqual({ ethType: 0x86dd, ipv6Src: 'fd00:10:10:1::5', ipv6Dst: 'fd00:10:10:2::7', ipProto: 17, udpDst: 53 });
    expect(traceMatchOf(tf({ liveTraffic: true, source: {}, packet: { ipv6Header: {} } }), undefined, { ip: 'fd00:10:10:1::6' })).toEqual({ ethType: 0x86dd, ipv6Dst: 'fd00:10:10:1::6' });
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
  const pkt = (dstIP: string, srcIP = A.ips[0]!): ParsedIp => ({ family: 4, srcIP, dstIP, dscp: 11, ttl: 64, protocol: 6, flags: 2, length: 40 });
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

  it('IPv6 on a dual-stack node: to a peer\'s IPv6 pod CIDR through the tunnel, out of the overlay masqueraded to the node\'s IPv6 address, to the gateway\'s IPv6 delivered', () => {
    const v6: TraceNodeView = {
      ...view,
      gateway: { ofport: 2, ip: '10.10.1.1', ipv6: 'fd00:10:10:1::1' },
      nodeIPv6: 'fd00:77::1',
      podCIDRv6: 'fd00:10:10:1::/64',
      remoteNodes: [{ name: 'n2', podCIDR: '10.10.2.0/24', podCIDRv6: 'fd00:10:10:2::/64', nodeIP: '192.168.77.2', gatewayIP: '10.10.2.1' }],
    };
    const pkt6 = (dstIP: string): ParsedIp => ({ family: 6, srcIP: 'fd00:10:10:1::5', dstIP, dscp: 11, ttl: 64, protocol: 6, flags: 0, length: 60 });
    expect(observe(v6, { tableId: p.id('Output'), metadata: output(1), packet: pkt6('fd00:10:10:2::7') }, { sender: true, dstIP: 'fd00:10:10:2::7' }).at(-1))
      .toEqual({ component: 'Forwarding', componentInfo: 'Output', action: 'Forwarded', tunnelDstIP: '192.168.77.2' });
    expect(observe(v6, { tableId: p.id('Output'), metadata: output(2), packet: pkt6('2001:db8::1') }, { sender: true, dstIP: '2001:db8::1' }).at(-1))
      .toEqual({ component: 'Forwarding', componentInfo: 'Output', action: 'ForwardedOutOfOverlay', translatedSrcIP: 'fd00:77::1' });
    expect(observe(v6, { tableId: p.id('Output'), metadata: output(2), packet: pkt6('fd00:10:10:1::1') }, { sender: true, dstIP: 'fd00:10:10:1::1' }).at(-1)?.action).toBe('Delivered');
    // Not masqueraded without an IPv6 node address to masquerade to.
    const { nodeIPv6: _, ...noV6Address } = v6;
    expect(observe(noV6Address, { tableId: p.id('Output'), metadata: output(2), packet: pkt6('2001:db8::1') }, { sender: true }).at(-1)).toEqual({ component: 'Forwarding', componentInfo: 'Output', action: 'ForwardedOutOfOverlay' });
  });

  it('an IPv6 underlay: the tunnel destination is the tun_ipv6_dst the flows loaded (the peer\'s IPv6 node IP)', () => {
    const v6: TraceNodeView = {
      ...view,
      gateway: { ofport: 2, ipv6: 'fd00:10:10:1::1' },
      nodeIP: 'fd00:77::1',
      nodeIPv6: 'fd00:77::1',
      podCIDRv6: 'fd00:10:10:1::/64',
      pods: [],
      remoteNodes: [{ name: 'n2', podCIDRv6: 'fd00:10:10:2::/64', nodeIP: 'fd00:77::2', nodeIPv6: 'fd00:77::2' }],
    };
    const pkt6: ParsedIp = { family: 6, srcIP: 'fd00:10:10:1::5', dstIP: 'fd00:10:10:2::7', dscp: 11, ttl: 64, protocol: 58, flags: 0, length: 48 };
    expect(observe(v6, { tableId: p.id('Output'), metadata: { ...output(1), tunIpv6Dst: 'fd00:77::2' }, packet: pkt6 }, { sender: true, dstIP: pkt6.dstIP }).at(-1))
      .toEqual({ component: 'Forwarding', componentInfo: 'Output', action: 'Forwarded', tunnelDstIP: 'fd00:77::2' });
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
  const pkt = (srcIP: string, dstIP: string): ParsedIp => ({ family: 4, srcIP, dstIP, dscp: 11, ttl: 64, protocol: 6, flags: 2, length: 40 });
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
