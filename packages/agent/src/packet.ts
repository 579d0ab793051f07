/**
 * Packets the agent writes itself: checksums (RFC 1071), the IPv4 header, and the probe a
 * Traceflow injects (IPv4 or IPv6, RFC 8200), and the parse of a traced packet. The reject
 * answers (features/policy/reject.ts) and Traceflow share them.
 */
import { formatIpv6, ipToBytes } from '@switchyard/apis/types';
import { AgentError } from './errors';

export const ETH_HLEN = 14;
export const ETHERTYPE_IPV4 = 0x0800;
export const ETHERTYPE_IPV6 = 0x86dd;
export const PROTO_ICMP = 1;
export const PROTO_TCP = 6;
export const PROTO_UDP = 17;
export const PROTO_ICMPV6 = 58;
const IPV6_HLEN = 40;

/** One's-complement sum of 16-bit words, folded (RFC 1071). */
export function sum16(bytes: Uint8Array, start = 0, end = bytes.length, acc = 0): number {
  let s = acc;
  for (let i = start; i + 1 < end; i += 2) s += ((bytes[i] ?? 0) << 8) | (bytes[i + 1] ?? 0);
  if ((end - start) % 2 === 1) s += (bytes[end - 1] ?? 0) << 8;
  while (s > 0xffff) s = (s & 0xffff) + (s >>> 16);
  return s;
}

/** The Internet checksum of `bytes[start..end)`, continuing from the partial sum `acc`. */
export const checksum = (bytes: Uint8Array, start?: number, end?: number, acc?: number): number => ~sum16(bytes, start, end, acc) & 0xffff;

/** Optional IPv4 header fields (defaults: TTL 64, DF set, DSCP 0, id 0). */
export interface Ipv4HeaderOptions {
  ttl?: number;
  /** The 3 flag bits (bit 1 = DF, bit 0... as in the header's top bits: 2 = DF, 1 = MF). */
  flags?: number;
  dscp?: number;
  id?: number;
}

/** Writes a 20-byte IPv4 header at `at`, checksum included. */
export function ipv4Header(out: DataView, at: number, totalLen: number, proto: number, src: Uint8Array, dst: Uint8Array, o: Ipv4HeaderOptions = {}): void {
  out.setUint8(at, 0x45);
  out.setUint8(at + 1, (o.dscp ?? 0) << 2);
  out.setUint16(at + 2, totalLen);
  out.setUint16(at + 4, o.id ?? 0);
  out.setUint16(at + 6, (o.flags ?? 2) << 13);
  out.setUint8(at + 8, o.ttl ?? 64);
  out.setUint8(at + 9, proto);
  out.setUint16(at + 10, 0);
  const bytes = new Uint8Array(out.buffer, out.byteOffset);
  bytes.set(src, at + 12);
  bytes.set(dst, at + 16);
  out.setUint16(at + 10, checksum(bytes, at, at + 20));
}

/** What a Traceflow probe carries (Traceflow `spec.packet`, resolved). */
export interface ProbeSpec {
  srcMac: string;
  dstMac: string;
  srcIP: string;
  dstIP: string;
  /** 1 ICMP echo request (IPv4), 58 ICMPv6 echo request (IPv6), 6 TCP, 17 UDP. */
  protocol: number;
  /** TTL (IPv4) or hop limit (IPv6). */
  ttl?: number;
  /** IPv4 only. */
  flags?: number;
  srcPort?: number;
  dstPort?: number;
  /** TCP flags (default SYN). */
  tcpFlags?: number;
  icmpId?: number;
  icmpSequence?: number;
}

/** An IP address's 4 or 16 bytes. */
function ipBytes(ip: string, field: string): Uint8Array {
  const b = ipToBytes(ip);
  if (b === undefined) throw new AgentError('INVALID_CONFIG', `not an IP address: ${JSON.stringify(ip)}`, ip, field);
  return b;
}

const macBytes = (m: string): number[] => m.split(':').map((x) => parseInt(x, 16));

