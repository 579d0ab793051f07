import { parse, stringify } from 'yaml';
import { asKnownObject, hasCrdSchema, isKnownObject, validateObject } from '../src/index';
import type { ClusterSet, ExternalNode, K8sNetworkPolicy, KnownObject } from '../src/index';
import { isManifest, seedDocs, withInferredApiVersion } from './support/seeds';

const docs = seedDocs();
const manifests = docs.filter(isManifest);
const label = (d: { file: string; index: number }): string => `${d.file}#${d.index}`;

describe('seed manifests', () => {
  test('the fixtures hold every manifest of the seed documents', () => {
    // 2 K8s NetworkPolicies, the ExternalNode guide's controller ConfigMap, ExternalNode,
    // ExternalEntity, Antrea NP, ServiceAccount + Secret + RoleBinding, 4 ClusterSets,
    // 4 antrea-config ConfigMaps of the multicluster guide, ServiceExport, mc-controller
    // ConfigMap, 2 ACNPs, 1 AntreaNetworkPolicy, ResourceExport.
    expect(manifests).toHaveLength(23);
  });

  test.each(manifests.map((d) => [label(d), d] as const))('%s is a known kind and re-serializes without loss', (_l, d) => {
    const obj: KnownObject = asKnownObject(withInferredApiVersion(d));
    expect(isKnownObject(obj)).toBe(true);
    expect(parse(stringify(obj))).toEqual(withInferredApiVersion(d));
    expect(JSON.parse(JSON.stringify(obj))).toEqual(withInferredApiVersion(d));
  });

  test.each(manifests.filter((d) => hasCrdSchema(String(withInferredApiVersion(d)['apiVersion']), String(d.value['kind']))).map((d) => [label(d), d] as const))(
    '%s is accepted by its CRD schema',
    (_l, d) => {
      expect(validateObject(withInferredApiVersion(d)).errors).toEqual([]);
    },
  );

  test('typed access reads the seed fields where the types say they are', () => {
    const byName = (kind: string, name: string): unknown =>
      manifests.find((d) => d.value['kind'] === kind && (d.value['metadata'] as { name?: string }).name === name)?.value;
    const np = byName('NetworkPolicy', 'nginx-allow') as K8sNetworkPolicy;
    expect(np.spec.ingress?.[0]?.from?.[0]?.podSelector?.matchLabels).toEqual({ app: 'nginx' });
    const en = byName('ExternalNode', 'vm1') as ExternalNode;
    expect(en.spec.interfaces[0]?.ips).toEqual(['172.16.100.3']);
    const cs = manifests.find((d) => d.file.includes('member-east'))?.value as unknown as ClusterSet;
    expect(cs.spec.leaders[0]).toEqual({ clusterID: 'test-cluster-north', secret: 'member-east-token', server: 'https://172.18.0.1:6443' });
  });
});
