/**
 * rtnetlink requests of the agent (links, veth pairs, IPv4 addresses and routes) over one socket
 * of the `netlink` package. The socket lives in the namespace of the agent process: a device of
 * another namespace is reachable only where the kernel takes a namespace fd (a new link's
 * IFLA_NET_NS_FD, a veth peer's), never for addresses or routes.
 */
import { closeSync, openSync } from 'node:fs';
import { createRtNetlink, FlagsNew, rt, type RtNetlinkSocket } from 'netlink';
import { Ip, parseIp } from '@switchyard/ipam/cidr';
import { u32, vethLinkInfo, vlanIdOf, vlanLinkInfo, type VethPeer } from './attributes';

/** rtm_protocol names the package decodes known values to (ours, 77, stays a number). */
const PROTOCOLS = rt.RouteProtocol as unknown as Record<string, unknown>;
const AF_INET = 2;
const AF_INET6 = 10;
const RT_TABLE_MAIN = 254;
const RT_TABLE_LOCAL = 255;
const RTN_LOCAL = 2;
const RT_SCOPE_HOST = 254;
/** FR_ACT_TO_TBL: a rule that looks up a table. */
const FR_ACT_TO_TBL = 1;
const RTN_UNICAST = 1;
const RT_SCOPE_UNIVERSE = 0;
const RT_SCOPE_LINK = 253;
/** RTNH_F_ONLINK in rtm_flags: the next hop is on the link even if no address says so. */
const RTNH_F_ONLINK = 4;

/** A failed rtnetlink request: the kernel's errno name, the request and the value it was about. */
export class NetlinkError extends Error {
  readonly code = 'NETLINK_FAILED';
  constructor(
    /** errno name from the kernel's answer (EEXIST, ENODEV, ...) or the socket's. */
    readonly errno: string,
    /** The request, e.g. `RTM_NEWLINK veth`. */
    readonly request: string,
    /** The offending value (an interface name, a route). */
    readonly value: unknown,
    options?: { cause?: unknown },
  ) {
    super(`${request} ${JSON.stringify(value)} failed: ${errno}`, options);
    this.name = 'NetlinkError';
  }
}

/** errno name of a rejection by the `netlink` package ("Request rejected: EEXIST"). */
function errnoOf(e: unknown): string {
  const m = /Request rejected: (\w+)/.exec(e instanceof Error ? e.message : String(e));
  return m?.[1] ?? (e as { code?: string }).code ?? (e instanceof Error ? e.message : String(e));
}

/** The address family of route or neighbour text: IPv6 when it has a colon. */
const familyOf = (ip: string): number => (ip.includes(':') ? AF_INET6 : AF_INET);
const ipBytes = (ip: string): Buffer => {
  if (!ip.includes(':')) return Buffer.from(ip.split('.').map(Number));
  const b = Buffer.alloc(16);
  const v = parseIp(ip).value;
  b.writeBigUInt64BE(v >> 64n, 0);
  b.writeBigUInt64BE(v & 0xffffffffffffffffn, 8);
  return b;
};
const ipText = (b: Buffer | undefined): string | undefined => {
  if (b?.length === 16) return new Ip(6, (b.readBigUInt64BE(0) << 64n) | b.readBigUInt64BE(8)).toString();
  return b && b.length === 4 ? [...b].join('.') : undefined;
};
const macText = (b: Buffer | undefined): string | undefined => (b ? [...b].map((x) => x.toString(16).padStart(2, '0')).join(':') : undefined);
const num = (v: number | string | undefined, names: Record<string, unknown>): number | undefined =>
  typeof v === 'number' ? v : v !== undefined && typeof names[v] === 'number' ? (names[v] as number) : undefined;

export interface LinkState {
  index: number;
  name: string;
  up: boolean;
  mtu: number | undefined;
  mac: string | undefined;
}

export interface Ipv4Route {
  /** `a.b.c.d/len`. */
  dst: string;
  via?: string;
  dev: string;
  onlink?: boolean;
  /** rtm_protocol; boot (3) when absent, as `ip route` does. */
  proto?: number;
  /** Scope link (a directly connected /32) rather than universe. */
  scopeLink?: boolean;
  /** Route table; the main table when absent. */
  table?: number;
}

