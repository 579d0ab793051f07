/**
 * Conversion of older served versions to the one internal form (the storage version) where
 * their schemas differ. Pure functions over parsed objects; inputs are not mutated. The table in
 * docs/apis.md lists each conversion.
 */
import { crdKindList, findCrd, parseApiVersion, storageVersion } from './crd-loader';
import { ManifestError } from './errors';

type Obj = Record<string, unknown>;

const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

/** `Deny` (early Antrea releases, seed documents) is `Drop` in the current API. */
function convertRuleActions(spec: Obj): void {
  for (const dir of ['ingress', 'egress']) {
    const rules = spec[dir];
    if (!Array.isArray(rules)) continue;
    for (const r of rules) if (isObj(r) && r['action'] === 'Deny') r['action'] = 'Drop';
  }
}

/** v1alpha2 IPPool ranges carry gateway/prefixLength/vlan; v1beta1 has one subnetInfo. */
function convertIPPoolV1alpha2(spec: Obj, path: string): void {
  const ranges = Array.isArray(spec['ipRanges']) ? (spec['ipRanges'] as unknown[]) : [];
  let subnet: Obj | undefined;
  spec['ipRanges'] = ranges.map((r, i) => {
    if (!isObj(r)) return r;
    const { gateway, prefixLength, vlan, ...range } = r;
    const info: Obj = { gateway, prefixLength, ...(vlan === undefined ? {} : { vlan }) };
    if (!subnet) subnet = info;
    else if (JSON.stringify(subnet) !== JSON.stringify(info)) {
      throw new ManifestError('UNSERVED_VERSION', 'v1alpha2 ranges with different subnets cannot convert to v1beta1', `${path}.ipRanges[${i}]`, r);
    }
    return range;
  });
  if (subnet) spec['subnetInfo'] = subnet;
  delete spec['ipVersion'];
}

/**
 * Convert a custom object of any served version to its kind's internal (storage-version) form:
 * `apiVersion` becomes the storage version and fields of older versions are rewritten:
 * - crd.antrea.io v1alpha1 ClusterNetworkPolicy / NetworkPolicy: action `Deny` -> `Drop`;
 * - crd.antrea.io v1alpha1 AntreaNetworkPolicy (legacy kind name): -> v1beta1 NetworkPolicy;
 * - crd.antrea.io v1alpha2 ClusterGroup: `spec.ipBlock` -> `spec.ipBlocks: [ipBlock]`;
 * - crd.antrea.io v1alpha2 IPPool: per-range gateway/prefixLength/vlan -> `spec.subnetInfo`;
 * - multicluster.crd.antrea.io v1alpha1 ClusterSet: `spec.members`, `leaders[].serviceAccount` dropped;
 * - ResourceExport/ResourceImport: the embedded `clusterNetworkPolicy` gets the ACNP conversion.
 * Other versions are identical in shape and only change `apiVersion`.
 * Throws ManifestError for kinds without a shipped CRD or unserved versions.
 */
export function toInternalVersion<T extends object>(input: T): T {
  const obj = structuredClone(input) as Obj;
  const apiVersion = typeof obj['apiVersion'] === 'string' ? obj['apiVersion'] : '';
  let kind = typeof obj['kind'] === 'string' ? obj['kind'] : '';
  const { group, version } = parseApiVersion(apiVersion);
  const crd = findCrd(group, kind);
  if (!crd) {
    throw new ManifestError('UNKNOWN_KIND', `no CRD for ${apiVersion} ${kind} (toInternalVersion converts the CRD kinds only: ${crdKindList()})`, 'kind', kind);
  }
  if (!crd.spec.versions.some((v) => v.name === version && v.served)) {
    throw new ManifestError('UNSERVED_VERSION', `version ${version} of ${kind} is not served`, 'apiVersion', apiVersion);
  }
  const spec = isObj(obj['spec']) ? obj['spec'] : undefined;

  if (group === 'crd.antrea.io' && kind === 'AntreaNetworkPolicy') {
    kind = 'NetworkPolicy';
    obj['kind'] = kind;
  }
  if (group === 'crd.antrea.io' && (kind === 'ClusterNetworkPolicy' || kind === 'NetworkPolicy') && version === 'v1alpha1' && spec) {
    convertRuleActions(spec);
  }
  if (group === 'crd.antrea.io' && kind === 'ClusterGroup' && version === 'v1alpha2' && spec && isObj(spec['ipBlock'])) {
    const blocks = Array.isArray(spec['ipBlocks']) ? (spec['ipBlocks'] as unknown[]) : [];
    spec['ipBlocks'] = [spec['ipBlock'], ...blocks];
    delete spec['ipBlock'];
  }
  if (group === 'crd.antrea.io' && kind === 'IPPool' && version === 'v1alpha2' && spec) {
    convertIPPoolV1alpha2(spec, 'spec');
  }
  if (group === 'multicluster.crd.antrea.io' && kind === 'ClusterSet' && version === 'v1alpha1' && spec) {
    delete spec['members'];
    if (Array.isArray(spec['leaders'])) {
      for (const l of spec['leaders']) if (isObj(l)) delete l['serviceAccount'];
    }
  }
  if (group === 'multicluster.crd.antrea.io' && (kind === 'ResourceExport' || kind === 'ResourceImport') && spec && isObj(spec['clusterNetworkPolicy'])) {
    convertRuleActions(spec['clusterNetworkPolicy']);
  }
  obj['apiVersion'] = `${group}/${storageVersion(group, kind) ?? version}`;
  return obj as T;
}
