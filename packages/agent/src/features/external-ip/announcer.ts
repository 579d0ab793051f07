/**
 * Puts a Service external IP on this node the way the kernel can answer for it without owning it:
 * a proxy neighbour entry (`ip neigh replace proxy <ip> dev <transport>`). IPv4: with forwarding on
 * and the route to <ip> leaving by another device, the kernel answers ARP for it on the transport
 * device; a gratuitous ARP (`arping -U`) moves the fabric's caches to this node at once. IPv6 (proxy
 * NDP): with `proxy_ndp` on, the kernel answers Neighbor Solicitations for it; an unsolicited
 * Neighbor Advertisement (switchyard-netns) moves the caches. The IPs taken are recorded under the
 * data directory, so a restarted agent and `--uninstall` know what is theirs.
 */
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { writeFileDurableSync } from '@switchyard/durable-file';
import type { Logger } from '@switchyard/runtime';
import { check, NAME_RE } from '../../host-network/checks';
import type { NodeNetwork } from '../../netops';
import type { ExternalIPSink } from './controller';
import type { ProxyArpKeeper } from './keeper';
import { externalIPFamily } from './ownership';

/** The record of taken IPs: `{ dev, ips }` (IPv4 and IPv6; a record of an IPv4-only agent reads the same). */
export const takenFile = (dataDir: string): string => join(dataDir, 'service-external-ip', 'taken.json');

export interface TakenRecord {
  dev: string;
  ips: string[];
}

/** The record a previous run left, or none (a missing or unreadable file is no record). */
export function readTaken(dataDir: string): TakenRecord | undefined {
  const file = takenFile(dataDir);
  if (!existsSync(file)) return undefined;
  try {
    const r = JSON.parse(readFileSync(file, 'utf8')) as Partial<TakenRecord>;
    if (typeof r.dev !== 'string' || !Array.isArray(r.ips)) return undefined;
    return { dev: r.dev, ips: r.ips.filter((ip): ip is string => typeof ip === 'string' && externalIPFamily(ip) !== undefined) };
  } catch {
    return undefined;
  }
}

export function writeTaken(dataDir: string, record: TakenRecord): void {
  const file = takenFile(dataDir);
  mkdirSync(dirname(file), { recursive: true });
  writeFileDurableSync(file, `${JSON.stringify(record)}\n`, { mode: 0o600 });
}

/**
 * proxy_delay 0: the kernel answers a broadcast request for a proxied address after a random delay
 * of up to proxy_delay (0.8 s by default); an owner answers at once, as an address of its own would.
 */
const TAKE_SH = `echo 0 > "/proc/sys/net/ipv4/neigh/$1/proxy_delay" && ip neigh replace proxy "$2" dev "$1" && { arping -q -U -c 1 -w 0 -i "$1" -S "$2" "$2" >/dev/null 2>&1 || true; }`;
/**
 * IPv6. `proxy_ndp` on the device makes the kernel answer a multicast Neighbor Solicitation for the
 * address; on `all` too, because a unicast one (a neighbour checking a cached entry, RFC 4861 7.3.1)
 * is matched against the proxy table only when `net.ipv6.conf.all.proxy_ndp` is on: without it the
 * kernel forwards that probe instead of answering it, and the neighbour's entry fails after three
 * probes (measured on Linux 6.18). Either sysctl answers only for addresses in the proxy table.
 * proxy_delay 0 as for IPv4.
 */
const TAKE6_SH = `echo 1 > /proc/sys/net/ipv6/conf/all/proxy_ndp && echo 1 > "/proc/sys/net/ipv6/conf/$1/proxy_ndp" && echo 0 > "/proc/sys/net/ipv6/neigh/$1/proxy_delay" && ip -6 neigh replace proxy "$2" dev "$1"`;
/** Deleting an entry that is not there is not an error: the state wanted is reached (either family). */
const RELEASE_SH = `ip neigh del proxy "$2" dev "$1" 2>/dev/null || ! ip neigh show proxy to "$2" dev "$1" | grep -q .`;

const isExternalIP = (v: string): boolean => externalIPFamily(v) !== undefined;

/** Removes the proxy neighbour (ARP or NDP) of `ip` on `dev` in the node's namespace. */
export async function releaseProxyNeighbour(net: Pick<NodeNetwork, 'runInNode'>, dev: string, ip: string): Promise<void> {
  await net.runInNode(RELEASE_SH, [check(NAME_RE, dev, 'transport interface'), check(isExternalIP, ip, 'Service external IP')]);
}

/**
 * The sink of the external IP controller on a node: proxy neighbours on the transport device, and a
 * gratuitous ARP (IPv4) or an unsolicited Neighbor Advertisement (IPv6). With a keeper (keeper.ts),
 * the keeper learns an IP before its entry is added and forgets it after the entry is gone, so at any
 * moment it holds at least what the node answers for.
 */
export class ProxyArpAnnouncer implements ExternalIPSink {
  private warnedNoHelper = false;

  constructor(private readonly o: { net: Pick<NodeNetwork, 'runInNode' | 'advertiseProxied'>; dev: string; logger: Logger; keeper?: Pick<ProxyArpKeeper, 'hold' | 'drop'> }) {
    check(NAME_RE, o.dev, 'transport interface');
  }

  async take(ip: string): Promise<void> {
    const family = externalIPFamily(ip);
    check(() => family !== undefined, ip, 'Service external IP');
    await this.o.keeper?.hold(ip);
    if (family === 4) return void (await this.o.net.runInNode(TAKE_SH, [this.o.dev, ip]));
    await this.o.net.runInNode(TAKE6_SH, [this.o.dev, ip]);
    // Best effort, as arping: the entry answers the next solicitation whatever becomes of the advertisement.
    const sent = await this.o.net.advertiseProxied(this.o.dev, ip).catch((err: unknown) => {
      this.o.logger.warn({ err, ip, dev: this.o.dev }, 'unsolicited Neighbor Advertisement not sent: neighbours learn this node at their next solicitation');
      return true;
    });
    if (!sent && !this.warnedNoHelper) {
      this.warnedNoHelper = true;
      this.o.logger.warn({ ip, dev: this.o.dev }, 'no switchyard-netns helper: IPv6 external IPs are answered by proxy NDP without an unsolicited Neighbor Advertisement (neighbours learn a new owner at their next solicitation)');
    }
  }

  async release(ip: string): Promise<void> {
    await releaseProxyNeighbour(this.o.net, this.o.dev, ip);
    await this.o.keeper?.drop(ip);
  }
}
