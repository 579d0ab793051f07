/**
 * NetworkPolicy audit logging (rules with `enableLogging`): the pipeline sends a copy of each
 * logged packet to the agent (packet-in, userdata NP category + logging operation); the agent
 * finds the rule by the conjunction id in the packet's registers and appends a line in Antrea's
 * np.log layout. Identical packets within one second are folded into one line
 * (`[N packets in T]`), and lines are rate limited.
 */
import { appendFileSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Match } from '@switchyard/openflow/codec';
import type { PacketIn, PacketInChannel } from '@switchyard/openflow';
import { ruleKey, type NetworkPolicy, type NetworkPolicyRule } from '@switchyard/openflow-pipeline';
import { silentLogger, systemClock, type Clock, type Logger } from '@switchyard/runtime';

const PACKETIN_CATEGORY_NP = 1;
const PACKETIN_OP_LOGGING = 0b1;
const DISPOSITIONS = ['Allow', 'Drop', 'Reject', 'Pass'] as const;

/** The 5-tuple and length of an IPv4 frame (ports 0 when not TCP/UDP). */
export interface PacketSummary {
  srcIp: string;
  dstIp: string;
  srcPort: number;
  dstPort: number;
  protocol: string;
  length: number;
}

/** Reads the IPv4 5-tuple from an Ethernet frame; undefined for anything else. */
export function summarizeFrame(frame: Uint8Array): PacketSummary | undefined {
  if (frame.length < 34) return undefined;
  const v = new DataView(frame.buffer, frame.byteOffset, frame.byteLength);
  if (v.getUint16(12) !== 0x0800) return undefined;
  const ihl = (v.getUint8(14) & 0x0f) * 4;
  const proto = v.getUint8(23);
  const ip = (at: number): string => [...frame.subarray(at, at + 4)].join('.');
  const l4 = 14 + ihl;
  const ports = (proto === 6 || proto === 17) && frame.length >= l4 + 4;
  return {
    srcIp: ip(26),
    dstIp: ip(30),
    srcPort: ports ? v.getUint16(l4) : 0,
    dstPort: ports ? v.getUint16(l4 + 2) : 0,
    protocol: ({ 1: 'ICMP', 6: 'TCP', 17: 'UDP', 132: 'SCTP' } as Record<number, string>)[proto] ?? String(proto),
    length: v.getUint16(16),
  };
}

/** How a policy is named in np.log: `<kind>:<namespace>/<name>` (cluster-scoped: `<kind>:<name>`). */
export function policyRef(np: NetworkPolicy): string {
  const r = np.sourceRef;
  return r.namespace ? `${r.type}:${r.namespace}/${r.name}` : `${r.type}:${r.name}`;
}

/** Value of register bits [start..end] in packet-in metadata. */
function regBits(m: Match | undefined, reg: number, start: number, end: number): number {
  const raw = (m as Record<string, unknown> | undefined)?.[`reg${reg}`];
  const v = typeof raw === 'number' ? raw : typeof raw === 'object' && raw !== null ? Number((raw as { value: unknown }).value) : 0;
  const width = end - start + 1;
  return width >= 32 ? v >>> 0 : (v >>> start) & ((1 << width) - 1);
}

/** What the logger needs from the running agent. */
export interface AuditLogSource {
  policies(): readonly NetworkPolicy[];
  conjIds(): ReadonlyMap<string, number> | undefined;
  tableName(id: number): string | undefined;
  /** OpenFlow priority of the rule flow (the one matching `conj_id`) in a table. */
  rulePriority(table: number, conjId: number): number | undefined;
}

export interface AuditLogOptions {
  file: string;
  /** Lines per second at most (default 500); extra packets are counted and reported. */
  rateLimit?: number;
  /** Time of the lines and of the one-second folding (default the system clock). */
  clock?: Clock;
  logger?: Logger;
}

interface Pending {
  line: string;
  first: number;
  count: number;
}

/** Writes np.log lines for logged packets. */
export class PolicyAuditLog {
  private readonly clock: Clock;
  private readonly log: Logger;
  private readonly pending = new Map<string, Pending>();
  private windowStart = 0;
  private windowLines = 0;
  /** Lines written and packets dropped by the rate limit (observable for tests). */
  written = 0;
  suppressed = 0;
  private readonly onPacketIn = (p: PacketIn): void => {
    try {
      this.handle(p);
    } catch (e) {
      this.log.warn({ err: e }, 'audit log entry failed');
    }
  };

