/**
 * Puts a Service external IP on this node the way the kernel can answer for it without owning it:
 * a proxy neighbour entry (`ip neigh replace proxy <ip> dev <transport>`; with forwarding on and the
 * route to <ip> leaving by another device, the kernel answers ARP for it on the transport device),
 * then a gratuitous ARP (`arping -U`) so the fabric's caches move to this node at once. The IPs taken
 * are recorded under the data directory, so a restarted agent and `--uninstall` know what is theirs.
 */
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { writeFileDurableSync } from '@switchyard/durable-file';
import type { Logger } from '@switchyard/runtime';
import { check, NAME_RE } from '../../host-network/checks';
import { ipv4Of } from '../../ipv4';
import type { NodeNetwork } from '../../netops';
import type { ExternalIPSink } from './controller';
import type { ProxyArpKeeper } from './keeper';

/** The record of taken IPs: `{ dev, ips }`. */
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
    return { dev: r.dev, ips: r.ips.filter((ip): ip is string => typeof ip === 'string' && ipv4Of(ip) !== undefined) };
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
/** Deleting an entry that is not there is not an error: the state wanted is reached. */
const RELEASE_SH = `ip neigh del proxy "$2" dev "$1" 2>/dev/null || ! ip neigh show proxy to "$2" dev "$1" | grep -q .`;

/** Removes the proxy neighbour of `ip` on `dev` in the node's namespace. */
export async function releaseProxyNeighbour(net: Pick<NodeNetwork, 'runInNode'>, dev: string, ip: string): Promise<void> {
  await net.runInNode(RELEASE_SH, [check(NAME_RE, dev, 'transport interface'), check((v) => ipv4Of(v) !== undefined, ip, 'Service external IP')]);
}

/**
 * The sink of the external IP controller on a node: proxy neighbours and gratuitous ARP on the
 * transport device. With a keeper (keeper.ts), the keeper learns an IP before its entry is added and
 * forgets it after the entry is gone, so at any moment it holds at least what the node answers for.
 */
export class ProxyArpAnnouncer implements ExternalIPSink {
  constructor(private readonly o: { net: Pick<NodeNetwork, 'runInNode'>; dev: string; logger: Logger; keeper?: Pick<ProxyArpKeeper, 'hold' | 'drop'> }) {
    check(NAME_RE, o.dev, 'transport interface');
  }

  async take(ip: string): Promise<void> {
    check((v) => ipv4Of(v) !== undefined, ip, 'Service external IP');
    await this.o.keeper?.hold(ip);
    await this.o.net.runInNode(TAKE_SH, [this.o.dev, ip]);
  }

  async release(ip: string): Promise<void> {
    await releaseProxyNeighbour(this.o.net, this.o.dev, ip);
    await this.o.keeper?.drop(ip);
  }
}
