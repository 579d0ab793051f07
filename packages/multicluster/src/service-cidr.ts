// Service CIDR discovery, Antrea's way: ask the API server to create a Service with an invalid
// ClusterIP and read the valid range out of its refusal ("... The range of valid IPs is <cidr>").
import { KubeRequestError, type KubeClient } from '@switchyard/kube';
import { MulticlusterError } from './errors';
import { deleteIgnoringMissing } from './sync';

/** Name of the probe Service (never stored: the API server refuses it). */
export const SERVICE_CIDR_PROBE = 'invalid-svc';

/** The CIDR an API server names in its invalid-ClusterIP error, or undefined. */
export function serviceCIDRFromError(message: string): string | undefined {
  const m = /The range of valid IPs is ([0-9a-fA-F.:]+\/\d{1,3})/.exec(message);
  return m?.[1];
}

/** Discovers the cluster's service CIDR by a refused Service create in `namespace`. */
export async function discoverServiceCIDR(kube: KubeClient, namespace: string): Promise<string> {
  const path = `/api/v1/namespaces/${namespace}/services`;
  try {
    await kube.request('POST', path, { apiVersion: 'v1', kind: 'Service', metadata: { name: SERVICE_CIDR_PROBE, namespace }, spec: { clusterIP: '0.0.0.0', ports: [{ port: 443, protocol: 'TCP' }] } });
  } catch (e) {
    if (!(e instanceof KubeRequestError)) throw e;
    const message = typeof e.body === 'object' && e.body !== null && 'message' in e.body ? String((e.body as { message: unknown }).message) : String(e.body);
    const cidr = e.status === 422 ? serviceCIDRFromError(message) : undefined;
    if (cidr) return cidr;
    throw new MulticlusterError('SERVICE_CIDR', `service CIDR discovery failed: the API server answered ${e.status} ${message}`, 'serviceCIDR', message);
  }
  await deleteIgnoringMissing(kube, `${path}/${SERVICE_CIDR_PROBE}`);
  throw new MulticlusterError('SERVICE_CIDR', 'service CIDR discovery failed: the API server accepted ClusterIP 0.0.0.0; set serviceCIDR in the configuration', 'serviceCIDR', '0.0.0.0');
}
