/** NodePipeline: what a change recomputes, what it publishes, and how it is undone. */
import {
  CookieCategory, NodePipeline, computeNodeFlows, dumpFlows, makeCookie, podKind, type Feature, type LocalPod, type NetworkPolicy, type NetworkPolicyRule,
  type NodeState,
} from '../src/index';

const pod = (i: number): LocalPod => ({ name: `p${i}`, namespace: 'ns', ofport: 10 + i, ips: [`10.10.0.${10 + i}`], mac: `02:00:00:00:00:${(16 + i).toString(16)}` });
const rule = (port: number): NetworkPolicyRule => ({
  direction: 'In', from: { addressGroups: ['clients'], ipBlocks: [] }, to: { addressGroups: [], ipBlocks: [] },
  services: [{ protocol: 'TCP', port }], action: 'Allow', priority: 0, enableLogging: false,
});
const acnp = (uid: string, priority: number, port: number, applied = 'web'): NetworkPolicy => ({
  uid, name: uid, namespace: '', generation: 1, priority, tierPriority: 250, appliedToGroups: [applied],
  sourceRef: { type: 'AntreaClusterNetworkPolicy', namespace: '', name: uid, uid }, rules: [rule(port)],
});

function state(over: Partial<NodeState> = {}): NodeState {
  return {
    config: {
      round: 1, trafficMode: 'encap', gateway: { ofport: 2, ip: '10.10.0.1', mac: '02:00:00:00:00:01' }, tunnelOfport: 1,
      podCIDR: '10.10.0.0/24', nodeIP: '192.168.1.1', enableProxy: true, enableAntreaPolicy: true,
    },
    pods: [pod(0), pod(1)], remoteNodes: [],
    addressGroups: [{ name: 'clients', groupMembers: [{ ips: ['10.20.0.1'] }] }],
    appliedToGroups: [{ name: 'web', groupMembers: [{ ips: pod(0).ips }] }, { name: 'db', groupMembers: [{ ips: pod(1).ips }] }],
    policies: [acnp('a', 1, 80), acnp('b', 2, 443, 'db')],
    ...over,
  };
}

const lines = (np: NodePipeline): string[] => dumpFlows({ pipeline: np.pipeline!, flows: np.flows() }).sort();

