// `yardctl traceflow` input: the -S/-D endpoints, antctl's OVS-like -f flow text, the object name
// and the Traceflow built from them. Pure: the command resolves names against the API server.
import { randomInt } from 'node:crypto';
import { isIP } from 'node:net';
import type { Traceflow, TraceflowPacket } from '@switchyard/apis';
import { CliError } from './errors';

/** IP protocol numbers the flow text names (ICMP is ICMPv6, 58, in an IPv6 packet). */
export const IP_PROTOCOLS: Readonly<Record<string, number>> = { icmp: 1, tcp: 6, udp: 17 };
const ICMPV6 = 58;
/** OVS's names of the IPv6 protocols: `tcp6` is `tcp,ipv6`. */
const IPV6_PROTOCOLS: Readonly<Record<string, string>> = { tcp6: 'tcp', udp6: 'udp', icmp6: 'icmp' };

/** A `-S`/`-D` value: an IP literal, or a namespaced name still to be resolved. */
export type EndpointRef = { ip: string } | { namespace: string; name: string };

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/;

/** Parse `ns/name`, a bare `name` (namespace `defaultNamespace`) or, when `allowIP`, an IP literal. */
export function parseEndpointRef(value: string, flag: string, defaultNamespace: string, allowIP: boolean): EndpointRef {
  const v = value.trim();
  if (isIP(v) !== 0) {
    if (!allowIP) throw new CliError('USAGE', `invalid ${flag} "${value}": an IP source needs --live (a Pod must inject the packet)`, value, flag);
    return { ip: v };
  }
  const parts = v.split('/');
  const [namespace, name] = parts.length === 1 ? [defaultNamespace, parts[0] as string] : (parts as [string, string]);
  if (parts.length > 2 || !DNS_LABEL.test(namespace) || !DNS_SUBDOMAIN.test(name) || name.length > 253) {
    throw new CliError('USAGE', `invalid ${flag} "${value}": expected namespace/name, a name in -n's namespace${allowIP ? ', or an IP address' : ''}`, value, flag);
  }
  return { namespace, name };
}

function flowNumber(token: string, text: string, max: number): number {
  const n = Number(text);
  if (text === '' || !Number.isInteger(n) || n < 0 || n > max) throw new CliError('USAGE', `invalid flow "${token}": the value must be an integer in 0-${max}`, token, '--flow');
  return n;
}

/** Which transport each flow field belongs to, its packet path and its largest value. */
const FLOW_FIELDS: Readonly<Record<string, { proto?: 'tcp' | 'udp'; max: number }>> = {
  tcp_src: { proto: 'tcp', max: 65535 },
  tcp_dst: { proto: 'tcp', max: 65535 },
  tcp_flags: { proto: 'tcp', max: 255 },
  udp_src: { proto: 'udp', max: 65535 },
  udp_dst: { proto: 'udp', max: 65535 },
  nw_ttl: { max: 255 },
  nw_proto: { max: 255 },
};

/**
 * Parse antctl's flow text (`tcp,tcp_dst=80`, `udp,udp_src=5000,udp_dst=53`, `icmp`,
 * `nw_proto=132`, `nw_ttl=10`, and `ipv6` or `tcp6`/`udp6`/`icmp6` for an IPv6 packet) into a
 * Traceflow packet. An IPv6 packet (the text says so, or `ipv6`: an address the trace names is
 * IPv6) is described by `ipv6Header` (the protocol as `nextHeader`, `nw_ttl` as `hopLimit`,
 * ICMP as ICMPv6), which also asks for IPv6 between dual-stack Pods. A TCP packet that yardctl
 * injects (not `live`) gets SYN (`tcp_flags=2`) unless the text sets flags, as antctl does.
 * Every error names the token it is about.
 */