  constructor(
    private readonly o: AuditLogOptions,
    private readonly source: AuditLogSource,
    private readonly sw?: PacketInChannel,
  ) {
    this.clock = o.clock ?? systemClock;
    this.log = o.logger ?? silentLogger;
    mkdirSync(dirname(o.file), { recursive: true });
    sw?.on('packetIn', this.onPacketIn);
  }

  stop(): void {
    this.sw?.off('packetIn', this.onPacketIn);
    for (const key of [...this.pending.keys()]) this.flush(key);
  }

  /** Handles one packet-in (ignored unless it is a NetworkPolicy logging one). */
  handle(p: PacketIn): void {
    if (p.type !== 'packetIn2') return;
    const ud = p.userdata;
    if (!ud || ud[0] !== PACKETIN_CATEGORY_NP || ((ud[1] ?? 0) & PACKETIN_OP_LOGGING) === 0) return;
    const pkt = summarizeFrame(p.packet);
    if (!pkt) return;
    const m = p.metadata;
    const table = regBits(m, 2, 0, 7);
    const disposition = DISPOSITIONS[regBits(m, 0, 11, 12)] ?? 'Allow';
    const tableName = this.source.tableName(table) ?? String(table);
    // Allowed packets carry the rule's conj id in the traceflow register of their direction,
    // denied ones in APConjIDField (reg3).
    const conjId = disposition === 'Allow' ? regBits(m, /Egress/.test(tableName) ? 5 : 6, 0, 31) : regBits(m, 3, 0, 31);
    const rule = this.findRule(conjId);
    const parts = [
      tableName,
      rule ? policyRef(rule.policy) : '<nil>',
      rule?.rule.name ?? '<nil>',
      disposition,
      String(this.source.rulePriority(table, conjId) ?? '<nil>'),
      pkt.srcIp,
      String(pkt.srcPort),
      pkt.dstIp,
      String(pkt.dstPort),
      pkt.protocol,
      String(pkt.length),
      rule?.rule.logLabel || '<nil>',
    ];
    this.record(parts.join(' '));
  }

  private findRule(conjId: number): { policy: NetworkPolicy; rule: NetworkPolicyRule } | undefined {
    const ids = this.source.conjIds();
    if (!ids) return undefined;
    for (const policy of this.source.policies()) {
      for (let i = 0; i < policy.rules.length; i++) {
        if (ids.get(ruleKey(policy.uid, i)) === conjId) return { policy, rule: policy.rules[i]! };
      }
    }
    return undefined;
  }

  /** First occurrence is written at once; repeats within 1 s are folded into a summary line. */
  private record(body: string): void {
    const key = body;
    const p = this.pending.get(key);
    if (p) {
      p.count++;
      return;
    }
    this.write(body, this.clock.now());
    this.pending.set(key, { line: body, first: this.clock.now(), count: 0 });
    this.clock.setTimeout(() => this.flush(key), 1000);
  }

  private flush(key: string): void {
    const p = this.pending.get(key);
    this.pending.delete(key);
    if (p && p.count > 0) this.write(`${p.line} [${p.count} packets in ${this.clock.now() - p.first}ms]`, this.clock.now());
  }

  private write(body: string, at: number): void {
    if (at - this.windowStart >= 1000) {
      this.windowStart = at;
      this.windowLines = 0;
    }
    if (this.windowLines >= (this.o.rateLimit ?? 500)) {
      this.suppressed++;
      return;
    }
    this.windowLines++;
    appendFileSync(this.o.file, `${formatTimestamp(at)} ${body}\n`);
    this.written++;
  }
}

/** `YYYY/MM/DD HH:MM:SS.ffffff` in UTC, as Antrea's np.log. */
export function formatTimestamp(ms: number): string {
  const d = new Date(ms);
  const p = (n: number, w = 2): string => String(n).padStart(w, '0');
  return `${d.getUTCFullYear()}/${p(d.getUTCMonth() + 1)}/${p(d.getUTCDate())} ${p(d.getUTCHours())}:${p(d.getUTCMinutes())}:${p(d.getUTCSeconds())}.${p(d.getUTCMilliseconds(), 3)}000`;
}
