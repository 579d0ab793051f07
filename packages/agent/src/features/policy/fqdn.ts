/**
 * FQDN egress rules: the pipeline pauses DNS responses to pods selected by rules with `fqdns`
 * peers and hands them to the agent; the agent learns the addresses the names resolve to, puts
 * them into the rules' flows, and only then lets the response continue to the pod, so the pod's
 * first connection after resolving is already allowed. Learned addresses expire with their TTL.
 */
import type { PacketIn, PacketInChannel } from '@switchyard/openflow';
import type { FlowSync } from '../../flow-sync';
import { silentLogger, systemClock, type Clock, type Logger, type TimerHandle } from '@switchyard/runtime';
import { parseIp } from '@switchyard/ipam/cidr';
import { DnsParseError, decodeDnsMessage, dnsPayloadOfFrame, resolveAnswers } from './dns';
import { fqdnRuleTargets, fqdnSpecOf, type FqdnSource } from './fqdn-spec';

/** Packet-in userdata category of the DNS intercept flow (openflow-pipeline PACKETIN_CATEGORY.DNS). */
const PACKETIN_CATEGORY_DNS = 2;

/**
 * Conjunction id of the DNS-intercept flows. Rule conjunctions are numbered from 1 upwards by
 * `assignConjunctionIds`, so a fixed id at the top of the 32-bit space never meets one of them.
 */
export const DNS_INTERCEPT_CONJ_ID = 0xfffffff0;

/** Default floor on how long a learned address stays allowed, in seconds (see {@link FqdnOptions}). */
export const DEFAULT_MIN_TTL_SECONDS = 5;

/** Names are compared lower-case and without the trailing dot of the absolute form. */
export function normalizeName(name: string): string {
  const n = name.trim().toLowerCase();
  return n.endsWith('.') ? n.slice(0, -1) : n;
}

const patternCache = new Map<string, RegExp | string>();

/**
 * Whether a name matches an FQDN as written in a rule. Without `*` the names must be equal
 * (case-insensitive). `*` stands for any run of name characters, dots included, as in Antrea:
 * `*.example.com` matches `a.example.com` and `a.b.example.com` but not `example.com`;
 * `*example.com` matches all three.
 */
export function fqdnMatches(pattern: string, name: string): boolean {
  let m = patternCache.get(pattern);
  if (m === undefined) {
    const p = normalizeName(pattern);
    m = p.includes('*') ? new RegExp(`^${p.split('*').map((s) => s.replace(/[.+?^${}()|[\]\\-]/g, '\\$&')).join('[-a-z0-9_.]*')}$`) : p;
    if (patternCache.size > 10_000) patternCache.clear();
    patternCache.set(pattern, m);
  }
  const n = normalizeName(name);
  return typeof m === 'string' ? m === n : m.test(n);
}

/**
 * Addresses learned per resolved name, each with its expiry time. Pure data: the caller passes
 * the time. Re-learning an address extends its expiry (never shortens it); a name's other
 * addresses are kept until they expire on their own, like a resolver cache.
 */
export class FqdnCache {
  private readonly names = new Map<string, Map<string, number>>();

  /** `minTtlSeconds` lifts short TTLs so an address outlives the connection attempt it was asked for. */
  constructor(readonly minTtlSeconds = DEFAULT_MIN_TTL_SECONDS) {}

  /** Records an address for a name; true when the name did not have it before. */
  learn(name: string, address: string, ttlSeconds: number, now: number): boolean {
    const n = normalizeName(name);
    let m = this.names.get(n);
    if (!m) {
      m = new Map();
      this.names.set(n, m);
    }
    const expires = now + Math.max(ttlSeconds, this.minTtlSeconds) * 1000;
    const old = m.get(address);
    if (old === undefined || old < expires) m.set(address, expires);
    return old === undefined;
  }

  /** Drops what has expired at `now` (expiry time included); true when anything was dropped. */
  expire(now: number): boolean {
    let dropped = false;
    for (const [name, m] of this.names) {
      for (const [addr, at] of m) {
        if (at <= now) {
          m.delete(addr);
          dropped = true;
        }
      }
      if (m.size === 0) this.names.delete(name);
    }
    return dropped;
  }

