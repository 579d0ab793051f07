/**
 * The external IP announcer's input handling and the commands it gives for each family (IPv4: proxy
 * ARP and a gratuitous ARP; IPv6: proxy NDP and an unsolicited Neighbor Advertisement), and the
 * taken record across versions. The commands themselves run against the kernel in the lab
 * (loadbalancer.test.ts for IPv4, dual-stack.test.ts for IPv6).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { silentLogger, type Logger } from '@switchyard/runtime';
import { ProxyArpAnnouncer, readTaken, releaseProxyNeighbour, takenFile, writeTaken } from '../src/features/external-ip/announcer';

interface Call { script: string; args: readonly string[] }

/** A node network that records what it is asked to run, and advertises when `helper` is set. */
function fakeNet(helper = true) {
  const calls: Call[] = [];
  const advertised: [string, string][] = [];
  return {
    calls,
    advertised,
    runInNode: (script: string, args: readonly string[] = []): Promise<string> => {
      calls.push({ script, args });
      return Promise.resolve('');
    },
    advertiseProxied: (dev: string, ip: string): Promise<boolean> => {
      if (helper) advertised.push([dev, ip]);
      return Promise.resolve(helper);
    },
  };
}

/** A logger keeping the messages of its warnings. */
function warnings(): { logger: Logger; seen: string[] } {
  const seen: string[] = [];
  const logger = { ...silentLogger, warn: (_o: unknown, msg?: string) => void seen.push(msg ?? '') } as unknown as Logger;
  return { logger, seen };
}

describe('the external IP announcer', () => {
  it('IPv4: a proxy ARP entry with proxy_delay 0 and a gratuitous ARP; no Neighbor Advertisement', async () => {
    const net = fakeNet();
    await new ProxyArpAnnouncer({ net, dev: 'br-phy', logger: silentLogger }).take('192.168.77.200');
    expect(net.calls).toHaveLength(1);
    expect(net.calls[0]!.args).toEqual(['br-phy', '192.168.77.200']);
    expect(net.calls[0]!.script).toContain('/proc/sys/net/ipv4/neigh/$1/proxy_delay');
    expect(net.calls[0]!.script).toContain('ip neigh replace proxy "$2" dev "$1"');
    expect(net.calls[0]!.script).toContain('arping -q -U');
    expect(net.advertised).toEqual([]);
  });

  it('IPv6: proxy_ndp on (all and the device), proxy_delay 0, a proxy NDP entry, then an unsolicited Neighbor Advertisement from the device', async () => {
    const net = fakeNet();
    const held: string[] = [];
    const keeper = { hold: (ip: string) => Promise.resolve(void held.push(ip)), drop: () => Promise.resolve() };
    await new ProxyArpAnnouncer({ net, dev: 'br-phy', logger: silentLogger, keeper }).take('fd00:77::c8');
    expect(held).toEqual(['fd00:77::c8']);
    expect(net.calls).toHaveLength(1);
    const { script, args } = net.calls[0]!;
    expect(args).toEqual(['br-phy', 'fd00:77::c8']);
    for (const part of ['/proc/sys/net/ipv6/conf/all/proxy_ndp', '/proc/sys/net/ipv6/conf/$1/proxy_ndp', '/proc/sys/net/ipv6/neigh/$1/proxy_delay', 'ip -6 neigh replace proxy "$2" dev "$1"']) expect(script).toContain(part);
    expect(script).not.toContain('arping');
    expect(net.advertised).toEqual([['br-phy', 'fd00:77::c8']]);
  });

  it('IPv6 without the switchyard-netns helper: the proxy entry alone, and one warning for all such IPs', async () => {
    const net = fakeNet(false);
    const { logger, seen } = warnings();
    const a = new ProxyArpAnnouncer({ net, dev: 'br-phy', logger });
    await a.take('fd00:77::c8');
    await a.take('fd00:77::c9');
    expect(net.calls.map((c) => c.args[1])).toEqual(['fd00:77::c8', 'fd00:77::c9']);
    expect(seen).toHaveLength(1);
    expect(seen[0]).toContain('no switchyard-netns helper');
  });

  it('a failed Neighbor Advertisement is logged and the IP stays taken (the entry answers the next solicitation)', async () => {
    const net = { ...fakeNet(), advertiseProxied: () => Promise.reject(new Error('switchyard-netns: neighbor advertisement br-phy: Network is down')) };
    const { logger, seen } = warnings();
    await expect(new ProxyArpAnnouncer({ net, dev: 'br-phy', logger }).take('fd00:77::c8')).resolves.toBeUndefined();
    expect(seen).toEqual(['unsolicited Neighbor Advertisement not sent: neighbours learn this node at their next solicitation']);
  });

  it('refuses what is not an IPv4 or RFC 5952 IPv6 address, or a bad device, naming the value, before running anything', async () => {
    const net = fakeNet();
    const a = new ProxyArpAnnouncer({ net, dev: 'br-phy', logger: silentLogger });
    for (const bad of ['192.168.77.300', 'fd00:0077::c8', 'FD00:77::C8', 'fd00:77::c8/128', '$(reboot)', '']) {
      await expect(a.take(bad)).rejects.toThrow(`invalid Service external IP: ${JSON.stringify(bad)}`);
      await expect(releaseProxyNeighbour(net, 'br-phy', bad)).rejects.toThrow(JSON.stringify(bad));
    }
    expect(() => new ProxyArpAnnouncer({ net, dev: 'br phy', logger: silentLogger })).toThrow('"br phy"');
    expect(net.calls).toEqual([]);
  });

  it('releases an IPv6 IP as an IPv4 one (`ip neigh del proxy` reads the family from the address), then tells the keeper', async () => {
    const net = fakeNet();
    const dropped: string[] = [];
    const keeper = { hold: () => Promise.resolve(), drop: (ip: string) => Promise.resolve(void dropped.push(ip)) };
    await new ProxyArpAnnouncer({ net, dev: 'br-phy', logger: silentLogger, keeper }).release('fd00:77::c8');
    expect(net.calls.map((c) => c.args)).toEqual([['br-phy', 'fd00:77::c8']]);
    expect(net.calls[0]!.script).toContain('ip neigh del proxy "$2" dev "$1"');
    expect(dropped).toEqual(['fd00:77::c8']);
  });
});

describe('the taken record', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'taken-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('keeps IPv4 and IPv6 IPs across a write and a read', () => {
    writeTaken(dir, { dev: 'br-phy', ips: ['192.168.77.200', 'fd00:77::c8'] });
    expect(readTaken(dir)).toEqual({ dev: 'br-phy', ips: ['192.168.77.200', 'fd00:77::c8'] });
  });

  it('reads the record of an IPv4-only agent as it was, and drops entries that are not addresses', () => {
    mkdirSync(join(dir, 'service-external-ip'), { recursive: true });
    writeFileSync(takenFile(dir), '{"dev":"br-phy","ips":["192.168.77.200","192.168.77.201"]}\n');
    expect(readTaken(dir)).toEqual({ dev: 'br-phy', ips: ['192.168.77.200', '192.168.77.201'] });
    writeFileSync(takenFile(dir), '{"dev":"br-phy","ips":["192.168.77.200",7,"fd00:0077::1","; rm -rf /","fd00:77::c9"]}\n');
    expect(readTaken(dir)).toEqual({ dev: 'br-phy', ips: ['192.168.77.200', 'fd00:77::c9'] });
  });
});
