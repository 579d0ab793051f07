import { PolicyEngine, type ClusterObject } from '../src/index';
import { acnp, cg, tier } from './cases/antrea-native';
import { baseModel } from './cases/model';
import { baseEngine } from './cases/runner';

const engine = baseEngine;
const codes = (e: PolicyEngine, o: object) => (e.apply({ type: 'ADDED', object: o as ClusterObject }).rejected?.errors ?? []).map((x) => [x.code, x.path]);

describe('validation with field paths; rejected objects leave the rest compiling', () => {
  it('K8s NetworkPolicy: bad CIDR, except outside cidr, endPort rules', () => {
    const np = { apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name: 'bad', namespace: 'x' }, spec: { podSelector: {}, egress: [{ to: [{ ipBlock: { cidr: '10.0.0.0/33' } }, { ipBlock: { cidr: '10.0.0.0/16', except: ['10.1.0.0/24'] } }], ports: [{ endPort: 90 }, { port: 90, endPort: 80 }, { port: 'http', endPort: 90 }] }] } };
    expect(codes(engine(), np)).toEqual([
      ['INVALID_CIDR', 'spec.egress[0].to[0].ipBlock.cidr'],
      ['EXCEPT_OUTSIDE_CIDR', 'spec.egress[0].to[1].ipBlock.except[0]'],
      ['END_PORT_WITHOUT_PORT', 'spec.egress[0].ports[0].endPort'],
      ['END_PORT_BELOW_PORT', 'spec.egress[0].ports[1].endPort'],
      ['NAMED_PORT_WITH_END_PORT', 'spec.egress[0].ports[2].endPort'],
    ]);
  });

  it('Antrea: unknown tier, Pass in baseline, duplicate rule names', () => {
    const e = engine();
    expect(codes(e, acnp('t', { tier: 'nope', priority: 1, appliedTo: [{ podSelector: {} }] }))).toEqual([['UNKNOWN_TIER', 'spec.tier']]);
    expect(codes(e, acnp('b', { tier: 'baseline', priority: 1, appliedTo: [{ podSelector: {} }], ingress: [{ action: 'Pass', name: 'r' }, { action: 'Drop', name: 'r' }] }))).toEqual([
      ['PASS_IN_BASELINE', 'spec.ingress[0].action'],
      ['DUPLICATE_RULE_NAME', 'spec.ingress[1].name'],
    ]);
  });

  it('Tiers: custom priority >= 250 and collisions', () => {
    const e = engine();
    expect(codes(e, tier('late', 250))).toEqual([['INVALID_TIER_PRIORITY', 'spec.priority']]);
    expect(codes(e, tier('clash', 100))).toEqual([['DUPLICATE_TIER_PRIORITY', 'spec.priority']]);
    expect(codes(e, tier('ok', 10))).toEqual([]);
    expect(codes(e, tier('clash2', 10))).toEqual([['DUPLICATE_TIER_PRIORITY', 'spec.priority']]);
  });

  it('ClusterGroups: cycles through childGroups', () => {
    const e = engine();
    expect(codes(e, cg('a', { childGroups: ['b'] }))).toEqual([]);
    expect(codes(e, cg('b', { childGroups: ['a'] }))).toEqual([['CYCLIC_GROUP', 'spec.childGroups[0]']]);
  });

  it('invalid label selector in a policy', () => {
    expect(codes(engine(), acnp('s', { priority: 1, appliedTo: [{ podSelector: { matchExpressions: [{ key: 'a', operator: 'Bogus' as never }] } }] }))).toEqual([['INVALID_LABEL_SELECTOR', 'spec.appliedTo[0].podSelector.matchExpressions[0].operator']]);
  });

  it('a rejected update keeps the previous version in force and is listed', () => {
    const e = engine();
    e.apply({ type: 'ADDED', object: acnp('p', { priority: 1, appliedTo: [{ podSelector: {} }], ingress: [{ action: 'Drop' }] }) });
    const before = e.snapshot();
    const d = e.apply({ type: 'MODIFIED', object: acnp('p', { priority: 1, tier: 'missing', appliedTo: [{ podSelector: {} }] }) });
    expect(d.rejected?.name).toBe('p');
    expect(d.nodes.size).toBe(0);
    expect(e.snapshot()).toEqual(before);
    expect(e.rejected().map((r) => r.name)).toEqual(['p']);
  });
});

describe('bulk load', () => {
  it('reports refused objects with their errors and compiles the rest', () => {
    const e = new PolicyEngine();
    const bad = acnp('bad-tier', { tier: 'nope', priority: 1, appliedTo: [{ podSelector: {} }] });
    const good = acnp('good', { priority: 1, appliedTo: [{ podSelector: { matchLabels: { pod: 'a' } } }], ingress: [{ action: 'Drop', from: [{ podSelector: { matchLabels: { pod: 'b' } } }] }] });
    const refused = e.load([bad, good, ...baseModel()] as ClusterObject[]);
    expect(refused.map((r) => [r.kind, r.name, r.errors.map((x) => x.code)])).toEqual([['ClusterNetworkPolicy', 'bad-tier', ['UNKNOWN_TIER']]]);
    expect(e.rejected()).toHaveLength(1);
    expect(e.snapshot().networkPolicies.map((p) => p.name)).toEqual(['good']);
  });

  it('refuses an unknown kind with a typed error before changing anything', () => {
    const e = new PolicyEngine();
    expect(() => e.load([...baseModel(), { apiVersion: 'v1', kind: 'Gadget', metadata: { name: 'g' } }] as ClusterObject[])).toThrow(expect.objectContaining({ code: 'UNKNOWN_KIND' }));
    expect(e.pods.size).toBe(0);
  });
});
