// ClusterIP and NodePort allocation for Services (the controller-manager/apiserver allocators).

import { formatIp, parseCidr, parseIp, type Cidr, type Ip } from '@switchyard/ipam/cidr';
import { type FieldError } from './errors';

/** Thrown for a service CIDR the allocator cannot use. */
export class ServiceCidrError extends Error {
  readonly code = 'InvalidServiceCIDR';
  constructor(
    readonly value: string,
    why = 'expected an IPv4 prefix such as 10.96.0.0/12',
  ) {
    super(`invalid service CIDR ${JSON.stringify(value)}: ${why}`);
    this.name = 'ServiceCidrError';
  }
}

/** A Service's IP family, as `spec.ipFamilies` names it. */
export type IPFamilyName = 'IPv4' | 'IPv6';

/** `IPv4` / `IPv6` of an address, or undefined when `text` is not one. */
export function ipFamilyOf(text: string): IPFamilyName | undefined {
  try {
    return parseIp(text).family === 4 ? 'IPv4' : 'IPv6';
  } catch {
    return undefined;
  }
}

/** The address when `text` is one of `family`, else undefined. */
function ipOf(text: string, family: 4 | 6): Ip | undefined {
  try {
    const ip = parseIp(text);
    return ip.family === family ? ip : undefined;
  } catch {
    return undefined;
  }
}

/**
 * One service CIDR's allocator. IPv4 keeps its network and broadcast addresses out; IPv6 only its
 * network address (no broadcast), as kube-apiserver's range allocator.
 */
export class ClusterIPAllocator {
  private readonly block: Cidr;
  /** Allocated addresses, by value. */
  private readonly used = new Set<bigint>();
  private next = 10;
  readonly family: 4 | 6;

  constructor(readonly cidr: string) {
    let block: Cidr | undefined;
    try {
      block = parseCidr(cidr);
    } catch {
      block = undefined;
    }
    if (block?.family === 6) {
      // kube-apiserver: an IPv6 service range has at most 20 host bits (a /108).
      if (block.prefix < 108 || block.prefix > 126) throw new ServiceCidrError(cidr, 'an IPv6 service CIDR must be a /108 to /126 prefix such as fd00:10:96::/112');
    } else if (!block || block.prefix < 8 || block.prefix > 30) throw new ServiceCidrError(cidr);
    this.block = block;
    this.family = block.family;
  }

  /** `IPv4` or `IPv6`. */
  get familyName(): IPFamilyName {
    return this.family === 4 ? 'IPv4' : 'IPv6';
  }

  /** The first usable address: the `kubernetes` Service's ClusterIP. */
  get first(): string {
    return this.block.nth(1).toString();
  }

  contains(ip: string): boolean {
    const a = ipOf(ip, this.family);
    return a !== undefined && this.usable(a);
  }

  /** In the block and neither its network nor (IPv4) its broadcast address. */
  private usable(a: Ip): boolean {
    return this.block.contains(a) && !a.equals(this.block.first) && (this.family === 6 || !a.equals(this.block.last));
  }

  /** Usable addresses: the block less the network address, and the broadcast address for IPv4. */
  private get usableCount(): number {
    const size = this.block.size - (this.family === 4 ? 2n : 1n);
    return Number(size);
  }

  /**
   * Reserve a specific address; returns a field error when it cannot be had, worded as the real API
   * server's (`spec.clusterIPs: Invalid value: []string{...}`): Antrea Multi-cluster discovers the
   * service CIDR by parsing "The range of valid IPs is <cidr>" out of it.
   */
  reserve(ip: string, field: string): FieldError | undefined {
    const a = ipOf(ip, this.family);
    if (a === undefined || !this.usable(a)) {
      return { field, reason: 'FieldValueInvalid', detail: `Invalid value: []string{"${ip}"}: failed to allocate IP ${ip}: the provided IP (${ip}) is not in the valid range. The range of valid IPs is ${this.cidr}` };
    }
    if (this.used.has(a.value)) {
      return { field, reason: 'FieldValueInvalid', detail: `Invalid value: []string{"${ip}"}: failed to allocate IP ${ip}: provided IP is already allocated` };
    }
    this.used.add(a.value);
    return undefined;
  }

