import type { ResourceExport } from '@switchyard/apis';
import { IMPORTED_ANNOTATION, acnpImportPlan, acnpResourceImports } from '../src';

const re: ResourceExport = {
  metadata: { name: 'strict-namespace-isolation-for-test-clusterset', namespace: 'antrea-multicluster' },
  spec: { kind: 'AntreaClusterNetworkPolicy', name: 'strict-namespace-isolation', clusterNetworkPolicy: { priority: 1, tier: 'securityops', appliedTo: [{ namespaceSelector: {} }], ingress: [{ action: 'Drop', from: [{ namespaceSelector: {} }] }] } },
};

describe('ACNP replication', () => {
  it('the leader imports an ACNP export as <name>-antreaclusternetworkpolicy', () => {
    const ris = acnpResourceImports([re], 'antrea-multicluster');
    expect(ris).toEqual([{ metadata: { name: 'strict-namespace-isolation-antreaclusternetworkpolicy', namespace: 'antrea-multicluster' }, spec: { kind: 'AntreaClusterNetworkPolicy', name: 'strict-namespace-isolation', clusterNetworkPolicy: re.spec.clusterNetworkPolicy } }]);
  });

  it('a member creates antrea-mc-<name> when the Tier exists', () => {
    const plan = acnpImportPlan({ resourceImports: acnpResourceImports([re], 'ns'), tierExists: (t) => t === 'securityops', clusterID: 'west' });
    expect(plan.failures).toEqual([]);
    expect(plan.policies).toEqual([{ apiVersion: 'crd.antrea.io/v1beta1', kind: 'ClusterNetworkPolicy', metadata: { name: 'antrea-mc-strict-namespace-isolation', annotations: { [IMPORTED_ANNOTATION]: 'true' } }, spec: re.spec.clusterNetworkPolicy }]);
  });

  it('a member creates no policy and reports a failure when the Tier is missing', () => {
    const plan = acnpImportPlan({ resourceImports: acnpResourceImports([re], 'ns'), tierExists: () => false, clusterID: 'test-cluster-west' });
    expect(plan.policies).toEqual([]);
    expect(plan.failures.map((f) => f.message)).toEqual(['ACNP Tier securityops does not exist in the importing cluster test-cluster-west']);
  });
});
