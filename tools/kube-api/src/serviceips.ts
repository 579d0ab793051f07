// ClusterIP and NodePort allocation for Services (the controller-manager/apiserver allocators).

import { type FieldError } from './errors';

/** Thrown for a service CIDR the allocator cannot use. */
export class ServiceCidrError extends Error {
  readonly code = 'InvalidServiceCIDR';
  constructor(readonly value: string) {
    super(`invalid service CIDR ${JSON.stringify(value)}: expected an IPv4 prefix such as 10.96.0.0/12`);
    this.name = 'ServiceCidrError';
  }
}

function ipToInt(ip: string): number | undefined {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(ip);
  if (!m) return undefined;
  const parts = m.slice(1).map(Number);
  if (parts.some((p) => p > 255)) return undefined;
  return (((parts[0] as number) << 24) >>> 0) + ((parts[1] as number) << 16) + ((parts[2] as number) << 8) + (parts[3] as number);
}

function intToIp(n: number): string {
  return [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');
}

export class ClusterIPAllocator {
  private readonly base: number;
  private readonly size: number;
  private readonly used = new Set<number>();
  private next = 10;

  constructor(readonly cidr: string) {
    const [addr, lenText] = cidr.split('/');
    const len = Number(lenText);
    const a = ipToInt(addr ?? '');
    if (a === undefined || !Number.isInteger(len) || len < 8 || len > 30) throw new ServiceCidrError(cidr);
    const mask = len === 0 ? 0 : (0xffffffff << (32 - len)) >>> 0;
    this.base = (a & mask) >>> 0;
    this.size = 2 ** (32 - len);
  }

  /** The first usable address: the `kubernetes` Service's ClusterIP. */
  get first(): string {
    return intToIp(this.base + 1);
  }

  contains(ip: string): boolean {
    const n = ipToInt(ip);
    return n !== undefined && n > this.base && n < this.base + this.size - 1;
  }

  /** Reserve a specific address; returns a field error when it cannot be had. */
  reserve(ip: string, field: string): FieldError | undefined {
    const n = ipToInt(ip);
    if (n === undefined || !this.contains(ip)) {
      return { field, reason: 'FieldValueInvalid', detail: `Invalid value: "${ip}": failed to allocate IP ${ip}: the provided IP (${ip}) is not in the valid range. The range of valid IPs is ${this.cidr}` };
    }
    if (this.used.has(n)) {
      return { field, reason: 'FieldValueInvalid', detail: `Invalid value: "${ip}": failed to allocate IP ${ip}: provided IP is already allocated` };
    }
    this.used.add(n);
    return undefined;
  }

  allocate(): string | undefined {
    const usable = this.size - 2;
    for (let i = 0; i < usable; i++) {
      const off = ((this.next - 1 + i) % usable) + 1;
      const n = this.base + off;
      if (!this.used.has(n)) {
        this.used.add(n);
        this.next = off + 1;
        return intToIp(n);
      }
    }
    return undefined;
  }

  release(ip: string): void {
    const n = ipToInt(ip);
    if (n !== undefined) this.used.delete(n);
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
