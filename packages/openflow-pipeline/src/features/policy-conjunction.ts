/**
 * Conjunctive match flows shared between rules: one flow per (table, priority, match) carrying a
 * `conjunction(id, clause/n)` action for every rule clause that needs the match.
 */
import type { Action, Flow, Match } from '@switchyard/openflow/codec';
import { clearInternedMatchHashes, flowHash, internMatchHash, sameIdentity } from '../identity';
import { singleConjunction } from '../merge';
import { codeBase, codeLen, formatCidrCode, Ranges } from './addresses';
import { IP, IPV6, flow, ipv4Net, ipv6Net } from './common';

/**
 * Conjunctive match flows are kept by slot (their position in the builder's list). The (conj id,
 * clause) pairs a flow carries, coded `id * 4 + clause`, are appended to the builder's pair
 * buffer with the flow's slot (two flat arrays for all flows instead of an array each) and
 * grouped per flow by a counting sort at the end.
 */

/** Growable typed buffers of (slot, code) pairs: off the JS heap, so a million pairs cost the GC little. */
class PairBuffer {
  slot: Uint32Array;
  code: Float64Array;
  n = 0;
  constructor(size = 1024) {
    this.slot = new Uint32Array(size);
    this.code = new Float64Array(size);
  }
  push(slot: number, code: number): void {
    if (this.n === this.slot.length) {
      const s = new Uint32Array(Math.max(16, this.n * 2));
      const c = new Float64Array(Math.max(16, this.n * 2));
      s.set(this.slot);
      c.set(this.code);
      this.slot = s;
      this.code = c;
    }
    this.slot[this.n] = slot;
    this.code[this.n++] = code;
  }
}

const SPENT = new PairBuffer(0);

/** Actions of a match flow until {@link ConjunctionBuilder.flows} sets them (never returned). */
const UNSET: Action[] = [];

/** Scratch buffer for address ranges, shared by every builder (each use is consumed at once). */
const SCRATCH = new Ranges();

/**
 * Pair buffers of finished builders, reused: with one builder per policy, allocating typed arrays
 * for each would make the collector run full collections for their off-heap memory.
 */
const PAIR_POOL: PairBuffer[] = [];
/** Larger buffers (a computation of many rules at once) are left to the collector. */
const POOLED_MAX = 1 << 16;

/** Scratch for the counting sort in {@link ConjunctionBuilder.flows} (one runs at a time). */
let sortStart = new Uint32Array(1024);
let sortGrouped = new Float64Array(1024);

/**
 * Address matches by (direction, CIDR code), shared by every flow that matches the address: with
 * one computation per policy, the same peer addresses would otherwise be formatted once per policy.
 * Matches are never mutated. Bounded: emptied when it grows past MATCH_CACHE_MAX.
 */
const ADDRESS_MATCHES = new Map<number, Match>();
const MATCH_CACHE_MAX = 1 << 18;

function addressMatch(code: number, dir: 'src' | 'dst'): Match {
  const k = code * 2 + (dir === 'src' ? 0 : 1);
  let m = ADDRESS_MATCHES.get(k);
  if (!m) {
    const net = ipv4Net(formatCidrCode(code));
    m = dir === 'src' ? { ...IP, ipv4Src: net } : { ...IP, ipv4Dst: net };
    if (ADDRESS_MATCHES.size >= MATCH_CACHE_MAX) {
      ADDRESS_MATCHES.clear();
      clearInternedMatchHashes();
    }
    ADDRESS_MATCHES.set(k, m);
    internMatchHash(m);
  }
  return m;
}

/** IPv6 address matches by direction and canonical CIDR text, shared like IPv4's (same bound). */
const ADDRESS6_MATCHES = new Map<string, Match>();

function ipv6AddressMatch(cidr: string, dir: 'src' | 'dst'): Match {
  const k = dir === 'src' ? `s${cidr}` : `d${cidr}`;
  let m = ADDRESS6_MATCHES.get(k);
  if (!m) {
    if (cidr === '::/0') return { ...IPV6 };
    const net = ipv6Net(cidr, 'ipv6 peer');
    m = dir === 'src' ? { ...IPV6, ipv6Src: net } : { ...IPV6, ipv6Dst: net };
    if (ADDRESS6_MATCHES.size >= MATCH_CACHE_MAX) {
      ADDRESS6_MATCHES.clear();
      clearInternedMatchHashes();
    }
    ADDRESS6_MATCHES.set(k, m);
    internMatchHash(m);
  }
  return m;
}

