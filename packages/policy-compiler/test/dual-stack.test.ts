// IPv6 and dual-stack: IPv6 ipBlocks and networks in every policy kind, both addresses of a
// dual-stack pod, Node and ExternalEntity in their groups (and on the wire), explain() per family,
// and mixed-family ipBlocks refused naming the except entry and both families.
import { bytesToIp, canonicalIp, decodeWatchEvent, encodeWatchEvent, type ExternalEntity, type Node, type Pod } from '@switchyard/apis';
import fc from 'fast-check';
import { ipText, isCanonicalIpv6 } from '../src/ip-text';
import { explain, PolicyEngine, queryEndpoint, toWatchEvents, validateK8sNetworkPolicy, type ClusterObject } from '../src/index';
import { acnp, annp, cg } from './cases/antrea-native';
import { namespace, node, pod } from './cases/model';

/** Pod `ns/name` with the model's IPv4 address and, when given, an IPv6 one (primary first). */
function dualPod(ref: string, v6: string, v4First = true): Pod {
  const p = pod(ref);
  const v4 = p.status?.podIP as string;
  const ips = v4First ? [v4, v6] : [v6, v4];
  return { ...p, status: { phase: 'Running', podIP: ips[0] as string, podIPs: ips.map((ip) => ({ ip })) } };
}
function v6Pod(ref: string, v6: string): Pod {
  const p = pod(ref);
  return { ...p, status: { phase: 'Running', podIP: v6, podIPs: [{ ip: v6 }] } };
}

/** x/a dual-stack (fd00:10::1), x/b IPv4-only, y/a dual-stack with IPv6 primary, y/b IPv6-only. */
function cluster(): ClusterObject[] {
  return [
    namespace('x'),
    namespace('y'),
    dualPod('x/a', 'fd00:10::1'),
    pod('x/b'),
    dualPod('y/a', 'fd00:20::1', false),
    v6Pod('y/b', 'fd00:20::2'),
    { ...node('node-1'), status: { addresses: [{ type: 'InternalIP', address: '192.168.0.1' }, { type: 'InternalIP', address: 'fd00:ff::1' }, { type: 'Hostname', address: 'node-1' }] } } as Node,
    node('node-2'),
  ];
}

function engineWith(...objs: ClusterObject[]): PolicyEngine {
  const e = new PolicyEngine();
  expect(e.load([...cluster(), ...objs])).toEqual([]);
  return e;
}

const k8sNp = (name: string, ns: string, spec: Record<string, unknown>): ClusterObject => ({ apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name, namespace: ns }, spec: { podSelector: {}, ...spec } }) as ClusterObject;
const ips = (members: { ips: string[] }[]): string[] => members.flatMap((m) => m.ips).sort();

