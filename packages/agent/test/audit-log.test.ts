// np.log lines from logging packet-ins: rule lookup by conjunction id, dedup within a second,
// rate limit; driven with a manual clock.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PacketIn } from '@switchyard/openflow';
import { ManualClock } from '@switchyard/runtime/testing';
import { PolicyAuditLog, formatTimestamp, summarizeFrame, type AuditLogSource } from '../src/features/policy/audit-log';

/** A TCP SYN 10.0.0.2:40000 -> 10.0.0.3:80 in an Ethernet frame. */
function syn(srcPort = 40000): Uint8Array {
  const f = new Uint8Array(54);
  const v = new DataView(f.buffer);
  v.setUint16(12, 0x0800);
  f[14] = 0x45;
  v.setUint16(16, 40);
  f[23] = 6;
  f.set([10, 0, 0, 2], 26);
  f.set([10, 0, 0, 3], 30);
  v.setUint16(34, srcPort);
  v.setUint16(36, 80);
  return f;
}

const policy = {
  uid: 'u1', name: 'p', namespace: 'ns', generation: 1, appliedToGroups: [],
  sourceRef: { type: 'AntreaNetworkPolicy' as const, namespace: 'ns', name: 'p', uid: 'u1' },
  rules: [
    { direction: 'In' as const, from: { addressGroups: [], ipBlocks: [] }, to: { addressGroups: [], ipBlocks: [] }, services: [], priority: 0, enableLogging: true, name: 'r0', action: 'Allow' as const },
    { direction: 'In' as const, from: { addressGroups: [], ipBlocks: [] }, to: { addressGroups: [], ipBlocks: [] }, services: [], priority: 1, enableLogging: true, name: 'r1', action: 'Drop' as const, logLabel: 'lbl' },
  ],
};
const source: AuditLogSource = {
  policies: () => [policy],
  conjIds: () => new Map([['u1/0', 7], ['u1/1', 8]]),
  tableName: (id) => (id === 15 ? 'AntreaPolicyIngressRule' : undefined),
  rulePriority: (_t, conj) => (conj === 7 ? 14000 : 13999),
};
const allowPin = (srcPort?: number): PacketIn => ({ type: 'packetIn2', packet: syn(srcPort), userdata: Uint8Array.of(1, 1), metadata: { reg2: 15, reg6: 7, reg0: 0 } }) as PacketIn;
const dropPin = (): PacketIn => ({ type: 'packetIn2', packet: syn(), userdata: Uint8Array.of(1, 1), metadata: { reg2: 15, reg3: 8, reg0: 1 << 11 } }) as PacketIn;

let dir: string;
let clock: ManualClock;
const advance = (ms: number): void => clock.advance(ms);
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'sy-nplog-'));
  clock = new ManualClock(Date.UTC(2026, 0, 2, 3, 4, 5, 678));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));
const make = (rateLimit?: number): PolicyAuditLog =>
  new PolicyAuditLog({ file: join(dir, 'np.log'), clock, ...(rateLimit ? { rateLimit } : {}) }, source);
const lines = (): string[] => readFileSync(join(dir, 'np.log'), 'utf8').trim().split('\n');

it('writes the table, policy, rule, action, priority, 5-tuple, length and label', () => {
  const log = make();
  log.handle(allowPin());
  log.handle(dropPin());
  expect(lines()).toEqual([
    '2026/01/02 03:04:05.678000 AntreaPolicyIngressRule AntreaNetworkPolicy:ns/p r0 Allow 14000 10.0.0.2 40000 10.0.0.3 80 TCP 40 <nil>',
    '2026/01/02 03:04:05.678000 AntreaPolicyIngressRule AntreaNetworkPolicy:ns/p r1 Drop 13999 10.0.0.2 40000 10.0.0.3 80 TCP 40 lbl',
  ]);
});

it('folds identical packets within a second into one summary line', () => {
  const log = make();
  log.handle(allowPin());
  advance(100);
  log.handle(allowPin());
  log.handle(allowPin());
  log.handle(allowPin(40001)); // another 5-tuple: its own line
  advance(900);
  expect(lines()).toHaveLength(3);
  expect(lines()[2]).toMatch(/ r0 Allow 14000 10\.0\.0\.2 40000 .* \[2 packets in 1000ms\]$/);
});

it('drops lines beyond the rate limit and counts them', () => {
  const log = make(2);
  for (let p = 0; p < 5; p++) log.handle(allowPin(41000 + p));
  expect(lines()).toHaveLength(2);
  expect(log.suppressed).toBe(3);
  advance(1000);
  log.handle(allowPin(42000));
  expect(lines()).toHaveLength(3);
});

it('ignores packet-ins that are not NetworkPolicy logging', () => {
  const log = make();
  log.handle({ type: 'packetIn2', packet: syn(), userdata: Uint8Array.of(1, 4), metadata: {} } as PacketIn);
  log.handle({ type: 'packetIn2', packet: syn(), userdata: Uint8Array.of(0, 1), metadata: {} } as PacketIn);
  expect(log.written).toBe(0);
});

it('summarizeFrame and formatTimestamp', () => {
  expect(summarizeFrame(syn())).toEqual({ srcIp: '10.0.0.2', dstIp: '10.0.0.3', srcPort: 40000, dstPort: 80, protocol: 'TCP', length: 40 });
  expect(summarizeFrame(new Uint8Array(20))).toBeUndefined();
  expect(formatTimestamp(Date.UTC(2026, 10, 23, 1, 2, 3, 45))).toBe('2026/11/23 01:02:03.045000');
});
