/**
 * EgressSeparateSubnet (pure): where an Egress IP of a pool with `subnetInfo` leaves the owner.
 * Each distinct subnet gets a route table (Antrea's 101..120) with the subnet on its link and the
 * default route via `subnetInfo.gateway`, and each IP a source rule (`from <ip> lookup <table>`):
 * OVS SNATs, so the host sees the packet with the Egress IP as its source. A subnet with a VLAN
 * leaves through a VLAN sub-interface of the transport device, named as Antrea names it
 * (`antrea-ext.<vlan>`), carrying the IP; one without leaves through the transport device itself.
 * This module computes the host state wanted and the steps from the state seen to it.
 */
import { Cidr, parseIp, type Ip } from '@switchyard/ipam/cidr';
import { ipv4Of } from '../../ipv4';
import { ipv6Of } from '../../ipv6';

/** An ExternalIPPool's `spec.subnetInfo`, checked. */
export interface EgressSubnet {
  gateway: string;
  prefixLength: number;
  /** 0: untagged, on the transport device. */
  vlan: number;
}

/** VLAN sub-interfaces the agent creates are named with this prefix, so it deletes only its own (Antrea's `antrea-ext.<vlan>`). */
export const VLAN_LINK_PREFIX = 'antrea-ext.';
/** The route tables of Egress subnets, one per distinct subnet (Antrea's MinEgressRouteTable..MaxEgressRouteTable). */
export const MIN_EGRESS_TABLE = 101;
export const MAX_EGRESS_TABLE = 120;
/**
 * Priority of the `from <egress IP>` rules: before the main table's rule (32766), after the local
 * table's (0) and the rules a host usually has; what the kernel gives the first rule added without one.
 */
export const EGRESS_RULE_PRIORITY = 32765;

export const vlanLinkName = (vlan: number): string => `${VLAN_LINK_PREFIX}${vlan}`;
/** The subnet as `network/prefix` (IPv4 or IPv6, the gateway's family). */
export const subnetCidr = (s: EgressSubnet): string => Cidr.of(parseIp(s.gateway), s.prefixLength).toString();
/** The default route of the subnet's family. */
const defaultDst = (s: EgressSubnet): string => (s.gateway.includes(':') ? '::/0' : '0.0.0.0/0');
/** Identity of a subnet: IPs of one gateway, prefix and VLAN share a route table. */
export const subnetKey = (s: EgressSubnet): string => `${s.gateway}/${s.prefixLength}@${s.vlan}`;
/** The link an IP of the subnet leaves by. */
export const subnetLink = (s: EgressSubnet, transportDev: string): string => (s.vlan > 0 ? vlanLinkName(s.vlan) : transportDev);

/** A `subnetInfo` the agent cannot use, named by field and value. */
export interface SubnetProblem {
  field: string;
  value: unknown;
  message: string;
}

/**
 * `subnetInfo` of a pool, for the Egress IP `ip` of it (IPv4, or IPv6 with an IPv6 gateway): the
 * subnet, or the problem (an unparsable gateway, a prefix length outside 1..31 for IPv4 or 1..127
 * for IPv6, a VLAN outside 0..4094, the IP outside the subnet). The controller
 * refuses such pools at admission; the agent checks again, as a pool may have been stored without
 * the webhook.
 */
export function subnetOfPool(info: unknown, ip: string): { subnet?: EgressSubnet; problem?: SubnetProblem } {
  if (info === undefined || info === null) return {};
  const i = info as { gateway?: unknown; prefixLength?: unknown; vlan?: unknown };
  const gw: Ip | undefined = typeof i.gateway === 'string' ? (ipv4Of(i.gateway) ?? (i.gateway.includes(':') ? ipv6Of(i.gateway) : undefined)) : undefined;
  if (!gw) return { problem: { field: 'spec.subnetInfo.gateway', value: i.gateway, message: 'must be an IPv4 address or an IPv6 address in RFC 5952 form' } };
  const max = gw.family === 6 ? 127 : 31;
  const prefix = i.prefixLength;
  if (typeof prefix !== 'number' || !Number.isInteger(prefix) || prefix < 1 || prefix > max) return { problem: { field: 'spec.subnetInfo.prefixLength', value: prefix, message: `must be an integer in 1..${max}` } };
  const vlan = i.vlan ?? 0;
  if (typeof vlan !== 'number' || !Number.isInteger(vlan) || vlan < 0 || vlan > 4094) return { problem: { field: 'spec.subnetInfo.vlan', value: vlan, message: 'must be an integer in 0..4094' } };
  const subnet = { gateway: gw.toString(), prefixLength: prefix, vlan };
  const addr = gw.family === 6 ? ipv6Of(ip) : ipv4Of(ip);
  if (!addr || addr.family !== gw.family || !Cidr.of(gw, prefix).contains(addr)) return { problem: { field: 'spec.subnetInfo', value: `${subnet.gateway}/${prefix}`, message: `Egress IP ${ip} is not inside the subnet ${subnetCidr(subnet)}` } };
  return { subnet };
}

