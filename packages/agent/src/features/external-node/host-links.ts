/**
 * The links, addresses (IPv4, and IPv6 of global scope) and routes of the host an ExternalNode
 * agent guards, read and changed through `ip` (JSON output), in the agent's own network namespace
 * or, in the lab, in another one through `nsenter`.
 */
import { execFile } from '../../exec';
import { netnsPath } from '../../netops';

/** A link as the uplink swap needs it. */
export interface HostLink {
  name: string;
  mac: string;
  mtu: number;
  up: boolean;
  /** The PROMISC flag (ovs-vswitchd sets it on a port it opens and clears it when it closes it). */
  promisc: boolean;
  /** Bridge or bond the link is enslaved to (a Linux master, not an OVS bridge). */
  master?: string;
}

/** An address on a link: IPv4, or IPv6 of global scope (an IPv6 address has a `:`). */
export interface HostAddress {
  ip: string;
  prefix: number;
  broadcast?: string;
  /** IPv6: the address was added without duplicate address detection (`nodad`). */
  nodad?: boolean;
}

/** True for an IPv6 address (text with a colon). */
export const isIpv6 = (ip: string): boolean => ip.includes(':');

/**
 * A route of the main table through a link, as `ip route` reports it. Routes the kernel adds for
 * an address or a link (`proto kernel`, IPv6 link-local and multicast) are not listed: they come
 * back with the address or the link.
 */
export interface HostRoute {
  /** `default` or `a.b.c.d/n` (a host route as `a.b.c.d`), or the IPv6 equivalents. */
  dst: string;
  /** 6 for an IPv6 route (absent: IPv4, as journals written before IPv6 support have it). */
  family?: 6;
  gateway?: string;
  protocol?: string;
  scope?: string;
  metric?: number;
  prefsrc?: string;
  onlink?: boolean;
}

interface JsonLink {
  ifname: string;
  address?: string;
  mtu: number;
  flags?: string[];
  master?: string;
  addr_info?: { family: string; local: string; prefixlen: number; broadcast?: string; scope?: string; nodad?: boolean }[];
}
interface JsonRoute {
  dst: string;
  type?: string;
  gateway?: string;
  protocol?: string;
  scope?: string;
  metric?: number;
  prefsrc?: string;
  flags?: string[];
}

/** `ip` in one network namespace. */
export class HostLinks {
  /** `netns`: name or path of the namespace; absent = the agent's own. */
  constructor(private readonly netns?: string) {}

  private async ip(args: readonly string[]): Promise<string> {
    const argv = this.netns === undefined ? ['ip', ...args] : ['nsenter', `--net=${netnsPath(this.netns)}`, 'ip', ...args];
    return (await execFile(argv)).stdout;
  }

  /** The link, or undefined when there is none of that name. */
  async link(name: string): Promise<HostLink | undefined> {
    const all = JSON.parse(await this.ip(['-j', 'link', 'show'])) as JsonLink[];
    const l = all.find((x) => x.ifname === name);
    if (!l) return undefined;
    return { name: l.ifname, mac: l.address ?? '', mtu: l.mtu, up: (l.flags ?? []).includes('UP'), promisc: (l.flags ?? []).includes('PROMISC'), ...(l.master !== undefined ? { master: l.master } : {}) };
  }

  /** Every link name with its addresses (IPv4, and IPv6 of global scope). */
  async addressesByLink(): Promise<Map<string, HostAddress[]>> {
    const all = JSON.parse(await this.ip(['-j', 'addr', 'show'])) as JsonLink[];
    return new Map(all.map((l) => [l.ifname, toAddresses(l)]));
  }

  async addresses(name: string): Promise<HostAddress[]> {
    const all = JSON.parse(await this.ip(['-j', 'addr', 'show', 'dev', name])) as JsonLink[];
    return all.flatMap(toAddresses);
  }