export function parseFlow(text: string, live: boolean, ipv6 = false): TraceflowPacket {
  const fields = new Map<string, number>();
  let proto: string | undefined;
  let v6 = ipv6;
  for (const raw of text.split(',')) {
    const token = raw.trim();
    if (token === '') continue;
    const eq = token.indexOf('=');
    if (eq < 0) {
      const word = token.toLowerCase();
      if (word === 'ipv6' || word === 'ip6') {
        v6 = true;
        continue;
      }
      const name = IPV6_PROTOCOLS[word] ?? word;
      if (!(name in IP_PROTOCOLS)) throw new CliError('USAGE', `invalid flow "${token}": a protocol is one of ${[...Object.keys(IP_PROTOCOLS), ...Object.keys(IPV6_PROTOCOLS)].join(', ')} (or nw_proto=N; ipv6 for an IPv6 packet)`, token, '--flow');
      if (proto !== undefined) throw new CliError('USAGE', `invalid flow "${token}": protocol already given as "${proto}"`, token, '--flow');
      proto = name;
      if (name !== word) v6 = true;
      continue;
    }
    const key = token.slice(0, eq).trim().toLowerCase();
    const field = FLOW_FIELDS[key];
    if (!field) throw new CliError('USAGE', `invalid flow "${token}": unknown field "${key}" (one of ${Object.keys(FLOW_FIELDS).join(', ')})`, token, '--flow');
    if (field.proto !== undefined && proto !== field.proto) throw new CliError('USAGE', `invalid flow "${token}": ${key} needs the protocol ${field.proto} first (e.g. "${field.proto},${token}")`, token, '--flow');
    if (fields.has(key)) throw new CliError('USAGE', `invalid flow "${token}": ${key} given twice`, token, '--flow');
    fields.set(key, flowNumber(token, token.slice(eq + 1).trim(), field.max));
  }
  const nwProto = fields.get('nw_proto');
  const numberOf = (name: string): number | undefined => (v6 && name === 'icmp' ? ICMPV6 : IP_PROTOCOLS[name]);
  if (nwProto !== undefined && proto !== undefined && numberOf(proto) !== nwProto) throw new CliError('USAGE', `invalid flow "nw_proto=${nwProto}": contradicts the protocol "${proto}"`, `nw_proto=${nwProto}`, '--flow');
  const protocol = proto !== undefined ? numberOf(proto) : nwProto;
  const ttl = fields.get('nw_ttl');
  const packet: TraceflowPacket = {};
  if (v6) packet.ipv6Header = { ...(protocol !== undefined ? { nextHeader: protocol } : {}), ...(ttl !== undefined ? { hopLimit: ttl } : {}) };
  else if (protocol !== undefined || ttl !== undefined) packet.ipHeader = { ...(protocol !== undefined ? { protocol } : {}), ...(ttl !== undefined ? { ttl } : {}) };
  const port = (k: string, out: string): Record<string, number> => (fields.has(k) ? { [out]: fields.get(k) as number } : {});
  if (proto === 'tcp') {
    const flags = fields.get('tcp_flags') ?? (live ? undefined : 2);
    packet.transportHeader = { tcp: { ...port('tcp_src', 'srcPort'), ...port('tcp_dst', 'dstPort'), ...(flags !== undefined ? { flags } : {}) } };
  } else if (proto === 'udp') {
    packet.transportHeader = { udp: { ...port('udp_src', 'srcPort'), ...port('udp_dst', 'dstPort') } };
  } else if (proto === 'icmp' && !live) {
    packet.transportHeader = { icmp: { id: 0, sequence: 0 } };
  }
  return packet;
}

/** The packet of a Traceflow without `-f`: an ICMP (ICMPv6) echo request when injected (Antrea's default), anything when live (of the family when IPv6). */
export function defaultPacket(live: boolean, ipv6 = false): TraceflowPacket | undefined {
  if (live) return ipv6 ? { ipv6Header: {} } : undefined;
  return parseFlow('icmp', false, ipv6);
}

const NAME_CHARS = 'abcdefghijklmnopqrstuvwxyz0123456789';

function nameSegment(s: string): string {
  return s
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, '-')
    .replace(/-+/g, '-')
    .replace(/^-|-$/g, '');
}

/**
 * `<source>-to-<destination>-<5 random chars>`, as antctl names its Traceflows, cleaned to a DNS-1123
 * label (an IP's dots and colons become dashes) and shortened to 63 characters.
 */
export function traceflowName(source: string, destination: string, random: (n: number) => number = randomInt): string {
  const suffix = Array.from({ length: 5 }, () => NAME_CHARS[random(NAME_CHARS.length)]).join('');
  const prefix = nameSegment(`${nameSegment(source) || 'any'}-to-${nameSegment(destination) || 'any'}`)
    .slice(0, 63 - suffix.length - 1)
    .replace(/-+$/, '');
  return `${prefix}-${suffix}`;
}

/** The resolved destination of `-D`. */
export type ResolvedDestination = { ip: string } | { namespace: string; pod: string } | { namespace: string; service: string };

/** What the command resolved from the flags. */
export interface TraceflowRequest {
  source?: EndpointRef;
  destination?: ResolvedDestination;
  packet?: TraceflowPacket;
  live: boolean;
  droppedOnly: boolean;
  timeoutS: number;
}

/** The Traceflow object yardctl creates for `r`, named `name`. */
export function buildTraceflow(name: string, r: TraceflowRequest): Traceflow {
  const source = r.source === undefined ? {} : 'ip' in r.source ? { ip: r.source.ip } : { namespace: r.source.namespace, pod: r.source.name };
  return {
    apiVersion: 'crd.antrea.io/v1beta1',
    kind: 'Traceflow',
    metadata: { name },
    spec: {
      source,
      destination: r.destination ?? {},
      ...(r.packet !== undefined ? { packet: r.packet } : {}),
      ...(r.live ? { liveTraffic: true } : {}),
      ...(r.droppedOnly ? { droppedOnly: true } : {}),
      timeout: r.timeoutS,
    },
  };
}

/** `name`, or `namespace/name`, or the IP of an endpoint: for names and messages. */
export function endpointText(e: { namespace?: string; pod?: string; service?: string; ip?: string } | undefined): string {
  if (!e) return '';
  const name = e.pod ?? e.service;
  if (name !== undefined) return `${e.namespace ?? ''}/${name}`;
  return e.ip ?? '';
}