/** An Egress IP this node owns that leaves through its pool's subnet. */
export interface SubnetIP {
  ip: string;
  subnet: EgressSubnet;
}

/**
 * A route table for each distinct subnet: the one it had (`previous`, by {@link subnetKey}) when it
 * still has it, else the lowest free one. IPs of subnets beyond the 20 tables are `unplaced`.
 */
export function assignTables(ips: readonly SubnetIP[], previous: ReadonlyMap<string, number>): { tables: Map<string, number>; unplaced: SubnetIP[] } {
  const keys = [...new Set(ips.map((x) => subnetKey(x.subnet)))].sort();
  const tables = new Map<string, number>();
  const used = new Set<number>();
  for (const k of keys) {
    const t = previous.get(k);
    if (t !== undefined && t >= MIN_EGRESS_TABLE && t <= MAX_EGRESS_TABLE && !used.has(t)) {
      tables.set(k, t);
      used.add(t);
    }
  }
  for (const k of keys) {
    if (tables.has(k)) continue;
    let t = MIN_EGRESS_TABLE;
    while (used.has(t) && t <= MAX_EGRESS_TABLE) t++;
    if (t > MAX_EGRESS_TABLE) continue;
    tables.set(k, t);
    used.add(t);
  }
  return { tables, unplaced: ips.filter((x) => !tables.has(subnetKey(x.subnet))) };
}

/** A route of an Egress table. */
export interface TableRoute {
  table: number;
  /** `a.b.c.d/len` or an IPv6 CIDR; `0.0.0.0/0` (`::/0`) for the default route. */
  dst: string;
  via?: string;
  dev: string;
}

/** The host state of Egress subnets on a node: only what the agent owns (VLAN links named `antrea-ext.*`, tables 101..120, rules of its protocol). */
export interface SubnetHostState {
  /** VLAN sub-interfaces of the transport device. */
  links: { name: string; vlan: number }[];
  /** Egress IPs on the VLAN links (`ip/prefix`). */
  addresses: { dev: string; ip: string; prefix: number }[];
  /** Local routes of those addresses (seen only: the kernel adds them with the address, the agent takes them off). */
  localRoutes: { dev: string; ip: string }[];
  routes: TableRoute[];
  rules: { src: string; table: number }[];
}

export const emptyHostState = (): SubnetHostState => ({ links: [], addresses: [], localRoutes: [], routes: [], rules: [] });

/**
 * What the node must have for `ips`: per subnet its table's two routes (the subnet on its link,
 * the default via the gateway), per VLAN its link, per IP its rule and, on a VLAN link, its address
 * (the prefix of the subnet, so the kernel's ARP requests for the gateway come from it). IPs
 * without a table are left out.
 */
export function desiredHostState(ips: readonly SubnetIP[], tables: ReadonlyMap<string, number>, transportDev: string): SubnetHostState {
  const want = emptyHostState();
  const seenKeys = new Set<string>();
  for (const { ip, subnet } of [...ips].sort((a, b) => a.ip.localeCompare(b.ip, 'en', { numeric: true }))) {
    const key = subnetKey(subnet);
    const table = tables.get(key);
    if (table === undefined) continue;
    const dev = subnetLink(subnet, transportDev);
    if (!seenKeys.has(key)) {
      seenKeys.add(key);
      if (subnet.vlan > 0 && !want.links.some((l) => l.vlan === subnet.vlan)) want.links.push({ name: dev, vlan: subnet.vlan });
      want.routes.push({ table, dst: subnetCidr(subnet), dev }, { table, dst: defaultDst(subnet), via: subnet.gateway, dev });
    }
    if (subnet.vlan > 0) want.addresses.push({ dev, ip, prefix: subnet.prefixLength });
    want.rules.push({ src: ip, table });
  }
  return want;
}