/** Collects the conjunctive match flows of a set of rules (one policy, or all of them at once). */
export class ConjunctionBuilder {
  /** Scratch buffer for a peer's address ranges. */
  readonly ranges = SCRATCH;
  /** Shared flows other than address matches by identity hash (table, priority, match). */
  private shared: Map<number, number[]> | undefined;
  /** Address match flows by (table, priority, src|dst), then prefix length, then base address `| 0`. */
  private addrShared: Map<string, (Map<number, number> | undefined)[]> | undefined;
  /** IPv6 address match flows by (table, priority, src|dst), then canonical CIDR text. */
  private addr6Shared: Map<string, Map<string, number>> | undefined;
  private readonly order: Flow[] = [];
  private pairs: PairBuffer;
  /** Number of clauses of each conj id. */
  private clauseCounts: Map<number, number> | undefined;
  /** The first conj id's count held outside the map: a builder per rule usually declares one id. */
  private firstId = -1;
  private firstCount = 0;
  /** Conjunction action objects by `id * 4 + clause` (flows with several). */
  private actions: Map<number, Action> | undefined;

  /**
   * `shareMatches` false: every (id, clause) gets its own flow, even for a match seen before. For a
   * consumer that merges conjunctive flows of one identity anyway (the pipeline's store and
   * merge), so one rule's flows cost no lookups.
   */
  constructor(private readonly cookie: bigint, private readonly shareMatches = true) {
    this.pairs = shareMatches ? PAIR_POOL.pop() ?? new PairBuffer() : SPENT;
    this.pairs.n = 0;
  }

  /** True when flows of one match are shared (a build of many rules); false for one rule's flows. */
  get sharesMatches(): boolean {
    return this.shareMatches;
  }

  /** Declares how many clauses conj id `id` has. */
  setClauses(id: number, n: number): void {
    if (this.firstId === -1 || this.firstId === id) {
      this.firstId = id;
      this.firstCount = n;
    } else (this.clauseCounts ??= new Map()).set(id, n);
  }

  /** Adds (id, clause) to the shared flow of a match. */
  add(table: number, priority: number, match: Match, id: number, clause: number): void {
    if (!this.shareMatches) {
      this.order.push(flow(table, priority, match, this.single(id, clause), this.cookie));
      return;
    }
    const f = flow(table, priority, match, UNSET, this.cookie);
    const h = flowHash(f);
    this.shared ??= new Map();
    let bucket = this.shared.get(h);
    if (!bucket) {
      bucket = [];
      this.shared.set(h, bucket);
    }
    let e = -1;
    for (const x of bucket) if (sameIdentity(this.order[x]!, f)) e = x;
    if (e < 0) {
      e = this.slot(f);
      bucket.push(e);
    }
    this.pairs.push(e, id * 4 + clause);
  }

  /** Adds (id, clause) to the address match flows of CIDR codes (a /0 is the plain `ip` match). */
  addAddresses(table: number, priority: number, codes: readonly number[], dir: 'src' | 'dst', id: number, clause: number): void {
    const conj = id * 4 + clause;
    if (!this.shareMatches) {
      const actions = this.single(id, clause);
      for (const code of codes) this.order.push(flow(table, priority, codeLen(code) === 0 ? { ...IP } : addressMatch(code, dir), actions, this.cookie));
      return;
    }
    const bk = `${table}/${priority}/${dir}`;
    this.addrShared ??= new Map();
    let bucket = this.addrShared.get(bk);
    if (!bucket) {
      bucket = [];
      this.addrShared.set(bk, bucket);
    }
    // Hot loop (one pass per peer address of every rule): no closures, no strings unless the flow
    // is new, and small-integer map keys (`base | 0` in a map per prefix length) so that looking a
    // code up allocates nothing.
    for (let k = 0; k < codes.length; k++) {
      const code = codes[k]!;
      const len = codeLen(code);
      if (len === 0) {
        this.add(table, priority, { ...IP }, id, clause);
        continue;
      }
      let byBase = bucket[len];
      if (!byBase) {
        byBase = new Map();
        bucket[len] = byBase;
      }
      const base = codeBase(code) | 0;
      let e = byBase.get(base);
      if (e === undefined) {
        e = this.slot(flow(table, priority, addressMatch(code, dir), UNSET, this.cookie));
        byBase.set(base, e);
      }
      this.pairs.push(e, conj);
    }
  }

