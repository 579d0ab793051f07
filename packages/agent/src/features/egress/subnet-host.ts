/**
 * The node side of EgressSeparateSubnet: reads the Egress subnets' links, addresses, table routes
 * and rules from the node namespace and applies the steps of subnet.ts. As netops.ts does: by
 * rtnetlink when the node namespace is the agent's own, by one `ip` child under
 * `nsenter --net=<node>` when it is not (the lab), since a netlink socket reaches only its own
 * namespace.
 */
import { EGRESS_ROUTE_PROTO, type NodeNetwork } from '../../netops';
import { NAME_RE, check } from '../../host-network/checks';
import { Rtnetlink } from '../../host-network/rtnetlink';
import { ipv4Of, isIpv4WithPrefix } from '../../ipv4';
import { ipv6Of, isIpv6WithPrefix } from '../../ipv6';
import { EGRESS_RULE_PRIORITY, MAX_EGRESS_TABLE, MIN_EGRESS_TABLE, VLAN_LINK_PREFIX, emptyHostState, type SubnetHostState, type SubnetStep } from './subnet';

/** An Egress IP or gateway of either family (IPv6 in RFC 5952 text). */
const isIp = (v: string): boolean => ipv4Of(v) !== undefined || ipv6Of(v) !== undefined;
const isCidr = (v: string): boolean => isIpv4WithPrefix(v) || isIpv6WithPrefix(v);
const hostLen = (ip: string): number => (ip.includes(':') ? 128 : 32);
const inTables = (t: number): boolean => t >= MIN_EGRESS_TABLE && t <= MAX_EGRESS_TABLE;
const ours = (name: string | undefined): name is string => name !== undefined && name.startsWith(VLAN_LINK_PREFIX);
/** fe80::/10, the address every IPv6 link gets from the kernel. */
const isLinkLocal6 = (ip: string): boolean => /^fe[89ab][0-9a-f]:/i.test(ip);
/**
 * The kernel inserts an IPv6 address's local route from its address work queue, after the add has
 * returned (with `nodad` too; an IPv4 one comes with the add). Deleted before it is there, it comes
 * back after the delete (26 in 200 tries on a quiet machine). So an IPv6 delLocalRoute first waits
 * for the route, up to LOCAL6_WAIT_MS (a link that is down makes none): by rtnetlink a look every
 * LOCAL6_LOOK_MS, by `ip` children (a fork and exec per look) every LOCAL6_SHELL_LOOK_MS.
 */
const LOCAL6_WAIT_MS = 2000;
const LOCAL6_LOOK_MS = 5;
const LOCAL6_SHELL_LOOK_MS = 20;
/**
 * The lab's wait-then-delete of an IPv6 local route in one shell ($1 the address, $2 the device);
 * prints how many looks found no route before one did (or the limit).
 */
export const DEL_LOCAL6_SCRIPT =
  `i=0; while [ -z "$(ip -6 route show table local type local "$1" dev "$2")" ] && [ $i -lt ${LOCAL6_WAIT_MS / LOCAL6_SHELL_LOOK_MS} ]; do sleep ${LOCAL6_SHELL_LOOK_MS / 1000}; i=$((i+1)); done; ` +
  'echo "$i"; ip -6 route del table local local "$1" dev "$2" 2>/dev/null; true';
const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Where the steps go: the node's links, addresses, routes and rules. */
export interface SubnetHostOps {
  /** The node's Egress subnet state (only what the agent owns; VLAN links of `transportDev`). */
  read(transportDev: string): Promise<SubnetHostState>;
  /** Applies the steps in order. */
  apply(steps: readonly SubnetStep[], transportDev: string): Promise<void>;
  close(): void;
}

interface IpJsonLink { ifname: string; link?: string; linkinfo?: { info_kind?: string; info_data?: { id?: number } } }
interface IpJsonAddr { ifname: string; addr_info?: { family: string; local: string; prefixlen: number; scope?: string }[] }
interface IpJsonRoute { dst: string; gateway?: string; dev?: string; table?: string; type?: string }
interface IpJsonRule { src?: string; srclen?: number; table?: string; protocol?: string; priority?: number }