describe('IPv6 ipBlocks, networks and peers compile in every policy kind', () => {
  it('K8s NetworkPolicy: an IPv6 ipBlock with except, canonical, beside an IPv4 one', () => {
    const e = engineWith(k8sNp('v6', 'x', { ingress: [{ from: [{ ipBlock: { cidr: 'FD00:0:0:0::/48', except: ['fd00:0:0:1::/64'] } }, { ipBlock: { cidr: '10.0.0.0/8', except: ['10.0.1.0/24'] } }] }] }));
    const rule = e.snapshot().networkPolicies[0]?.rules[0];
    expect(rule?.from.ipBlocks).toEqual([
      { cidr: 'fd00::/48', except: ['fd00:0:0:1::/64'] },
      { cidr: '10.0.0.0/8', except: ['10.0.1.0/24'] },
    ]);
  });

  it('ACNP and Antrea NetworkPolicy: IPv6 ipBlocks in ingress and egress', () => {
    const e = engineWith(
      acnp('c6', { priority: 1, appliedTo: [{ podSelector: {} }], egress: [{ action: 'Drop', to: [{ ipBlock: { cidr: '2001:db8::/32', except: ['2001:db8:1::/48'] } }] }] }),
      annp('n6', 'y', { priority: 1, appliedTo: [{ podSelector: {} }], ingress: [{ action: 'Allow', from: [{ ipBlock: { cidr: 'fd00:10::1/128' } }] }] }),
    );
    const byName = new Map(e.snapshot().networkPolicies.map((p) => [p.name, p]));
    expect(byName.get('c6')?.rules[0]?.to.ipBlocks).toEqual([{ cidr: '2001:db8::/32', except: ['2001:db8:1::/48'] }]);
    expect(byName.get('n6')?.rules[0]?.from.ipBlocks).toEqual([{ cidr: 'fd00:10::1/128', except: [] }]);
  });

  it('ClusterGroup ipBlocks of both families reach the policy that names the group', () => {
    const e = engineWith(
      cg('nets', { ipBlocks: [{ cidr: '10.9.0.0/16' }, { cidr: 'fd00:9::/64' }] }),
      acnp('to-nets', { priority: 1, appliedTo: [{ podSelector: {} }], egress: [{ action: 'Drop', to: [{ group: 'nets' }] }] }),
    );
    expect(e.snapshot().networkPolicies[0]?.rules[0]?.to.ipBlocks).toEqual([
      { cidr: '10.9.0.0/16', except: [] },
      { cidr: 'fd00:9::/64', except: [] },
    ]);
  });

  it('AdminNetworkPolicy: IPv6 networks, and a nodes peer carries the Node\'s addresses of both families', () => {
    const anp = { apiVersion: 'policy.networking.k8s.io/v1alpha1', kind: 'AdminNetworkPolicy', metadata: { name: 'anp6' }, spec: { priority: 10, subject: { namespaces: {} }, egress: [{ name: 'v6-nets', action: 'Deny', to: [{ networks: ['2001:DB8::/32', '10.20.0.0/16'] }] }, { name: 'nodes', action: 'Allow', to: [{ nodes: { matchLabels: { 'kubernetes.io/hostname': 'node-1' } } }] }] } } as ClusterObject;
    const e = engineWith(anp);
    const s = e.snapshot();
    expect(s.networkPolicies[0]?.rules[0]?.to.ipBlocks).toEqual([
      { cidr: '2001:db8::/32', except: [] },
      { cidr: '10.20.0.0/16', except: [] },
    ]);
    const group = s.addressGroups.find((g) => g.name === s.networkPolicies[0]?.rules[1]?.to.addressGroups[0]);
    expect(group?.groupMembers).toEqual([{ node: { name: 'node-1' }, ips: ['192.168.0.1', 'fd00:ff::1'] }]);
  });
});

