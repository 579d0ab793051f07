/**
 * IPv4 packets the agent writes itself: checksums (RFC 1071), the IPv4 header, and the probe a
 * Traceflow injects. The reject answers (features/policy/reject.ts) and Traceflow share them.
 */
import { ipToBytes } from '@switchyard/apis/types';
import { AgentError } from './errors';

export const ETH_HLEN = 14;
export const ETHERTYPE_IPV4 = 0x0800;
export const PROTO_ICMP = 1;
export const PROTO_TCP = 6;
export const PROTO_UDP = 17;

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
  /** 1 ICMP echo request, 6 TCP, 17 UDP. */
  protocol: number;
  ttl?: number;
  flags?: number;
  srcPort?: number;
  dstPort?: number;
  /** TCP flags (default SYN). */
  tcpFlags?: number;
  icmpId?: number;
  icmpSequence?: number;
}

/** An IPv4 address's 4 bytes (a probe is IPv4 only). */
function ipv4Bytes(ip: string, field: string): Uint8Array {
  const b = ipToBytes(ip);
  if (b?.length !== 4) throw new AgentError('INVALID_CONFIG', `not an IPv4 address: ${JSON.stringify(ip)}`, ip, field);
  return b;
}

const macBytes = (m: string): number[] => m.split(':').map((x) => parseInt(x, 16));

/** The transport header and payload of a probe: 20-byte TCP, 8-byte UDP or an 8-byte ICMP echo with 8 bytes of data. */
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
  t[0] = 8; // echo request
  v.setUint16(4, p.icmpId ?? 0);
  v.setUint16(6, p.icmpSequence ?? 0);
  v.setUint16(2, checksum(t));
  return t;
}

/**
 * An Ethernet + IPv4 probe from `srcIP` to `dstIP` with correct IP and transport checksums (the
 * userspace datapath's conntrack checks them). Only TCP, UDP and ICMP (echo request) are built.
 */
export function buildProbe(p: ProbeSpec): Uint8Array {
  const src = ipv4Bytes(p.srcIP, 'srcIP');
  const dst = ipv4Bytes(p.dstIP, 'dstIP');
  const l4 = transport(p);
  const out = new Uint8Array(ETH_HLEN + 20 + l4.length);
  const v = new DataView(out.buffer);
  out.set(macBytes(p.dstMac), 0);
  out.set(macBytes(p.srcMac), 6);
  v.setUint16(12, ETHERTYPE_IPV4);
  const l4At = ETH_HLEN + 20;
  out.set(l4, l4At);
  if (p.protocol === PROTO_TCP || p.protocol === PROTO_UDP) {
    const pseudo = new Uint8Array([...src, ...dst, 0, p.protocol, l4.length >> 8, l4.length & 0xff]);
    v.setUint16(l4At + (p.protocol === PROTO_TCP ? 16 : 6), checksum(out, l4At, out.length, sum16(pseudo)));
  }
  ipv4Header(v, ETH_HLEN, 20 + l4.length, p.protocol, src, dst, { ...(p.ttl !== undefined ? { ttl: p.ttl } : {}), ...(p.flags !== undefined ? { flags: p.flags } : {}) });
  return out;
}

/** The fields of an IPv4 frame a Traceflow reports: addresses, DSCP, TTL, protocol and ports. */
export interface ParsedIpv4 {
  srcIP: string;
  dstIP: string;
  dscp: number;
  ttl: number;
  protocol: number;
  flags: number;
  length: number;
  srcPort?: number;
  dstPort?: number;
  tcpFlags?: number;
}

/** Parses the IPv4 header (and TCP/UDP ports) of an Ethernet frame; undefined when it is not IPv4. */
export function parseIpv4(frame: Uint8Array): ParsedIpv4 | undefined {
  if (frame.length < ETH_HLEN + 20) return undefined;
  const v = new DataView(frame.buffer, frame.byteOffset, frame.byteLength);
  if (v.getUint16(12) !== ETHERTYPE_IPV4) return undefined;
  const ip = ETH_HLEN;
  const ihl = (frame[ip]! & 0x0f) * 4;
  const protocol = frame[ip + 9]!;
  const addr = (at: number): string => Array.from(frame.subarray(at, at + 4)).join('.');
  const out: ParsedIpv4 = { srcIP: addr(ip + 12), dstIP: addr(ip + 16), dscp: frame[ip + 1]! >> 2, ttl: frame[ip + 8]!, protocol, flags: v.getUint16(ip + 6) >> 13, length: v.getUint16(ip + 2) };
  const l4 = ip + ihl;
  if ((protocol === PROTO_TCP || protocol === PROTO_UDP) && frame.length >= l4 + 4) {
    out.srcPort = v.getUint16(l4);
    out.dstPort = v.getUint16(l4 + 2);
    if (protocol === PROTO_TCP && frame.length >= l4 + 14) out.tcpFlags = frame[l4 + 13]!;
  }
  return out;
}