/** The transport header and payload of a probe: 20-byte TCP, 8-byte UDP or an 8-byte ICMP (or ICMPv6) echo with 8 bytes of data. */
function transport(p: ProbeSpec): Uint8Array {
  if (p.protocol === PROTO_TCP) {
    const t = new Uint8Array(20);
    const v = new DataView(t.buffer);
    v.setUint16(0, p.srcPort ?? 10000);
    v.setUint16(2, p.dstPort ?? 80);
    v.setUint32(4, 1);
    t[12] = 5 << 4;
    t[13] = p.tcpFlags ?? 0x02;
    v.setUint16(14, 64240);
    return t;
  }
  if (p.protocol === PROTO_UDP) {
    const t = new Uint8Array(8);
    const v = new DataView(t.buffer);
    v.setUint16(0, p.srcPort ?? 10000);
    v.setUint16(2, p.dstPort ?? 80);
    v.setUint16(4, 8);
    return t;
  }
  const t = new Uint8Array(16);
  const v = new DataView(t.buffer);
  t[0] = p.protocol === PROTO_ICMPV6 ? 128 : 8; // echo request
  v.setUint16(4, p.icmpId ?? 0);
  v.setUint16(6, p.icmpSequence ?? 0);
  // ICMPv6's checksum covers the pseudo-header too (buildProbe writes it); ICMP's only the message.
  if (p.protocol !== PROTO_ICMPV6) v.setUint16(2, checksum(t));
  return t;
}

/** Writes a 40-byte IPv6 header at `at` (traffic class `dscp << 2`, flow label 0). */
function ipv6Header(out: DataView, at: number, payloadLen: number, nextHeader: number, src: Uint8Array, dst: Uint8Array, hopLimit: number, dscp = 0): void {
  out.setUint32(at, ((6 << 28) | ((dscp << 2) << 20)) >>> 0);
  out.setUint16(at + 4, payloadLen);
  out.setUint8(at + 6, nextHeader);
  out.setUint8(at + 7, hopLimit);
  const bytes = new Uint8Array(out.buffer, out.byteOffset);
  bytes.set(src, at + 8);
  bytes.set(dst, at + 24);
}

/** The offset of the transport checksum in a probe's transport header, if it has one to fill. */
function checksumAt(protocol: number): number | undefined {
  if (protocol === PROTO_TCP) return 16;
  if (protocol === PROTO_UDP) return 6;
  if (protocol === PROTO_ICMPV6) return 2;
  return undefined;
}

/**
 * An Ethernet + IPv4 or IPv6 probe (the family of the addresses) from `srcIP` to `dstIP` with
 * correct IP and transport checksums (the userspace datapath's conntrack checks them). Only TCP,
 * UDP and ICMP or ICMPv6 echo requests are built; an IPv6 probe carries no extension header.
 */
export function buildProbe(p: ProbeSpec): Uint8Array {
  const src = ipBytes(p.srcIP, 'srcIP');
  const dst = ipBytes(p.dstIP, 'dstIP');
  if (src.length !== dst.length) throw new AgentError('INVALID_CONFIG', `probe addresses of two families: ${p.srcIP} to ${p.dstIP}`, p.dstIP, 'dstIP');
  const v6 = src.length === 16;
  if ((v6 && p.protocol === PROTO_ICMP) || (!v6 && p.protocol === PROTO_ICMPV6)) throw new AgentError('INVALID_CONFIG', `protocol ${p.protocol} in an IPv${v6 ? 6 : 4} probe`, p.protocol, 'protocol');
  const l4 = transport(p);
  const ipLen = v6 ? IPV6_HLEN : 20;
  const out = new Uint8Array(ETH_HLEN + ipLen + l4.length);
  const v = new DataView(out.buffer);
  out.set(macBytes(p.dstMac), 0);
  out.set(macBytes(p.srcMac), 6);
  v.setUint16(12, v6 ? ETHERTYPE_IPV6 : ETHERTYPE_IPV4);
  const l4At = ETH_HLEN + ipLen;
  out.set(l4, l4At);
  const at = checksumAt(p.protocol);
  if (at !== undefined) {
    // The pseudo-header: RFC 793/768 for IPv4, RFC 8200 section 8.1 for IPv6 (32-bit length, next header last).
    const len = l4.length;
    const pseudo = v6 ? new Uint8Array([...src, ...dst, 0, 0, len >> 8, len & 0xff, 0, 0, 0, p.protocol]) : new Uint8Array([...src, ...dst, 0, p.protocol, len >> 8, len & 0xff]);
    v.setUint16(l4At + at, checksum(out, l4At, out.length, sum16(pseudo)));
  }
  if (v6) ipv6Header(v, ETH_HLEN, l4.length, p.protocol, src, dst, p.ttl ?? 64);
  else ipv4Header(v, ETH_HLEN, 20 + l4.length, p.protocol, src, dst, { ...(p.ttl !== undefined ? { ttl: p.ttl } : {}), ...(p.flags !== undefined ? { flags: p.flags } : {}) });
  return out;
}

