/** Property tests: policy flows are removable rule by rule; diff(a, b) applied to a gives b. */
import fc from 'fast-check';
import type { Flow } from '@switchyard/openflow/codec';
import {
  applyDiff, assignConjunctionIds, computeNodeFlows, diffFlows, flowKey, policyRuleKeys, portRangeToMasks,
  makeCookie, parseCookie, flowsOfPreviousRounds, CookieCategory, aggregateV4, flowHash, sameIdentity, networkPolicy, podConnectivity, service,
  type ComputeOptions, type NodeState, type NetworkPolicyRule,
} from '../src/index';

const pods = [1, 2, 3, 4].map((i) => ({ name: `p${i}`, namespace: 'ns', ofport: 10 + i, ips: [`10.10.0.${10 + i}`], mac: `02:00:00:00:00:0${i}` }));
const baseState = (): NodeState => ({
  config: { round: 3, trafficMode: 'encap', gateway: { ofport: 2, ip: '10.10.0.1', mac: '02:00:00:00:00:aa' }, tunnelOfport: 1, podCIDR: '10.10.0.0/24', nodeIP: '192.168.1.1', enableAntreaPolicy: true, enableProxy: true },
  pods, remoteNodes: [], policies: [], addressGroups: [{ name: 'g', groupMembers: [{ ips: ['10.20.0.1'] }, { ips: ['10.20.0.2'] }] }],
  appliedToGroups: [{ name: 'a', groupMembers: pods.map((p) => ({ ips: p.ips })) }],
});

const ruleArb: fc.Arbitrary<NetworkPolicyRule> = fc.record({
  direction: fc.constantFrom('In' as const, 'Out' as const),
  from: fc.record({ addressGroups: fc.constant(['g']), ipBlocks: fc.array(fc.record({ cidr: fc.constantFrom('10.30.0.0/16', '10.40.1.0/24'), except: fc.constantFrom([], ['10.30.5.0/24']) }), { maxLength: 1 }) }),
  to: fc.record({ addressGroups: fc.constant(['g']), ipBlocks: fc.constant([]) }),
  services: fc.array(fc.record({ protocol: fc.constantFrom('TCP' as const, 'UDP' as const), port: fc.integer({ min: 1, max: 65000 }), endPort: fc.option(fc.integer({ min: 65000, max: 65535 }), { nil: undefined }) }).map((s) => (s.endPort === undefined ? { protocol: s.protocol, port: s.port } : { protocol: s.protocol, port: s.port, endPort: s.endPort })), { maxLength: 2 }),
  action: fc.constantFrom('Allow' as const, 'Drop' as const, 'Reject' as const, 'Pass' as const),
  priority: fc.integer({ min: 0, max: 5 }),
  enableLogging: fc.boolean(),
});

const policyArb = fc.record({ native: fc.boolean(), prio: fc.integer({ min: 1, max: 20 }), rules: fc.array(ruleArb, { minLength: 1, maxLength: 3 }) });

function withPolicies(ps: { native: boolean; prio: number; rules: NetworkPolicyRule[] }[]): NodeState {
  const s = baseState();
  s.policies = ps.map((p, i) => ({
    uid: `pol${i}`, name: `pol${i}`, namespace: 'ns', appliedToGroups: ['a'], generation: 1,
    sourceRef: { type: p.native ? 'AntreaClusterNetworkPolicy' : 'K8sNetworkPolicy', namespace: 'ns', name: `pol${i}`, uid: `pol${i}` },
    ...(p.native ? { priority: p.prio, tierPriority: 250 } : {}),
    rules: p.native ? p.rules : p.rules.map((r) => ({ ...r, action: 'Allow' as const })),
  }));
  return s;
}

const keys = (fs: Flow[]): string[] => fs.map(flowKey).sort();

/** Adds random policies, then removes them one by one: the flows end as the base pipeline's. */
function removable(opts: ComputeOptions, numRuns: number): void {
  const base = keys(computeNodeFlows(baseState(), opts).flows);
  fc.assert(fc.property(fc.array(policyArb, { minLength: 1, maxLength: 4 }), (ps) => {
    let conj = new Map<string, number>();
    for (let n = ps.length; n >= 0; n--) {
      const s = withPolicies(ps.slice(0, n));
      conj = assignConjunctionIds(conj, policyRuleKeys(s));
      s.conjIds = conj;
      const flows = computeNodeFlows(s, opts).flows;
      if (n === 0) expect(keys(flows)).toEqual(base);
      else expect(flows.length).toBeGreaterThanOrEqual(base.length);
    }
  }), { numRuns });
}

describe('policy flows', () => {
  it('adding random rules then removing them one by one leaves exactly the base pipeline', () => {
    removable({}, 60);
  });

  it('the same with a feature list of the caller\'s own (no remote nodes, Multi-cluster or FQDN)', () => {
    removable({ features: [podConnectivity({ proxy: true }), service(), networkPolicy({ antreaPolicy: true, proxy: true })] }, 30);
  });

  it('keeps conjunction ids of surviving rules when others go away', () => {
    const a = assignConjunctionIds(new Map(), ['x/0', 'y/0', 'z/0']);
    const b = assignConjunctionIds(a, ['x/0', 'z/0', 'w/0']);
    expect(b.get('x/0')).toBe(a.get('x/0'));
    expect(b.get('z/0')).toBe(a.get('z/0'));
    expect(b.get('w/0')).toBe(a.get('y/0'));
  });
});

