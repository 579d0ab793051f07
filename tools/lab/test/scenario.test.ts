import { expectedAllowed, formatScenario, formatTruthTable, objectPathOf, parseScenario, scenarioPods, substitutePodIPs, type ProbeResult } from '../src/scenario';

const TWO_STEPS = `
apiVersion: v1
kind: Namespace
metadata: {name: x}
---
apiVersion: v1
kind: Pod
metadata: {name: a, namespace: x, labels: {pod: a}}
spec: {containers: [{name: c, ports: [{containerPort: 80}]}]}
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: deny, namespace: x}
spec: {podSelector: {}, policyTypes: [Ingress]}
--- # step: the policy goes
$delete: true
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: deny, namespace: x}
---
apiVersion: lab.switchyard.io/v1alpha1
kind: Probe
probes:
- {protocol: udp, port: 80, expect: [{from: '*', to: 'x/*', allowed: false}]}
- {port: 81, sourcePort: 12345}
`;

describe('parseScenario', () => {
  it('splits steps at a `--- # step` line; `$delete: true` documents delete, Probe documents set the probes', () => {
    const sc = parseScenario(TWO_STEPS);
    expect(sc.steps).toHaveLength(2);
    expect(sc.steps[0]!.apply.map((o) => `${o.kind}/${o.metadata.name}`)).toEqual(['Namespace/x', 'Pod/a', 'NetworkPolicy/deny']);
    expect(sc.steps[0]!.probes).toBeUndefined();
    expect(sc.steps[1]!.apply).toEqual([]);
    expect(sc.steps[1]!.delete).toEqual([{ apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', name: 'deny', namespace: 'x' }]);
    expect(sc.steps[1]!.probes).toEqual([
      { protocol: 'UDP', port: 80, expect: [{ from: '*', to: 'x/*', allowed: false }] },
      { protocol: 'TCP', port: 81, sourcePort: 12345 },
    ]);
  });

  it('reads back what formatScenario writes', () => {
    const sc = parseScenario(TWO_STEPS);
    expect(parseScenario(formatScenario(sc, '# header\n'))).toEqual(sc);
  });

  it('a plain `---` separates documents of the same step', () => {
    expect(parseScenario('apiVersion: v1\nkind: Namespace\nmetadata: {name: x}\n---\napiVersion: v1\nkind: Namespace\nmetadata: {name: y}\n').steps).toHaveLength(1);
  });

  it.each([
    ['a kind it cannot apply', 'apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\n', 'UNKNOWN_KIND'],
    ['a document without a name', 'apiVersion: v1\nkind: Namespace\nmetadata: {}\n', 'INVALID_SCENARIO'],
    ['a probe without a port', 'apiVersion: lab.switchyard.io/v1alpha1\nkind: Probe\nprobes: [{protocol: TCP}]\n', 'INVALID_SCENARIO'],
    ['a probe on ICMP', 'apiVersion: lab.switchyard.io/v1alpha1\nkind: Probe\nprobes: [{protocol: ICMP, port: 1}]\n', 'INVALID_SCENARIO'],
    ['an expectation without a verdict', 'apiVersion: lab.switchyard.io/v1alpha1\nkind: Probe\nprobes: [{port: 80, expect: [{from: x/a, to: x/b}]}]\n', 'INVALID_SCENARIO'],
    ['an empty file', '# nothing\n', 'INVALID_SCENARIO'],
  ])('refuses %s with %s', (_what, text, code) => {
    expect(() => parseScenario(text, 'f.yaml')).toThrow(expect.objectContaining({ code }));
  });

  it('names the offending step and document', () => {
    expect(() => parseScenario('apiVersion: v1\nkind: Namespace\nmetadata: {name: x}\n--- # step\napiVersion: v1\nkind: Namespace\nmetadata: {}\n', 'f.yaml')).toThrow(
      expect.objectContaining({ path: 'f.yaml: step 2, document 1.metadata.name' }),
    );
  });
});

describe('scenario helpers', () => {
  it('lists the pods of every step, by ns/name', () => {
    expect([...scenarioPods(parseScenario(TWO_STEPS)).keys()]).toEqual(['x/a']);
  });

  it('builds REST paths for core, namespaced and cluster-scoped kinds', () => {
    expect(objectPathOf({ apiVersion: 'v1', kind: 'Pod', name: 'a', namespace: 'x' })).toBe('/api/v1/namespaces/x/pods/a');
    expect(objectPathOf({ apiVersion: 'crd.antrea.io/v1beta1', kind: 'ClusterNetworkPolicy', name: 'p' })).toBe('/apis/crd.antrea.io/v1beta1/clusternetworkpolicies/p');
    expect(objectPathOf({ apiVersion: 'policy.networking.k8s.io/v1alpha1', kind: 'BaselineAdminNetworkPolicy', name: 'default' })).toBe('/apis/policy.networking.k8s.io/v1alpha1/baselineadminnetworkpolicies/default');
  });

  it('replaces {{podIP ns/name}} anywhere in an object and refuses an unknown pod', () => {
    const ips: Record<string, string> = { 'y/b': '10.10.2.3' };
    const o = { spec: { egress: [{ to: [{ ipBlock: { cidr: '{{podIP y/b}}/32', except: ['{{ podIP y/b }}/32'] } }] }] } };
    expect(substitutePodIPs(o, (r) => ips[r])).toEqual({ spec: { egress: [{ to: [{ ipBlock: { cidr: '10.10.2.3/32', except: ['10.10.2.3/32'] } }] }] } });
    expect(() => substitutePodIPs(o, () => undefined, 'np')).toThrow(expect.objectContaining({ code: 'UNKNOWN_POD', path: 'np.spec.egress[0].to[0].ipBlock.cidr' }));
  });

  it('resolves podCIDR and cidr per family, and on a dual-stack run makes each array element holding one a copy per family', () => {
    const addrs: Record<string, { IPv4: string; IPv6: string }> = { 'x/b': { IPv4: '10.10.1.5', IPv6: 'fd00:10:1::5' }, 'y/a': { IPv4: '10.10.2.3', IPv6: 'fd00:10:2::3' } };
    const ipOf = (ref: string, f?: 'IPv4' | 'IPv6'): string | undefined => addrs[ref]?.[f ?? 'IPv4'];
    const np = { spec: { egress: [{ to: [{ ipBlock: { cidr: '{{cidr 10.0.0.0/8 fd00::/8}}', except: ['{{podCIDR x/b}}'] } }, { podSelector: {} }] }] } };
    const anp = { networks: ['0.0.0.0/0', '{{podCIDR y/a}}'] };
    // One family: resolved in it, nothing copied.
    expect(substitutePodIPs(np, ipOf, '', ['IPv4'])).toEqual({ spec: { egress: [{ to: [{ ipBlock: { cidr: '10.0.0.0/8', except: ['10.10.1.5/32'] } }, { podSelector: {} }] }] } });
    expect(substitutePodIPs(np, ipOf, '', ['IPv6'])).toEqual({ spec: { egress: [{ to: [{ ipBlock: { cidr: 'fd00::/8', except: ['fd00:10:1::5/128'] } }, { podSelector: {} }] }] } });
    // Both: the ipBlock peer becomes an IPv4 one and an IPv6 one, each of one family throughout.
    expect(substitutePodIPs(np, ipOf, '', ['IPv4', 'IPv6'])).toEqual({
      spec: { egress: [{ to: [{ ipBlock: { cidr: '10.0.0.0/8', except: ['10.10.1.5/32'] } }, { ipBlock: { cidr: 'fd00::/8', except: ['fd00:10:1::5/128'] } }, { podSelector: {} }] }] },
    });
    expect(substitutePodIPs(anp, ipOf, '', ['IPv4', 'IPv6'])).toEqual({ networks: ['0.0.0.0/0', '10.10.2.3/32', 'fd00:10:2::3/128'] });
    // No family given (an IPv4 lab): the primary address, IPv4's CIDR.
    expect(substitutePodIPs(anp, ipOf)).toEqual({ networks: ['0.0.0.0/0', '10.10.2.3/32'] });
    expect(() => substitutePodIPs({ cidr: '{{cidr fd00::/8 10.0.0.0/8}}' }, ipOf, 'cg')).toThrow(expect.objectContaining({ code: 'INVALID_PLACEHOLDER', path: 'cg.cidr' }));
    expect(() => substitutePodIPs({ cidr: '{{podCIDR x/b}}' }, () => undefined, 'cg', ['IPv6'])).toThrow(expect.objectContaining({ code: 'UNKNOWN_POD', message: expect.stringContaining('IPv6') }));
  });

  it('evaluates expectations as ordered overrides of "allowed" with * for namespace or pod', () => {
    const ex = [
      { from: '*', to: 'x/*', allowed: false },
      { from: 'y/a', to: 'x/*', allowed: true },
      { from: '*/b', to: 'x/c', allowed: true },
    ];
    expect(expectedAllowed(ex, 'z/a', 'x/a')).toBe(false);
    expect(expectedAllowed(ex, 'y/a', 'x/b')).toBe(true);
    expect(expectedAllowed(ex, 'z/b', 'x/c')).toBe(true);
    expect(expectedAllowed(ex, 'x/a', 'y/a')).toBe(true);
  });

  it('prints a truth table: rows from, columns to, . allowed, X blocked, ? unavailable, - not probed', () => {
    const r = (from: string, to: string, allowed: boolean | null): ProbeResult => ({ from, to, port: 80, protocol: 'TCP', allowed });
    expect(formatTruthTable([r('x/a', 'x/b', true), r('x/b', 'x/a', false)], ['x/a', 'x/b'])).toBe(['    x/a x/b', 'x/a -   .  ', 'x/b X   -  '].join('\n'));
    expect(formatTruthTable([r('x/a', 'x/b', null)], ['x/a', 'x/b']).split('\n')[1]).toBe('x/a -   ?  ');
  });
});
