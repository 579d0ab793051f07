/**
 * Reject: the pipeline sends a rejected packet to the agent (packet-in, userdata NP category +
 * reject operation); the agent answers the sender as the destination would refuse it, a TCP RST
 * for TCP, an ICMP destination unreachable (host administratively prohibited, Antrea's choice)
 * for anything else over IPv4, and sends that straight out of the port the packet came in on.
 * Connections to a Service without endpoints (packet-in category SvcReject) get the same answer.
 */
import type { PacketIn, PacketInChannel } from '@switchyard/openflow';
import { silentLogger, type Logger } from '@switchyard/runtime';
import { ETH_HLEN, ETHERTYPE_IPV4, PROTO_ICMP, PROTO_TCP, checksum, ipv4Header, sum16 } from '../../packet';

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