  async routes(name: string): Promise<HostRoute[]> {
    const out: HostRoute[] = [];
    for (const family of [4, 6] as const) {
      const all = JSON.parse(await this.ip(['-j', `-${family}`, 'route', 'show', 'table', 'main', 'dev', name])) as JsonRoute[];
      for (const r of all) {
        if (r.protocol === 'kernel' || (family === 6 && (r.type === 'multicast' || r.dst.startsWith('fe80:')))) continue;
        out.push({
          dst: r.dst,
          ...(family === 6 ? { family } : {}),
          ...(r.gateway !== undefined ? { gateway: r.gateway } : {}),
          ...(r.protocol !== undefined ? { protocol: r.protocol } : {}),
          ...(r.scope !== undefined ? { scope: r.scope } : {}),
          ...(r.metric !== undefined ? { metric: r.metric } : {}),
          ...(r.prefsrc !== undefined ? { prefsrc: r.prefsrc } : {}),
          ...((r.flags ?? []).includes('onlink') ? { onlink: true } : {}),
        });
      }
    }
    return out;
  }

  async setDown(name: string): Promise<void> {
    await this.ip(['link', 'set', 'dev', name, 'down']);
  }

  /** Renames a link (the kernel needs it down). */
  async rename(from: string, to: string): Promise<void> {
    await this.ip(['link', 'set', 'dev', from, 'down']);
    await this.ip(['link', 'set', 'dev', from, 'name', to]);
  }

  /** MAC (when given), MTU, then up. */
  async configure(name: string, o: { mac?: string; mtu: number }): Promise<void> {
    if (o.mac !== undefined) await this.ip(['link', 'set', 'dev', name, 'address', o.mac]);
    await this.ip(['link', 'set', 'dev', name, 'mtu', String(o.mtu), 'up']);
  }

  async deleteLink(name: string): Promise<void> {
    await this.ip(['link', 'del', 'dev', name]);
  }

  /**
   * Adds the address, or leaves it as it is when the link has it. `skipDad`: an IPv6 address that
   * only moves between two links of this host is usable at once (no duplicate address detection).
   */
  async addAddress(name: string, a: HostAddress, skipDad = false): Promise<void> {
    const nodad = isIpv6(a.ip) && (skipDad || a.nodad === true);
    await this.ip(['addr', 'replace', `${a.ip}/${a.prefix}`, ...(a.broadcast !== undefined ? ['broadcast', a.broadcast] : []), 'dev', name, ...(nodad ? ['nodad'] : [])]);
  }

  /** Removes the address; false when the link did not have it. */
  async deleteAddress(name: string, a: HostAddress): Promise<boolean> {
    if (!(await this.addresses(name)).some((x) => x.ip === a.ip && x.prefix === a.prefix)) return false;
    await this.ip(['addr', 'del', `${a.ip}/${a.prefix}`, 'dev', name]);
    return true;
  }

  /** Adds or replaces the route through `name`. */
  async replaceRoute(name: string, r: HostRoute): Promise<void> {
    await this.ip([
      `-${r.family ?? 4}`, 'route', 'replace', r.dst,
      ...(r.gateway !== undefined ? ['via', r.gateway] : []),
      'dev', name,
      ...(r.protocol !== undefined ? ['proto', r.protocol] : []),
      ...(r.scope !== undefined ? ['scope', r.scope] : []),
      ...(r.metric !== undefined ? ['metric', String(r.metric)] : []),
      ...(r.prefsrc !== undefined ? ['src', r.prefsrc] : []),
      ...(r.onlink ? ['onlink'] : []),
    ]);
  }

  /** Transmit checksum offload off (the userspace datapath's conntrack checks checksums). */
  async txOffloadOff(name: string): Promise<void> {
    const argv = ['ethtool', '-K', name, 'tx', 'off'];
    await execFile(this.netns === undefined ? argv : ['nsenter', `--net=${netnsPath(this.netns)}`, ...argv]);
  }
}

/** IPv4 addresses, and IPv6 ones of global scope (a link-local address comes with the link). */
function toAddresses(l: JsonLink): HostAddress[] {
  return (l.addr_info ?? [])
    .filter((a) => a.family === 'inet' || (a.family === 'inet6' && a.scope === 'global'))
    .map((a) => ({
      ip: a.local,
      prefix: a.prefixlen,
      ...(a.broadcast !== undefined ? { broadcast: a.broadcast } : {}),
      ...(a.family === 'inet6' && a.nodad === true ? { nodad: true } : {}),
    }));
}
