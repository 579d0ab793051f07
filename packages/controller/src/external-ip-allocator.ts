// Which object (a Service, an Egress) holds which external IP of which ExternalIPPool (pure, in
// memory): the one allocator the ServiceExternalIP and Egress parts share, rebuilt at start from the
// Services' statuses and the Egresses' specs, so an IP is never given to two objects.
import type { Ip, IpFamily, IpRange } from '@switchyard/ipam/cidr';

/** The kinds of objects holding external IPs. */
export type ExternalIPHolderKind = 'Service' | 'Egress';

/** The allocator key of an Egress (cluster-scoped; no Service key starts with an upper-case letter). */
export const egressHolderKey = (name: string): string => `Egress/${name}`;

/** One object's external IP. */
export interface ExternalIPHolding {
  /** The holder's key: `namespace/name` of a Service, {@link egressHolderKey} of an Egress. */
  service: string;
  kind: ExternalIPHolderKind;
  pool: string;
  ip: Ip;
  /** The Service allows sharing its IP (`service.antrea.io/allow-shared-load-balancer-ip: "true"`). */
  sharable: boolean;
}

/** Why a Service did not get an IP. */
export type ExternalIPRefusal =
  | { reason: 'PoolNotFound'; pool: string }
  /** `owner`: the pool whose ranges hold the IP, when another one does. */
  | { reason: 'NotInPool'; pool: string; ip: Ip; owner?: string }
  | { reason: 'InUse'; pool: string; ip: Ip; holders: string[] }
  /** `family`: the family asked for, when the allocation was of one family. */
  | { reason: 'Exhausted'; pool: string; total: number; used: number; family?: IpFamily };

/** What a claim or an allocation answers. */
export type ExternalIPResult = { ok: true; holding: ExternalIPHolding } | ({ ok: false } & ExternalIPRefusal);

/** A pool's usage as `status.usage` carries it. */
export interface ExternalIPPoolUsage {
  total: number;
  used: number;
}

/**
 * External IPs of ExternalIPPools and the Services holding them. An IP is held by one Service, or
 * shared by Services that all allow sharing. Addresses are handed out lowest first, range by range
 * in the pool's order; an address held in any pool is never handed out again (pools that overlap,
 * stored before the webhook could refuse them, still give no IP twice).
 */
export class ExternalIPAllocator {
  private readonly pools = new Map<string, readonly IpRange[]>();
  private readonly byService = new Map<string, ExternalIPHolding>();
  /** IP text -> Services holding it. */
  private readonly byIp = new Map<string, Set<string>>();

  /** Sets (or replaces) the addresses a pool hands out. Holdings stay as they are. */
  setPool(name: string, ranges: readonly IpRange[]): void {
    this.pools.set(name, ranges);
  }

  /** Forgets a pool; its holdings stay until released (so each Service is told). */
  removePool(name: string): void {
    this.pools.delete(name);
  }

  hasPool(name: string): boolean {
    return this.pools.has(name);
  }

  /** True when the pool hands out `ip`. */
  contains(pool: string, ip: Ip): boolean {
    return (this.pools.get(pool) ?? []).some((r) => r.contains(ip));
  }

  /** The families the pool has ranges of (none for a missing pool). */
  families(pool: string): Set<IpFamily> {
    return new Set((this.pools.get(pool) ?? []).map((r) => r.family));
  }

  /** A pool that hands out `ip`, if any. */
  poolOf(ip: Ip): string | undefined {
    for (const [name, ranges] of this.pools) if (ranges.some((r) => r.contains(ip))) return name;
    return undefined;
  }

  /** Services holding an IP. */
  get size(): number {
    return this.byService.size;
  }

  held(service: string): ExternalIPHolding | undefined {
    return this.byService.get(service);
  }

  /** Every holding (of one kind when given), in the order they were made. */
  holdings(kind?: ExternalIPHolderKind): ExternalIPHolding[] {
    const all = [...this.byService.values()];
    return kind === undefined ? all : all.filter((h) => h.kind === kind);
  }

  /** Services holding `ip`. */
  holders(ip: Ip): string[] {
    return [...(this.byIp.get(ip.toString()) ?? [])];
  }

  /** Takes a given IP of a pool for a Service (its `loadBalancerIP`, or the IP its status had). */
  claim(service: string, pool: string, ip: Ip, sharable: boolean, kind: ExternalIPHolderKind = 'Service'): ExternalIPResult {
    if (!this.pools.has(pool)) return { ok: false, reason: 'PoolNotFound', pool };
    if (!this.contains(pool, ip)) {
      const owner = this.poolOf(ip);
      return { ok: false, reason: 'NotInPool', pool, ip, ...(owner !== undefined ? { owner } : {}) };
    }
    const others = this.holders(ip).filter((s) => s !== service);
    if (others.length > 0 && !(sharable && others.every((s) => this.byService.get(s)?.sharable === true))) return { ok: false, reason: 'InUse', pool, ip, holders: others };
    return { ok: true, holding: this.hold({ service, kind, pool, ip, sharable }) };
  }

  /** Gives a Service (or an Egress) the lowest free IP of a pool (of its ranges of `family`, when given). */
  allocate(service: string, pool: string, sharable: boolean, kind: ExternalIPHolderKind = 'Service', family?: IpFamily): ExternalIPResult {
    const ranges = this.pools.get(pool);
    if (!ranges) return { ok: false, reason: 'PoolNotFound', pool };
    for (const r of ranges) {
      if (family !== undefined && r.family !== family) continue;
      // Bounded by the number of held IPs: each step skips one.
      for (let ip: Ip | undefined = r.first; ip !== undefined && r.contains(ip); ip = ip.next()) {
        if (!this.byIp.has(ip.toString())) return { ok: true, holding: this.hold({ service, kind, pool, ip, sharable }) };
      }
    }
    return { ok: false, reason: 'Exhausted', pool, ...this.usage(pool, family), ...(family !== undefined ? { family } : {}) };
  }

  /** Releases what the Service holds; answers it. */
  release(service: string): ExternalIPHolding | undefined {
    const h = this.byService.get(service);
    if (!h) return undefined;
    this.byService.delete(service);
    const key = h.ip.toString();
    const set = this.byIp.get(key);
    set?.delete(service);
    if (set?.size === 0) this.byIp.delete(key);
    return h;
  }

  /** `total`: addresses the pool hands out; `used`: its addresses held (a shared one once); of one family when given. */
  usage(pool: string, family?: IpFamily): ExternalIPPoolUsage {
    let total = 0n;
    for (const r of this.pools.get(pool) ?? []) if (family === undefined || r.family === family) total += r.size;
    const used = new Set<string>();
    for (const h of this.byService.values()) if (h.pool === pool && (family === undefined || h.ip.family === family)) used.add(h.ip.toString());
    return { total: Number(total), used: used.size };
  }

  private hold(h: ExternalIPHolding): ExternalIPHolding {
    this.release(h.service);
    this.byService.set(h.service, h);
    const key = h.ip.toString();
    const set = this.byIp.get(key) ?? new Set<string>();
    set.add(h.service);
    this.byIp.set(key, set);
    return h;
  }
}

/** The ranges a pool hands out, for {@link ExternalIPAllocator.setPool}. */
export function usableRanges(ranges: readonly { usable: IpRange | undefined }[]): IpRange[] {
  return ranges.flatMap((r) => (r.usable ? [r.usable] : []));
}
