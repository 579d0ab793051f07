// Service CIDR discovery, Antrea's way: ask the API server to create a Service with an invalid
// ClusterIP and read the valid range out of its refusal ("... The range of valid IPs is <cidr>").
// One probe per family: ClusterIP 0.0.0.0 names the IPv4 range, :: the IPv6 one; a cluster
// without a family refuses that probe with "<family> is not configured on this cluster".
import { KubeRequestError, type KubeClient } from '@switchyard/kube';
import { MulticlusterError } from './errors';
import { deleteIgnoringMissing } from './sync';

/** Name of the probe Service (never stored: the API server refuses it). */
export const SERVICE_CIDR_PROBE = 'invalid-svc';

/** The service ranges of a cluster, by family (what its ClusterInfo carries). */
export interface ServiceCIDRs {
  /** The IPv4 range. */
  serviceCIDR?: string;
  /** The IPv6 range. */
  serviceCIDRv6?: string;
}

/** The CIDR an API server names in its invalid-ClusterIP error, or undefined. */
export function serviceCIDRFromError(message: string): string | undefined {
  const m = /The range of valid IPs is ([0-9a-fA-F.:]+\/\d{1,3})/.exec(message);
  return m?.[1];
}

/** True when the API server refused a probe because the cluster lacks the probe's family. */
export function familyNotConfigured(message: string): boolean {
  return /is not configured on this cluster/.test(message);
}

const PROBE_IP = { 4: '0.0.0.0', 6: '::' } as const;
const FIELD = { 4: 'serviceCIDR', 6: 'serviceCIDRv6' } as const;

/**
 * The service range of one family by a refused Service create in `namespace`: the range, or
 * undefined when the cluster does not have that family. Throws when the answer says neither.
 */
export async function discoverServiceCIDROf(kube: KubeClient, namespace: string, family: 4 | 6): Promise<string | undefined> {
  const path = `/api/v1/namespaces/${namespace}/services`;
  const ip = PROBE_IP[family];
  try {
    await kube.request('POST', path, { apiVersion: 'v1', kind: 'Service', metadata: { name: SERVICE_CIDR_PROBE, namespace }, spec: { clusterIP: ip, ports: [{ port: 443, protocol: 'TCP' }] } });
  } catch (e) {
    if (!(e instanceof KubeRequestError)) throw e;
    const message = typeof e.body === 'object' && e.body !== null && 'message' in e.body ? String((e.body as { message: unknown }).message) : String(e.body);
    const cidr = e.status === 422 ? serviceCIDRFromError(message) : undefined;
    if (cidr) return cidr;
    if (e.status === 422 && familyNotConfigured(message)) return undefined;
    throw new MulticlusterError('SERVICE_CIDR', `service CIDR discovery failed: the API server answered ${e.status} ${message}`, FIELD[family], message);
  }
  await deleteIgnoringMissing(kube, `${path}/${SERVICE_CIDR_PROBE}`);
  throw new MulticlusterError('SERVICE_CIDR', `service CIDR discovery failed: the API server accepted ClusterIP ${ip}; set ${FIELD[family]} in the configuration`, FIELD[family], ip);
}

/**
 * The cluster's service ranges of both families (an IPv4-only cluster has `serviceCIDR` alone, an
 * IPv6-only one `serviceCIDRv6` alone). Throws when a probe's answer names no range and no missing
 * family, or when the cluster has neither.
 */
export async function discoverServiceCIDRs(kube: KubeClient, namespace: string): Promise<ServiceCIDRs> {
  const v4 = await discoverServiceCIDROf(kube, namespace, 4);
  const v6 = await discoverServiceCIDROf(kube, namespace, 6);
  if (!v4 && !v6) throw new MulticlusterError('SERVICE_CIDR', 'service CIDR discovery failed: the API server says neither IPv4 nor IPv6 is configured', 'serviceCIDR', undefined);
  return { ...(v4 ? { serviceCIDR: v4 } : {}), ...(v6 ? { serviceCIDRv6: v6 } : {}) };
}

/** Discovers the cluster's IPv4 service CIDR (its only range on an IPv4 cluster); see {@link discoverServiceCIDRs} for both families. */
export async function discoverServiceCIDR(kube: KubeClient, namespace: string): Promise<string> {
  const cidr = await discoverServiceCIDROf(kube, namespace, 4);
  if (!cidr) throw new MulticlusterError('SERVICE_CIDR', 'service CIDR discovery failed: the cluster has no IPv4 Service range; use discoverServiceCIDRs', 'serviceCIDR', undefined);
  return cidr;
}