  allocate(): string | undefined {
    const usable = this.usableCount;
    for (let i = 0; i < usable; i++) {
      const off = ((this.next - 1 + i) % usable) + 1;
      const value = this.block.base + BigInt(off);
      if (!this.used.has(value)) {
        this.used.add(value);
        this.next = off + 1;
        return formatIp(this.family, value);
      }
    }
    return undefined;
  }

  release(ip: string): void {
    const a = ipOf(ip, this.family);
    if (a !== undefined) this.used.delete(a.value);
  }
}

/**
 * The cluster's service CIDRs (kube-apiserver's `--service-cluster-ip-range`, a comma-separated
 * pair for dual-stack): one allocator per family, the first being the primary family that
 * single-stack Services get by default.
 */
export class ServiceIPRanges {
  readonly ranges: readonly ClusterIPAllocator[];

  /** @throws ServiceCidrError for an unusable CIDR, more than two, or two of one family. */
  constructor(readonly text: string) {
    const parts = text.split(',').map((s) => s.trim());
    if (parts.length > 2) throw new ServiceCidrError(text, 'at most two service CIDRs, one per IP family');
    const ranges = parts.map((p) => new ClusterIPAllocator(p));
    if (ranges.length === 2 && ranges[0]!.family === ranges[1]!.family) throw new ServiceCidrError(text, 'a dual-stack service CIDR needs one IPv4 and one IPv6 prefix');
    this.ranges = ranges;
  }

  /** The primary range (the first CIDR). */
  get primary(): ClusterIPAllocator {
    return this.ranges[0]!;
  }

  /** The families the cluster has, primary first. */
  get families(): IPFamilyName[] {
    return this.ranges.map((r) => r.familyName);
  }

  get dualStack(): boolean {
    return this.ranges.length === 2;
  }

  /** The primary range's first usable address: the `kubernetes` Service's ClusterIP. */
  get first(): string {
    return this.primary.first;
  }

  /** The range of a family, if the cluster has it. */
  of(family: IPFamilyName): ClusterIPAllocator | undefined {
    return this.ranges.find((r) => r.familyName === family);
  }

  /** Frees an address in whichever range holds it. */
  release(ip: string): void {
    const f = ipFamilyOf(ip);
    if (f) this.of(f)?.release(ip);
  }

  /** Reserves an address in its family's range (restart path; no range: nothing to hold). */
  reserve(ip: string, field: string): FieldError | undefined {
    const f = ipFamilyOf(ip);
    const r = f ? this.of(f) : undefined;
    return r ? r.reserve(ip, field) : this.primary.reserve(ip, field);
  }
}

export class NodePortAllocator {
  private readonly used = new Set<number>();
  private next: number;

  constructor(
    readonly min = 30000,
    readonly max = 32767,
  ) {
    this.next = min;
  }

  reserve(port: number, field: string): FieldError | undefined {
    if (port < this.min || port > this.max) {
      return { field, reason: 'FieldValueInvalid', detail: `Invalid value: ${port}: provided port is not in the valid range. The range of valid ports is ${this.min}-${this.max}` };
    }
    if (this.used.has(port)) return { field, reason: 'FieldValueInvalid', detail: `Invalid value: ${port}: provided port is already allocated` };
    this.used.add(port);
    return undefined;
  }

  allocate(): number | undefined {
    const span = this.max - this.min + 1;
    for (let i = 0; i < span; i++) {
      const p = this.min + ((this.next - this.min + i) % span);
      if (!this.used.has(p)) {
        this.used.add(p);
        this.next = p + 1;
        return p;
      }
    }
    return undefined;
  }

  release(port: number): void {
    this.used.delete(port);
  }
}
