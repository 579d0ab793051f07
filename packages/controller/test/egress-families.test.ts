// A dual-stack Egress's pools, one per family (pure): two pools of one family refused naming the
// second entry, its value and the first; one IPv4 and one IPv6 pool, a missing pool and a single
// pool not judged; the webhook's decision says the same.
import type { Egress, ExternalIPPool } from '@switchyard/apis/types';
import type { KubeObject } from '@switchyard/kube';
import { decideAdmission, type AdmissionView } from '../src/admission';
import { egressPoolFamilyErrors } from '../src/egress';

const egress = (name: string, spec: Partial<Egress['spec']>): Egress => ({
  apiVersion: 'crd.antrea.io/v1beta1',
  kind: 'Egress',
  metadata: { name },
  spec: { appliedTo: { podSelector: { matchLabels: { app: name } } }, ...spec },
});
const pool = (name: string, range: { cidr: string } | { start: string; end: string }): ExternalIPPool => ({ apiVersion: 'crd.antrea.io/v1beta1', kind: 'ExternalIPPool', metadata: { name }, spec: { ipRanges: [range], nodeSelector: {} } });
const POOLS = [pool('a4', { cidr: '10.1.0.0/28' }), pool('b4', { start: '10.2.0.1', end: '10.2.0.9' }), pool('a6', { cidr: 'fd00:1::/120' }), pool('b6', { start: 'fd00:2::1', end: 'fd00:2::9' })];
const view = (eips: ExternalIPPool[]): AdmissionView => ({ tiers: () => [], clusterGroups: () => [], groups: () => [], clusterNetworkPolicies: () => [], antreaNetworkPolicies: () => [], externalIPPools: () => eips });

describe('a dual-stack Egress takes one pool per family', () => {
  test('two IPv4 pools: the second entry refused, naming field, value and the first', () => {
    const errs = egressPoolFamilyErrors(egress('e', { externalIPPools: ['a4', 'b4'] }), POOLS);
    expect(errs.map((e) => [e.path, e.value])).toEqual([['spec.externalIPPools[1]', 'b4']]);
    expect(errs[0]!.message).toContain('ExternalIPPool b4 is IPv4, as spec.externalIPPools[0] (a4) is: a dual-stack Egress takes one IPv4 and one IPv6 pool');
  });

  test('two IPv6 pools after an IPv4 one: the third entry refused, naming the second', () => {
    const errs = egressPoolFamilyErrors(egress('e', { externalIPPools: ['a6', 'a4', 'b6'] }), POOLS);
    expect(errs.map((e) => [e.path, e.value])).toEqual([['spec.externalIPPools[2]', 'b6']]);
    expect(errs[0]!.message).toContain('ExternalIPPool b6 is IPv6, as spec.externalIPPools[0] (a6) is');
  });

  test('one pool per family, a pool not stored yet, a single pool: nothing to refuse', () => {
    expect(egressPoolFamilyErrors(egress('e', { externalIPPools: ['a4', 'a6'] }), POOLS)).toEqual([]);
    expect(egressPoolFamilyErrors(egress('e', { externalIPPools: ['a4', 'later'] }), POOLS)).toEqual([]);
    expect(egressPoolFamilyErrors(egress('e', { externalIPPool: 'a4' }), POOLS)).toEqual([]);
    expect(egressPoolFamilyErrors(egress('e', { externalIPPools: ['a6'] }), POOLS)).toEqual([]);
  });

  test('the webhook refuses it in kube-apiserver\'s words and allows a pool of each family', () => {
    const bad = decideAdmission('egress', { operation: 'CREATE', object: egress('e', { externalIPPools: ['a4', 'b4'] }) as unknown as KubeObject }, view(POOLS));
    expect(bad.allowed).toBe(false);
    expect(bad.message).toContain('spec.externalIPPools[1]: Invalid value: "b4"');
    expect(decideAdmission('egress', { operation: 'CREATE', object: egress('e', { externalIPPools: ['a4', 'a6'] }) as unknown as KubeObject }, view(POOLS))).toEqual({ allowed: true });
    expect(decideAdmission('egress', { operation: 'DELETE' }, view(POOLS))).toEqual({ allowed: true });
  });
});
