import { explain, PolicyEngine, type ClusterObject } from '../src/index';
import { adminNetworkPolicyCases } from './cases/admin-network-policy';
import { acnp, antreaNativeCases } from './cases/antrea-native';
import { baseModel } from './cases/model';
import { runCase } from './cases/runner';

describe('Antrea-native semantics (after antreapolicy_test.go)', () => {
  it('covers the named behaviours', () => {
    expect(antreaNativeCases.length).toBeGreaterThanOrEqual(17);
  });
  it.each(antreaNativeCases.map((c) => [c.name, c] as const))('%s', (_n, c) => {
    expect(runCase(c)).toEqual([]);
  });

  function engineWith(...extra: object[]): PolicyEngine {
    const e = new PolicyEngine();
    for (const o of [...baseModel(), ...extra]) e.apply({ type: 'ADDED', object: o as ClusterObject });
    return e;
  }

  it('reports Reject and the deciding policy and rule', () => {
    const e = engineWith(acnp('reject', { priority: 1, appliedTo: [{ podSelector: { matchLabels: { pod: 'a' } } }], ingress: [{ name: 'no-b', action: 'Reject', from: [{ podSelector: { matchLabels: { pod: 'b' } } }] }] }));
    const r = explain(e, { src: 'x/b', dst: 'y/a', protocol: 'TCP', port: 80 });
    expect(r).toMatchObject({ allowed: false, action: 'Reject', ingress: { reason: 'rule', policy: { name: 'reject', type: 'AntreaClusterNetworkPolicy' }, rule: { index: 0, name: 'no-b' } } });
  });

  it('nodeSelector: egress Drop to one Node, by IP', () => {
    const e = engineWith(acnp('drop-node-1', { priority: 1, appliedTo: [{ podSelector: { matchLabels: { pod: 'a' } } }], egress: [{ action: 'Drop', to: [{ nodeSelector: { matchLabels: { 'kubernetes.io/hostname': 'node-1' } } }] }] }));
    expect(explain(e, { src: 'x/a', dst: '192.168.0.1', protocol: 'TCP', port: 10250 }).allowed).toBe(false);
    expect(explain(e, { src: 'x/a', dst: '192.168.0.2', protocol: 'TCP', port: 10250 }).allowed).toBe(true);
    expect(explain(e, { src: 'x/b', dst: '192.168.0.1', protocol: 'TCP', port: 10250 }).allowed).toBe(true);
  });

  it('nodeSelector appliedTo: the Node is the member and the span', () => {
    const e = engineWith(acnp('host-ingress', { priority: 1, appliedTo: [{ nodeSelector: { matchLabels: { 'kubernetes.io/hostname': 'node-2' } } }], ingress: [{ action: 'Drop', from: [{ ipBlock: { cidr: '10.0.1.0/24' } }] }] }));
    const snap = e.snapshot('node-2');
    expect(snap.networkPolicies.map((p) => p.name)).toEqual(['host-ingress']);
    expect(e.snapshot('node-1').networkPolicies).toEqual([]);
    expect(explain(e, { src: 'x/a', dst: '192.168.0.2', protocol: 'TCP', port: 22 }).allowed).toBe(false);
  });

  it('fqdn egress rule matches the queried name, wildcard included', () => {
    const e = engineWith(acnp('no-example', { priority: 1, appliedTo: [{ podSelector: {} }], egress: [{ action: 'Drop', to: [{ fqdn: '*.example.com' }] }] }));
    expect(explain(e, { src: 'x/a', dst: '93.184.216.34', protocol: 'TCP', port: 443, fqdn: 'www.example.com' }).allowed).toBe(false);
    expect(explain(e, { src: 'x/a', dst: '93.184.216.34', protocol: 'TCP', port: 443, fqdn: 'example.org' }).allowed).toBe(true);
  });

  describe('toServices matches traffic addressed to the Service, not to its endpoints (as Antrea)', () => {
    const svc = { apiVersion: 'v1', kind: 'Service', metadata: { name: 'svc-ya', namespace: 'y' }, spec: { selector: { pod: 'a' }, clusterIP: '10.96.0.10', clusterIPs: ['10.96.0.10'], ports: [{ port: 80 }, { port: 53, protocol: 'UDP' }] } };
    const dropSvc = acnp('drop-svc', { priority: 1, appliedTo: [{ namespaceSelector: { matchLabels: { ns: 'x' } } }], egress: [{ name: 'no-svc', action: 'Drop', toServices: [{ name: 'svc-ya', namespace: 'y' }] }] });

    it('drops the applied-to pods\' traffic to the ClusterIP on a Service port', () => {
      const e = engineWith(svc, dropSvc);
      expect(explain(e, { src: 'x/a', dst: '10.96.0.10', protocol: 'TCP', port: 80 })).toMatchObject({ allowed: false, action: 'Drop', egress: { reason: 'rule', policy: { name: 'drop-svc' }, rule: { index: 0, name: 'no-svc' } } });
      expect(explain(e, { src: 'x/b', dst: { ip: '10.96.0.10' }, protocol: 'UDP', port: 53 }).allowed).toBe(false);
    });

    it('does not match traffic sent to a backend pod\'s IP', () => {
      const e = engineWith(svc, dropSvc);
      expect(explain(e, { src: 'x/a', dst: 'y/a', protocol: 'TCP', port: 80 })).toMatchObject({ allowed: true, egress: { reason: 'default-allow' } });
      expect(explain(e, { src: 'x/a', dst: '10.0.2.1', protocol: 'TCP', port: 80 }).allowed).toBe(true);
    });

    it('does not match the ClusterIP on a port or protocol the Service does not serve', () => {
      const e = engineWith(svc, dropSvc);
      expect(explain(e, { src: 'x/a', dst: '10.96.0.10', protocol: 'TCP', port: 81 }).allowed).toBe(true);
      expect(explain(e, { src: 'x/a', dst: '10.96.0.10', protocol: 'UDP', port: 80 }).allowed).toBe(true);
    });

    it('leaves pods outside the appliedTo alone', () => {
      const e = engineWith(svc, dropSvc);
      expect(explain(e, { src: 'z/a', dst: '10.96.0.10', protocol: 'TCP', port: 80 }).allowed).toBe(true);
    });

    it('scope ClusterSet means the imported multi-cluster Service antrea-mc-<name>, not the local one', () => {
      const imported = { ...svc, metadata: { name: 'antrea-mc-svc-ya', namespace: 'y' }, spec: { ...svc.spec, clusterIP: '10.96.0.20', clusterIPs: ['10.96.0.20'] } };
      const dropMc = acnp('drop-mc', { priority: 1, appliedTo: [{ namespaceSelector: { matchLabels: { ns: 'x' } } }], egress: [{ name: 'no-mc', action: 'Drop', toServices: [{ name: 'svc-ya', namespace: 'y', scope: 'ClusterSet' }] }] });
      const e = engineWith(svc, imported, dropMc);
      expect(explain(e, { src: 'x/a', dst: '10.96.0.20', protocol: 'TCP', port: 80 })).toMatchObject({ allowed: false, egress: { policy: { name: 'drop-mc' } } });
      expect(explain(e, { src: 'x/a', dst: '10.96.0.10', protocol: 'TCP', port: 80 }).allowed).toBe(true);
    });
  });

  it('ICMP type/code rules', () => {
    const e = engineWith(acnp('no-ping', { priority: 1, appliedTo: [{ podSelector: {} }], ingress: [{ action: 'Drop', protocols: [{ icmp: { icmpType: 8, icmpCode: 0 } }] }] }));
    expect(explain(e, { src: 'x/a', dst: 'y/a', protocol: 'ICMP', icmpType: 8, icmpCode: 0 }).allowed).toBe(false);
    expect(explain(e, { src: 'x/a', dst: 'y/a', protocol: 'ICMP', icmpType: 0, icmpCode: 0 }).allowed).toBe(true);
    expect(explain(e, { src: 'x/a', dst: 'y/a', protocol: 'TCP', port: 80 }).allowed).toBe(true);
  });

  it('ClusterSet-scoped peers compile to label identities', () => {
    const li = { apiVersion: 'multicluster.crd.antrea.io/v1alpha1', kind: 'LabelIdentity', metadata: { name: 'li-1' }, spec: { label: 'ns:kubernetes.io/metadata.name=x,ns=x&pod:pod=a', id: 7 } };
    const e = engineWith(li, acnp('stretched', { priority: 1, appliedTo: [{ podSelector: {} }], ingress: [{ action: 'Drop', from: [{ podSelector: { matchLabels: { pod: 'a' } }, scope: 'ClusterSet' }] }] }));
    expect(e.snapshot().networkPolicies[0]?.rules[0]?.from.labelIdentities).toEqual([7]);
  });
});

describe('AdminNetworkPolicy and BaselineAdminNetworkPolicy (network-policy-api conformance style)', () => {
  it.each(adminNetworkPolicyCases.map((c) => [c.name, c] as const))('%s', (_n, c) => {
    expect(runCase(c)).toEqual([]);
  });
});
