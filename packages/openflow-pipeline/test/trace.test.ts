/**
 * The traceable capability: for a Traceflow tag, pod connectivity and NetworkPolicy add flows that
 * send a tagged packet to the controller where they decide its fate. They are codec-canonical,
 * match the tag, carry the tag's Traceflow cookie and sit above the decision flows they report on.
 */
import { normalizeFlow, parseFlow, renderFlow, type Flow } from '@switchyard/openflow/codec';
import {
  CONTROLLER_ID, CookieCategory, NodePipeline, PACKETIN_CATEGORY, PACKETIN_METER_ID_TF, TRACEFLOW_TAGS, TraceflowTagField, canonical, computeNodeFlows,
  diffFlows, dumpFlows, isTraceable, liveTagFlow, nodeFeatures, traceCookie, parseCookie, podNodeFeatures, remoteNodes, traceFlows, type NodeConfig, type NodeState,
  type TraceContext,
} from '../src/index';
import { overlaps } from '../src/testing';

const A = { name: 'a', namespace: 'ns', ofport: 10, ips: ['10.10.0.10'], mac: '02:00:00:00:00:0a' };
const B = { name: 'b', namespace: 'ns', ofport: 11, ips: ['10.10.0.11'], mac: '02:00:00:00:00:0b' };
const none = { addressGroups: [], ipBlocks: [] };

function state(over: Partial<NodeConfig> = {}): NodeState {
  return {
    config: {
      round: 3, trafficMode: 'encap', gateway: { ofport: 2, ip: '10.10.0.1', mac: '02:00:00:00:00:01' }, tunnelOfport: 1, podCIDR: '10.10.0.0/24', nodeIP: '192.168.1.1',
      enableProxy: true, enableAntreaPolicy: true, ...over,
    },
    pods: [A, B], remoteNodes: [{ name: 'n2', podCIDR: '10.10.1.0/24', nodeIP: '192.168.1.2', gatewayIP: '10.10.1.1' }],
    addressGroups: [{ name: 'ga', groupMembers: [{ ips: A.ips }] }],
    appliedToGroups: [{ name: 'tb', groupMembers: [{ ips: B.ips }] }, { name: 'ta', groupMembers: [{ ips: A.ips }] }],
    policies: [
      // K8s NP isolating B for ingress and A for egress (default drops in both directions).
      { uid: 'k-in', name: 'k-in', namespace: 'ns', generation: 1, appliedToGroups: ['tb'], sourceRef: { type: 'K8sNetworkPolicy', namespace: 'ns', name: 'k-in', uid: 'k-in' },
        rules: [{ direction: 'In', from: { addressGroups: ['ga'], ipBlocks: [] }, to: none, services: [{ protocol: 'TCP', port: 80 }], priority: 0, enableLogging: false }] },
      { uid: 'k-out', name: 'k-out', namespace: 'ns', generation: 1, appliedToGroups: ['ta'], policyTypes: ['Egress'], sourceRef: { type: 'K8sNetworkPolicy', namespace: 'ns', name: 'k-out', uid: 'k-out' }, rules: [] },
      // An ACNP dropping TCP 9000 from A to B.
      { uid: 'c', name: 'c', namespace: '', generation: 1, appliedToGroups: ['tb'], priority: 1, tierPriority: 100, sourceRef: { type: 'AntreaClusterNetworkPolicy', namespace: '', name: 'c', uid: 'c' },
        rules: [{ direction: 'In', from: { addressGroups: ['ga'], ipBlocks: [] }, to: none, services: [{ protocol: 'TCP', port: 9000 }], action: 'Drop', priority: 0, enableLogging: false }] },
    ],
  };
}

function traced(s: NodeState, tag: number, extra: Partial<TraceContext> = {}) {
  const nf = computeNodeFlows(s);
  const ctx: TraceContext = { pipeline: nf.pipeline, config: s.config, controllerId: CONTROLLER_ID, flows: nf.flows, ...extra };
  return { nf, trace: traceFlows(nodeFeatures(s), ctx, tag) };
}

const TAG = TRACEFLOW_TAGS[0]!;
const named = (nf: { pipeline: { nameOf(id: number): string | undefined } }, f: Flow) => nf.pipeline.nameOf(f.table);

