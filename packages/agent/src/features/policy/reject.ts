/**
 * Reject: the pipeline sends a rejected packet to the agent (packet-in, userdata NP category +
 * reject operation); the agent answers the sender as the destination would refuse it, a TCP RST
 * for TCP, an ICMP destination unreachable (host administratively prohibited, Antrea's choice)
 * for anything else over IPv4 (over IPv6: ICMPv6 destination unreachable, administratively
 * prohibited), and sends that straight out of the port the packet came in on.
 * Connections to a Service without endpoints (packet-in category SvcReject) get the same answer.
 */
import type { PacketIn, PacketInChannel } from '@switchyard/openflow';
import { silentLogger, type Logger } from '@switchyard/runtime';
import { ETH_HLEN, ETHERTYPE_IPV4, PROTO_ICMP, PROTO_TCP, checksum, ipv4Header, sum16 } from '../../packet';

const ETHERTYPE_IPV6 = 0x86dd;
const PROTO_ICMPV6 = 58;
const IPV6_HLEN = 40;
/** An ICMPv6 error quotes as much of the packet as fits in the minimum IPv6 MTU (RFC 4443 2.4). */
const IPV6_MIN_MTU = 1280;

/** Packet-in userdata: category byte (NetworkPolicy = 1) and operation bits (reject = 0b100). */
const PACKETIN_CATEGORY_NP = 1;
const PACKETIN_OP_REJECT = 0b100;
/** Packet-in userdata category of a Service without endpoints (AntreaProxy rejects those too). */
const PACKETIN_CATEGORY_SVC_REJECT = 4;

const TCP_FIN = 0x01;
const TCP_SYN = 0x02;
const TCP_RST = 0x04;
const TCP_ACK = 0x10;

/**
 * The answer to a rejected IPv4 frame: a TCP RST (RST+ACK for a segment without ACK), or ICMP
 * destination unreachable code 10 quoting the IP header and 8 bytes of payload. Undefined for
 * frames that get no answer (not IPv4, ICMP itself, truncated, or a RST).
 */
export function buildRejectReply(frame: Uint8Array): Uint8Array | undefined {
  if (frame.length < ETH_HLEN + 20) return undefined;
  const v = new DataView(frame.buffer, frame.byteOffset, frame.byteLength);
  if (v.getUint16(12) === ETHERTYPE_IPV6) return buildRejectReplyV6(frame, v);
  if (v.getUint16(12) !== ETHERTYPE_IPV4) return undefined;
  const ip = ETH_HLEN;
  const ihl = (v.getUint8(ip) & 0x0f) * 4;
  const totalLen = v.getUint16(ip + 2);
  const proto = v.getUint8(ip + 9);
  if (ihl < 20 || frame.length < ip + ihl) return undefined;
  const srcIp = frame.slice(ip + 12, ip + 16);
  const dstIp = frame.slice(ip + 16, ip + 20);
  const ethDst = frame.slice(0, 6);
  const ethSrc = frame.slice(6, 12);
  const eth = (out: Uint8Array): void => {
    out.set(ethSrc, 0); // back to the sender
    out.set(ethDst, 6); // as if from the address it tried
    out[12] = 0x08;
    out[13] = 0x00;
  };

  if (proto === PROTO_TCP) {
    const tcp = ip + ihl;
    if (frame.length < tcp + 20) return undefined;
    const flags = v.getUint8(tcp + 13);
    if (flags & TCP_RST) return undefined;
    const dataLen = Math.max(0, totalLen - ihl - ((v.getUint8(tcp + 12) >> 4) * 4));
    const out = new Uint8Array(ETH_HLEN + 40);
    const o = new DataView(out.buffer);
    eth(out);
    ipv4Header(o, ETH_HLEN, 40, PROTO_TCP, dstIp, srcIp);
    const t = ETH_HLEN + 20;
    writeRst(o, t, v, tcp, flags, dataLen);
    // Pseudo header: src, dst, protocol, TCP length.
    const pseudo = sum16(dstIp, 0, 4, sum16(srcIp, 0, 4, PROTO_TCP + 20));
    o.setUint16(t + 16, checksum(out, t, t + 20, pseudo));
    return out;
  }
  if (proto === PROTO_ICMP) return undefined;
  const quoted = Math.min(frame.length - ip, ihl + 8);
  const out = new Uint8Array(ETH_HLEN + 20 + 8 + quoted);
  const o = new DataView(out.buffer);
  eth(out);
  ipv4Header(o, ETH_HLEN, 20 + 8 + quoted, PROTO_ICMP, dstIp, srcIp);
  const ic = ETH_HLEN + 20;
  o.setUint8(ic, 3); // destination unreachable
  o.setUint8(ic + 1, 10); // host administratively prohibited
  out.set(frame.subarray(ip, ip + quoted), ic + 8);
  o.setUint16(ic + 2, checksum(out, ic, out.length));
  return out;
}

/**
 * The IPv6 answer: a TCP RST as for IPv4, or ICMPv6 destination unreachable code 1
 * (administratively prohibited) quoting the packet up to the minimum MTU. Only a TCP segment
 * right after the fixed header is answered with a RST (no extension headers); ICMPv6 itself gets
 * no answer.
 */