describe('dual-stack members: both addresses in address and appliedTo groups', () => {
  const np = k8sNp('from-y', 'x', { ingress: [{ from: [{ namespaceSelector: { matchLabels: { ns: 'y' } } }] }] });

  it('a dual-stack pod contributes both addresses (primary first); an IPv6-only pod its one', () => {
    const s = engineWith(np).snapshot();
    const address = s.addressGroups[0]?.groupMembers ?? [];
    expect(address.map((m) => [m.pod?.name, m.ips])).toEqual([
      ['a', ['fd00:20::1', '10.0.2.1']],
      ['b', ['fd00:20::2']],
    ]);
    const applied = s.appliedToGroups[0]?.groupMembers ?? [];
    expect(applied.map((m) => [m.pod?.name, m.ips])).toEqual([
      ['a', ['10.0.1.1', 'fd00:10::1']],
      ['b', ['10.0.1.2']],
    ]);
  });

  it('a pod gaining its IPv6 address is patched into its groups with both addresses', () => {
    const e = engineWith(np);
    const d = e.apply({ type: 'MODIFIED', object: dualPod('x/b', 'fd00:10::2') });
    const events = [...d.nodes.values()].flatMap((nd) => toWatchEvents(nd));
    const patch = events.find((ev) => ev.kind === 'AppliedToGroupPatch');
    expect(patch?.kind === 'AppliedToGroupPatch' && patch.object.addedGroupMembers.map((m) => m.ips)).toEqual([['10.0.1.2', 'fd00:10::2']]);
    expect(ips(e.snapshot().appliedToGroups[0]?.groupMembers ?? [])).toEqual(['10.0.1.1', '10.0.1.2', 'fd00:10::1', 'fd00:10::2']);
  });

  it('ExternalEntities of a VM (an ExternalNode\'s interface) are policed by both addresses, in one spelling', () => {
    const ee: ExternalEntity = { apiVersion: 'crd.antrea.io/v1alpha2', kind: 'ExternalEntity', metadata: { name: 'vm1', namespace: 'y', labels: { role: 'vm' } }, spec: { endpoints: [{ ip: '172.16.0.5' }, { ip: 'FD00:AB:0::5' }], externalNode: 'vm1' } };
    const e = engineWith(ee, annp('vm-in', 'y', { priority: 1, appliedTo: [{ externalEntitySelector: { matchLabels: { role: 'vm' } } }], ingress: [{ action: 'Drop', from: [{ podSelector: {} }] }] }));
    const s = e.snapshot('vm1');
    expect(s.appliedToGroups[0]?.groupMembers).toEqual([{ externalEntity: { name: 'vm1', namespace: 'y' }, ips: ['172.16.0.5', 'fd00:ab::5'] }]);
    // The VM's IPv6 address is its own: explain finds the VM by it, in any spelling.
    expect(explain(e, { src: 'fd00:20::2', dst: 'fd00:ab:0:0::5', protocol: 'TCP', port: 22 })).toMatchObject({ allowed: false, ipFamily: 'IPv6', ingress: { policy: { name: 'vm-in' } } });
  });

  it('group members of both families cross the wire form unchanged', () => {
    const e = engineWith(np);
    for (const [, nd] of e.apply({ type: 'MODIFIED', object: dualPod('x/b', 'fd00:10::2') }).nodes) {
      for (const ev of toWatchEvents(nd)) expect(decodeWatchEvent(encodeWatchEvent(ev))).toEqual(ev);
    }
    for (const g of e.snapshot().addressGroups) {
      const ev = { type: 'ADDED' as const, kind: 'AddressGroup' as const, object: g };
      expect(decodeWatchEvent(encodeWatchEvent(ev))).toEqual(ev);
    }
  });

  it('queryEndpoint finds the policies of a dual-stack pod', () => {
    expect(queryEndpoint(engineWith(np), 'y/a').ingressSrcRules.map((r) => r.policy.name)).toEqual(['from-y']);
  });
});

