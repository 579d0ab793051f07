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

it('does not answer ICMP, RSTs, non-IPv4 or truncated frames', () => {
  expect(buildRejectReply(frame(1, [8, 0, 0, 0, 0, 0, 0, 0]))).toBeUndefined();
  expect(buildRejectReply(frame(6, tcp(0x04, 1, 0)))).toBeUndefined();
  const v6 = frame(6, tcp(0x02, 1, 0));
  v6[12] = 0x86;
  v6[13] = 0xdd;
  expect(buildRejectReply(v6)).toBeUndefined();
  expect(buildRejectReply(frame(6, tcp(0x02, 1, 0)).subarray(0, 40))).toBeUndefined();
});
