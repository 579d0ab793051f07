/**
 * The probe of a Traceflow: where it goes (a pod's address, a Service's ClusterIP and port, an IP)
 * and what it carries (spec.packet), and the match that picks live traffic instead.
 */
import { addressesOfFamily, canonicalIp, podAddresses, traceflowFamily, type Traceflow } from '@switchyard/apis/types';
import type { KubeClient, KubeObject } from '@switchyard/kube';
import type { Match } from '@switchyard/openflow/codec';
import type { LocalPod } from '@switchyard/openflow-pipeline';
import { AgentError } from '../../errors';
import { PROTO_ICMP, PROTO_ICMPV6, PROTO_TCP, PROTO_UDP, type ProbeSpec } from '../../packet';

const ETH_IPV6 = 0x86dd;
const familyOf = (ip: string): 4 | 6 => (ip.includes(':') ? 6 : 4);

/** The IP family of a Traceflow whose source pod (if on this node) is `source`. */
export const familyOfTrace = (tf: Traceflow, source: LocalPod | undefined): 4 | 6 => traceflowFamily(tf.spec, source?.ips ?? []);

/** The source pod's address of the trace's family; refused naming the pod when it has none. */
export function sourceIPOf(tf: Traceflow, source: LocalPod, family: 4 | 6): string {
  const ip = addressesOfFamily(source.ips, family)[0];
  if (ip === undefined) throw new AgentError('INVALID_CONFIG', `source Pod ${source.namespace}/${source.name} has no IPv${family} address (a ${family === 6 ? 'spec.packet.ipv6Header or an IPv6 destination asks for IPv6' : 'trace without ipv6Header is IPv4'})`, tf.spec.source.pod, 'spec.source.pod');
  return ip;
}

/** Where the probe goes. */
export interface ProbeDestination {
  ip: string;
  /** A Service's port (the probe's destination port unless spec.packet names one). */
  port?: number;
}

/**
 * The destination of a Traceflow of `family`: a pod's address of that family (status.podIPs), a
 * Service's ClusterIP of that family (spec.clusterIPs) and first port, or the IP itself. Undefined
 * for live traffic without one.
 */
export async function resolveDestination(kube: KubeClient, tf: Traceflow, family: 4 | 6 = traceflowFamily(tf.spec)): Promise<ProbeDestination | undefined> {
  const d = tf.spec.destination;
  if (d.ip) return { ip: canonicalIp(d.ip) ?? d.ip };
  if (d.pod) {
    const pod = await kube.request<KubeObject & { status?: { podIP?: string; podIPs?: { ip: string }[] } }>('GET', `/api/v1/namespaces/${encodeURIComponent(d.namespace ?? '')}/pods/${encodeURIComponent(d.pod)}`);
    const ips = podAddresses(pod);
    const ip = addressesOfFamily(ips, family)[0];
    if (!ip) throw new AgentError('INVALID_CONFIG', `destination Pod ${d.namespace}/${d.pod} has no IPv${family} address${ips.length ? ` (it has ${ips.join(', ')})` : ''}`, d.pod, 'spec.destination.pod');
    return { ip: canonicalIp(ip) ?? ip };
  }
  if (d.service) {
    const svc = await kube.request<KubeObject & { spec?: { clusterIP?: string; clusterIPs?: string[]; ports?: { port: number }[] } }>('GET', `/api/v1/namespaces/${encodeURIComponent(d.namespace ?? '')}/services/${encodeURIComponent(d.service)}`);
    const all = svc.spec?.clusterIPs ?? (svc.spec?.clusterIP ? [svc.spec.clusterIP] : []);
    const ip = addressesOfFamily(all.filter((a) => a !== 'None'), family)[0];
    if (!ip) throw new AgentError('INVALID_CONFIG', `destination Service ${d.namespace}/${d.service} has no IPv${family} ClusterIP`, d.service, 'spec.destination.service');
    const port = svc.spec?.ports?.[0]?.port;
    return { ip: canonicalIp(ip) ?? ip, ...(port !== undefined ? { port } : {}) };
  }
  return undefined;
}

/**
 * The IP protocol of a Traceflow's packet: ipHeader.protocol (ipv6Header.nextHeader for IPv6),
 * else the transport header given, else an ICMP echo request (Antrea's default; ICMPv6 for IPv6).
 */
export function protocolOf(tf: Traceflow, family: 4 | 6 = 4): number {
  const p = tf.spec.packet;
  const given = family === 6 ? p?.ipv6Header?.nextHeader : p?.ipHeader?.protocol;
  if (given !== undefined) return given;
  if (p?.transportHeader?.tcp) return PROTO_TCP;
  if (p?.transportHeader?.udp) return PROTO_UDP;
  return family === 6 ? PROTO_ICMPV6 : PROTO_ICMP;
}

