/**
 * Feature lists: presets from the configuration, the deprecated constants, lists of the caller's
 * own (with a feature from outside the package), and the errors of lists that cannot work.
 */
import {
  EXTERNAL_NODE_FEATURES, NodePipeline, POD_NODE_FEATURES, computeNodeFlows, defineKind, dumpFlows, externalNodeFeatures, networkPolicy, nodeFeatures,
  podConnectivity, podKind, podNodeFeatures, remoteNodes, requiredTables, type Feature, type NodeConfig, type NodeState,
} from '../src/index';
import { qos } from './qos-feature';

const pod = (i: number) => ({ name: `p${i}`, namespace: 'ns', ofport: 10 + i, ips: [`10.10.0.${10 + i}`], mac: `02:00:00:00:00:${(16 + i).toString(16)}` });
const config = (over: Partial<NodeConfig> = {}): NodeConfig => ({
  round: 1, trafficMode: 'encap', gateway: { ofport: 2, ip: '10.10.0.1', mac: '02:00:00:00:00:01' }, tunnelOfport: 1, podCIDR: '10.10.0.0/24', nodeIP: '192.168.1.1', ...over,
});
const state = (over: Partial<NodeConfig> = {}): NodeState => ({
  config: config(over), pods: [pod(0), pod(1)], remoteNodes: [{ name: 'n2', podCIDR: '10.10.1.0/24', nodeIP: '192.168.1.2', gatewayIP: '10.10.1.1' }],
  addressGroups: [{ name: 'g', groupMembers: [{ ips: ['10.20.0.1'] }] }], appliedToGroups: [{ name: 'a', groupMembers: [{ ips: pod(0).ips }] }],
  policies: [{
    uid: 'k', name: 'k', namespace: 'ns', generation: 1, appliedToGroups: ['a'], sourceRef: { type: 'K8sNetworkPolicy', namespace: 'ns', name: 'k', uid: 'k' },
    rules: [{ direction: 'In', from: { addressGroups: ['g'], ipBlocks: [] }, to: { addressGroups: [], ipBlocks: [] }, services: [{ protocol: 'TCP', port: 80 }], priority: 0, enableLogging: false }],
  }],
  services: [{ groupId: 100, protocol: 'TCP', clusterIP: '10.96.0.1', port: 80, endpoints: [{ ip: pod(1).ips[0]!, port: 8080 }] }],
  fqdn: { conjId: 0xfffffff0, podOfports: [10] },
});

const FLAG_SETS: Partial<NodeConfig>[] = [
  {}, { enableProxy: true }, { enableAntreaPolicy: true }, { enableProxy: true, enableAntreaPolicy: true, packetInMeters: true, netdevDatapath: false },
  { enableProxy: true, wireGuard: true },
];

describe('presets', () => {
  it.each(FLAG_SETS)('podNodeFeatures(flags) computes what the deprecated constants computed (%j)', (flags) => {
    const s = state(flags);
    expect(dumpFlows(computeNodeFlows(s)).sort()).toEqual(dumpFlows(computeNodeFlows(s, { features: POD_NODE_FEATURES })).sort());
    expect(requiredTables(s)).toEqual(requiredTables(s, { features: POD_NODE_FEATURES }));
  });

  it('an ExternalNode gets externalNodeFeatures, as the deprecated EXTERNAL_NODE_FEATURES', () => {
    const s: NodeState = { ...state({ enableAntreaPolicy: true }), externalNode: { interfaces: [{ uplinkOfport: 1, pairOfport: 2, ips: ['10.10.0.10'] }] } };
    expect(nodeFeatures(s).map((f) => f.name)).toEqual(externalNodeFeatures(s.config).map((f) => f.name));
    expect(dumpFlows(computeNodeFlows(s)).sort()).toEqual(dumpFlows(computeNodeFlows(s, { features: EXTERNAL_NODE_FEATURES })).sort());
  });

  it('the switches pick the features and their options: Services with the proxy, FQDN with Antrea-native policy', () => {
    expect(podNodeFeatures({}).map((f) => f.name)).toEqual(['podConnectivity', 'remoteNodes', 'networkPolicy', 'multicluster']);
    const all = podNodeFeatures({ enableProxy: true, enableAntreaPolicy: true });
    expect(all.map((f) => f.name)).toEqual(['podConnectivity', 'remoteNodes', 'service', 'networkPolicy', 'multicluster', 'fqdn']);
    expect(all.find((f) => f.name === 'networkPolicy')!.config).toEqual({ antreaPolicy: true, proxy: true, packetInMeters: false, netdevDatapath: true });
  });

  it('a preset built again for every state (same options) is the same list: the pipeline recomputes only what changed', () => {
    const np = new NodePipeline();
    const s = state({ enableProxy: true });
    np.update(s);
    const d = np.update({ ...s, pods: [...s.pods, pod(2)] });
    expect(d.full).toBe(false);
    expect(d.recomputed).toBe(2); // the pod's connectivity and its Service hairpin flows
  });
});

