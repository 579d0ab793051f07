/**
 * The probe of a Traceflow: where it goes (a pod's address, a Service's ClusterIP and port, an IP)
 * and what it carries (spec.packet), and the match that picks live traffic instead.
 */
import type { Traceflow } from '@switchyard/apis/types';
import type { KubeClient, KubeObject } from '@switchyard/kube';
import type { Match } from '@switchyard/openflow/codec';
import type { LocalPod } from '@switchyard/openflow-pipeline';
import { AgentError } from '../../errors';
import { PROTO_ICMP, PROTO_TCP, PROTO_UDP, type ProbeSpec } from '../../packet';

/** Where the probe goes. */
export interface ProbeDestination {
  ip: string;
  /** A Service's port (the probe's destination port unless spec.packet names one). */
  port?: number;
}

/** The destination of a Traceflow: a pod's IP, a Service's ClusterIP and first port, or the IP itself. Undefined for live traffic without one. */
export async function resolveDestination(kube: KubeClient, tf: Traceflow): Promise<ProbeDestination | undefined> {
  const d = tf.spec.destination;
  if (d.ip) return { ip: d.ip };
  if (d.pod) {
    const pod = await kube.request<KubeObject & { status?: { podIP?: string } }>('GET', `/api/v1/namespaces/${encodeURIComponent(d.namespace ?? '')}/pods/${encodeURIComponent(d.pod)}`);
    const ip = pod.status?.podIP;
    if (!ip) throw new AgentError('INVALID_CONFIG', `destination Pod ${d.namespace}/${d.pod} has no IP`, d.pod, 'spec.destination.pod');
    return { ip };
  }
  if (d.service) {
    const svc = await kube.request<KubeObject & { spec?: { clusterIP?: string; ports?: { port: number }[] } }>('GET', `/api/v1/namespaces/${encodeURIComponent(d.namespace ?? '')}/services/${encodeURIComponent(d.service)}`);
    const ip = svc.spec?.clusterIP;
    if (!ip || ip === 'None') throw new AgentError('INVALID_CONFIG', `destination Service ${d.namespace}/${d.service} has no ClusterIP`, d.service, 'spec.destination.service');
    const port = svc.spec?.ports?.[0]?.port;
    return { ip, ...(port !== undefined ? { port } : {}) };
  }
  return undefined;
}

/** The IP protocol of a Traceflow's packet: ipHeader.protocol, else the transport header given, else ICMP (Antrea's default). */
export function protocolOf(tf: Traceflow): number {
  const p = tf.spec.packet;
  if (p?.ipHeader?.protocol !== undefined) return p.ipHeader.protocol;
  if (p?.transportHeader?.tcp) return PROTO_TCP;
  if (p?.transportHeader?.udp) return PROTO_UDP;
  return PROTO_ICMP;
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
  const protocol = protocolOf(tf);
  const th = tf.spec.packet?.transportHeader;
  const ip = tf.spec.packet?.ipHeader;
  const local = pods.find((p) => p.ips.includes(dest.ip));
  const spec: ProbeSpec = {
    srcMac: source.mac,
    dstMac: local?.mac ?? gatewayMac,
    srcIP: source.ips[0]!,
    dstIP: dest.ip,
    protocol,
    ...(ip?.ttl !== undefined ? { ttl: ip.ttl } : {}),
    ...(ip?.flags !== undefined ? { flags: ip.flags } : {}),
  };
  const tag = tf.status?.dataplaneTag ?? 0;
  if (protocol === PROTO_TCP || protocol === PROTO_UDP) {
    spec.srcPort = th?.tcp?.srcPort ?? th?.udp?.srcPort ?? 40000 + tag;
    spec.dstPort = dstPortOf(tf, dest) ?? 80;
    if (protocol === PROTO_TCP && th?.tcp?.flags !== undefined) spec.tcpFlags = th.tcp.flags;
  } else if (protocol === PROTO_ICMP) {
    spec.icmpId = th?.icmp?.id ?? tag;
    spec.icmpSequence = th?.icmp?.sequence ?? 0;
  }
  return spec;
}

/**
 * What live traffic of a Traceflow matches: the source's address (the source pod's, or
 * spec.source.ip; none when only the destination is named), the destination's, the protocol and
 * the ports given.
 */
export function traceMatchOf(tf: Traceflow, source: LocalPod | undefined, dest: ProbeDestination | undefined): Partial<Match> {
  const m: Partial<Match> = {};
  const srcIP = tf.spec.source.ip ?? source?.ips[0];
  if (srcIP !== undefined) m.ipv4Src = srcIP;
  if (dest) m.ipv4Dst = dest.ip;
  const p = tf.spec.packet;
  if (!p?.ipHeader?.protocol && !p?.transportHeader?.tcp && !p?.transportHeader?.udp && !p?.transportHeader?.icmp) return m;
  const protocol = protocolOf(tf);
  m.ipProto = protocol;
  const th = p.transportHeader;
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
