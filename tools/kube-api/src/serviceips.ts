// ClusterIP and NodePort allocation for Services (the controller-manager/apiserver allocators).

import { formatIp, parseCidr, parseIp, type Cidr, type Ip } from '@switchyard/ipam/cidr';
import { type FieldError } from './errors';

/** Thrown for a service CIDR the allocator cannot use. */
export class ServiceCidrError extends Error {
  readonly code = 'InvalidServiceCIDR';
  constructor(readonly value: string) {
    super(`invalid service CIDR ${JSON.stringify(value)}: expected an IPv4 prefix such as 10.96.0.0/12`);
    this.name = 'ServiceCidrError';
  }
}

/** The address when `text` is IPv4, else undefined. */
function ipv4(text: string): Ip | undefined {
  try {
    const ip = parseIp(text);
    return ip.family === 4 ? ip : undefined;
  } catch {
    return undefined;
  }
}

export class ClusterIPAllocator {
  private readonly block: Cidr;
  /** Allocated addresses, by value. */
  private readonly used = new Set<bigint>();
  private next = 10;

  constructor(readonly cidr: string) {
    let block: Cidr | undefined;
    try {
      block = parseCidr(cidr);
    } catch {
      block = undefined;
    }
    if (!block || block.family !== 4 || block.prefix < 8 || block.prefix > 30) throw new ServiceCidrError(cidr);
    this.block = block;
  }

  /** The first usable address: the `kubernetes` Service's ClusterIP. */
  get first(): string {
    return this.block.nth(1).toString();
  }

  contains(ip: string): boolean {
    const a = ipv4(ip);
    return a !== undefined && this.usable(a);
  }

  /** In the block and neither its network nor its broadcast address. */
  private usable(a: Ip): boolean {
    return this.block.contains(a) && !a.equals(this.block.first) && !a.equals(this.block.last);
  }

  /**
   * Reserve a specific address; returns a field error when it cannot be had, worded as the real API
   * server's (`spec.clusterIPs: Invalid value: []string{...}`): Antrea Multi-cluster discovers the
   * service CIDR by parsing "The range of valid IPs is <cidr>" out of it.
   */
  reserve(ip: string, field: string): FieldError | undefined {
    const a = ipv4(ip);
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
    const usable = Number(this.block.size) - 2;
    for (let i = 0; i < usable; i++) {
      const off = ((this.next - 1 + i) % usable) + 1;
      const value = this.block.base + BigInt(off);
      if (!this.used.has(value)) {
        this.used.add(value);
        this.next = off + 1;
        return formatIp(4, value);
      }
    }
    return undefined;
  }

  release(ip: string): void {
    const a = ipv4(ip);
    if (a !== undefined) this.used.delete(a.value);
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