  /** The earliest expiry time in the cache. */
  nextExpiry(): number | undefined {
    let next: number | undefined;
    for (const m of this.names.values()) for (const at of m.values()) if (next === undefined || at < next) next = at;
    return next;
  }

  /** Addresses of every cached name matching each pattern, sorted; patterns without any are left out. */
  addresses(patterns: readonly string[]): Record<string, string[]> {
    const out: Record<string, string[]> = {};
    for (const p of patterns) {
      const set = new Set<string>();
      for (const [name, m] of this.names) if (fqdnMatches(p, name)) for (const a of m.keys()) set.add(a);
      if (set.size > 0) out[p] = [...set].sort();
    }
    return out;
  }

  /** Cached names with their addresses and expiry times (for introspection and tests). */
  entries(): { name: string; address: string; expires: number }[] {
    const out: { name: string; address: string; expires: number }[] = [];
    for (const [name, m] of this.names) for (const [address, expires] of m) out.push({ name, address, expires });
    return out.sort((a, b) => a.name.localeCompare(b.name) || a.address.localeCompare(b.address));
  }
}

/** Options of {@link FqdnController}. */
export interface FqdnOptions {
  logger?: Logger;
  /** Time source for TTL expiry (default: the process clock). */
  clock?: Clock;
  /**
   * Floor on a learned address's lifetime, in seconds (default {@link DEFAULT_MIN_TTL_SECONDS}).
   * An answer with TTL 0 would otherwise be forgotten before the pod could use it.
   */
  minTtlSeconds?: number;
}

/** What {@link FqdnController.attach} needs of a running agent. */
export interface FqdnAgentParts {
  readonly openflow: PacketInChannel;
  readonly flows: FlowSync;
}

/** The FQDN controller of each flow sync (one per bridge). */
const REGISTERED = new WeakMap<FlowSync, FqdnController>();

/**
 * Learns addresses from intercepted DNS responses, keeps them in the flows of FQDN rules while
 * their TTL lasts, and releases every paused response (malformed ones included) to its pod.
 */
export class FqdnController implements FqdnSource {
  readonly conjId = DNS_INTERCEPT_CONJ_ID;
  readonly cache: FqdnCache;
  private readonly log: Logger;
  private readonly clock: Clock;
  private timer: { handle: TimerHandle; at: number } | undefined;
  private readonly inflight = new Set<Promise<unknown>>();
  private stopped = false;
  /** Counters (observable for tests and metrics). */
  readonly stats = { responses: 0, released: 0, malformed: 0, learned: 0, expiries: 0, syncErrors: 0 };

  private readonly onPacketIn = (p: PacketIn): void => {
    if (p.type !== 'packetIn2' || p.userdata?.[0] !== PACKETIN_CATEGORY_DNS) return;
    this.track(this.handle(p));
  };

  /**
   * Registers with the flow sync, replacing (and stopping) any controller registered before (no sync yet: create it before the agent's initial sync, or use
   * {@link attach} on a running agent) and listens for DNS packet-ins on the switch connection.
   */
  constructor(
    private readonly sw: PacketInChannel,
    private readonly flows: FlowSync,
    opts: FqdnOptions = {},
  ) {
    this.log = opts.logger ?? silentLogger;
    this.clock = opts.clock ?? systemClock;
    this.cache = new FqdnCache(opts.minTtlSeconds ?? DEFAULT_MIN_TTL_SECONDS);
    // One controller per bridge: two would each resume the same paused packet. The newest wins.
    FqdnController.registered(flows)?.stop();
    REGISTERED.set(flows, this);
    flows.derive('fqdn', (state) => fqdnSpecOf(state, this));
    sw.on('packetIn', this.onPacketIn);
  }

  /** The controller registered last with `flows`. */
  static registered(flows: FlowSync): FqdnController | undefined {
    return REGISTERED.get(flows);
  }

  /** Starts FQDN support on a running agent: the intercept flows are installed before this resolves. */
  static async attach(agent: FqdnAgentParts, opts: FqdnOptions = {}): Promise<FqdnController> {
    const c = new FqdnController(agent.openflow, agent.flows, opts);
    await agent.flows.requestSync();
    return c;
  }