describe('trace flows', () => {
  const { nf, trace } = traced(state(), TAG);

  it('are in the codec\'s canonical form: each survives render -> parse -> normalize unchanged', () => {
    expect(trace.length).toBeGreaterThan(0);
    expect(trace.filter((f) => canonical(normalizeFlow(parseFlow(renderFlow(f)))) !== canonical(f)).map(renderFlow)).toEqual([]);
    expect(dumpFlows({ pipeline: nf.pipeline, flows: trace }).every((l) => l.includes(`dl_type=0x800,ip_dscp=${TAG}`))).toBe(true);
  });

  it('match the tag, carry its Traceflow cookie and send the packet to the controller as a Traceflow packet-in', () => {
    for (const f of trace) {
      expect(f.match).toMatchObject(TraceflowTagField.match(TAG));
      expect(parseCookie(f.cookie!)).toEqual({ round: 3, category: CookieCategory.Traceflow, objectId: TAG });
      expect(f.actions).toContainEqual({ type: 'controller', reason: 'no_match', id: CONTROLLER_ID, userdata: Uint8Array.of(PACKETIN_CATEGORY.TF) });
    }
  });

  it('sit above the decision flows they report on (same table, a lower priority, a match a tagged packet shares)', () => {
    const below = (t: Flow) => nf.flows.filter((d) => d.table === t.table && d.priority < t.priority && overlaps(d.match, t.match));
    for (const t of trace) expect([named(nf, t), below(t).length > 0]).toEqual([named(nf, t), true]);
  });

  it('NetworkPolicy: a copy of each K8s default drop with the tag, two above it; Antrea-native denies in both metric tables', () => {
    for (const table of ['IngressDefaultRule', 'EgressDefaultRule'] as const) {
      const drops = nf.flows.filter((f) => f.table === nf.pipeline.id(table) && f.actions.length === 0 && f.priority === 200);
      expect(drops.length).toBe(1);
      const copy = trace.find((t) => t.table === drops[0]!.table && t.priority === 202);
      expect(copy?.match).toEqual({ ...drops[0]!.match, ...TraceflowTagField.match(TAG) });
    }
    const metrics = trace.filter((t) => ['IngressMetric', 'EgressMetric'].includes(named(nf, t)!));
    expect(metrics.map((t) => [named(nf, t), t.priority, t.match.reg0])).toEqual([
      ['IngressMetric', 202, { value: 0x400, mask: 0x400 }], ['EgressMetric', 202, { value: 0x400, mask: 0x400 }],
    ]);
    // The ACNP's deny metric flow (APDeny + its conj id) is below the trace flow, which matches it for tagged packets.
    const deny = nf.flows.find((f) => named(nf, f) === 'IngressMetric' && f.actions.length === 0)!;
    expect(deny.priority).toBeLessThan(202);
    expect(overlaps(deny.match, metrics[0]!.match)).toBe(true);
  });

  it('pod connectivity: local output reports only, the tunnel goes on after reporting, Output\'s miss and conntrack\'s invalid drop report', () => {
    const out = (t: Flow) => named(nf, t) === 'Output';
    const byPrio = new Map(trace.filter(out).map((t) => [`${t.priority}/${t.match.reg1 ?? ''}`, t.actions.map((a) => a.type)]));
    expect(Object.fromEntries(byPrio)).toEqual({
      '212/': ['controller'], // any local port: the injected packet is not delivered
      '213/2': ['controller'], // the gateway in encap mode: the packet leaves the overlay, the trace ends
      '214/2': ['controller'], // the gateway's own address
      '213/1': ['output', 'controller'], // the tunnel: on to the next node, which reports it too
      '1/': ['controller'], // no port found (Output's miss would drop it)
    });
    expect(trace.some((t) => named(nf, t) === 'ConntrackState' && t.match.ctState?.inv === true && t.priority === 202)).toBe(true);
  });

  it('pod connectivity in noEncap mode: a packet to the gateway goes on (the host routes it to the peer)', () => {
    const s = state({ trafficMode: 'noEncap' });
    const t = traced(s, TAG);
    const gw = t.trace.find((f) => named(t.nf, f) === 'Output' && f.priority === 213 && f.match.reg1 === 2)!;
    expect(gw.actions.map((a) => a.type)).toEqual(['output', 'controller']);
    expect(t.trace.some((f) => f.match.reg1 === 1)).toBe(false); // no tunnel
  });

  it('pod connectivity: SpoofGuard\'s drop reports a tagged packet it does not know', () => {
    const sg = trace.filter((t) => named(nf, t) === 'SpoofGuard');
    expect(sg.map((t) => [t.priority, t.actions.map((a) => a.type)])).toEqual([[1, ['controller']]]);
  });

  it('live traffic: every output forwards the tagged packet as well as reporting it; drops only report', () => {
    const { nf: n, trace: t } = traced(state(), TAG, { live: true });
    const outputs = t.filter((f) => named(n, f) === 'Output' && f.priority > 200);
    expect(outputs.length).toBe(4);
    expect(outputs.every((f) => f.actions[0]?.type === 'output' && f.actions[1]?.type === 'controller')).toBe(true);
    expect(t.filter((f) => ['SpoofGuard', 'IngressDefaultRule', 'IngressMetric'].includes(named(n, f)!)).every((f) => f.actions.map((a) => a.type).join() === 'controller')).toBe(true);
  });

  it('droppedOnly: no output reports, every drop still reports', () => {
    const all = traced(state(), TAG).trace;
    const { nf: n, trace: t } = traced(state(), TAG, { droppedOnly: true });
    expect(t.some((f) => named(n, f) === 'Output' && f.priority > 200)).toBe(false);
    expect(t.length).toBe(all.length - 4);
    expect(t.every((f) => f.actions.every((a) => a.type !== 'output'))).toBe(true);
  });

  it('liveTagFlow tags untagged IP packets from the source port in the first table and starts the pipeline again', () => {
    const ctx: TraceContext = { pipeline: nf.pipeline, config: state().config, controllerId: CONTROLLER_ID, flows: nf.flows, hardTimeout: 30 };
    const f = liveTagFlow(ctx, TAG, A.ofport, { ipv4Dst: B.ips[0]!, ipProto: 6, tcpDst: 80 });
    expect(renderFlow(f)).toBe(`table=0,priority=65000,cookie=0x${traceCookie(ctx.config, TAG).toString(16)},hard_timeout=30,in_port=10,dl_type=0x800,ip_dscp=0,nw_proto=6,nw_dst=10.10.0.11,tcp_dst=80,actions=set_field:${TAG}->ip_dscp,resubmit(,0)`);
  });

  it('take the hard timeout and the Traceflow meter from the context', () => {
    const { trace: t } = traced(state(), TAG, { hardTimeout: 300, packetInMeter: true });
    expect(t.every((f) => f.hardTimeout === 300 && f.actions.some((a) => a.type === 'meter' && a.id === PACKETIN_METER_ID_TF))).toBe(true);
  });

  it('of two tags never share an identity, nor with the node\'s flows: both traces install beside the node', () => {
    const other = traced(state(), TRACEFLOW_TAGS[1]!).trace;
    expect(() => diffFlows([...nf.flows, ...trace, ...other], [])).not.toThrow();
  });
});