describe('NodePipeline', () => {
  it('starts with the full computation of the first state', () => {
    const np = new NodePipeline();
    const d = np.update(state());
    const nf = computeNodeFlows({ ...state(), conjIds: np.conjIds() });
    expect(d.full).toBe(true);
    expect(d.flows.add.length).toBe(nf.flows.length);
    expect(lines(np)).toEqual(dumpFlows(nf).sort());
  });

  it('a pod no policy selects recomputes only that pod (its connectivity and its Service hairpin flows)', () => {
    const np = new NodePipeline();
    const s = state();
    np.update(s);
    const d = np.update({ ...s, pods: [...s.pods, pod(2)] });
    expect(d.recomputed).toBe(2);
    expect(d.flows.add.length).toBeGreaterThan(0);
    expect(d.flows.modify.length + d.flows.delete.length).toBe(0);
  });

  it('a pod a policy applies to recomputes that policy too', () => {
    const np = new NodePipeline();
    const s = state();
    np.update(s);
    const moved = { ...pod(0), ofport: 40 };
    const d = np.update({ ...s, pods: [moved, pod(1)] });
    expect(d.recomputed).toBe(3);
    expect(d.flows.add.some((f) => f.match.reg1 === 40)).toBe(true);
    expect(d.flows.delete.some((f) => f.match.reg1 === 10)).toBe(true);
  });

  it('a policy change recomputes only that policy (the changed rule and the policy\'s own part) and keeps the other policy\'s conjunction id', () => {
    const np = new NodePipeline();
    const s = state();
    np.update(s);
    const ids = np.conjIds();
    const d = np.update({ ...s, policies: [acnp('a', 1, 8080), s.policies[1]!] });
    expect(d.recomputed).toBe(2);
    expect(np.conjIds()).toEqual(ids);
    expect(d.flows.add.map((f) => f.match.tcpDst)).toContain(8080);
    expect(d.flows.delete.map((f) => f.match.tcpDst)).toContain(80);
  });

  it('a group change recomputes the policies that read the group, and no others', () => {
    const np = new NodePipeline();
    const s = state();
    np.update(s);
    const d = np.update({ ...s, appliedToGroups: [s.appliedToGroups[0]!, { name: 'db', groupMembers: [{ ips: pod(0).ips }, { ips: pod(1).ips }] }] });
    expect(d.recomputed).toBe(1);
    expect(d.flows.add.some((f) => f.match.reg1 === 10)).toBe(true);
  });

  it('a new Antrea-native policy that moves others\' OpenFlow priorities recomputes those policies', () => {
    const np = new NodePipeline();
    const s = state({ policies: [acnp('a', 1.005, 80)] });
    np.update(s);
    const actionPriorities = (): number[] => np.flows().filter((f) => f.match.conjId !== undefined).map((f) => f.priority).sort();
    expect(actionPriorities()).toEqual([14900]);
    // Both policies' first guess is 14900; 'c' goes first (1.001 < 1.005) and pushes 'a' down one:
    // 'c' (its rule and its own part) and the rule of 'a' are computed.
    const next = { ...s, policies: [acnp('a', 1.005, 80), acnp('c', 1.001, 81)] };
    const d = np.update(next);
    expect(d.recomputed).toBe(3);
    expect(actionPriorities()).toEqual([14899, 14900]);
    expect(lines(np)).toEqual(dumpFlows(computeNodeFlows({ ...next, conjIds: np.conjIds() })).sort());
  });

  it('one rule changed in a policy of many recomputes that rule only (and the policy\'s own part)', () => {
    const np = new NodePipeline();
    const many = { ...acnp('m', 1, 1000), rules: Array.from({ length: 50 }, (_, i) => ({ ...rule(1000 + i), priority: i })) };
    const s = state({ policies: [many] });
    np.update(s);
    const ids = np.conjIds();
    const changed = { ...many, rules: many.rules.map((r, i) => (i === 7 ? { ...r, services: [{ protocol: 'TCP' as const, port: 9 }] } : r)) };
    const d = np.update({ ...s, policies: [changed] });
    expect(d.recomputed).toBe(2);
    expect(np.conjIds()).toEqual(ids);
    expect(d.flows.add.map((f) => f.match.tcpDst)).toEqual([9]);
    expect(d.flows.delete.map((f) => f.match.tcpDst)).toEqual([1007]);
  });

  it('a configuration change recomputes the whole node', () => {
    const np = new NodePipeline();
    const s = state();
    np.update(s);
    const d = np.update({ ...s, config: { ...s.config, enableProxy: false } });
    expect(d.full).toBe(true);
    expect(lines(np)).toEqual(dumpFlows(computeNodeFlows({ ...s, config: { ...s.config, enableProxy: false }, conjIds: np.conjIds() })).sort());
  });

  it('an unchanged state publishes nothing', () => {
    const np = new NodePipeline();
    np.update(state());
    const d = np.update(state());
    expect(d.recomputed).toBe(0);
    expect([d.flows.add, d.flows.modify, d.flows.delete, d.groups.add, d.groups.modify, d.groups.delete].every((l) => l.length === 0)).toBe(true);
  });

  it('rollback returns to the previous flows and ids, and the next update starts from there', () => {
    const np = new NodePipeline();
    const s = state();
    np.update(s);
    const flows = lines(np);
    const ids = np.conjIds();
    np.update({ ...s, policies: [acnp('x', 3, 22), s.policies[1]!], pods: [pod(1)] });
    np.rollback();
    expect(lines(np)).toEqual(flows);
    expect(np.conjIds()).toEqual(ids);
    const d = np.update({ ...s, pods: [...s.pods, pod(3)] });
    expect(d.recomputed).toBe(2);
  });

  it('a failed update (invalid input) leaves the published flows; the next valid state is diffed against them', () => {
    const np = new NodePipeline();
    const s = state();
    np.update(s);
    const flows = lines(np);
    const pass: NetworkPolicy = { ...acnp('k', 1, 80), sourceRef: { type: 'K8sNetworkPolicy', namespace: 'ns', name: 'k', uid: 'k' }, tierPriority: undefined as never };
    delete (pass as Partial<NetworkPolicy>).tierPriority;
    pass.rules = [{ ...rule(80), action: 'Pass' }];
    expect(() => np.update({ ...s, policies: [...s.policies, pass] })).toThrow(expect.objectContaining({ code: 'INVALID_INPUT' }));
    expect(lines(np)).toEqual(flows);
    const d = np.update({ ...s, pods: [...s.pods, pod(3)] });
    expect(d.full).toBe(true);
    expect(d.flows.delete).toEqual([]);
    expect(lines(np)).toEqual(dumpFlows(computeNodeFlows({ ...s, pods: [...s.pods, pod(3)], conjIds: np.conjIds() })).sort());
  });

  it('two merging features at one identity: the first decides, the second takes over when the first leaves, and back', () => {
    // Both add a conjunctive match flow of the same identity per pod; the first only for pod 0.
    const cookie = makeCookie(1, CookieCategory.NetworkPolicy);
    const merging = (name: string, idOf: (pod: LocalPod) => number | undefined): Feature => ({
      name, tables: () => ['Classifier'], kinds: [podKind], mergesConjunctions: true,
      perObject: {
        pod: (ctx, p) => {
          const id = idOf(p);
          if (id === undefined) return { flows: [] };
          return { flows: [{ table: ctx.pipeline.id('Classifier'), priority: 300, cookie, match: { ethType: 0x800 }, actions: [{ type: 'conjunction', id, clause: 1, nClauses: 2 }] }] };
        },
      },
    });
    const np = new NodePipeline({ features: [merging('first', (p) => (p.ofport === 10 ? p.ofport : undefined)), merging('second', (p) => 100 + p.ofport)] });
    const ids = (): number[] => {
      const f = np.flows().filter((x) => x.priority === 300);
      expect(f).toHaveLength(1);
      return f[0]!.actions.map((a) => (a.type === 'conjunction' ? a.id : -1)).sort((a, b) => a - b);
    };
    const s = state();
    np.update(s);
    expect(ids()).toEqual([10]);
    const d = np.update({ ...s, pods: [pod(1)] });
    expect(d.flows.modify).toHaveLength(1);
    expect(ids()).toEqual([111]);
    np.update(s);
    expect(ids()).toEqual([10]);
    np.update({ ...s, pods: [] });
    expect(np.flows().filter((x) => x.priority === 300)).toHaveLength(0);
    np.update(s);
    expect(ids()).toEqual([10]);
  });
});
