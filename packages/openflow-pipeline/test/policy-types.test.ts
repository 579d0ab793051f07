/** K8s NetworkPolicy policyTypes: isolation of a direction with no rules, and rules of unlisted directions. */
import { computeNodeFlows, dumpFlows, type NetworkPolicy, type NodeState } from '../src/index';

const web = { name: 'web', namespace: 'ns', ofport: 0x25, ips: ['10.10.0.24'], mac: '02:00:00:00:00:24' };
function state(policy: Partial<NetworkPolicy>): NodeState {
  return {
    config: { round: 1, trafficMode: 'encap', gateway: { ofport: 2, ip: '10.10.0.1', mac: '02:00:00:00:00:01' }, tunnelOfport: 1, podCIDR: '10.10.0.0/24', nodeIP: '192.168.77.100', enableAntreaPolicy: true },
    pods: [web], remoteNodes: [],
    addressGroups: [{ name: 'client', groupMembers: [{ ips: ['10.10.0.26'] }] }],
    appliedToGroups: [{ name: 'web', groupMembers: [{ ips: web.ips }] }],
    policies: [{ uid: 'np', name: 'np', namespace: 'ns', generation: 1, appliedToGroups: ['web'], sourceRef: { type: 'K8sNetworkPolicy', namespace: 'ns', name: 'np', uid: 'np' }, rules: [], ...policy }],
  };
}
const lines = (s: NodeState): string[] => dumpFlows(computeNodeFlows(s), { cookie: false });
const ingressDrop = 'table=IngressDefaultRule, priority=200,reg1=0x25 actions=drop';
const egressDrop = 'table=EgressDefaultRule, priority=200,dl_type=0x800,nw_src=10.10.0.24 actions=drop';
const fromClient = { direction: 'In' as const, from: { addressGroups: ['client'], ipBlocks: [] }, to: { addressGroups: [], ipBlocks: [] }, services: [], priority: 0, enableLogging: false };

describe('policyTypes', () => {
  it('policyTypes [Ingress] with no rules denies all ingress of the applied-to pods and nothing egress', () => {
    const l = lines(state({ policyTypes: ['Ingress'] }));
    expect(l).toContain(ingressDrop);
    expect(l.filter((x) => x.startsWith('table=EgressDefaultRule,') && !x.includes('priority=0'))).toEqual([]);
  });

  it('policyTypes [Egress] with no rules denies all egress of the applied-to pods and nothing ingress', () => {
    const l = lines(state({ policyTypes: ['Egress'] }));
    expect(l).toContain(egressDrop);
    expect(l.filter((x) => x.startsWith('table=IngressDefaultRule,') && !x.includes('priority=0'))).toEqual([]);
  });

  it('policyTypes [Ingress, Egress] with an ingress rule isolates both directions', () => {
    const l = lines(state({ policyTypes: ['Ingress', 'Egress'], rules: [fromClient] }));
    expect(l).toContain(ingressDrop);
    expect(l).toContain(egressDrop);
    expect(l.some((x) => x.startsWith('table=IngressRule,') && x.includes('nw_src=10.10.0.26'))).toBe(true);
  });

  it('a rule of a direction not in policyTypes does not apply (as in K8s)', () => {
    const l = lines(state({ policyTypes: ['Egress'], rules: [fromClient] }));
    expect(l.some((x) => x.includes('nw_src=10.10.0.26'))).toBe(false);
    expect(l).not.toContain(ingressDrop);
  });

  it('without policyTypes isolation follows the rules: an ingress rule isolates ingress only', () => {
    const l = lines(state({ rules: [fromClient] }));
    expect(l).toContain(ingressDrop);
    expect(l).not.toContain(egressDrop);
  });

  it('policyTypes is ignored for Antrea-native policies (their rules carry explicit actions)', () => {
    const l = lines(state({ policyTypes: ['Ingress'], tierPriority: 250, priority: 1, sourceRef: { type: 'AntreaClusterNetworkPolicy', namespace: '', name: 'np', uid: 'np' } }));
    expect(l).not.toContain(ingressDrop);
  });
});