/** An IPv4 policy rule `from <src>/<srcLen> lookup <table>` as a dump returns it. */
export interface Ipv4Rule {
  src: string;
  srcLen: number;
  table: number;
  priority: number | undefined;
  protocol: number | undefined;
}

/** rtnetlink over one lazily opened socket in the agent's namespace (unref'd: it never keeps the process alive). */
export class Rtnetlink {
  private sock: RtNetlinkSocket | undefined;
  /** Tail of the queue of dumps: the kernel runs one dump per socket at a time (EBUSY otherwise). */
  private dumps: Promise<unknown> = Promise.resolve();

  private get socket(): RtNetlinkSocket {
    this.sock ??= createRtNetlink();
    return this.sock;
  }

  close(): void {
    this.sock?.socket.close();
    this.sock = undefined;
  }

  /** A dump request, queued behind the dumps already in flight. */
  private dump<T>(request: string, fn: (s: RtNetlinkSocket) => Promise<T>): Promise<T> {
    const next = this.dumps.then(() => this.call(request, 'dump', fn));
    this.dumps = next.catch(() => undefined);
    return next;
  }

  private async call<T>(request: string, value: unknown, fn: (s: RtNetlinkSocket) => Promise<T>): Promise<T> {
    try {
      return await fn(this.socket);
    } catch (e) {
      throw new NetlinkError(errnoOf(e), request, value, { cause: e });
    }
  }

  /**
   * Creates a veth pair in one request: `name` (up, `mtu`) in the namespace at `netnsPath` (the
   * socket's own when undefined) and the peer in its namespace. The namespace files are opened
   * for the request only.
   *
   * `name` is created promiscuous, as ovs-vswitchd (userspace datapath) sets it when it attaches
   * the port: already set, vswitchd's flag change is none and sends no link event. Every link event
   * in the namespace where vswitchd runs makes it reconfigure every bridge and refresh every port's
   * status (two RTM_GETLINK per port): ~10 ms of its main thread at 120 ports here, one fewer per
   * pod ADD (docs/agent.md, "Where the ADD waits").
   */
  async createVeth(o: { name: string; mtu: number; netnsPath?: string; peer: Omit<VethPeer, 'netnsFd'> & { netnsPath: string } }): Promise<void> {
    const fds: number[] = [];
    try {
      const hostFd = o.netnsPath !== undefined ? openSync(o.netnsPath, 'r') : undefined;
      if (hostFd !== undefined) fds.push(hostFd);
      const peerFd = openSync(o.peer.netnsPath, 'r');
      fds.push(peerFd);
      const { netnsPath: _peerPath, ...peer } = o.peer;
      const linkinfo = vethLinkInfo({ ...peer, netnsFd: peerFd });
      await this.call('RTM_NEWLINK veth', o.name, (s) =>
        s.newLink(
          { flags: { up: true, promisc: true }, change: { up: true, promisc: true } },
          { ifname: o.name, mtu: o.mtu, linkinfo, ...(hostFd !== undefined ? { netNsFd: hostFd } : {}) },
          { flags: FlagsNew.CREATE | FlagsNew.EXCL },
        ),
      );
    } finally {
      for (const fd of fds) closeSync(fd);
    }
  }

  /** The link named `name`, or undefined when there is none. */
  async link(name: string): Promise<LinkState | undefined> {
    try {
      const [m] = await this.call('RTM_GETLINK', name, (s) => s.getLink({}, { ifname: name }));
      return m ? linkState(m) : undefined;
    } catch (e) {
      if (e instanceof NetlinkError && e.errno === 'ENODEV') return undefined;
      throw e;
    }
  }

  private async linkByIndex(index: number): Promise<LinkState | undefined> {
    const [m] = await this.call('RTM_GETLINK', index, (s) => s.getLink({ index }));
    return m ? linkState(m) : undefined;
  }

  /** Deletes the link; false when it did not exist. */
  async deleteLink(name: string): Promise<boolean> {
    try {
      await this.call('RTM_DELLINK', name, (s) => s.delLink({}, { ifname: name }));
      return true;
    } catch (e) {
      if (e instanceof NetlinkError && e.errno === 'ENODEV') return false;
      throw e;
    }
  }

