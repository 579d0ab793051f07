/** AntreaIPAM lookups: which pool an annotation names, and a pod's StatefulSet ordinal. */
import { firstPool, statefulSetOf } from '../src/features/ippools/ippools';

describe('firstPool', () => {
  it('takes the first name of `pool[,pool6]`, trimming blanks', () => {
    expect(firstPool('pool-a')).toBe('pool-a');
    expect(firstPool(' pool-a , pool-v6')).toBe('pool-a');
  });
  it('is undefined for an absent or empty value', () => {
    expect(firstPool(undefined)).toBeUndefined();
    expect(firstPool('')).toBeUndefined();
    expect(firstPool(' , ')).toBeUndefined();
  });
});

describe('statefulSetOf', () => {
  const owned = (name: string, owner = 'kv', kind = 'StatefulSet') => ({ metadata: { name, namespace: 'db', ownerReferences: [{ kind, name: owner, controller: true }] } });
  it('reads the ordinal from `<statefulset>-<n>`', () => {
    expect(statefulSetOf(owned('kv-0'))).toEqual({ name: 'kv', namespace: 'db', index: 0 });
    expect(statefulSetOf(owned('kv-12'))).toEqual({ name: 'kv', namespace: 'db', index: 12 });
    expect(statefulSetOf(owned('my-kv-3', 'my-kv'))).toEqual({ name: 'my-kv', namespace: 'db', index: 3 });
  });
  it('is undefined without a StatefulSet owner or an ordinal suffix', () => {
    expect(statefulSetOf({ metadata: { name: 'kv-0', namespace: 'db' } })).toBeUndefined();
    expect(statefulSetOf(owned('kv-0', 'kv', 'ReplicaSet'))).toBeUndefined();
    expect(statefulSetOf(owned('kv-x'))).toBeUndefined();
    expect(statefulSetOf(owned('kv-01'))).toBeUndefined();
    expect(statefulSetOf(owned('other-0'))).toBeUndefined();
  });
});
