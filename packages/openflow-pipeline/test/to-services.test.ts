/**
 * Egress rules with `toServices` peers: the rule's destination clause matches the group ids of the
 * named Service's ports (the register the Service load balancing fills), `scope: ClusterSet` names
 * the multi-cluster Service imported as `antrea-mc-<name>`, and the incremental pipeline follows
 * Services that appear, change ports or go away.
 */
import { NodePipeline, computeNodeFlows, dumpFlows, type NetworkPolicyRule, type NodeState, type ServicePortSpec } from '../src/index';

const client = { name: 'client', namespace: 'ns', ofport: 0x25, ips: ['10.10.0.24'], mac: '02:00:00:00:00:24' };
const port = (groupId: number, service: string | undefined, clusterIP: string): ServicePortSpec => ({
  groupId, protocol: 'TCP', clusterIP, port: 80, endpoints: [{ ip: '10.10.0.30', port: 8080 }], ...(service !== undefined ? { service } : {}),
});
const dropTo = (toServices: NonNullable<NetworkPolicyRule['to']['toServices']>): NetworkPolicyRule => ({
  direction: 'Out', from: { addressGroups: [], ipBlocks: [] }, to: { addressGroups: [], ipBlocks: [], toServices }, services: [], action: 'Drop', priority: 0, enableLogging: false,
});
function state(rules: NetworkPolicyRule[], services: ServicePortSpec[]): NodeState {
  return {
    config: { round: 1, trafficMode: 'encap', gateway: { ofport: 2, ip: '10.10.0.1', mac: '02:00:00:00:00:01' }, tunnelOfport: 1, podCIDR: '10.10.0.0/24', nodeIP: '192.168.77.100', enableAntreaPolicy: true },
    pods: [client], remoteNodes: [], services,
    addressGroups: [],
    appliedToGroups: [{ name: 'client', groupMembers: [{ ips: client.ips }] }],
    policies: [{
      uid: 'acnp', name: 'acnp', namespace: '', generation: 1, appliedToGroups: ['client'], tierPriority: 250, priority: 1,
      sourceRef: { type: 'AntreaClusterNetworkPolicy', namespace: '', name: 'acnp', uid: 'acnp' }, rules,
    }],
  };
}
/** The egress rule table's match flows on the Service group register (reg7). */
const serviceClauses = (s: NodeState): string[] =>
  dumpFlows(computeNodeFlows(s), { cookie: false }).filter((l) => l.startsWith('table=AntreaPolicyEgressRule,') && l.includes('reg7=')).map((l) => /reg7=(0x[0-9a-f]+)/.exec(l)![1]!).sort();

const services = [port(0x7, 'ns/web', '10.96.0.10'), port(0x8, 'ns/web', '10.96.0.10'), port(0x9, 'ns/antrea-mc-web', '10.96.0.20'), port(0xa, 'other/web', '10.96.0.30'), port(0xb, undefined, '10.96.0.40')];

describe('toServices peers', () => {
  it('match the group ids of every port of the named Service, and nothing else', () => {
    expect(serviceClauses(state([dropTo([{ name: 'web', namespace: 'ns' }])], services))).toEqual(['0x7', '0x8']);
    const flows = dumpFlows(computeNodeFlows(state([dropTo([{ name: 'web', namespace: 'ns' }])], services)), { cookie: false });
    // Clause 2 of a two-clause conjunction (1: the applied-to pod as source).
    expect(flows.find((l) => l.includes('reg7=0x7'))).toMatch(/actions=conjunction\(\d+,2\/2\)/);
    expect(flows.some((l) => l.startsWith('table=AntreaPolicyEgressRule,') && l.includes('nw_src=10.10.0.24') && /conjunction\(\d+,1\/2\)/.test(l))).toBe(true);
  });

  it('each group id is matched in the register and in the ct_label EndpointDNAT commits it into (a retransmitted SYN skips ServiceLB)', () => {
    const flows = dumpFlows(computeNodeFlows(state([dropTo([{ name: 'web', namespace: 'ns' }])], services)), { cookie: false });
    const labels = flows.filter((l) => l.startsWith('table=AntreaPolicyEgressRule,') && l.includes('ct_label=')).map((l) => /ct_label=(0x[0-9a-f]+\/0x[0-9a-f]+)/.exec(l)![1]!).sort();
    expect(labels).toEqual(['0x7000000000000000000000000/0xffffffff000000000000000000000000', '0x8000000000000000000000000/0xffffffff000000000000000000000000']);
    expect(flows.find((l) => l.includes('ct_label=0x7000000000000000000000000/'))).toMatch(/actions=conjunction\(\d+,2\/2\)/);
    // The commit copies the register into the label; an affinity hit loads the register as the first pick did.
    const proxied = (st: NodeState): NodeState => ({ ...st, config: { ...st.config, enableProxy: true } });
    const dnat = dumpFlows(computeNodeFlows(proxied(state([], services))), { cookie: false }).filter((l) => l.startsWith('table=EndpointDNAT,') && l.includes('ct(commit'));
    expect(dnat.length).toBeGreaterThan(0);
    for (const l of dnat) expect(l).toContain('move:NXM_NX_REG7[]->NXM_NX_CT_LABEL[96..127]');
    const sticky = dumpFlows(computeNodeFlows(proxied(state([], [{ ...port(0x7, 'ns/web', '10.96.0.10'), affinityTimeout: 60 }]))), { cookie: false });
    expect(sticky.find((l) => l.includes('learn('))).toContain('load:NXM_NX_REG7[]->NXM_NX_REG7[]');
  });

  it('scope ClusterSet names the imported multi-cluster Service antrea-mc-<name>', () => {
    expect(serviceClauses(state([dropTo([{ name: 'web', namespace: 'ns', scope: 'ClusterSet' }])], services))).toEqual(['0x9']);
  });

  it('a Service this node does not know matches nothing (no clause, so no conjunction can match)', () => {
    expect(serviceClauses(state([dropTo([{ name: 'gone', namespace: 'ns' }])], services))).toEqual([]);
  });

  it('the incremental pipeline follows the Service: added, a port moved to another Service, removed', () => {
    const rules = [dropTo([{ name: 'web', namespace: 'ns' }])];
    const np = new NodePipeline();
    const check = (svcs: ServicePortSpec[], want: string[]): void => {
      const s = state(rules, svcs);
      np.update(s);
      const full = computeNodeFlows({ ...s, conjIds: np.conjIds() });
      expect(dumpFlows({ ...full, flows: np.flows() } as never, { cookie: false }).sort()).toEqual(dumpFlows(full, { cookie: false }).sort());
      expect(serviceClauses({ ...s, conjIds: np.conjIds() })).toEqual(want);
    };
    check([], []);
    check([port(0x7, 'ns/web', '10.96.0.10')], ['0x7']);
    check([port(0x7, 'ns/web', '10.96.0.10'), port(0x8, 'ns/db', '10.96.0.11')], ['0x7']);
    check([port(0x7, 'ns/db', '10.96.0.10'), port(0x8, 'ns/web', '10.96.0.11')], ['0x8']);
    check([port(0x7, 'ns/db', '10.96.0.10')], []);
  });
});
