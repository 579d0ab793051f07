// Pure: ClusterNetworkPolicy replication. The leader turns an AntreaClusterNetworkPolicy
// ResourceExport (written by the ClusterSet admin) into a ResourceImport; each member turns that
// into ACNP `antrea-mc-<name>`, or, when the policy's Tier does not exist there, into a failure
// to report as an ACNPImportFailed Event.
import type { ClusterNetworkPolicy, ResourceExport, ResourceImport } from '@switchyard/apis';
import { ACNP_KIND, IMPORTED_ANNOTATION, IMPORTED_PREFIX, acnpImportName } from './resources';

/** The leader's ResourceImports for the ACNP exports in its namespace. */
export function acnpResourceImports(exports: readonly ResourceExport[], leaderNamespace: string): ResourceImport[] {
  const out: ResourceImport[] = [];
  for (const re of exports) {
    if (re.spec.kind !== ACNP_KIND || !re.spec.name || !re.spec.clusterNetworkPolicy) continue;
    out.push({
      metadata: { name: acnpImportName(re.spec.name), namespace: leaderNamespace },
      spec: { kind: ACNP_KIND, name: re.spec.name, clusterNetworkPolicy: re.spec.clusterNetworkPolicy },
    });
  }
  return out.sort((a, b) => (a.metadata.name ?? '').localeCompare(b.metadata.name ?? ''));
}

/** Output of {@link acnpImportPlan}. */
export interface AcnpPlan {
  policies: ClusterNetworkPolicy[];
  /** Imports that could not be applied here, with the Event message. */
  failures: { resourceImport: ResourceImport; message: string }[];
}

/** A member's ACNPs `antrea-mc-<name>` from the leader's ACNP ResourceImports. */
export function acnpImportPlan(input: { resourceImports: readonly ResourceImport[]; tierExists: (tier: string) => boolean; clusterID: string }): AcnpPlan {
  const plan: AcnpPlan = { policies: [], failures: [] };
  for (const ri of input.resourceImports) {
    const spec = ri.spec.clusterNetworkPolicy;
    if (ri.spec.kind !== ACNP_KIND || !ri.spec.name || !spec) continue;
    const tier = spec.tier;
    if (tier && !input.tierExists(tier.toLowerCase())) {
      plan.failures.push({ resourceImport: ri, message: `ACNP Tier ${tier} does not exist in the importing cluster ${input.clusterID}` });
      continue;
    }
    plan.policies.push({
      apiVersion: 'crd.antrea.io/v1beta1',
      kind: 'ClusterNetworkPolicy',
      metadata: { name: `${IMPORTED_PREFIX}${ri.spec.name}`, annotations: { [IMPORTED_ANNOTATION]: 'true' } },
      spec,
    });
  }
  return plan;
}