/** The destination port of a TCP or UDP probe: spec.packet's, else the Service's, else 80. */
function dstPortOf(tf: Traceflow, dest: ProbeDestination | undefined): number | undefined {
  const th = tf.spec.packet?.transportHeader;
  return th?.tcp?.dstPort ?? th?.udp?.dstPort ?? dest?.port;
}

/**
 * The probe the source pod's node injects: from the pod's MAC and address, to the destination
 * pod's MAC when it is on this node, else to the gateway's (the pod's next hop), with the
 * packet fields of spec.packet. The source port is fixed per tag so that every probe of a trace
 * is one connection.
 */
export function probeSpec(tf: Traceflow, source: LocalPod, dest: ProbeDestination, pods: readonly LocalPod[], gatewayMac: string): ProbeSpec {
  const family = familyOf(dest.ip);
  const protocol = protocolOf(tf, family);
  const th = tf.spec.packet?.transportHeader;
  const ip = tf.spec.packet?.ipHeader;
  const ttl = family === 6 ? tf.spec.packet?.ipv6Header?.hopLimit : ip?.ttl;
  const local = pods.find((p) => p.ips.some((a) => a === dest.ip || canonicalIp(a) === dest.ip));
  const spec: ProbeSpec = {
    srcMac: source.mac,
    dstMac: local?.mac ?? gatewayMac,
    srcIP: sourceIPOf(tf, source, family),
    dstIP: dest.ip,
    protocol,
    ...(ttl !== undefined ? { ttl } : {}),
    ...(family === 4 && ip?.flags !== undefined ? { flags: ip.flags } : {}),
  };
  const tag = tf.status?.dataplaneTag ?? 0;
  if (protocol === PROTO_TCP || protocol === PROTO_UDP) {
    spec.srcPort = probeSourcePort(tf, tag) ?? 40000 + tag;
    spec.dstPort = dstPortOf(tf, dest) ?? 80;
    if (protocol === PROTO_TCP && th?.tcp?.flags !== undefined) spec.tcpFlags = th.tcp.flags;
  } else if (protocol === PROTO_ICMP || protocol === PROTO_ICMPV6) {
    spec.icmpId = th?.icmp?.id ?? tag;
    spec.icmpSequence = th?.icmp?.sequence ?? 0;
  }
  return spec;
}

/** The TCP or UDP source port of a trace's probe: spec.packet's, else one fixed per tag. */
export function probeSourcePort(tf: Traceflow, tag: number): number | undefined {
  const th = tf.spec.packet?.transportHeader;
  if (th?.icmp) return undefined;
  return th?.tcp?.srcPort ?? th?.udp?.srcPort ?? 40000 + tag;
}

/**
 * What live traffic of a Traceflow matches: the source's address (the source pod's, or
 * spec.source.ip; none when only the destination is named), the destination's, the protocol and
 * the ports given.
 */
export function traceMatchOf(tf: Traceflow, source: LocalPod | undefined, dest: ProbeDestination | undefined): Partial<Match> {
  const family = dest ? familyOf(dest.ip) : familyOfTrace(tf, source);
  const m: Partial<Match> = family === 6 ? { ethType: ETH_IPV6 } : {};
  const srcIP = tf.spec.source.ip ?? (source ? sourceIPOf(tf, source, family) : undefined);
  if (srcIP !== undefined) m[family === 6 ? 'ipv6Src' : 'ipv4Src'] = srcIP;
  if (dest) m[family === 6 ? 'ipv6Dst' : 'ipv4Dst'] = dest.ip;
  const p = tf.spec.packet;
  const namedProtocol = family === 6 ? p?.ipv6Header?.nextHeader : p?.ipHeader?.protocol;
  if (!namedProtocol && !p?.transportHeader?.tcp && !p?.transportHeader?.udp && !p?.transportHeader?.icmp) return m;
  const protocol = protocolOf(tf, family);
  m.ipProto = protocol;
  const th = p?.transportHeader;
  if (protocol === PROTO_TCP) {
    if (th?.tcp?.srcPort !== undefined) m.tcpSrc = th.tcp.srcPort;
    const dport = th?.tcp?.dstPort ?? dest?.port;
    if (dport !== undefined) m.tcpDst = dport;
  } else if (protocol === PROTO_UDP) {
    if (th?.udp?.srcPort !== undefined) m.udpSrc = th.udp.srcPort;
    const dport = th?.udp?.dstPort ?? dest?.port;
    if (dport !== undefined) m.udpDst = dport;
  }
  return m;
}