/** One change to the node, in the order {@link planSubnetSync} lists them. */
export type SubnetStep =
  | { op: 'delRule'; src: string; table: number }
  | { op: 'addLink'; name: string; vlan: number }
  | { op: 'addAddress'; dev: string; ip: string; prefix: number }
  | { op: 'delLocalRoute'; dev: string; ip: string }
  | { op: 'replaceRoute'; route: TableRoute }
  | { op: 'addRule'; src: string; table: number }
  | { op: 'delRoute'; table: number; dst: string }
  | { op: 'delAddress'; dev: string; ip: string; prefix: number }
  | { op: 'delLink'; name: string };

const routeKey = (r: TableRoute): string => `${r.table} ${r.dst} ${r.via ?? ''} ${r.dev}`;
const ruleKey = (r: { src: string; table: number }): string => `${r.src} ${r.table}`;
const addrKey = (a: { dev: string; ip: string; prefix: number }): string => `${a.dev} ${a.ip}/${a.prefix}`;

/**
 * The steps from `have` to `want`. What is there already is adopted, not replaced (a restarted
 * agent changes nothing that is right). Rules go first (an IP moving between tables never has two),
 * then links, addresses (and their local routes off, so the IP stays routed into the gateway, where
 * OVS un-SNATs the replies), routes and rules; what is no longer wanted last, links after their routes.
 */
export function planSubnetSync(have: SubnetHostState, want: SubnetHostState): SubnetStep[] {
  const steps: SubnetStep[] = [];
  const wantRules = new Set(want.rules.map(ruleKey));
  const haveRules = new Set(have.rules.map(ruleKey));
  for (const r of have.rules) if (!wantRules.has(ruleKey(r))) steps.push({ op: 'delRule', src: r.src, table: r.table });
  const haveLinks = new Map(have.links.map((l) => [l.name, l.vlan]));
  for (const l of want.links) {
    if (haveLinks.get(l.name) === l.vlan) continue;
    if (haveLinks.has(l.name)) steps.push({ op: 'delLink', name: l.name });
    steps.push({ op: 'addLink', name: l.name, vlan: l.vlan });
  }
  const recreated = new Set(want.links.filter((l) => haveLinks.get(l.name) !== l.vlan).map((l) => l.name));
  const haveAddrs = new Set(have.addresses.filter((a) => !recreated.has(a.dev)).map(addrKey));
  const local = new Set(have.localRoutes.filter((r) => !recreated.has(r.dev)).map((r) => `${r.dev} ${r.ip}`));
  for (const a of want.addresses) {
    const fresh = !haveAddrs.has(addrKey(a));
    if (fresh) steps.push({ op: 'addAddress', dev: a.dev, ip: a.ip, prefix: a.prefix });
    if (fresh || local.has(`${a.dev} ${a.ip}`)) steps.push({ op: 'delLocalRoute', dev: a.dev, ip: a.ip });
  }
  const haveRoutes = new Set(have.routes.filter((r) => !recreated.has(r.dev)).map(routeKey));
  for (const r of want.routes) if (!haveRoutes.has(routeKey(r))) steps.push({ op: 'replaceRoute', route: r });
  for (const r of want.rules) if (!haveRules.has(ruleKey(r))) steps.push({ op: 'addRule', src: r.src, table: r.table });
  const wantDsts = new Set(want.routes.map((r) => `${r.table} ${r.dst}`));
  const wantLinks = new Set(want.links.map((l) => l.name));
  // Routes and addresses of a link that goes leave with it.
  const leaving = new Set(have.links.filter((l) => !wantLinks.has(l.name)).map((l) => l.name));
  for (const r of have.routes) if (!wantDsts.has(`${r.table} ${r.dst}`) && !leaving.has(r.dev)) steps.push({ op: 'delRoute', table: r.table, dst: r.dst });
  const wantAddrs = new Set(want.addresses.map(addrKey));
  for (const a of have.addresses) if (!wantAddrs.has(addrKey(a)) && wantLinks.has(a.dev)) steps.push({ op: 'delAddress', dev: a.dev, ip: a.ip, prefix: a.prefix });
  for (const l of have.links) if (!wantLinks.has(l.name)) steps.push({ op: 'delLink', name: l.name });
  return steps;
}