describe('explain() answers per IP family', () => {
  // x/a may be reached from 10.0.2.0/24 (y's IPv4 addresses) and from fd00:20::/64 except y/b's.
  const np = k8sNp('blocks', 'x', { podSelector: { matchLabels: { pod: 'a' } }, ingress: [{ from: [{ ipBlock: { cidr: '10.0.2.0/24' } }, { ipBlock: { cidr: 'fd00:20::/64', except: ['fd00:20::2/128'] } }] }] });

  it('IPv6 source addresses against an IPv6 ipBlock and its except', () => {
    const e = engineWith(np);
    expect(explain(e, { src: 'fd00:20::7', dst: 'x/a', protocol: 'TCP', port: 80 })).toMatchObject({ allowed: true, ipFamily: 'IPv6', ingress: { reason: 'rule', policy: { name: 'blocks' } } });
    expect(explain(e, { src: 'fd00:20::2', dst: 'x/a', protocol: 'TCP', port: 80 })).toMatchObject({ allowed: false, ipFamily: 'IPv6', ingress: { reason: 'k8s-isolation' } });
    expect(explain(e, { src: 'fd00:99::1', dst: { ip: 'fd00:10::1' }, protocol: 'TCP', port: 80 }).allowed).toBe(false);
    // An IPv4 flow to the dual-stack pod says its family; between IPv4-only endpoints the answer is as it always was.
    expect(explain(e, { src: '10.0.2.9', dst: 'x/a', protocol: 'TCP', port: 80 })).toMatchObject({ allowed: true, ipFamily: 'IPv4' });
    expect(explain(e, { src: '10.0.2.9', dst: 'x/b', protocol: 'TCP', port: 80 })).not.toHaveProperty('ipFamily');
  });

  it('between dual-stack pods: the source\'s primary family, or the one asked for; an IPv4 block does not admit the pod\'s IPv6 flow', () => {
    const e = engineWith(k8sNp('v4-only', 'x', { podSelector: { matchLabels: { pod: 'a' } }, ingress: [{ from: [{ ipBlock: { cidr: '10.0.2.0/24' } }] }] }));
    // y/a's primary address is IPv6 (fd00:20::1), outside every block.
    expect(explain(e, { src: 'y/a', dst: 'x/a', protocol: 'TCP', port: 80 })).toMatchObject({ allowed: false, ipFamily: 'IPv6' });
    expect(explain(e, { src: 'y/a', dst: 'x/a', protocol: 'TCP', port: 80, ipFamily: 'IPv4' })).toMatchObject({ allowed: true, ipFamily: 'IPv4', ingress: { policy: { name: 'v4-only' } } });
    // x/a's primary is IPv4: to y/a (dual-stack) that is the flow's family.
    expect(explain(e, { src: 'x/a', dst: 'y/a', protocol: 'TCP', port: 80 }).ipFamily).toBe('IPv4');
    // y/b is IPv6-only: x/a reaches it over IPv6 (the one family both have).
    expect(explain(e, { src: 'x/a', dst: 'y/b', protocol: 'TCP', port: 80 }).ipFamily).toBe('IPv6');
  });

  it('a query whose endpoints share no family is refused naming the endpoint and the families', () => {
    const e = engineWith(np);
    expect(() => explain(e, { src: 'x/b', dst: 'y/b', protocol: 'TCP', port: 80 })).toThrow(/query\.dst: pod x\/b has only IPv4 addresses \(10\.0\.1\.2\) and pod y\/b only IPv6 \(fd00:20::2\)/);
    expect(() => explain(e, { src: '10.0.0.1', dst: 'fd00::1', protocol: 'TCP', port: 80 })).toThrow(expect.objectContaining({ code: 'INVALID_QUERY', path: 'query.dst', message: 'query.dst: fd00::1 is IPv6 but query.src 10.0.0.1 is IPv4: a flow has one IP family' }));
    expect(() => explain(e, { src: 'y/b', dst: 'x/a', protocol: 'TCP', port: 80, ipFamily: 'IPv4' })).toThrow('query.src: pod y/b has no IPv4 address (it has fd00:20::2)');
    expect(() => explain(e, { src: 'x/a', dst: 'x/b', protocol: 'TCP', ipFamily: 'IPv5' as never })).toThrow(expect.objectContaining({ code: 'INVALID_QUERY', path: 'query.ipFamily', value: 'IPv5' }));
  });
});