  /** Sets the MTU and brings the link up. */
  async setUp(name: string, mtu: number): Promise<void> {
    await this.call('RTM_NEWLINK', name, (s) => s.setLink({ flags: { up: true }, change: { up: true } }, { ifname: name, mtu }));
  }

  /** `ip addr replace <ip>/<prefix> dev <index>`. */
  async replaceAddress(index: number, ip: string, prefix: number): Promise<void> {
    const a = ipBytes(ip);
    await this.call('RTM_NEWADDR', `${ip}/${prefix}`, (s) =>
      s.newAddress({ family: AF_INET, prefixlen: prefix, index }, { local: a, address: a }, { flags: FlagsNew.CREATE | FlagsNew.REPLACE }),
    );
  }

  /** Every IPv4 address with its link name and prefix length. */
  async addresses(family: 4 | 6 = 4): Promise<{ dev: string; ip: string; prefix: number }[]> {
    const addrs = await this.dump('RTM_GETADDR', (s) => s.getAddresses({ family: family === 6 ? AF_INET6 : AF_INET }));
    const links = await this.linkNames();
    const out: { dev: string; ip: string; prefix: number }[] = [];
    for (const a of addrs) {
      const ip = ipText(a.attrs.local ?? a.attrs.address);
      const dev = links.get(a.data.index ?? -1);
      if (ip !== undefined && dev !== undefined) out.push({ dev, ip, prefix: a.data.prefixlen ?? 32 });
    }
    return out;
  }

  private async linkNames(): Promise<Map<number, string>> {
    const links = await this.dump('RTM_GETLINK', (s) => s.getLinks());
    return new Map(links.map((l) => [l.data.index ?? -1, l.attrs.ifname ?? '']));
  }

  /** Routes of the main table with protocol `proto`: IPv4, or IPv6 with `family` 6 (RFC 5952 text). */
  async routes(proto: number, family: 4 | 6 = 4): Promise<{ dst: string; gateway?: string; dev?: string }[]> {
    const af = family === 6 ? AF_INET6 : AF_INET;
    const routes = await this.dump('RTM_GETROUTE', (s) => s.getRoutes({ family: af }));
    const links = await this.linkNames();
    const out: { dst: string; gateway?: string; dev?: string }[] = [];
    for (const r of routes) {
      const table = r.attrs.table ?? r.data.table;
      if (table !== RT_TABLE_MAIN || num(r.data.protocol, PROTOCOLS) !== proto) continue;
      const gateway = ipText(r.attrs.gateway);
      const dev = r.attrs.oif !== undefined ? links.get(r.attrs.oif) : undefined;
      out.push({ dst: `${ipText(r.attrs.dst) ?? (family === 6 ? '::' : '0.0.0.0')}/${r.data.dstLen ?? 0}`, ...(gateway ? { gateway } : {}), ...(dev ? { dev } : {}) });
    }
    return out;
  }

  /** `ip route replace` of one route in the main table (IPv4, or IPv6 when `dst` is). */
  async replaceRoute(r: Ipv4Route): Promise<void> {
    const link = await this.link(r.dev);
    if (!link) throw new NetlinkError('ENODEV', 'RTM_NEWROUTE', r);
    const [dst = '', len = '32'] = r.dst.split('/');
    const data: rt.Route = {
      family: familyOf(dst),
      dstLen: Number(len),
      table: r.table ?? RT_TABLE_MAIN,
      protocol: r.proto ?? 3,
      scope: r.scopeLink || r.via === undefined ? RT_SCOPE_LINK : RT_SCOPE_UNIVERSE,
      type: RTN_UNICAST,
      ...(r.onlink ? { flags: { __unknown: RTNH_F_ONLINK } } : {}),
    };
    const attrs: rt.RouteAttrs = { dst: ipBytes(dst), oif: link.index, ...(r.via !== undefined ? { gateway: ipBytes(r.via) } : {}) };
    await this.call('RTM_NEWROUTE', r, (s) => s.newRoute(data, attrs, { flags: FlagsNew.CREATE | FlagsNew.REPLACE }));
  }