const flowArb: fc.Arbitrary<Flow> = fc.record({
  table: fc.integer({ min: 0, max: 5 }),
  priority: fc.constantFrom(0, 190, 200),
  match: fc.record({ inPort: fc.integer({ min: 1, max: 4 }) }, { requiredKeys: [] }),
  actions: fc.constantFrom<Flow['actions']>([], [{ type: 'gotoTable', table: 7 }], [{ type: 'output', port: 3 }]),
  cookie: fc.constant(1n),
});
const uniq = (fs: Flow[]): Flow[] => [...new Map(fs.map((f) => [flowKey(f), f])).values()];

describe('diff', () => {
  it('diff(a, b) applied to a yields b', () => {
    fc.assert(fc.property(fc.array(flowArb, { maxLength: 40 }), fc.array(flowArb, { maxLength: 40 }), (a0, b0) => {
      const a = uniq(a0);
      const b = uniq(b0);
      const d = diffFlows(b, a);
      const got = applyDiff(a, d);
      expect(got.map((f) => `${flowKey(f)}|${JSON.stringify(f.actions)}`).sort()).toEqual(b.map((f) => `${flowKey(f)}|${JSON.stringify(f.actions)}`).sort());
    }));
  });

  it('is stable under reordering and empty for equal sets', () => {
    fc.assert(fc.property(fc.array(flowArb, { maxLength: 30 }), fc.array(flowArb, { maxLength: 30 }), (a0, b0) => {
      const a = uniq(a0);
      const b = uniq(b0);
      expect(diffFlows([...b].reverse(), [...a].reverse())).toEqual(diffFlows(b, a));
      const same = diffFlows(a, [...a].reverse());
      expect(same.add.length + same.modify.length + same.delete.length).toBe(0);
    }));
  });

  it('reports a changed action as one modify, not delete+add', () => {
    const f: Flow = { table: 1, priority: 200, match: { inPort: 1 }, actions: [] };
    const d = diffFlows([{ ...f, actions: [{ type: 'output', port: 2 }] }], [f]);
    expect([d.add.length, d.modify.length, d.delete.length]).toEqual([0, 1, 0]);
  });
});

describe('port ranges and cookies', () => {
  it('port range masks cover exactly the range', () => {
    fc.assert(fc.property(fc.integer({ min: 0, max: 65535 }), fc.integer({ min: 0, max: 2000 }), (s, len) => {
      const e = Math.min(65535, s + len);
      const masks = portRangeToMasks(s, e);
      let covered = 0;
      for (const m of masks) covered += 0x10000 - m.mask;
      expect(covered).toBe(e - s + 1);
      for (const port of [s, e, Math.floor((s + e) / 2)]) expect(masks.some((m) => (port & m.mask) === m.value)).toBe(true);
      if (s > 0) expect(masks.some((m) => ((s - 1) & m.mask) === m.value)).toBe(false);
    }));
  });
  it('cookies carry round, category and object id; previous-round flows are found', () => {
    const c = makeCookie(0x1234, CookieCategory.Service, 77);
    expect(parseCookie(c)).toEqual({ round: 0x1234, category: 3, objectId: 77 });
    expect(makeCookie(1, CookieCategory.PodConnectivity)).toBe(0x1010000000000n);
    const stale = flowsOfPreviousRounds([{ cookie: makeCookie(1, 1) }, { cookie: makeCookie(2, 1) }], 2);
    expect(stale).toHaveLength(1);
  });
});

describe('address aggregation and flow identity', () => {
  const addrSet = (cidrs: string[]): Set<number> => {
    const out = new Set<number>();
    for (const c of cidrs) {
      const [a, l] = c.split('/');
      const base = a!.split('.').reduce((x, o) => x * 256 + Number(o), 0);
      for (let i = 0; i < 2 ** (32 - Number(l ?? 32)); i++) out.add(base + i);
    }
    return out;
  };
  const item = fc.tuple(fc.integer({ min: 0, max: 255 }), fc.constantFrom(32, 32, 32, 31, 30, 28)).map(([o, len]) => {
    const base = o - (o % 2 ** (32 - len));
    return len === 32 ? `10.1.2.${o}` : `10.1.2.${base}/${len}`;
  });

  it('aggregateV4 covers exactly the input addresses with disjoint CIDRs, never more than the input', () => {
    fc.assert(fc.property(fc.array(item, { maxLength: 60 }), (items) => {
      const out = aggregateV4(items);
      expect([...addrSet(out)].sort()).toEqual([...addrSet(items)].sort());
      expect(out.reduce((n, c) => n + 2 ** (32 - Number(c.split('/')[1] ?? 32)), 0)).toBe(addrSet(items).size);
      expect(out.length).toBeLessThanOrEqual(new Set(items).size);
    }));
  });

  it('flow identity ignores the order fields were written in, and diff agrees', () => {
    const a: Flow = { table: 3, priority: 200, match: { ethType: 0x800, ipv4Src: '10.0.0.1', reg1: 5 }, actions: [] };
    const b: Flow = { table: 3, priority: 200, match: { reg1: 5, ipv4Src: '10.0.0.1', ethType: 0x800 }, actions: [] };
    expect(flowHash(a)).toBe(flowHash(b));
    expect(sameIdentity(a, b)).toBe(true);
    expect(sameIdentity(a, { ...b, match: { ...b.match, reg1: 6 } })).toBe(false);
    expect(diffFlows([a], [b])).toEqual({ add: [], modify: [], delete: [] });
    expect(() => diffFlows([a, b], [])).toThrow(expect.objectContaining({ code: 'DUPLICATE_FLOW' }));
  });
});