/** The fields of an IPv4 or IPv6 frame a Traceflow reports: addresses, DSCP, TTL, protocol and ports. */
export interface ParsedIp {
  family: 4 | 6;
  srcIP: string;
  dstIP: string;
  /** IPv4's DSCP, or the DSCP bits of IPv6's traffic class. */
  dscp: number;
  /** TTL, or IPv6's hop limit. */
  ttl: number;
  /** IPv4's protocol, or IPv6's next header. */
  protocol: number;
  /** IPv4's flags (0 for IPv6). */
  flags: number;
  /** IPv4's total length, or IPv6's 40 bytes plus its payload length. */
  length: number;
  srcPort?: number;
  dstPort?: number;
  tcpFlags?: number;
}

function readPorts(out: ParsedIp, frame: Uint8Array, v: DataView, l4: number): ParsedIp {
  if ((out.protocol === PROTO_TCP || out.protocol === PROTO_UDP) && frame.length >= l4 + 4) {
    out.srcPort = v.getUint16(l4);
    out.dstPort = v.getUint16(l4 + 2);
    if (out.protocol === PROTO_TCP && frame.length >= l4 + 14) out.tcpFlags = frame[l4 + 13]!;
  }
  return out;
}

/** Parses the IPv4 header (and TCP/UDP ports) of an Ethernet frame; undefined when it is not IPv4. */
export function parseIpv4(frame: Uint8Array): ParsedIp | undefined {
  if (frame.length < ETH_HLEN + 20) return undefined;
  const v = new DataView(frame.buffer, frame.byteOffset, frame.byteLength);
  if (v.getUint16(12) !== ETHERTYPE_IPV4) return undefined;
  const ip = ETH_HLEN;
  const ihl = (frame[ip]! & 0x0f) * 4;
  const protocol = frame[ip + 9]!;
  const addr = (at: number): string => Array.from(frame.subarray(at, at + 4)).join('.');
  const out: ParsedIp = { family: 4, srcIP: addr(ip + 12), dstIP: addr(ip + 16), dscp: frame[ip + 1]! >> 2, ttl: frame[ip + 8]!, protocol, flags: v.getUint16(ip + 6) >> 13, length: v.getUint16(ip + 2) };
  return readPorts(out, frame, v, ip + ihl);
}

/**
 * Parses the IPv6 header (and TCP/UDP ports right after it) of an Ethernet frame; undefined when
 * it is not IPv6. Addresses in the canonical text form (RFC 5952). Extension headers are not
 * walked: `protocol` is the first next header.
 */
export function parseIpv6(frame: Uint8Array): ParsedIp | undefined {
  if (frame.length < ETH_HLEN + IPV6_HLEN) return undefined;
  const v = new DataView(frame.buffer, frame.byteOffset, frame.byteLength);
  if (v.getUint16(12) !== ETHERTYPE_IPV6) return undefined;
  const ip = ETH_HLEN;
  const trafficClass = (v.getUint16(ip) >> 4) & 0xff;
  const out: ParsedIp = {
    family: 6, srcIP: formatIpv6(frame, ip + 8), dstIP: formatIpv6(frame, ip + 24), dscp: trafficClass >> 2, ttl: frame[ip + 7]!, protocol: frame[ip + 6]!, flags: 0, length: IPV6_HLEN + v.getUint16(ip + 4),
  };
  return readPorts(out, frame, v, ip + IPV6_HLEN);
}

/** An IPv4 or IPv6 frame's {@link ParsedIp}; undefined for any other. */
export const parseIpPacket = (frame: Uint8Array): ParsedIp | undefined => parseIpv4(frame) ?? parseIpv6(frame);