  /** Deletes a route of the main table matching dst (and dev, proto when given; IPv6 when dst is); false when there was none. */
  async deleteRoute(r: { dst: string; dev?: string; proto?: number }): Promise<boolean> {
    const [dst = '', len = '32'] = r.dst.split('/');
    let oif: number | undefined;
    if (r.dev !== undefined) {
      oif = (await this.link(r.dev))?.index;
      if (oif === undefined) return false;
    }
    try {
      await this.call('RTM_DELROUTE', r, (s) =>
        s.delRoute(
          { family: familyOf(dst), dstLen: Number(len), table: RT_TABLE_MAIN, scope: RT_SCOPE_NOWHERE, ...(r.proto !== undefined ? { protocol: r.proto } : {}) },
          { dst: ipBytes(dst), ...(oif !== undefined ? { oif } : {}) },
        ),
      );
      return true;
    } catch (e) {
      if (e instanceof NetlinkError && e.errno === 'ESRCH') return false;
      throw e;
    }
  }

  /** The permanent IPv6 neighbour entries on `dev`: address and link-layer address. */
  async permanentNeighbours6(dev: string): Promise<{ ip: string; mac: string | undefined }[]> {
    const link = await this.link(dev);
    if (!link) return [];
    const all = await this.dump('RTM_GETNEIGH', (s) => s.getNeighbors({ family: AF_INET6 }));
    return all
      .filter((n) => n.data.ifindex === link.index && n.data.state?.permanent === true)
      .map((n) => ({ ip: ipText(n.attrs.dst) ?? '', mac: macText(n.attrs.lladdr) }))
      .filter((n) => n.ip !== '');
  }

  /** `ip -6 neigh replace <ip> lladdr <mac> dev <dev> nud permanent`. */
  async replaceNeighbour6(dev: string, ip: string, mac: string): Promise<void> {
    const link = await this.link(dev);
    if (!link) throw new NetlinkError('ENODEV', 'RTM_NEWNEIGH', { dev, ip });
    const lladdr = Buffer.from(mac.split(':').map((x) => parseInt(x, 16)));
    await this.call('RTM_NEWNEIGH', { dev, ip, mac }, (s) =>
      s.newNeighbor({ family: AF_INET6, ifindex: link.index, state: { permanent: true } }, { dst: ipBytes(ip), lladdr }, { flags: FlagsNew.CREATE | FlagsNew.REPLACE }),
    );
  }

  /** Deletes an IPv6 neighbour entry on `dev`; false when there was none. */
  async deleteNeighbour6(dev: string, ip: string): Promise<boolean> {
    const link = await this.link(dev);
    if (!link) return false;
    try {
      await this.call('RTM_DELNEIGH', { dev, ip }, (s) => s.delNeighbor({ family: AF_INET6, ifindex: link.index }, { dst: ipBytes(ip) }));
      return true;
    } catch (e) {
      if (e instanceof NetlinkError && e.errno === 'ENOENT') return false;
      throw e;
    }
  }

  /** `ip route get <ip>`: the device the kernel would send through, undefined when unroutable. */
  async routeDevice(ip: string): Promise<string | undefined> {
    try {
      const [m] = await this.call('RTM_GETROUTE', ip, (s) => s.getRoute({ family: AF_INET, dstLen: 32 }, { dst: ipBytes(ip) }));
      const oif = m?.attrs.oif;
      return oif === undefined ? undefined : (await this.linkByIndex(oif))?.name;
    } catch (e) {
      if (e instanceof NetlinkError && ['ENETUNREACH', 'EHOSTUNREACH', 'EINVAL'].includes(e.errno)) return undefined;
      throw e;
    }
  }
  /** Creates the VLAN sub-interface `name` (id `vlanId`) of the link with index `parent`, up. */
  async createVlan(o: { name: string; parent: number; vlanId: number }): Promise<void> {
    await this.call('RTM_NEWLINK vlan', o, (s) =>
      s.newLink({ flags: { up: true }, change: { up: true } }, { ifname: o.name, link: u32(o.parent), linkinfo: vlanLinkInfo(o.vlanId) }, { flags: FlagsNew.CREATE | FlagsNew.EXCL }),
    );
  }

