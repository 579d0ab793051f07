// Reject replies built from the rejected frame: TCP RST and ICMP unreachable, with valid checksums.
import { buildRejectReply } from '../src/features/policy/reject';

const A = [10, 0, 0, 2];
const B = [10, 0, 0, 3];
const MAC_A = [2, 0, 0, 0, 0, 0xa];
const MAC_B = [2, 0, 0, 0, 0, 0xb];

function sum(bytes: number[] | Uint8Array, acc = 0): number {
  let s = acc;
  for (let i = 0; i < bytes.length; i += 2) s += ((bytes[i] ?? 0) << 8) | (bytes[i + 1] ?? 0);
  while (s > 0xffff) s = (s & 0xffff) + (s >>> 16);
  return s;
}

/** An Ethernet/IPv4 frame from A to B with the given L4 bytes. */
function frame(proto: number, l4: number[]): Uint8Array {
  const total = 20 + l4.length;
  const ip = [0x45, 0, total >> 8, total & 0xff, 0, 1, 0x40, 0, 64, proto, 0, 0, ...A, ...B];
  const c = ~sum(ip) & 0xffff;
  ip[10] = c >> 8;
  ip[11] = c & 0xff;
  return Uint8Array.from([...MAC_B, ...MAC_A, 0x08, 0x00, ...ip, ...l4]);
}
const tcp = (flags: number, seq: number, ack: number, payload: number[] = []): number[] => [
  0x9c, 0x40, 0x1b, 0x59, // 40000 -> 7001
  seq >>> 24, (seq >>> 16) & 0xff, (seq >>> 8) & 0xff, seq & 0xff,
  ack >>> 24, (ack >>> 16) & 0xff, (ack >>> 8) & 0xff, ack & 0xff,
  0x50, flags, 0xff, 0xff, 0, 0, 0, 0, ...payload,
];

function checkIp(out: Uint8Array, proto: number): void {
  expect([...out.subarray(0, 6)]).toEqual(MAC_A);
  expect([...out.subarray(6, 12)]).toEqual(MAC_B);
  const ip = out.subarray(14, 34);
  expect(sum(ip)).toBe(0xffff);
  expect(ip[9]).toBe(proto);
  expect([...ip.subarray(12, 16)]).toEqual(B);
  expect([...ip.subarray(16, 20)]).toEqual(A);
  expect((ip[2]! << 8) | ip[3]!).toBe(out.length - 14);
}

it('answers a SYN with RST+ACK acknowledging it, ports swapped, checksums valid', () => {
  const out = buildRejectReply(frame(6, tcp(0x02, 1000, 0)))!;
  checkIp(out, 6);
  const t = out.subarray(34);
  expect((t[0]! << 8) | t[1]!).toBe(7001);
  expect((t[2]! << 8) | t[3]!).toBe(40000);
  expect(new DataView(t.buffer, t.byteOffset).getUint32(8)).toBe(1001);
  expect(t[13]).toBe(0x14);
  expect(sum(t, sum([...B, ...A], 6 + 20))).toBe(0xffff);
});

it('answers a segment carrying ACK with a bare RST at its ack number', () => {
  const out = buildRejectReply(frame(6, tcp(0x18, 5, 77777, [1, 2, 3])))!;
  const t = out.subarray(34);
  expect(t[13]).toBe(0x04);
  expect(new DataView(t.buffer, t.byteOffset).getUint32(4)).toBe(77777);
});

it('answers UDP with ICMP destination unreachable code 10 quoting the IP header and 8 bytes', () => {
  const udp = [0x9c, 0x40, 0x1b, 0x5a, 0, 10, 0, 0, 0x78, 0x0a];
  const f = frame(17, udp);
  const out = buildRejectReply(f)!;
  checkIp(out, 1);
  const icmp = out.subarray(34);
  expect(icmp[0]).toBe(3);
  expect(icmp[1]).toBe(10);
  expect(sum(icmp)).toBe(0xffff);
  expect([...icmp.subarray(8)]).toEqual([...f.subarray(14, 14 + 28)]);
});