describe('traceFlows over a list', () => {
  it('collects from the traceable features only, in list order', () => {
    const s = state();
    const features = podNodeFeatures(s.config);
    expect(features.filter(isTraceable).map((f) => f.name)).toEqual(['podConnectivity', 'networkPolicy']);
    const nf = computeNodeFlows(s);
    const ctx = { pipeline: nf.pipeline, config: s.config, controllerId: CONTROLLER_ID, flows: nf.flows };
    expect(traceFlows([remoteNodes()], ctx, TAG)).toEqual([]);
    const all = traceFlows(features, ctx, TAG);
    expect(all.findIndex((f) => named(nf, f) === 'IngressMetric')).toBeGreaterThan(all.findIndex((f) => named(nf, f) === 'Output'));
  });

  it('takes a tag that fits the DSCP field and is not 0; Antrea\'s 14 tags are the pool-2 values 7..59', () => {
    const s = state();
    const nf = computeNodeFlows(s);
    const ctx = { pipeline: nf.pipeline, config: s.config, controllerId: CONTROLLER_ID, flows: nf.flows };
    for (const bad of [0, 64, -1, 1.5]) expect(() => traceFlows(nodeFeatures(s), ctx, bad)).toThrow(expect.objectContaining({ code: 'VALUE_OUT_OF_RANGE' }));
    expect(TRACEFLOW_TAGS).toEqual([7, 11, 15, 19, 23, 27, 31, 35, 39, 43, 47, 51, 55, 59]);
    expect(TRACEFLOW_TAGS.every((t) => (t & 0b11) === 0b11)).toBe(true);
  });

  it('NodePipeline.traceFlows(tag) is traceFlows of its features over its published flows', () => {
    const s = state();
    const np = new NodePipeline();
    expect(np.traceFlows(TAG)).toEqual([]);
    np.update(s);
    const ctx = { pipeline: np.pipeline!, config: s.config, controllerId: CONTROLLER_ID, flows: np.flows() };
    expect(canonical(np.traceFlows(TAG))).toBe(canonical(traceFlows(nodeFeatures(s), ctx, TAG)));
  });
});