  /** Every VLAN link with its id and parent's index. */
  async vlanLinks(): Promise<{ name: string; index: number; vlan: number; parent: number | undefined }[]> {
    const links = await this.dump('RTM_GETLINK', (s) => s.getLinks());
    const out: { name: string; index: number; vlan: number; parent: number | undefined }[] = [];
    for (const l of links) {
      const vlan = vlanIdOf(l.attrs.linkinfo);
      if (vlan === undefined) continue;
      const parent = l.attrs.link && l.attrs.link.length >= 4 ? l.attrs.link.readUInt32LE(0) : undefined;
      out.push({ name: l.attrs.ifname ?? '', index: l.data.index ?? -1, vlan, parent });
    }
    return out;
  }

  /**
   * `ip addr add <ip>/<prefix> dev <index> noprefixroute` (no subnet route in the main table); an
   * IPv6 address also `nodad`: usable at once, as an IPv4 one is (a tentative address is no source).
   */
  async addAddressNoPrefixRoute(index: number, ip: string, prefix: number): Promise<void> {
    const a = ipBytes(ip);
    const six = ip.includes(':');
    await this.call('RTM_NEWADDR', `${ip}/${prefix}`, (s) =>
      s.newAddress({ family: familyOf(ip), prefixlen: prefix, index }, { local: a, address: a, flags: six ? { noprefixroute: true, nodad: true } : { noprefixroute: true } }, { flags: FlagsNew.CREATE | FlagsNew.REPLACE }),
    );
  }

  /** Deletes an IPv4 or IPv6 address; false when it was not there. */
  async deleteAddress(index: number, ip: string, prefix: number): Promise<boolean> {
    const a = ipBytes(ip);
    try {
      await this.call('RTM_DELADDR', `${ip}/${prefix}`, (s) => s.delAddress({ family: familyOf(ip), prefixlen: prefix, index }, { local: a, address: a }));
      return true;
    } catch (e) {
      if (e instanceof NetlinkError && e.errno === 'EADDRNOTAVAIL') return false;
      throw e;
    }
  }

  /** The `local` routes of the local table with their device (the kernel adds one per address): IPv4, or IPv6 with `family` 6. */
  async localRoutes(family: 4 | 6 = 4): Promise<{ ip: string; dev: string | undefined }[]> {
    const routes = await this.dump('RTM_GETROUTE', (s) => s.getRoutes({ family: family === 6 ? AF_INET6 : AF_INET, table: RT_TABLE_LOCAL }));
    const links = await this.linkNames();
    return routes
      .filter((r) => (r.attrs.table ?? r.data.table) === RT_TABLE_LOCAL && num(r.data.type, rt.RouteType as unknown as Record<string, unknown>) === RTN_LOCAL)
      .map((r) => ({ ip: ipText(r.attrs.dst) ?? '', dev: r.attrs.oif !== undefined ? links.get(r.attrs.oif) : undefined }));
  }

  /** `ip route del table local local <ip> dev <dev>`; false when there was none. */
  async deleteLocalRoute(ip: string, dev: string): Promise<boolean> {
    const oif = (await this.link(dev))?.index;
    if (oif === undefined) return false;
    try {
      await this.call('RTM_DELROUTE', { table: 'local', ip, dev }, (s) =>
        s.delRoute({ family: familyOf(ip), dstLen: ip.includes(':') ? 128 : 32, table: RT_TABLE_LOCAL, type: RTN_LOCAL, scope: RT_SCOPE_HOST }, { dst: ipBytes(ip), oif }),
      );
      return true;
    } catch (e) {
      if (e instanceof NetlinkError && e.errno === 'ESRCH') return false;
      throw e;
    }
  }