  /** Stops listening and cancels the expiry timer; installed flows stay as they are. */
  stop(): void {
    this.stopped = true;
    this.sw.off('packetIn', this.onPacketIn);
    this.timer?.handle.cancel();
    this.timer = undefined;
  }

  /** Resolves when every response and expiry handled so far is done (flows synced, packets released). */
  async idle(): Promise<void> {
    while (this.inflight.size > 0) await Promise.allSettled([...this.inflight]);
  }

  addresses(patterns: readonly string[]): Record<string, string[]> {
    return this.cache.addresses(patterns);
  }

  /**
   * Drops expired addresses now and removes them from the flows (the expiry timer calls this;
   * tests may too, after moving a manual clock).
   */
  async expireNow(): Promise<void> {
    if (this.cache.expire(this.clock.now())) {
      this.stats.expiries++;
      await this.sync('expiry');
    }
    this.arm();
  }

  private track(p: Promise<unknown>): void {
    this.inflight.add(p);
    void p.finally(() => this.inflight.delete(p));
  }

  private async handle(p: Extract<PacketIn, { type: 'packetIn2' }>): Promise<void> {
    this.stats.responses++;
    try {
      if (this.learnFrom(p.packet)) await this.sync('dns response');
    } catch (e) {
      // Whatever went wrong, the pod still gets its answer: the worst case is an address not yet allowed.
      if (e instanceof DnsParseError) {
        this.stats.malformed++;
        this.log.warn({ err: e, code: e.code, offset: e.offset, path: e.path }, 'malformed DNS response released unparsed');
      } else {
        this.log.error({ err: e }, 'DNS response handling failed; releasing it');
      }
    }
    if (!p.continuation || this.stopped) return;
    try {
      await this.sw.resume(p);
      this.stats.released++;
    } catch (e) {
      this.log.warn({ err: e }, 'paused DNS response not resumed');
    }
  }

  /** Learns from one frame; true when a rule's address set grew. */
  private learnFrom(frame: Uint8Array): boolean {
    const payload = dnsPayloadOfFrame(frame);
    if (!payload) return false;
    const msg = decodeDnsMessage(payload.message);
    if (!msg.qr || msg.opcode !== 0 || msg.rcode !== 0) return false;
    const { patterns } = fqdnRuleTargets({ policies: this.flows.get('policies'), appliedToGroups: [], pods: [] });
    if (patterns.length === 0) return false;
    const now = this.clock.now();
    let grew = false;
    for (const r of resolveAnswers(msg)) {
      if (!r.names.some((n) => patterns.some((p) => fqdnMatches(p, n)))) continue;
      for (const a of r.addresses) {
        // AAAA answers count on a dual-stack node only: an IPv4-only node's flows take no IPv6 address.
        if (a.family === 6 && this.flows.config.podCIDRv6 === undefined) continue;
        // One spelling per address (RFC 5952, as the rest of the agent writes IPv6; dns-packet may
        // compress another zero run), so a name's address is one cache entry and one flow.
        const address = a.family === 6 ? parseIp(a.address).toString() : a.address;
        // Every name of the chain holds the address, so a rule on the alias or on the canonical name matches.
        for (const n of r.names) {
          if (!patterns.some((p) => fqdnMatches(p, n))) continue;
          if (this.cache.learn(n, address, a.ttl, now)) {
            grew = true;
            this.stats.learned++;
            this.log.info({ name: n, address, ttl: a.ttl }, 'FQDN address learned');
          }
        }
      }
    }
    this.arm();
    return grew;
  }

  private async sync(why: string): Promise<void> {
    try {
      await this.flows.requestSync();
    } catch (e) {
      this.stats.syncErrors++;
      this.log.error({ err: e, why }, 'FQDN flow update failed');
    }
  }

  /** Keeps one timer, set for the earliest expiry. */
  private arm(): void {
    if (this.stopped) return;
    const next = this.cache.nextExpiry();
    if (this.timer && this.timer.at === next) return;
    this.timer?.handle.cancel();
    this.timer = undefined;
    if (next === undefined) return;
    const handle = this.clock.setTimeout(() => {
      this.timer = undefined;
      this.track(this.expireNow());
    }, Math.max(0, next - this.clock.now()));
    this.timer = { handle, at: next };
  }
}