function buildRejectReplyV6(frame: Uint8Array, v: DataView): Uint8Array | undefined {
  const ip = ETH_HLEN;
  if (frame.length < ip + IPV6_HLEN) return undefined;
  const next = v.getUint8(ip + 6);
  const payloadLen = v.getUint16(ip + 4);
  const srcIp = frame.slice(ip + 8, ip + 24);
  const dstIp = frame.slice(ip + 24, ip + 40);
  const reply = (payload: number, proto: number): { out: Uint8Array; o: DataView; at: number } => {
    const out = new Uint8Array(ETH_HLEN + IPV6_HLEN + payload);
    const o = new DataView(out.buffer);
    out.set(frame.subarray(6, 12), 0); // back to the sender
    out.set(frame.subarray(0, 6), 6); // as if from the address it tried
    o.setUint16(12, ETHERTYPE_IPV6);
    o.setUint32(ip, 0x60000000);
    o.setUint16(ip + 4, payload);
    o.setUint8(ip + 6, proto);
    o.setUint8(ip + 7, 64);
    out.set(dstIp, ip + 8);
    out.set(srcIp, ip + 24);
    return { out, o, at: ip + IPV6_HLEN };
  };
  // Pseudo header (RFC 8200 8.1): source, destination, upper-layer length, next header.
  const pseudo = (len: number, proto: number): number => sum16(srcIp, 0, 16, sum16(dstIp, 0, 16, len + proto));
  if (next === PROTO_TCP) {
    const tcp = ip + IPV6_HLEN;
    if (frame.length < tcp + 20) return undefined;
    const flags = v.getUint8(tcp + 13);
    if (flags & TCP_RST) return undefined;
    const dataLen = Math.max(0, payloadLen - (v.getUint8(tcp + 12) >> 4) * 4);
    const { out, o, at } = reply(20, PROTO_TCP);
    writeRst(o, at, v, tcp, flags, dataLen);
    o.setUint16(at + 16, checksum(out, at, at + 20, pseudo(20, PROTO_TCP)));
    return out;
  }
  if (next === PROTO_ICMPV6) return undefined;
  const quoted = Math.min(frame.length - ip, IPV6_MIN_MTU - IPV6_HLEN - 8);
  const { out, o, at } = reply(8 + quoted, PROTO_ICMPV6);
  o.setUint8(at, 1); // destination unreachable
  o.setUint8(at + 1, 1); // communication administratively prohibited
  out.set(frame.subarray(ip, ip + quoted), at + 8);
  o.setUint16(at + 2, checksum(out, at, out.length, pseudo(8 + quoted, PROTO_ICMPV6)));
  return out;
}

/** The 20-byte RST answering the segment at `tcp` of `v` (RST+ACK when it carried no ACK); checksum left 0. */
function writeRst(o: DataView, t: number, v: DataView, tcp: number, flags: number, dataLen: number): void {
  o.setUint16(t, v.getUint16(tcp + 2));
  o.setUint16(t + 2, v.getUint16(tcp));
  if (flags & TCP_ACK) {
    o.setUint32(t + 4, v.getUint32(tcp + 8));
    o.setUint32(t + 8, 0);
    o.setUint8(t + 13, TCP_RST);
  } else {
    const seq = v.getUint32(tcp + 4);
    const consumed = dataLen + (flags & TCP_SYN ? 1 : 0) + (flags & TCP_FIN ? 1 : 0);
    o.setUint32(t + 4, 0);
    o.setUint32(t + 8, (seq + consumed) >>> 0);
    o.setUint8(t + 13, TCP_RST | TCP_ACK);
  }
  o.setUint8(t + 12, 5 << 4);
  o.setUint16(t + 14, 0);
}

/** Answers Reject packet-ins on a switch connection until stopped. */
export class RejectResponder {
  private readonly log: Logger;
  /** Replies sent (observable for tests). */
  sent = 0;
  private readonly onPacketIn = (p: PacketIn): void => {
    void this.handle(p).catch((e: unknown) => this.log.warn({ err: e }, 'reject reply failed'));
  };

  constructor(
    private readonly sw: PacketInChannel,
    opts: { logger?: Logger } = {},
  ) {
    this.log = opts.logger ?? silentLogger;
    sw.on('packetIn', this.onPacketIn);
  }

  stop(): void {
    this.sw.off('packetIn', this.onPacketIn);
  }

  private async handle(p: PacketIn): Promise<void> {
    if (p.type !== 'packetIn2') return;
    const ud = p.userdata;
    const npReject = ud?.[0] === PACKETIN_CATEGORY_NP && ((ud[1] ?? 0) & PACKETIN_OP_REJECT) !== 0;
    if (!npReject && ud?.[0] !== PACKETIN_CATEGORY_SVC_REJECT) return;
    const inPort = p.metadata?.inPort;
    const reply = buildRejectReply(p.packet);
    if (reply === undefined || typeof inPort !== 'number') return;
    await this.sw.packetOut(reply, [{ type: 'output', port: inPort }]);
    this.sent++;
  }
}