  /** Routes of the tables `min`..`max`: IPv4, or IPv6 with `family` 6 (RFC 5952 text). */
  async tableRoutes(min: number, max: number, family: 4 | 6 = 4): Promise<{ table: number; dst: string; gateway?: string; dev?: string }[]> {
    const routes = await this.dump('RTM_GETROUTE', (s) => s.getRoutes({ family: family === 6 ? AF_INET6 : AF_INET }));
    const links = await this.linkNames();
    const out: { table: number; dst: string; gateway?: string; dev?: string }[] = [];
    for (const r of routes) {
      const table = r.attrs.table ?? r.data.table ?? 0;
      if (table < min || table > max) continue;
      const gateway = ipText(r.attrs.gateway);
      const dev = r.attrs.oif !== undefined ? links.get(r.attrs.oif) : undefined;
      out.push({ table, dst: `${ipText(r.attrs.dst) ?? (family === 6 ? '::' : '0.0.0.0')}/${r.data.dstLen ?? 0}`, ...(gateway ? { gateway } : {}), ...(dev ? { dev } : {}) });
    }
    return out;
  }

  /** Deletes a route of table `table` by destination; false when there was none. */
  async deleteTableRoute(table: number, dst: string): Promise<boolean> {
    const [ip = '', len = ip.includes(':') ? '128' : '32'] = dst.split('/');
    try {
      await this.call('RTM_DELROUTE', { table, dst }, (s) => s.delRoute({ family: familyOf(ip), dstLen: Number(len), table, scope: RT_SCOPE_NOWHERE }, { dst: ipBytes(ip), table }));
      return true;
    } catch (e) {
      if (e instanceof NetlinkError && e.errno === 'ESRCH') return false;
      throw e;
    }
  }

  /** Every IPv4 rule that looks up a table (IPv6 ones with `family` 6). */
  async rules(family: 4 | 6 = 4): Promise<Ipv4Rule[]> {
    const rules = await this.dump('RTM_GETRULE', (s) => s.getRules({ family: family === 6 ? AF_INET6 : AF_INET }));
    return rules.map((r) => ({
      src: ipText(r.attrs.src) ?? (family === 6 ? '::' : '0.0.0.0'),
      srcLen: r.data.srcLen ?? 0,
      table: r.attrs.table ?? r.data.table ?? 0,
      priority: r.attrs.priority,
      protocol: r.attrs.protocol,
    }));
  }

  /** `ip rule add from <src>/32 (/128) lookup <table> priority <priority> protocol <proto>`; an existing one is kept. */
  async addRule(o: { src: string; table: number; priority: number; proto: number }): Promise<void> {
    try {
      await this.call('RTM_NEWRULE', o, (s) =>
        s.newRule({ family: familyOf(o.src), srcLen: o.src.includes(':') ? 128 : 32, table: o.table < 256 ? o.table : 0, action: FR_ACT_TO_TBL }, { src: ipBytes(o.src), table: o.table, priority: o.priority, protocol: o.proto }, { flags: FlagsNew.CREATE | FlagsNew.EXCL }),
      );
    } catch (e) {
      if (e instanceof NetlinkError && e.errno === 'EEXIST') return;
      throw e;
    }
  }

  /** Deletes `from <src>/32 (/128) lookup <table>`; false when there was none. */
  async deleteRule(o: { src: string; table: number; priority?: number }): Promise<boolean> {
    try {
      await this.call('RTM_DELRULE', o, (s) =>
        s.delRule({ family: familyOf(o.src), srcLen: o.src.includes(':') ? 128 : 32, table: o.table < 256 ? o.table : 0, action: FR_ACT_TO_TBL }, { src: ipBytes(o.src), table: o.table, ...(o.priority !== undefined ? { priority: o.priority } : {}) }),
      );
      return true;
    } catch (e) {
      if (e instanceof NetlinkError && (e.errno === 'ENOENT' || e.errno === 'ESRCH')) return false;
      throw e;
    }
  }
}

/** rtm_scope "nowhere": what `ip route del` sends so a delete matches any scope. */
const RT_SCOPE_NOWHERE = 255;

function linkState(m: { data: rt.Link; attrs: { ifname?: string; mtu?: number; address?: Buffer } }): LinkState {
  return { index: m.data.index ?? -1, name: m.attrs.ifname ?? '', up: m.data.flags?.up === true, mtu: m.attrs.mtu, mac: macText(m.attrs.address) };
}
