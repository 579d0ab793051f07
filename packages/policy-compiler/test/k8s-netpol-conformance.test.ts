import type { controlplane } from '@switchyard/apis';
import { explain, PolicyEngine, type ClusterObject } from '../src/index';
import { acnp } from './cases/antrea-native';
import { ALL_PODS, baseModel, pod } from './cases/model';
import { k8sNetpolCases } from './cases/k8s-netpol';
import { runCase } from './cases/runner';

describe('Kubernetes upstream netpol e2e model, evaluated through explain', () => {
  it('has at least 40 cases, several of them multi-step', () => {
    expect(k8sNetpolCases.length).toBeGreaterThanOrEqual(40);
    expect(k8sNetpolCases.filter((c) => c.steps.length > 1).length).toBeGreaterThanOrEqual(8);
  });
  it.each(k8sNetpolCases.map((c) => [c.name, c] as const))('%s', (_name, c) => {
    expect(runCase(c)).toEqual([]);
  });
});

describe('named ports on rules without peers', () => {
  const nodes = ['node-1', 'node-2'];
  function engineWith(...extra: object[]): PolicyEngine {
    const e = new PolicyEngine();
    for (const o of [...baseModel(), ...extra]) e.apply({ type: 'ADDED', object: o as ClusterObject });
    return e;
  }
  const k8sNp = (name: string, spec: object): object => ({ apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name, namespace: 'x' }, spec: { podSelector: {}, ...spec } });
  const podsOf = (g: { groupMembers: { pod?: { namespace: string; name: string } }[] }): string[] => g.groupMembers.map((m) => `${m.pod?.namespace}/${m.pod?.name}`).sort();

  it('an egress rule with no `to` and a named port gets every address plus an address group of every pod', () => {
    const e = engineWith(k8sNp('egress-named', { policyTypes: ['Egress'], egress: [{ ports: [{ port: 'serve-80-tcp' }] }] }));
    const snap = e.snapshot();
    const to = snap.networkPolicies[0]?.rules[0]?.to;
    expect(to?.ipBlocks.map((b) => b.cidr)).toEqual(['0.0.0.0/0', '::/0']);
    expect(to?.addressGroups).toHaveLength(1);
    const group = snap.addressGroups.find((g) => g.name === to?.addressGroups[0]);
    expect(podsOf(group as controlplane.AddressGroup)).toEqual([...ALL_PODS].sort());
    // The members carry their container ports, which is what the agent resolves the name against.
    expect(group?.groupMembers.every((m) => m.ports?.some((p) => p.name === 'serve-80-tcp' && p.port === 80))).toBe(true);
    // Spanned like any address group: to every node running a pod the policy applies to.
    for (const n of nodes) expect(e.snapshot(n).addressGroups.map((g) => g.name)).toContain(group?.name);
  });

  it('the all-pods group follows pods created after the policy', () => {
    const e = engineWith(k8sNp('egress-named', { policyTypes: ['Egress'], egress: [{ ports: [{ port: 'serve-80-tcp' }] }] }));
    e.apply({ type: 'ADDED', object: pod('z/d') as ClusterObject });
    const snap = e.snapshot();
    const group = snap.addressGroups.find((g) => g.name === snap.networkPolicies[0]?.rules[0]?.to.addressGroups[0]);
    expect(podsOf(group as controlplane.AddressGroup)).toContain('z/d');
  });

  it('explain allows the named port to any pod and isolates other ports', () => {
    const e = engineWith(k8sNp('egress-named', { policyTypes: ['Egress'], egress: [{ ports: [{ port: 'serve-80-tcp' }] }] }));
    expect(explain(e, { src: 'x/a', dst: 'z/b', protocol: 'TCP', port: 80 })).toMatchObject({ allowed: true, egress: { reason: 'rule' } });
    expect(explain(e, { src: 'x/a', dst: 'z/b', protocol: 'TCP', port: 81 })).toMatchObject({ allowed: false, egress: { reason: 'k8s-isolation' } });
  });

  it('numbered ports and ingress rules keep the plain every-address peer', () => {
    const e = engineWith(
      k8sNp('egress-numbered', { policyTypes: ['Egress'], egress: [{ ports: [{ port: 80 }] }] }),
      // Ingress named ports resolve against the applied-to pods, so no group is needed (as in Antrea).
      k8sNp('ingress-named', { policyTypes: ['Ingress'], ingress: [{ ports: [{ port: 'serve-80-tcp' }] }] }),
    );
    const snap = e.snapshot();
    for (const p of snap.networkPolicies) for (const r of p.rules) expect([...r.from.addressGroups, ...r.to.addressGroups]).toEqual([]);
    expect(snap.addressGroups).toEqual([]);
  });

  it('an Antrea-native egress rule with no `to` and a named port gets the all-pods group too', () => {
    const e = engineWith(acnp('acnp-named', { priority: 1, appliedTo: [{ namespaceSelector: { matchLabels: { ns: 'x' } } }], egress: [{ action: 'Allow', ports: [{ port: 'serve-80-tcp' }] }] }));
    const snap = e.snapshot();
    const to = snap.networkPolicies[0]?.rules[0]?.to;
    expect(to?.ipBlocks.map((b) => b.cidr)).toEqual(['0.0.0.0/0', '::/0']);
    const group = snap.addressGroups.find((g) => g.name === to?.addressGroups[0]);
    expect(podsOf(group as controlplane.AddressGroup)).toEqual([...ALL_PODS].sort());
  });
});