it('does not answer ICMP, RSTs, non-IP or truncated frames', () => {
  expect(buildRejectReply(frame(1, [8, 0, 0, 0, 0, 0, 0, 0]))).toBeUndefined();
  expect(buildRejectReply(frame(6, tcp(0x04, 1, 0)))).toBeUndefined();
  const arp = frame(6, tcp(0x02, 1, 0));
  arp[12] = 0x08;
  arp[13] = 0x06;
  expect(buildRejectReply(arp)).toBeUndefined();
  expect(buildRejectReply(frame(6, tcp(0x02, 1, 0)).subarray(0, 40))).toBeUndefined();
});

describe('over IPv6', () => {
  const A6 = [0xfd, 0, 0, 0x10, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2];
  const S6 = [0xfd, 0, 0, 0x10, 0, 0x96, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xa];
  /** An Ethernet/IPv6 frame from A6 to S6 (a ClusterIP without endpoints) with the given L4 bytes. */
  const frame6 = (next: number, l4: number[]): Uint8Array =>
    Uint8Array.from([...MAC_B, ...MAC_A, 0x86, 0xdd, 0x60, 0, 0, 0, l4.length >> 8, l4.length & 0xff, next, 64, ...A6, ...S6, ...l4]);
  const pseudo = (len: number, next: number): number => sum([...S6, ...A6], len + next);
  function checkIp6(out: Uint8Array, next: number): Uint8Array {
    expect([...out.subarray(0, 6)]).toEqual(MAC_A);
    expect([...out.subarray(6, 12)]).toEqual(MAC_B);
    expect([out[12], out[13]]).toEqual([0x86, 0xdd]);
    const ip = out.subarray(14, 54);
    expect(ip[0]! >> 4).toBe(6);
    expect(ip[6]).toBe(next);
    expect([...ip.subarray(8, 24)]).toEqual(S6);
    expect([...ip.subarray(24, 40)]).toEqual(A6);
    expect((ip[4]! << 8) | ip[5]!).toBe(out.length - 54);
    return out.subarray(54);
  }

  it('answers a SYN with RST+ACK from the address it tried, the IPv6 pseudo-header checksum valid', () => {
    const t = checkIp6(buildRejectReply(frame6(6, tcp(0x02, 1000, 0)))!, 6);
    expect(t).toHaveLength(20);
    expect([(t[0]! << 8) | t[1]!, (t[2]! << 8) | t[3]!]).toEqual([7001, 40000]);
    expect(new DataView(t.buffer, t.byteOffset).getUint32(8)).toBe(1001);
    expect(t[13]).toBe(0x14);
    expect(sum(t, pseudo(20, 6))).toBe(0xffff);
  });

  it('answers UDP with ICMPv6 destination unreachable (administratively prohibited) quoting the packet', () => {
    const udp = [0x9c, 0x40, 0, 53, 0, 12, 0, 0, 1, 2, 3, 4];
    const sent = frame6(17, udp);
    const ic = checkIp6(buildRejectReply(sent)!, 58);
    expect([ic[0], ic[1]]).toEqual([1, 1]);
    expect([...ic.subarray(8)]).toEqual([...sent.subarray(14)]);
    expect(sum(ic, pseudo(ic.length, 58))).toBe(0xffff);
  });

  it('quotes at most what fits the minimum MTU, and does not answer ICMPv6 or a RST', () => {
    const big = frame6(17, [0x9c, 0x40, 0, 53, 0x05, 0xdc, 0, 0, ...new Array<number>(1492).fill(7)]);
    expect(buildRejectReply(big)!.length - 14).toBe(1280);
    expect(buildRejectReply(frame6(58, [128, 0, 0, 0, 0, 1, 0, 1]))).toBeUndefined();
    expect(buildRejectReply(frame6(6, tcp(0x04, 1, 0)))).toBeUndefined();
  });
});