describe('mixed-family ipBlocks are refused naming the except entry and both families', () => {
  const message = 'spec.ingress[0].from[0].ipBlock.except[1]: fd00::/64 is IPv6 but cidr 10.0.0.0/8 is IPv4: an except must be of the cidr\'s family';

  it('K8s NetworkPolicy (validateK8sNetworkPolicy, as the API server runs it)', () => {
    const errs = validateK8sNetworkPolicy(k8sNp('mixed', 'x', { ingress: [{ from: [{ ipBlock: { cidr: '10.0.0.0/8', except: ['10.1.0.0/16', 'fd00::/64'] } }] }] }) as never);
    expect(errs.map((x) => [x.code, x.path, x.value, x.message])).toEqual([['IP_FAMILY_MISMATCH', 'spec.ingress[0].from[0].ipBlock.except[1]', 'fd00::/64', message]]);
  });

  it('ACNP, Antrea NetworkPolicy and ClusterGroup through the engine: refused, nothing compiled', () => {
    const e = engineWith();
    const refused = (o: ClusterObject) => (e.apply({ type: 'ADDED', object: o }).rejected?.errors ?? []).map((x) => [x.code, x.path, x.message]);
    expect(refused(acnp('m1', { priority: 1, appliedTo: [{ podSelector: {} }], ingress: [{ action: 'Drop', from: [{ ipBlock: { cidr: '10.0.0.0/8', except: ['10.1.0.0/16', 'fd00::/64'] } }] }] }))).toEqual([['IP_FAMILY_MISMATCH', 'spec.ingress[0].from[0].ipBlock.except[1]', message]]);
    expect(refused(annp('m2', 'x', { priority: 1, appliedTo: [{ podSelector: {} }], egress: [{ action: 'Drop', to: [{ ipBlock: { cidr: 'fd00::/48', except: ['10.0.0.0/24'] } }] }] }))).toEqual([['IP_FAMILY_MISMATCH', 'spec.egress[0].to[0].ipBlock.except[0]', 'spec.egress[0].to[0].ipBlock.except[0]: 10.0.0.0/24 is IPv4 but cidr fd00::/48 is IPv6: an except must be of the cidr\'s family']]);
    expect(refused(cg('m3', { ipBlocks: [{ cidr: '10.0.0.0/8', except: ['fd00::/64'] } as never] }))).toEqual([['IP_FAMILY_MISMATCH', 'spec.ipBlocks[0].except[0]', 'spec.ipBlocks[0].except[0]: fd00::/64 is IPv6 but cidr 10.0.0.0/8 is IPv4: an except must be of the cidr\'s family']]);
    expect(e.snapshot().networkPolicies).toEqual([]);
  });

  it('an IPv6 except outside its IPv6 cidr is the usual EXCEPT_OUTSIDE_CIDR', () => {
    const errs = validateK8sNetworkPolicy(k8sNp('out', 'x', { egress: [{ to: [{ ipBlock: { cidr: 'fd00:1::/64', except: ['fd00:2::/80'] } }] }] }) as never);
    expect(errs.map((x) => [x.code, x.path])).toEqual([['EXCEPT_OUTSIDE_CIDR', 'spec.egress[0].to[0].ipBlock.except[0]']]);
  });
});

describe('one spelling per IPv6 address', () => {
  // Zero groups in runs, so that the `::` choice is exercised, and every group value otherwise.
  const group = fc.oneof(fc.constant(0), fc.constant(0), fc.integer({ min: 0, max: 0xffff }));
  const address = fc.array(group, { minLength: 8, maxLength: 8 }).map((gs) => new Uint8Array(gs.flatMap((g) => [g >> 8, g & 255])));

  it('the fast check accepts exactly the canonical text, and ipText gives it for any spelling', () => {
    fc.assert(
      fc.property(address, fc.boolean(), fc.boolean(), (bytes, upper, full) => {
        const canonical = bytesToIp(bytes) as string;
        expect(isCanonicalIpv6(canonical)).toBe(!canonical.includes('.')); // mapped addresses keep a dotted tail
        expect(ipText(canonical)).toBe(canonical);
        // Another spelling of the same address: every group written out with leading zeros, or upper case.
        const groups = Array.from({ length: 8 }, (_, i) => (((bytes[2 * i] as number) << 8) | (bytes[2 * i + 1] as number)).toString(16));
        let other = full ? groups.map((g) => g.padStart(4, '0')).join(':') : groups.join(':');
        if (upper) other = other.toUpperCase();
        if (other !== canonical) expect(isCanonicalIpv6(other)).toBe(false);
        expect(ipText(other)).toBe(canonicalIp(other));
      }),
      { numRuns: 2000 },
    );
  });

  it('refuses single-group ::, a :: that is not the first longest run, and non-address text', () => {
    for (const t of ['1:0::2:3:4:5:6', '1::2:3:4:5:6:7', '1:0:0:0:2::3', '1:0:0:2::3:4', '::1:0:0:0:0', 'fd00::1::2', 'fd00:', ':fd00::1', 'fe80::1%eth0', '::ffff:1.2.3.4', 'FD00::1', 'fd00::01']) {
      expect([t, isCanonicalIpv6(t)]).toEqual([t, false]);
    }
    for (const t of ['::', '::1', 'fd00::', '0:0:1::', '1:0:0:2::3', '1::2:0:0:3', 'fd00:10:1::5', '2001:db8:0:1:1:1:1:1']) expect([t, isCanonicalIpv6(t)]).toEqual([t, true]);
    expect(ipText('not-an-ip:x')).toBe('not-an-ip:x');
    expect(ipText('10.0.0.1')).toBe('10.0.0.1');
  });
});