/** The state as `ip -j` prints it (the lab's read): pure, so the parsing is tested without a node. */
export function stateFromIpJson(transportDev: string, j: { links: IpJsonLink[]; addrs: IpJsonAddr[]; local: IpJsonRoute[]; routes: IpJsonRoute[]; rules: IpJsonRule[] }): SubnetHostState {
  const s = emptyHostState();
  const vlanNames = new Set<string>();
  for (const l of j.links) {
    const id = l.linkinfo?.info_data?.id;
    if (!ours(l.ifname) || l.linkinfo?.info_kind !== 'vlan' || id === undefined || (l.link !== undefined && l.link !== transportDev)) continue;
    s.links.push({ name: l.ifname, vlan: id });
    vlanNames.add(l.ifname);
  }
  for (const a of j.addrs) {
    if (!vlanNames.has(a.ifname)) continue;
    // The kernel's own IPv6 link-local address of the link is not the agent's.
    for (const x of a.addr_info ?? []) if (x.family === 'inet' || (x.family === 'inet6' && !isLinkLocal6(x.local))) s.addresses.push({ dev: a.ifname, ip: x.local, prefix: x.prefixlen });
  }
  for (const r of j.local) if (r.dev !== undefined && vlanNames.has(r.dev) && (r.type ?? 'local') === 'local') s.localRoutes.push({ dev: r.dev, ip: r.dst.split('/')[0] ?? r.dst });
  for (const r of j.routes) {
    const table = Number(r.table);
    if (!Number.isInteger(table) || !inTables(table) || r.dev === undefined) continue;
    const v6 = r.dst.includes(':') || (r.gateway ?? '').includes(':');
    const dst = r.dst === 'default' ? (v6 ? '::/0' : '0.0.0.0/0') : r.dst.includes('/') ? r.dst : `${r.dst}/${v6 ? 128 : 32}`;
    s.routes.push({ table, dst, ...(r.gateway !== undefined ? { via: r.gateway } : {}), dev: r.dev });
  }
  for (const r of j.rules) {
    const table = Number(r.table);
    if (r.protocol !== String(EGRESS_ROUTE_PROTO) || !Number.isInteger(table) || !inTables(table) || r.src === undefined || r.src === 'all') continue;
    s.rules.push({ src: r.src, table });
  }
  return s;
}

/** One `ip -batch` line per step (values checked before they reach a line). */
export function batchLine(step: SubnetStep, transportDev: string): string {
  const ip = (v: string): string => check(isIp, v, 'Egress IP');
  const dev = (v: string): string => check(NAME_RE, v, 'Egress subnet interface');
  const table = (t: number): number => {
    if (!inTables(t)) throw new RangeError(`route table ${t} is outside ${MIN_EGRESS_TABLE}..${MAX_EGRESS_TABLE}`);
    return t;
  };
  switch (step.op) {
    case 'delRule':
      return `rule del from ${ip(step.src)}/${hostLen(step.src)} lookup ${table(step.table)} priority ${EGRESS_RULE_PRIORITY}`;
    case 'addRule':
      return `rule add from ${ip(step.src)}/${hostLen(step.src)} lookup ${table(step.table)} priority ${EGRESS_RULE_PRIORITY} protocol ${EGRESS_ROUTE_PROTO}`;
    case 'addLink':
      return `link add link ${dev(transportDev)} name ${dev(step.name)} type vlan id ${step.vlan}\nlink set dev ${dev(step.name)} up`;
    case 'delLink':
      return `link del dev ${dev(step.name)}`;
    case 'addAddress':
      // An IPv6 address without DAD: usable at once, as an IPv4 one is (a tentative address is no source).
      return `addr replace ${ip(step.ip)}/${step.prefix} dev ${dev(step.dev)} noprefixroute${step.ip.includes(':') ? ' nodad' : ''}`;
    case 'delAddress':
      return `addr del ${ip(step.ip)}/${step.prefix} dev ${dev(step.dev)}`;
    case 'delLocalRoute':
      return `route del table local local ${ip(step.ip)} dev ${dev(step.dev)}`;
    case 'replaceRoute': {
      const r = step.route;
      check(isCidr, r.dst, 'route destination');
      return r.via !== undefined
        ? `route replace ${r.dst === '0.0.0.0/0' ? 'default' : r.dst} via ${ip(r.via)} dev ${dev(r.dev)} table ${table(r.table)} proto ${EGRESS_ROUTE_PROTO}`
        : `route replace ${r.dst} dev ${dev(r.dev)} table ${table(r.table)} proto ${EGRESS_ROUTE_PROTO} scope link`;
    }
    case 'delRoute':
      return `route del ${check(isCidr, step.dst, 'route destination')} table ${table(step.table)}`;
  }
}

