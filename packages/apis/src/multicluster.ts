/**
 * Antrea Multi-cluster's conventions on plain objects that more than one component reads or
 * writes: the agent and the multi-cluster controller both use them, so they live with the types.
 */

/**
 * Node annotation where a gateway candidate's agent publishes the public key of its Multi-cluster
 * WireGuard device (agent `multicluster.trafficEncryptionMode: wireGuard`); the member copies it
 * into the Gateway and its ClusterInfo, where the other clusters' gateways read it.
 */
export const GATEWAY_WIREGUARD_KEY_ANNOTATION = 'multicluster.antrea.io/wireguard-public-key';

const sortedLabels = (labels: Record<string, string> | undefined): string =>
  Object.entries(labels ?? {})
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([k, v]) => `${k}=${v}`)
    .join(',');

/**
 * The normalized label of a LabelIdentity (`LabelIdentity.spec.label`, the `normalizedLabel` of a
 * LabelIdentity ResourceExport/Import): `ns:<namespace labels>&pod:<pod labels>`, keys sorted,
 * each list `key=value` joined by commas.
 */
export const normalizedLabel = (nsLabels: Record<string, string> | undefined, podLabels: Record<string, string> | undefined): string =>
  `ns:${sortedLabels(nsLabels)}&pod:${sortedLabels(podLabels)}`;
