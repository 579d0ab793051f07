import { createHash } from 'node:crypto';
import type { ExternalNode } from '@switchyard/apis';
import { externalEntitiesFor, externalEntityName } from '../src/externalnode';

const en = (interfaces: ExternalNode['spec']['interfaces'], labels?: Record<string, string>): ExternalNode => ({
  apiVersion: 'crd.antrea.io/v1alpha1',
  kind: 'ExternalNode',
  metadata: { name: 'vm1', namespace: 'vm-ns', uid: 'u-1', ...(labels ? { labels } : {}) },
  spec: { interfaces },
});

describe('externalEntitiesFor', () => {
  test('one unnamed interface gives the external-node.txt example entity', () => {
    expect(externalEntitiesFor(en([{ ips: ['172.16.100.3'], name: '' }], { role: 'db' }))).toEqual([
      {
        apiVersion: 'crd.antrea.io/v1alpha2',
        kind: 'ExternalEntity',
        metadata: { name: 'vm1', namespace: 'vm-ns', labels: { role: 'db' }, ownerReferences: [{ apiVersion: 'crd.antrea.io/v1alpha1', kind: 'ExternalNode', name: 'vm1', uid: 'u-1', controller: true, blockOwnerDeletion: true }] },
        spec: { endpoints: [{ ip: '172.16.100.3' }], externalNode: 'vm1' },
      },
    ]);
  });

  test('named interfaces are hashed with sha1 and cut to five hex digits, one entity each', () => {
    const out = externalEntitiesFor(en([{ ips: ['1.1.1.1'], name: 'eth0' }, { ips: ['2.2.2.2', '2.2.2.3'], name: 'eth1' }]));
    const h = (s: string): string => createHash('sha1').update(s).digest('hex').slice(0, 5);
    expect(out.map((e) => e.metadata.name)).toEqual([`vm1-${h('eth0')}`, `vm1-${h('eth1')}`]);
    expect(out[1]?.spec.endpoints).toEqual([{ ip: '2.2.2.2', name: 'eth1' }, { ip: '2.2.2.3', name: 'eth1' }]);
    expect(out[0]?.metadata.labels).toBeUndefined();
    // Known value, from `printf eth0 | sha1sum` = 3e616bf6...
    expect(externalEntityName(en([{ ips: [], name: 'eth0' }]), 'eth0')).toBe('vm1-3e616');
  });
});