  /**
   * Adds (id, clause) to the IPv6 address match flows of canonical CIDR text (`::/0` is the plain
   * `ipv6` match). Shared flows are found by (table, priority, direction) and the text, as IPv4's
   * by code.
   */
  addIpv6Addresses(table: number, priority: number, cidrs: readonly string[], dir: 'src' | 'dst', id: number, clause: number): void {
    if (!this.shareMatches) {
      const actions = this.single(id, clause);
      for (const cidr of cidrs) this.order.push(flow(table, priority, ipv6AddressMatch(cidr, dir), actions, this.cookie));
      return;
    }
    const bk = `${table}/${priority}/${dir}`;
    this.addr6Shared ??= new Map();
    let bucket = this.addr6Shared.get(bk);
    if (!bucket) {
      bucket = new Map();
      this.addr6Shared.set(bk, bucket);
    }
    const conj = id * 4 + clause;
    for (const cidr of cidrs) {
      if (cidr === '::/0') {
        this.add(table, priority, { ...IPV6 }, id, clause);
        continue;
      }
      let e = bucket.get(cidr);
      if (e === undefined) {
        e = this.slot(flow(table, priority, ipv6AddressMatch(cidr, dir), UNSET, this.cookie));
        bucket.set(cidr, e);
      }
      this.pairs.push(e, conj);
    }
  }

  /**
   * The one-action list of (id, clause): without shared matches every flow carries exactly one,
   * so it is set when the flow is made (no pairs to group).
   */
  private single(id: number, clause: number): Action[] {
    return singleConjunction(id, clause, this.nClauses(id));
  }

  /** Number of clauses of conj id `id` (declared by {@link setClauses}). */
  private nClauses(id: number): number {
    return id === this.firstId ? this.firstCount : this.clauseCounts!.get(id)!;
  }

  private slot(f: Flow): number {
    this.order.push(f);
    return this.order.length - 1;
  }

  /**
   * The shared flows with their conjunction actions (pairs grouped per flow by a counting sort).
   * Ends the builder: its buffers go back to the pool.
   */
  flows(): Flow[] {
    if (!this.shareMatches) return this.order;
    const nFlows = this.order.length;
    const { slot, code, n } = this.pairs;
    if (sortStart.length < 2 * (nFlows + 1)) sortStart = new Uint32Array(2 * (nFlows + 1) * 2);
    if (sortGrouped.length < n) sortGrouped = new Float64Array(n * 2);
    const start = sortStart.subarray(0, nFlows + 1).fill(0);
    const fill = sortStart.subarray(nFlows + 1, 2 * (nFlows + 1));
    const grouped = sortGrouped;
    for (let i = 0; i < n; i++) start[slot[i]! + 1]!++;
    for (let f = 0; f < nFlows; f++) start[f + 1]! += start[f]!;
    fill.set(start);
    for (let i = 0; i < n; i++) grouped[fill[slot[i]!]!++] = code[i]!;
    for (let f = 0; f < nFlows; f++) this.order[f]!.actions = this.conjActions(grouped.subarray(start[f]!, start[f + 1]!));
    if (this.pairs.slot.length <= POOLED_MAX) PAIR_POOL.push(this.pairs);
    this.pairs = SPENT;
    return this.order;
  }

  /**
   * The conjunction actions of a shared flow: sorted by (id, clause), duplicates dropped. One
   * action object per (id, clause) is shared by every flow carrying it (a rule with 100 peer
   * addresses would otherwise allocate 100 identical objects); actions are never mutated.
   */
  private conjActions(codes: Float64Array): Action[] {
    let sorted = true;
    for (let i = 1; i < codes.length && sorted; i++) sorted = codes[i - 1]! <= codes[i]!;
    // Rules are usually visited in conj-id order, so most lists are already sorted.
    if (!sorted) codes.sort();
    if (codes.length === 1) {
      const id = Math.floor(codes[0]! / 4);
      return singleConjunction(id, codes[0]! % 4, this.nClauses(id));
    }
    const out: Action[] = [];
    let prev = -1;
    for (const c of codes) {
      if (c === prev) continue;
      prev = c;
      this.actions ??= new Map();
      let a = this.actions.get(c);
      if (!a) {
        const id = Math.floor(c / 4);
        a = { type: 'conjunction', id, clause: c % 4, nClauses: this.nClauses(id) };
        this.actions.set(c, a);
      }
      out.push(a);
    }
    return out;
  }
}
