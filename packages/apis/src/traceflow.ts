/** Traceflow constants shared by the controller (which hands out tags) and the pipeline (which matches them). */

/**
 * The data-plane tags the controller hands out to concurrent Traceflows, as Antrea does: the DSCP
 * values of RFC 2474's pool 2 (`xxxx11`, experimental or local use), 7 to 59 in steps of 4. A
 * Traceflow beyond these waits (phase Pending) until one is released.
 */
export const TRACEFLOW_TAGS: readonly number[] = Array.from({ length: 14 }, (_, i) => 7 + 4 * i);

/** A Traceflow's timeout when `spec.timeout` is absent, in seconds (Antrea's default). */
export const TRACEFLOW_DEFAULT_TIMEOUT_S = 20;

/** The longest `spec.timeout` accepted, in seconds (Antrea's limit). */
export const TRACEFLOW_MAX_TIMEOUT_S = 300;

/** What {@link podAddresses} reads of a Pod. */
export interface PodAddressesInput {
  status?: { podIP?: string; podIPs?: readonly { ip: string }[] } | null;
}

/** A Pod's addresses: `status.podIPs`, else `status.podIP` (a Pod whose status has no podIPs); none before it has one. */
export function podAddresses(pod: PodAddressesInput | undefined): string[] {
  const st = pod?.status;
  if (st?.podIPs) return st.podIPs.map((x) => x.ip);
  return st?.podIP ? [st.podIP] : [];
}

/** The addresses of `ips` of one family (4 or 6): IPv6 text holds a colon, IPv4 text never does. */
export function addressesOfFamily(ips: readonly string[], family: 4 | 6): string[] {
  return ips.filter((ip) => ip.includes(':') === (family === 6));
}

/** What {@link traceflowFamily} reads of a Traceflow. */
export interface TraceflowFamilyInput {
  source: { ip?: string };
  destination: { ip?: string };
  packet?: { ipv6Header?: object };
}

/**
 * The IP family of a Traceflow's packet, as Antrea decides it: IPv6 when `spec.packet.ipv6Header`
 * is set (even empty: it asks for IPv6 between dual-stack Pods) or an IP the spec names is IPv6,
 * or the source Pod has IPv6 addresses only (an IPv6-only cluster); IPv4 otherwise.
 */
export function traceflowFamily(spec: TraceflowFamilyInput, sourcePodIPs: readonly string[] = []): 4 | 6 {
  if (spec.packet?.ipv6Header !== undefined) return 6;
  if (spec.destination.ip?.includes(':') || spec.source.ip?.includes(':')) return 6;
  if (sourcePodIPs.length > 0 && sourcePodIPs.every((ip) => ip.includes(':'))) return 6;
  return 4;
}