describe('a list of the caller\'s own', () => {
  it('features read their own options, not NodeConfig\'s switches', () => {
    const s = state({ enableProxy: false, enableAntreaPolicy: false });
    const list = [podConnectivity({ proxy: true }), remoteNodes(), networkPolicy({ antreaPolicy: true })];
    const nf = computeNodeFlows(s, { features: list });
    expect(nf.pipeline.has('AntreaPolicyIngressRule')).toBe(true);
    expect(nf.pipeline.has('ServiceLB')).toBe(false);
    expect(dumpFlows(nf).some((l) => l.includes('table=Output, priority=210,ct_mark=0x40/0x40 actions=IN_PORT'))).toBe(true); // the proxy's hairpin output
  });

  it('NodePipeline({ features }) follows computeNodeFlows(state, { features }), with a feature from outside the package', () => {
    const list = [podConnectivity(), remoteNodes(), networkPolicy(), qos({ priority: 205 })];
    const s: NodeState = { ...state(), extensions: { qos: { marks: [{ pod: 'ns/p0', dscp: 46 }] } } };
    const np = new NodePipeline({ features: list });
    np.update(s);
    const lines = (flows: NodeState) => dumpFlows(computeNodeFlows(flows, { features: list })).sort();
    expect(dumpFlows({ pipeline: np.pipeline!, flows: np.flows() }).sort()).toEqual(lines({ ...s, conjIds: np.conjIds() }));
    expect(np.flows().some((f) => f.priority === 205 && f.match.ipv4Src === '10.10.0.10')).toBe(true);
    // The mark read its pod through the context: the pod's new address recomputes the mark.
    const moved = { ...s, pods: [{ ...pod(0), ips: ['10.10.0.99'] }, pod(1)] };
    const d = np.update(moved);
    expect(d.flows.add.some((f) => f.priority === 205 && f.match.ipv4Src === '10.10.0.99')).toBe(true);
    expect(d.flows.delete.some((f) => f.priority === 205 && f.match.ipv4Src === '10.10.0.10')).toBe(true);
  });
});

describe('lists that cannot work', () => {
  const base = (): Feature[] => [podConnectivity(), remoteNodes()];
  const code = (features: Feature[]) => {
    try {
      computeNodeFlows(state(), { features });
      return 'ok';
    } catch (e) {
      return `${(e as { code?: string }).code}: ${(e as Error).message}`;
    }
  };

  it('two features of one name', () => {
    expect(code([...base(), podConnectivity()])).toMatch(/^INVALID_FEATURE: two features are named podConnectivity/);
  });

  it('one kind declared twice, differently', () => {
    const other = defineKind({ name: 'pod', enumerate: (s) => s.pods.map((p) => [p.name, p] as const) });
    expect(code([...base(), { name: 'x', tables: () => [], kinds: [other] }])).toMatch(/^INVALID_FEATURE: kind pod is declared twice/);
  });

  it('flows per object of a kind the feature does not declare', () => {
    expect(code([...base(), { name: 'x', tables: () => [], perObject: { pod: () => ({ flows: [] }) } }])).toMatch(/^INVALID_FEATURE: feature x uses kind pod without declaring it/);
  });

  it('a read of a kind the feature does not declare, even when another feature declares it', () => {
    const reader: Feature = { name: 'x', tables: () => [], kinds: [], nodeFlows: (ctx) => ({ flows: ctx.podByIp('10.10.0.10') ? [] : [] }) };
    expect(code([...base(), reader])).toMatch(/^INVALID_FEATURE: feature x reads kind pod without declaring it/);
    expect(code([...base(), { ...reader, kinds: [podKind] }])).toBe('ok');
  });
});