/** Whether a step is about an IPv6 address or route (it runs in an `ip -6` batch). */
function stepIsIpv6(s: SubnetStep): boolean {
  switch (s.op) {
    case 'delRule':
    case 'addRule':
      return s.src.includes(':');
    case 'addAddress':
    case 'delAddress':
    case 'delLocalRoute':
      return s.ip.includes(':');
    case 'replaceRoute':
      return s.route.dst.includes(':');
    case 'delRoute':
      return s.dst.includes(':');
    case 'addLink':
    case 'delLink':
      return false;
  }
}

/** A step that takes something away: one that finds nothing to take has reached the state wanted. */
const removes = (s: SubnetStep): boolean => s.op === 'delRule' || s.op === 'delLink' || s.op === 'delAddress' || s.op === 'delLocalRoute' || s.op === 'delRoute';

/** {@link SubnetHostOps} on the node namespace through `net`. */
export class SubnetHost implements SubnetHostOps {
  private readonly rtnl = new Rtnetlink();

  constructor(private readonly net: Pick<NodeNetwork, 'runInNode' | 'nodeNetns'>) {}

  private get own(): boolean {
    return this.net.nodeNetns === undefined;
  }

  close(): void {
    this.rtnl.close();
  }

  async read(transportDev: string): Promise<SubnetHostState> {
    check(NAME_RE, transportDev, 'transport interface');
    if (this.own) return this.readByNetlink(transportDev);
    // One child reads them all; each part is one JSON document on its own line.
    // The IPv6 addresses, local routes, tables and rules too (an IPv6 pool's subnet): an empty list where there are none.
    const out = await this.net.runInNode(
      'ip -j -d link show type vlan; echo; ip -j addr show; echo; ip -j -4 route show table local type local; echo; ip -j -4 route show table all; echo; ip -j -4 rule show; echo; ip -j -6 route show table all 2>/dev/null || echo "[]"; echo; ip -j -6 rule show 2>/dev/null || echo "[]"; echo; ip -j -6 route show table local type local 2>/dev/null || echo "[]"; echo',
    );
    const parts = out.split('\n').map((l) => l.trim()).filter((l) => l !== '');
    const [links, addrs, local, routes, rules, routes6, rules6, local6] = parts.map((p) => JSON.parse(p) as unknown[]);
    return stateFromIpJson(transportDev, {
      links: (links ?? []) as IpJsonLink[],
      addrs: (addrs ?? []) as IpJsonAddr[],
      local: [...((local ?? []) as IpJsonRoute[]), ...((local6 ?? []) as IpJsonRoute[])],
      routes: [...((routes ?? []) as IpJsonRoute[]), ...((routes6 ?? []) as IpJsonRoute[])],
      rules: [...((rules ?? []) as IpJsonRule[]), ...((rules6 ?? []) as IpJsonRule[])],
    });
  }

  private async readByNetlink(transportDev: string): Promise<SubnetHostState> {
    const s = emptyHostState();
    const parent = (await this.rtnl.link(transportDev))?.index;
    for (const l of await this.rtnl.vlanLinks()) if (ours(l.name) && (parent === undefined || l.parent === parent)) s.links.push({ name: l.name, vlan: l.vlan });
    const names = new Set(s.links.map((l) => l.name));
    for (const family of [4, 6] as const) {
      for (const a of await this.rtnl.addresses(family)) if (names.has(a.dev) && !isLinkLocal6(a.ip)) s.addresses.push(a);
      for (const r of await this.rtnl.localRoutes(family)) if (r.dev !== undefined && names.has(r.dev)) s.localRoutes.push({ dev: r.dev, ip: r.ip });
    }
    for (const family of [4, 6] as const) {
      for (const r of await this.rtnl.tableRoutes(MIN_EGRESS_TABLE, MAX_EGRESS_TABLE, family)) if (r.dev !== undefined) s.routes.push({ table: r.table, dst: r.dst, ...(r.gateway !== undefined ? { via: r.gateway } : {}), dev: r.dev });
      for (const r of await this.rtnl.rules(family)) if (r.protocol === EGRESS_ROUTE_PROTO && inTables(r.table) && r.srcLen === (family === 6 ? 128 : 32)) s.rules.push({ src: r.src, table: r.table });
    }
    return s;
  }

  async apply(steps: readonly SubnetStep[], transportDev: string): Promise<void> {
    if (steps.length === 0) return;
    if (this.own) {
      for (const step of steps) await this.applyByNetlink(step, transportDev);
      return;
    }
    // Three batches in the steps' order: removals that find nothing are no failure (-force, result
    // ignored), additions must all succeed.
    const first = steps.filter((s) => s.op === 'delRule');
    const middle = steps.filter((s) => s.op !== 'delRule' && (!removes(s) || s.op === 'delLocalRoute'));
    const last = steps.filter((s) => removes(s) && s.op !== 'delRule' && s.op !== 'delLocalRoute');
    // `ip rule` in a batch takes IPv4 unless told otherwise: an IPv6 step runs in an `ip -6` batch of its own, after its IPv4 twins.
    const batch = async (xs: readonly SubnetStep[], forced: boolean): Promise<void> => {
      for (const six of [false, true]) {
        const mine = xs.filter((x) => stepIsIpv6(x) === six);
        if (mine.length === 0) continue;
        const input = `${mine.map((x) => batchLine(x, transportDev)).join('\n')}\n`;
        const cmd = `ip${six ? ' -6' : ''}${forced ? ' -force' : ''} -batch -`;
        await this.net.runInNode(forced ? `${cmd} 2>/dev/null; true` : cmd, [], input);
      }
    };
    if (first.length) await batch(first, true);
    // A local route the kernel has not made (yet) is nothing to delete: those lines are forced.
    const adds = middle.filter((s) => s.op !== 'delLocalRoute');
    const locals = middle.filter((s) => s.op === 'delLocalRoute' && !stepIsIpv6(s));
    const locals6 = middle.filter((s): s is Extract<SubnetStep, { op: 'delLocalRoute' }> => s.op === 'delLocalRoute' && stepIsIpv6(s));
    const linkAndAddr = adds.filter((s) => s.op === 'addLink' || s.op === 'addAddress');
    const routesAndRules = adds.filter((s) => s.op === 'replaceRoute' || s.op === 'addRule');
    if (linkAndAddr.length) await batch(linkAndAddr, false);
    if (locals.length) await batch(locals, true);
    // Each IPv6 one waits for the kernel's route (LOCAL6_WAIT_MS), in the same child.
    for (const l of locals6) await this.net.runInNode(DEL_LOCAL6_SCRIPT, [check(isIp, l.ip, 'Egress IP'), check(NAME_RE, l.dev, 'Egress subnet interface')]);
    if (routesAndRules.length) await batch(routesAndRules, false);
    if (last.length) await batch(last, true);
  }

  /** Waits for the kernel's local route of the IPv6 address `ip` on `dev` (LOCAL6_WAIT_MS). */
  private async untilLocalRoute6(ip: string, dev: string): Promise<void> {
    for (let i = 0; i < LOCAL6_WAIT_MS / LOCAL6_LOOK_MS; i++) {
      if ((await this.rtnl.localRoutes(6)).some((r) => r.ip === ip && r.dev === dev)) return;
      await pause(LOCAL6_LOOK_MS);
    }
  }

  private async applyByNetlink(step: SubnetStep, transportDev: string): Promise<void> {
    const index = async (name: string): Promise<number> => {
      const l = await this.rtnl.link(name);
      if (!l) throw new RangeError(`interface ${name} does not exist`);
      return l.index;
    };
    switch (step.op) {
      case 'delRule':
        await this.rtnl.deleteRule({ src: step.src, table: step.table, priority: EGRESS_RULE_PRIORITY });
        return;
      case 'addRule':
        await this.rtnl.addRule({ src: step.src, table: step.table, priority: EGRESS_RULE_PRIORITY, proto: EGRESS_ROUTE_PROTO });
        return;
      case 'addLink':
        await this.rtnl.createVlan({ name: step.name, parent: await index(transportDev), vlanId: step.vlan });
        return;
      case 'delLink':
        await this.rtnl.deleteLink(step.name);
        return;
      case 'addAddress':
        await this.rtnl.addAddressNoPrefixRoute(await index(step.dev), step.ip, step.prefix);
        return;
      case 'delAddress': {
        const l = await this.rtnl.link(step.dev);
        if (l) await this.rtnl.deleteAddress(l.index, step.ip, step.prefix);
        return;
      }
      case 'delLocalRoute':
        if (step.ip.includes(':')) await this.untilLocalRoute6(step.ip, step.dev);
        await this.rtnl.deleteLocalRoute(step.ip, step.dev);
        return;
      case 'replaceRoute': {
        const r = step.route;
        await this.rtnl.replaceRoute({ dst: r.dst, dev: r.dev, table: r.table, proto: EGRESS_ROUTE_PROTO, ...(r.via !== undefined ? { via: r.via } : { scopeLink: true }) });
        return;
      }
      case 'delRoute':
        await this.rtnl.deleteTableRoute(step.table, step.dst);
        return;
    }
  }
}
