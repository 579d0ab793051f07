/**
 * Interface work in the node's and pods' network namespaces: rtnetlink (the `netlink` package)
 * where it serves, one short child process where it cannot.
 *
 * A netlink socket belongs to the namespace it was opened in, and Node can neither enter another
 * namespace nor receive a socket opened elsewhere (no setns, no SCM_RIGHTS). So:
 * - The veth of every pod is created by ONE rtnetlink request from the agent's namespace in both
 *   set-ups: the host end directly in the node namespace (IFLA_NET_NS_FD of `nodeNetns`, or the
 *   agent's own namespace), up, with its MTU; the peer directly in the pod's namespace
 *   (VETH_INFO_PEER's IFLA_NET_NS_FD) with its name, MTU and MAC. This replaced an `ip` exec.
 * - When the node namespace is the agent's own (`nodeNetns` undefined: a real node), links,
 *   addresses and routes of the node go through the same socket, and the per-device sysctls are
 *   plain file writes under /proc/sys: no process at all.
 * - When it is not (the lab: the agent runs outside each node's netns), those requests would
 *   reach the wrong namespace, so they stay `ip` children under `nsenter --net=<node>`. The
 *   alternatives were weighed and not taken: a helper process in the node namespace holding the
 *   socket would be a second agent to supervise; IFLA_TARGET_NETNSID covers links but not
 *   addresses or routes.
 * - Inside a pod's namespace (address, routes, up, lo, IPv6 off, checksum offload, gratuitous
 *   ARP) and for ethtool, iptables and per-device sysctls of the lab's node namespace there is no
 *   rtnetlink request that reaches them, so each pod setup keeps one child: `sh` running
 *   `ip -batch -` and ethtool (host side first, in the node namespace, then `nsenter` into the
 *   pod's). ethtool's own netlink family (genetlink) is not in the `netlink` package; sysctls
 *   (disable_ipv6 above all) have no rtnetlink form at link creation; iptables is not rtnetlink.
 *
 * Values reach the shell as positional parameters or as batch lines built from values this
 * module validated, never spliced into the script. Measured before/after: docs/agent.md.
 */
import { spawn } from 'node:child_process';
import { existsSync, statfsSync, writeFileSync } from 'node:fs';
import { createRtNetlink } from 'netlink';
import { AgentError } from './errors';
import { execFile } from './exec';
import { NetnsHelper } from './host-network/netns-helper';
import { Rtnetlink } from './host-network/rtnetlink';
import { planRouteSync, type HostRoute } from './host-network/route-plan';
import { ipv4Of, isIpv4WithPrefix } from './ipv4';
import { ipv6Of, isIpv6WithPrefix } from './ipv6';
import { NAME_RE, check } from './host-network/checks';

/** statfs magic of nsfs: a bind-mounted /proc/<pid>/ns/net (what `ip netns add` and runtimes make). */
const NSFS_MAGIC = 0x6e736673;

/** Protocol number marking the host routes this agent owns (`ip route ... proto 77`). */
export const ROUTE_PROTO = 77;
/**
 * Protocol number marking the host routes the Services part owns (node port DNAT address, external
 * IPs). Each owner of host routes has its own number, as each sync deletes the routes of its number
 * it does not want: 77 {@link ROUTE_PROTO}, 78 the Multi-cluster gateway's (MC_ROUTE_PROTO), 79 this.
 */
export const SERVICE_ROUTE_PROTO = 79;
/** Protocol number of the Egress part's host routes (each Egress IP into the gateway). */
export const EGRESS_ROUTE_PROTO = 80;
/** nat chain holding the pod -> external MASQUERADE rule. */
export const MASQ_CHAIN = 'SWITCHYARD-POSTROUTING';
// cli.ts (--uninstall) imports the Multi-cluster gateway's device name from here.

const MAC_RE = /^[0-9a-f]{2}(:[0-9a-f]{2}){5}$/;

/** A canonical IPv4 address (see ./ipv4). */
const isIpv4 = (v: string): boolean => ipv4Of(v) !== undefined;

/** Path of a netns given by name (`ip netns` style) or by path. */
export function netnsPath(nameOrPath: string): string {
  return nameOrPath.includes('/') ? nameOrPath : `/var/run/netns/${nameOrPath}`;
}

/** Whether the path is a network namespace file: 'missing', 'not-netns' or 'ok'. */
export function probeNetns(path: string): 'missing' | 'not-netns' | 'ok' {
  try {
    return statfsSync(path).type === NSFS_MAGIC ? 'ok' : 'not-netns';
  } catch {
    return 'missing';
  }
}

/** One link as `ip -j link` prints it (the fields used here). */
interface IpLink {
  ifname: string;
  address?: string;
  mtu?: number;
  operstate?: string;
  flags?: string[];
}
interface IpAddrInfo extends IpLink {
  addr_info?: { family: string; local: string; prefixlen: number; scope?: string }[];
}

/** What CHECK reads back from a pod's namespace. */
export interface PodInterfaceState {
  mac: string | undefined;
  up: boolean;
  /** IPv4 and global IPv6 addresses with prefix length. */
  addresses: string[];
  defaultGateway: string | undefined;
  defaultGatewayV6: string | undefined;
}

/** Settings of a pod's interface inside its namespace. */
export interface PodLinkSpec {
  /** Pod netns path (CNI_NETNS). */
  netns: string;
  ifname: string;
  hostIfName: string;
  mac: string;
  /** Address with prefix length, e.g. 10.10.0.5/24; on an IPv6-only node the pod's one (IPv6) address, with `gateway` IPv6 too. */
  ipCidr: string;
  gateway: string;
  /** Dual-stack: the pod's IPv6 address with prefix length (`fd00:10:10:1::5/64`) and its default gateway. */
  ipv6?: { ipCidr: string; gateway: string };
  mtu: number;
  /**
   * Turn transmit checksum offload off on the pod's end (the userspace datapath's conntrack
   * checks the checksums of what the pod sends). The host end's is left as created: only OVS
   * sends on it, through a packet socket, with checksums already complete, and changing it would
   * be one more link event (a full ovs-vswitchd reconfiguration) per pod.
   */
  txOffloadOff: boolean;
}

/** Per-device sysctls that keep the kernel out of a device OVS owns (see {@link NodeNetwork.quietHostLink}). */
const QUIET_SYSCTLS = [
  ['ipv4', 'arp_ignore', '8'],
  ['ipv4', 'forwarding', '0'],
  ['ipv6', 'disable_ipv6', '1'],
] as const;
/** The same as shell commands on "$1" (the lab's node namespace and the pod setup child). */
const QUIET_SH = QUIET_SYSCTLS.map(([f, k, v]) => `echo ${v} > "/proc/sys/net/${f}/conf/$1/${k}"`).join(' && ');

/**
 * The host side of the node: the agent's own netns, or (in the lab) a named netns whose
 * interfaces the agent manages from outside.
 */
export class NodeNetwork {
  private readonly prefix: string[];
  /** rtnetlink in the agent's namespace: veth creation always; everything else only when {@link own}. */
  private readonly rtnl = new Rtnetlink();
  /** Whether the node namespace is the agent's own, so its links and routes are reachable by netlink. */
  private readonly own: boolean;

  /** Devices whose traffic is never masqueraded. */
  private readonly unmasqueraded: readonly string[];
  /** switchyard-netns, when there is one: the pod setup without child processes. */
  private readonly helper: NetnsHelper | undefined;

  /**
   * @param nodeNetns netns name or path of the node; undefined = the agent's own namespace.
   * @param opts.unmasqueraded devices whose traffic keeps its pod source address (the far end SNATs it; the features' options fragments name them).
   * @param opts.netnsHelper path of the switchyard-netns helper; without it each pod setup runs one child (`nsenter`, `sh`, `ip`, `ethtool`).
   */
  constructor(readonly nodeNetns?: string, opts: { unmasqueraded?: readonly string[]; netnsHelper?: string | undefined } = {}) {
    this.unmasqueraded = opts.unmasqueraded ?? [];
    this.helper = opts.netnsHelper ? new NetnsHelper(opts.netnsHelper) : undefined;
    this.prefix = nodeNetns === undefined ? [] : ['nsenter', `--net=${netnsPath(nodeNetns)}`];
    this.own = nodeNetns === undefined;
  }

  /** Closes the netlink socket (it is unref'd, so this is tidiness, not a requirement). */
  close(): void {
    this.rtnl.close();
    this.helper?.close();
  }

  /** Runs a shell script in the node's namespace (`args` are its positional parameters; values never go into the script). */
  runInNode(script: string, args: readonly string[] = [], input = ''): Promise<string> {
    return execFile([...this.prefix, 'sh', '-c', script, 'sh', ...args], { input }).then((r) => r.stdout);
  }

  /** Runs a shell script in a pod's namespace. */
  private pod(netns: string, script: string, args: readonly string[] = [], input = ''): Promise<string> {
    return execFile(['nsenter', `--net=${netns}`, 'sh', '-c', script, 'sh', ...args], { input }).then((r) => r.stdout);
  }

  /**
   * Puts the gateway address on the gateway port, sets its MTU and brings it up. Returns the
   * port's MAC address.
   */
  /**
   * Dual-stack: the gateway's IPv6 address (the first of the IPv6 pod CIDR), IPv6 on for it, no
   * duplicate address detection (the address is the node's own). One child, at bring-up only.
   */
  async configureGatewayV6(name: string, ipCidr: string): Promise<void> {
    check(NAME_RE, name, 'gateway interface name');
    check(isIpv6WithPrefix, ipCidr, 'gateway IPv6 address');
    // IPv6 forwarding on in the node (pods' IPv6 traffic the host routes: to peers' pod CIDRs, out);
    // written only when off, as ip_forward is.
    await this.runInNode(
      'echo 0 > "/proc/sys/net/ipv6/conf/$1/disable_ipv6" && ip -6 addr replace "$2" dev "$1" nodad && { [ "$(cat /proc/sys/net/ipv6/conf/all/forwarding)" = 1 ] || sysctl -qw net.ipv6.conf.all.forwarding=1; }',
      [name, ipCidr],
    );
  }

  async configureGateway(name: string, ipCidr: string | undefined, mtu: number): Promise<string> {
    check(NAME_RE, name, 'gateway interface name');
    // An IPv6-only node's gateway has no IPv4 address (configureGatewayV6 gives it its IPv6 one).
    if (ipCidr !== undefined) check(isIpv4WithPrefix, ipCidr, 'gateway address');
    if (this.own) {
      const link = await this.rtnl.link(name);
      if (!link) throw new AgentError('EXEC_FAILED', `gateway interface ${name} does not exist`, name, 'gatewayName');
      if (ipCidr !== undefined) {
        const [ip = '', prefix = '32'] = ipCidr.split('/');
        await this.rtnl.replaceAddress(link.index, ip, Number(prefix));
      }
      await this.rtnl.setUp(name, mtu);
      if (!link.mac) throw new AgentError('EXEC_FAILED', `cannot read the MAC address of ${name}`, link, name);
      return link.mac;
    }
    const batch = [...(ipCidr !== undefined ? [`addr replace ${ipCidr} dev ${name}`] : []), `link set dev ${name} mtu ${mtu} up`].join('\n');
    const out = await this.runInNode('ip -batch - && ip -j link show dev "$1"', [name], `${batch}\n`);
    const link = (JSON.parse(out) as IpLink[])[0];
    if (!link?.address) throw new AgentError('EXEC_FAILED', `cannot read the MAC address of ${name}`, out, name);
    return link.address;
  }

  /**
   * Creates the veth pair: the host side up and promiscuous in the node namespace, the peer (name,
   * MTU, MAC) directly in the pod's; then the host side's sysctls in the node namespace, and the
   * pod side's IPv6 off, link up, `lo`, address, default route and checksum offload in the pod's.
   * With switchyard-netns all of it is one request to the helper, which brings the pod end up
   * microseconds after creating the pair (so ovs-vswitchd sees the creation and the host end's
   * carrier as one burst of link events, one reconfiguration); without it, the pair is created by
   * the agent's rtnetlink request and the rest is one child. Undo with {@link deleteHostLink}.
   */
  async createPodLink(spec: PodLinkSpec): Promise<void> {
    check(NAME_RE, spec.hostIfName, 'host interface name');
    check(NAME_RE, spec.ifname, 'CNI_IFNAME');
    check(MAC_RE, spec.mac, 'MAC address');
    // A pod of an IPv6-only node: its one address (ipCidr, gateway) is IPv6.
    const v6Only = spec.ipCidr.includes(':');
    if (v6Only) {
      check(isIpv6WithPrefix, spec.ipCidr, 'pod address');
      check((t) => ipv6Of(t) !== undefined, spec.gateway, 'gateway address');
      if (spec.ipv6) throw new AgentError('INVALID_CONFIG', 'a pod with an IPv6 address takes no second IPv6 address', spec.ipv6.ipCidr, 'ipv6');
    } else {
      check(isIpv4WithPrefix, spec.ipCidr, 'pod address');
      check(isIpv4, spec.gateway, 'gateway address');
    }
    if (spec.ipv6) {
      check(isIpv6WithPrefix, spec.ipv6.ipCidr, 'pod IPv6 address');
      check((t) => ipv6Of(t) !== undefined, spec.ipv6.gateway, 'IPv6 gateway address');
    }
    if (/\s/.test(spec.netns)) throw new AgentError('INVALID_CONFIG', 'netns path contains whitespace', spec.netns, 'CNI_NETNS');
    // The host side belongs to OVS. With the userspace datapath the kernel still receives every
    // frame on it too: it must neither answer ARP for node addresses (the pod would learn the
    // veth's MAC as its gateway's) nor forward what arrives there (each packet would reach OVS
    // twice, once through the gateway). The kernel datapath steals the frames, so this is moot there.
    // IPv6 off on both ends while pods are IPv4-only: the link-local chatter (router solicitations,
    // MLD reports, DAD) of every new veth is punted to ovs-vswitchd's main thread, which also
    // attaches ports and commits bundles; at 100 pods it tripled the ADD latency (see the bench).
    // These are sysctls of the node namespace: no rtnetlink request sets them (IFLA_AF_SPEC is
    // refused at link creation, and disable_ipv6 has no netlink form), so they ride with the pod
    // side's setup: one request to switchyard-netns, or without it one child (echo is a shell
    // builtin: no extra process).
    if (this.helper) {
      const [ip = '', prefix = '32'] = spec.ipCidr.split('/');
      // An IPv6-only pod's one address goes in the helper's IPv6 fields (its IPv4 ones are `-`).
      const six = v6Only ? { ipCidr: spec.ipCidr, gateway: spec.gateway } : spec.ipv6;
      const [ip6 = '', prefix6 = '128'] = six?.ipCidr.split('/') ?? [];
      await this.helper.podVeth({
        nodeNetns: this.nodeNetns === undefined ? undefined : netnsPath(this.nodeNetns),
        hostIfName: spec.hostIfName, podNetns: spec.netns, ifname: spec.ifname, txOffloadOff: spec.txOffloadOff,
        ...(v6Only ? { ip: undefined, prefix: undefined, gateway: undefined } : { ip, prefix: Number(prefix), gateway: spec.gateway }),
        mtu: spec.mtu, mac: spec.mac,
        ...(six ? { ipv6: { ip: ip6, prefix: Number(prefix6), gateway: six.gateway } } : {}),
      });
      return;
    }
    await this.rtnl.createVeth({
      name: spec.hostIfName,
      mtu: spec.mtu,
      ...(this.nodeNetns !== undefined ? { netnsPath: netnsPath(this.nodeNetns) } : {}),
      peer: { name: spec.ifname, mtu: spec.mtu, mac: spec.mac, netnsPath: spec.netns },
    });
    const podBatch = v6Only ? [
      // IPv6-only: the one address without duplicate address detection, the IPv6 default route.
      'link set dev lo up',
      `addr add ${spec.ipCidr} dev ${spec.ifname} nodad`,
      `link set dev ${spec.ifname} up`,
      `route replace ::/0 via ${spec.gateway} dev ${spec.ifname}`,
    ].join('\n') : [
      'link set dev lo up',
      `addr add ${spec.ipCidr} dev ${spec.ifname}`,
      `link set dev ${spec.ifname} up`,
      `route replace default via ${spec.gateway} dev ${spec.ifname}`,
      // Dual-stack: no duplicate address detection (the address is this node's to give; DAD would
      // hold it tentative for a second), the IPv6 default route via the gateway's IPv6 address.
      ...(spec.ipv6 ? [`addr add ${spec.ipv6.ipCidr} dev ${spec.ifname} nodad`, `route replace ::/0 via ${spec.ipv6.gateway} dev ${spec.ifname}`] : []),
    ].join('\n');
    // Inside the pod's namespace nothing of the agent's reaches: a child there is the only way.
    const podOffload = spec.txOffloadOff ? ' && ethtool -K "$1" tx off >/dev/null' : '';
    const podScript = `echo ${spec.ipv6 || v6Only ? 0 : 1} > "/proc/sys/net/ipv6/conf/$1/disable_ipv6" && printf "%s\\n" "$2" | ip -batch -${podOffload}`;
    await this.runInNode(`${QUIET_SH} && nsenter --net="$2" sh -c '${podScript}' sh "$3" "$4"`, [spec.hostIfName, spec.netns, spec.ifname, podBatch]);
  }

  /** Sets a link's MTU and brings it up (the WireGuard device, which wireguard-go leaves down). */
  async setLinkUp(name: string, mtu: number): Promise<void> {
    check(NAME_RE, name, 'link name');
    await this.runInNode('ip link set dev "$1" mtu "$2" up', [name, String(mtu)]);
  }

  /**
   * Makes the node's host routes of protocol `proto` exactly `routes` (default {@link ROUTE_PROTO}:
   * the routes to remote pod CIDRs): the ones not wanted any more are deleted, the wanted ones replaced.
   */
  async syncRoutes(routes: readonly HostRoute[], proto = ROUTE_PROTO): Promise<{ added: number; deleted: number }> {
    for (const r of routes) {
      check(isIpv4WithPrefix, r.dst, 'route destination');
      check(NAME_RE, r.dev, 'route device');
      if (r.via !== undefined) check(isIpv4, r.via, 'route next hop');
    }
    return this.applyRoutes(routes, proto, 4);
  }

  /**
   * The node's host routes of protocol `proto` in one family, exactly `routes` (no neighbour
   * entries; the caller validated them): through rtnetlink, or two children (one reads, one
   * applies a batch).
   */
  private async applyRoutes(routes: readonly HostRoute[], proto: number, family: 4 | 6): Promise<{ added: number; deleted: number }> {
    if (this.own) {
      const plan = planRouteSync(await this.rtnl.routes(proto, family), routes);
      for (const dst of plan.delete) await this.rtnl.deleteRoute({ dst, proto });
      for (const r of plan.replace) await this.rtnl.replaceRoute({ ...r, proto });
      return { added: plan.replace.length, deleted: plan.delete.length };
    }
    const out = await this.runInNode(`ip -j -${family} route show proto ${proto}`);
    const plan = planRouteSync(JSON.parse(out.trim() || '[]') as { dst: string; gateway?: string; dev?: string }[], routes);
    const lines = [
      ...plan.delete.map((dst) => `route del ${dst} proto ${proto}`),
      ...plan.replace.map((r) => `route replace ${r.dst}${r.via !== undefined ? ` via ${r.via}` : ''} dev ${r.dev}${r.onlink ? ' onlink' : ''} proto ${proto}`),
    ];
    if (lines.length > 0) await this.runInNode(family === 6 ? 'ip -6 -batch -' : 'ip -batch -', [], `${lines.join('\n')}\n`);
    return { added: plan.replace.length, deleted: plan.delete.length };
  }

  /**
   * Dual-stack: makes the node's IPv6 host routes of protocol `proto` exactly `routes` (the routes
   * to peers' IPv6 pod CIDRs through the gateway) and the permanent IPv6 neighbour entries on
   * `neighbours.dev` whose link-layer address is `neighbours.mac` exactly the `neighbours.ips` (OVS
   * answers no Neighbor Solicitation for a peer's gateway: the host resolves it to the global
   * virtual MAC itself, as Antrea's route client does). Entries with another MAC are not ours, nor
   * those in `neighbours.keep` (another part's). Without `neighbours`: the routes alone.
   */
  async syncIpv6Routes(routes: readonly HostRoute[], neighbours: { dev: string; mac: string; ips: readonly string[]; keep?: readonly string[] } | undefined, proto = ROUTE_PROTO): Promise<{ added: number; deleted: number }> {
    for (const r of routes) {
      check(isIpv6WithPrefix, r.dst, 'route destination');
      check(NAME_RE, r.dev, 'route device');
      if (r.via !== undefined) check((t) => ipv6Of(t) !== undefined, r.via, 'route next hop');
    }
    if (neighbours === undefined) return this.applyRoutes(routes, proto, 6);
    check(NAME_RE, neighbours.dev, 'neighbour device');
    check(MAC_RE, neighbours.mac, 'neighbour MAC address');
    for (const ip of neighbours.ips) check((t) => ipv6Of(t) !== undefined, ip, 'neighbour address');
    const wanted = new Set([...neighbours.ips, ...(neighbours.keep ?? [])]);
    if (this.own) {
      // Neighbours first: a route via a next hop the host cannot resolve would drop what it carries.
      const have = (await this.rtnl.permanentNeighbours6(neighbours.dev)).filter((n) => n.mac === neighbours.mac && !(neighbours.keep ?? []).includes(n.ip));
      for (const ip of neighbours.ips) if (!have.some((n) => n.ip === ip)) await this.rtnl.replaceNeighbour6(neighbours.dev, ip, neighbours.mac);
      const plan = planRouteSync(await this.rtnl.routes(proto, 6), routes);
      for (const dst of plan.delete) await this.rtnl.deleteRoute({ dst, proto });
      for (const r of plan.replace) await this.rtnl.replaceRoute({ ...r, proto });
      for (const n of have) if (!wanted.has(n.ip)) await this.rtnl.deleteNeighbour6(neighbours.dev, n.ip);
      return { added: plan.replace.length, deleted: plan.delete.length };
    }
    // Two children: one reads routes and neighbours, one applies a batch.
    const out = await this.runInNode(`ip -j -6 route show proto ${proto}; echo; ip -j -6 neigh show dev "$1" nud permanent 2>/dev/null || echo "[]"`, [neighbours.dev]);
    const [routeText = '[]', neighText = '[]'] = out.split('\n').filter((l) => l.trim() !== '');
    const plan = planRouteSync(JSON.parse(routeText) as { dst: string; gateway?: string; dev?: string }[], routes);
    const have = (JSON.parse(neighText) as { dst: string; lladdr?: string }[]).filter((n) => n.lladdr === neighbours.mac && !(neighbours.keep ?? []).includes(n.dst)).map((n) => n.dst);
    const lines = [
      ...neighbours.ips.filter((ip) => !have.includes(ip)).map((ip) => `neigh replace ${ip} lladdr ${neighbours.mac} dev ${neighbours.dev} nud permanent`),
      ...plan.delete.map((dst) => `route del ${dst} proto ${proto}`),
      ...plan.replace.map((r) => `route replace ${r.dst}${r.via !== undefined ? ` via ${r.via}` : ''} dev ${r.dev}${r.onlink ? ' onlink' : ''} proto ${proto}`),
      ...have.filter((ip) => !wanted.has(ip)).map((ip) => `neigh del ${ip} dev ${neighbours.dev}`),
    ];
    if (lines.length > 0) await this.runInNode('ip -6 -batch -', [], `${lines.join('\n')}\n`);
    return { added: plan.replace.length, deleted: plan.delete.length };
  }

  /**
   * Turns forwarding on and makes the MASQUERADE rule for pod -> external traffic of one family
   * (`podCIDRs` all IPv4, or all IPv6 for `ip6tables`): packets from the local pod CIDR leaving by
   * any interface but the gateway are masqueraded, except to another pod CIDR of the cluster. The
   * rules live in chain {@link MASQ_CHAIN} of the family's nat table, rewritten whole with
   * iptables-restore (a declared chain is flushed even with --noflush), and jumped to from
   * POSTROUTING. `podCIDRs[0]` is this node's. iptables children: xtables rules are not rtnetlink.
   */
  async syncMasquerade(podCIDRs: readonly string[], gatewayName: string, family: 4 | 6 = 4): Promise<void> {
    check(NAME_RE, gatewayName, 'gateway interface name');
    for (const c of podCIDRs) check(family === 6 ? isIpv6WithPrefix : isIpv4WithPrefix, c, family === 6 ? 'IPv6 pod CIDR' : 'pod CIDR');
    const [local, ...others] = podCIDRs;
    if (local === undefined) return;
    const rules = [
      '*nat',
      `:${MASQ_CHAIN} - [0:0]`,
      ...[local, ...others].map((c) => `-A ${MASQ_CHAIN} -d ${c} -j RETURN`),
      // Traffic through these devices keeps its pod address (the far end SNATs it).
      ...this.unmasqueraded.map((dev) => `-A ${MASQ_CHAIN} -o ${check(NAME_RE, dev, 'unmasqueraded device')} -j RETURN`),
      `-A ${MASQ_CHAIN} -s ${local} ! -o ${gatewayName} -m comment --comment "switchyard: masquerade pod to external packets" -j MASQUERADE`,
      'COMMIT',
    ];
    const ipt = family === 6 ? 'ip6tables' : 'iptables';
    // Writing ip_forward resets every interface's forwarding flag (pod veths included): only when off.
    const forwarding = family === 6 ? '/proc/sys/net/ipv6/conf/all/forwarding' : '/proc/sys/net/ipv4/ip_forward';
    const sysctl = family === 6 ? 'net.ipv6.conf.all.forwarding=1' : 'net.ipv4.ip_forward=1';
    await this.runInNode(
      `{ [ "$(cat ${forwarding})" = 1 ] || sysctl -qw ${sysctl}; } && ${ipt}-restore -w --noflush && { ${ipt} -w -t nat -C POSTROUTING -j ${MASQ_CHAIN} 2>/dev/null || ${ipt} -w -t nat -A POSTROUTING -j ${MASQ_CHAIN}; }`,
      [],
      `${rules.join('\n')}\n`,
    );
  }

  /** Removes the family's MASQUERADE chain and its jump (networkPolicyOnly, noSNAT, a node without that family). */
  async removeMasquerade(family: 4 | 6 = 4): Promise<void> {
    const ipt = family === 6 ? 'ip6tables' : 'iptables';
    await this.runInNode(`${ipt} -w -t nat -D POSTROUTING -j ${MASQ_CHAIN} 2>/dev/null; ${ipt} -w -t nat -F ${MASQ_CHAIN} 2>/dev/null; ${ipt} -w -t nat -X ${MASQ_CHAIN} 2>/dev/null; true`);
  }

  /** The interface holding `ip` in the node namespace and the address's prefix length. */
  async findAddress(ip: string): Promise<{ dev: string; prefix: number } | undefined> {
    const v6 = ip.includes(':');
    if (v6) check((t) => ipv6Of(t) !== undefined, ip, 'node IPv6 address');
    else check(isIpv4, ip, 'node IP');
    // Both sides in canonical form (ipv6Of takes RFC 5952 text only; the kernel and `ip` print it).
    const same = (x: string): boolean => x === ip;
    if (this.own) {
      const a = (await this.rtnl.addresses(v6 ? 6 : 4)).find((x) => same(x.ip));
      return a && { dev: a.dev, prefix: a.prefix };
    }
    const out = await this.runInNode(v6 ? 'ip -j -6 addr show' : 'ip -j -4 addr show');
    for (const link of JSON.parse(out.trim() || '[]') as IpAddrInfo[]) {
      const a = (link.addr_info ?? []).find((x) => x.family === (v6 ? 'inet6' : 'inet') && same(x.local));
      if (a) return { dev: link.ifname, prefix: a.prefixlen };
    }
    return undefined;
  }

  /**
   * Every IPv4 and IPv6 address of the node namespace (an rtnetlink dump per family, or `ip -j addr
   * show` in the lab); IPv6 ones in RFC 5952 text, link-local ones left out (never an Egress IP).
   */
  async localAddresses(): Promise<string[]> {
    const keep = (ip: string): boolean => !ip.toLowerCase().startsWith('fe80:');
    if (this.own) return [...new Set([...(await this.rtnl.addresses(4)), ...(await this.rtnl.addresses(6))].map((a) => a.ip).filter(keep))].sort();
    const out = await this.runInNode('ip -j addr show');
    const ips = (JSON.parse(out.trim() || '[]') as IpAddrInfo[]).flatMap((l) => (l.addr_info ?? []).filter((a) => a.family === 'inet' || a.family === 'inet6').map((a) => a.local));
    return [...new Set(ips.filter(keep))].sort();
  }

  /**
   * Calls `onEvent` at each address change of the node namespace, IPv4 or IPv6: an rtnetlink socket
   * in the RTMGRP_IPV4_IFADDR and RTMGRP_IPV6_IFADDR groups (a real node), or `ip -o monitor address`
   * under nsenter (the lab).
   * `onExit` when the lab's monitor ends by itself (the caller starts another). Read the addresses
   * after this returns: the subscription is in place by then on a real node.
   */
  monitorAddresses(onEvent: () => void, onExit: (why: string) => void): { stop(): void } {
    if (this.own) {
      const sock = createRtNetlink();
      sock.addMembership('IPV4_IFADDR');
      sock.addMembership('IPV6_IFADDR');
      sock.on('message', () => onEvent());
      return { stop: () => sock.socket.close() };
    }
    // The monitor lives while its stdin pipe is open: the agent's end closes on a stop and when the agent dies in any way, so no monitor outlives it.
    const child = spawn(this.prefix[0]!, [...this.prefix.slice(1), 'sh', '-c', 'exec 3<&0; ip -o monitor address </dev/null & m=$!; (read _ <&3; kill $m 2>/dev/null) & wait $m'], { stdio: ['pipe', 'pipe', 'pipe'] });
    let stopped = false;
    let stderr = '';
    child.stdout?.on('data', () => onEvent());
    child.stderr?.on('data', (d: Buffer) => void (stderr = (stderr + d.toString()).slice(-500)));
    child.on('error', (e) => void (stderr = e.message));
    child.on('exit', (code) => {
      if (!stopped) onExit(`ip monitor exited (${String(code)}): ${stderr.trim()}`);
    });
    return {
      stop: () => {
        stopped = true;
        child.stdin?.end();
      },
    };
  }

  /**
   * Keeps the kernel out of a device OVS owns (userspace datapath): no ARP answers for node
   * addresses, no forwarding of what arrives on it.
   */
  async quietHostLink(...names: string[]): Promise<void> {
    for (const n of names) check(NAME_RE, n, 'host interface name');
    if (names.length === 0) return;
    if (this.own) {
      // /proc/sys/net is the namespace of the process that opens it: here, the node's.
      for (const n of names) {
        if (!existsSync(`/proc/sys/net/ipv4/conf/${n}`)) continue;
        for (const [family, key, value] of QUIET_SYSCTLS) writeFileSync(`/proc/sys/net/${family}/conf/${n}/${key}`, value);
      }
      return;
    }
    await this.runInNode(`for i in "$@"; do [ -d "/proc/sys/net/ipv4/conf/$i" ] || continue; set -- "$i" "$@"; ${QUIET_SH} || exit 1; shift; done`, names);
  }

  /**
   * Turns transmit checksum offload off on a pod's interface, in its namespace (one child: the
   * pod's namespace is out of the agent's sockets' reach, and feature flags are ethtool's, not
   * rtnetlink's).
   */
  async podTxOffloadOff(netns: string, ifname: string): Promise<void> {
    check(NAME_RE, ifname, 'CNI_IFNAME');
    await this.pod(netns, 'ethtool -K "$1" tx off >/dev/null', [ifname]);
  }

  /**
   * Turns transmit checksum offload off on a device of the node: an ethtool child. The kernel's
   * interface for it is the ioctl or the ethtool generic-netlink family, neither of which the
   * `netlink` package speaks; this runs once per networkPolicyOnly pod, not on the common ADD.
   */
  async hostTxOffloadOff(name: string): Promise<void> {
    check(NAME_RE, name, 'host interface name');
    await this.runInNode('ethtool -K "$1" tx off >/dev/null', [name]);
  }

  /** Routes one pod address (/32) onto `dev` (replacing the primary CNI's route). */
  async podRoute(ip: string, dev: string): Promise<void> {
    check(isIpv4, ip, 'pod address');
    check(NAME_RE, dev, 'route device');
    if (this.own) return this.rtnl.replaceRoute({ dst: `${ip}/32`, dev, scopeLink: true });
    await this.runInNode('ip route replace "$1/32" dev "$2" scope link', [ip, dev]);
  }

  /** Deletes the /32 route of a pod address on `dev` if it is there. */
  async deletePodRoute(ip: string, dev: string): Promise<void> {
    check(isIpv4, ip, 'pod address');
    check(NAME_RE, dev, 'route device');
    if (this.own) {
      await this.rtnl.deleteRoute({ dst: `${ip}/32`, dev });
      return;
    }
    await this.runInNode('ip route del "$1/32" dev "$2" 2>/dev/null; true', [ip, dev]);
  }

  /** The device the node routes `ip` through (undefined when unroutable). */
  async routeDevice(ip: string): Promise<string | undefined> {
    check(isIpv4, ip, 'address');
    if (this.own) return this.rtnl.routeDevice(ip);
    const out = await this.runInNode('ip -j route get "$1" 2>/dev/null || echo "[]"', [ip]);
    return (JSON.parse(out.trim() || '[]') as { dev?: string }[])[0]?.dev;
  }

  /** Deletes the host side of a pod's veth (the peer goes with it). False when it did not exist. */
  async deleteHostLink(hostIfName: string): Promise<boolean> {
    check(NAME_RE, hostIfName, 'host interface name');
    if (this.own) return this.rtnl.deleteLink(hostIfName);
    const out = await this.runInNode('if ip link show dev "$1" >/dev/null 2>&1; then ip link del dev "$1" && echo deleted; fi', [hostIfName]);
    return out.trim() === 'deleted';
  }

  /** Whether a link exists in the node namespace and is up. */
  async hostLinkState(name: string): Promise<{ exists: boolean; up: boolean; mtu?: number }> {
    check(NAME_RE, name, 'interface name');
    if (this.own) {
      const link = await this.rtnl.link(name);
      if (!link) return { exists: false, up: false };
      return { exists: true, up: link.up, ...(link.mtu !== undefined ? { mtu: link.mtu } : {}) };
    }
    const out = await this.runInNode('ip -j link show dev "$1" 2>/dev/null || echo "[]"', [name]);
    const link = (JSON.parse(out) as IpLink[])[0];
    if (!link) return { exists: false, up: false };
    return { exists: true, up: link.flags?.includes('UP') ?? false, ...(link.mtu !== undefined ? { mtu: link.mtu } : {}) };
  }

  /** Reads a pod interface's MAC, state, IPv4 addresses and default gateway (one child in the pod's namespace). */
  async podInterfaceState(netns: string, ifname: string): Promise<PodInterfaceState | undefined> {
    check(NAME_RE, ifname, 'CNI_IFNAME');
    const out = await this.pod(netns, 'ip -j addr show dev "$1" 2>/dev/null || echo "[]"; echo; ip -j -4 route show default; echo; ip -j -6 route show default', [ifname]);
    const [addrText = '[]', routeText = '[]', route6Text = '[]'] = out.split('\n').filter((l) => l.trim() !== '');
    const link = (JSON.parse(addrText) as IpAddrInfo[])[0];
    if (!link) return undefined;
    const routes = JSON.parse(routeText) as { dst: string; gateway?: string; dev?: string }[];
    const routes6 = JSON.parse(route6Text) as { dst: string; gateway?: string; dev?: string }[];
    return {
      mac: link.address,
      up: link.flags?.includes('UP') ?? false,
      addresses: (link.addr_info ?? []).filter((a) => a.family === 'inet' || (a.family === 'inet6' && a.scope === 'global')).map((a) => `${a.local}/${a.prefixlen}`),
      defaultGateway: routes.find((r) => r.dev === ifname)?.gateway,
      defaultGatewayV6: routes6.find((r) => r.dev === ifname)?.gateway,
    };
  }

  /**
   * Announces an IPv6 address the node answers for by proxy NDP on `dev` (a Service external IP
   * or an Egress IP):
   * one unsolicited Neighbor Advertisement sent by switchyard-netns in the node namespace. False
   * without the helper (nothing sent: the fabric learns the owner at its next Neighbor Solicitation).
   */
  async advertiseProxied(dev: string, ip: string): Promise<boolean> {
    check(NAME_RE, dev, 'transport interface');
    check((t) => ipv6Of(t) !== undefined, ip, 'announced IPv6 address (Service external IP or Egress IP)');
    if (!this.helper) return false;
    await this.helper.nodeNeighborAdvertisement(this.nodeNetns === undefined ? undefined : netnsPath(this.nodeNetns), dev, ip);
    return true;
  }

  /**
   * Announces the pod's address from inside its namespace: an IPv4 address with a gratuitous ARP
   * (arping in a child there; not an rtnetlink request; best effort: arping exits non-zero when
   * nobody answers, which is normal for an unsolicited announcement), an IPv6 address with an
   * unsolicited Neighbor Advertisement sent by switchyard-netns (none without the helper).
   */
  async announce(netns: string, ifname: string, ip: string): Promise<void> {
    check(NAME_RE, ifname, 'CNI_IFNAME');
    if (ip.includes(':')) {
      check((t) => ipv6Of(t) !== undefined, ip, 'pod IPv6 address');
      // An unsolicited Neighbor Advertisement: no packet tool here sends one, switchyard-netns does.
      if (!this.helper) return;
      if (/\s/.test(netns)) throw new AgentError('INVALID_CONFIG', 'netns path contains whitespace', netns, 'CNI_NETNS');
      await this.helper.neighborAdvertisement(netns, ifname, ip);
      return;
    }
    check(isIpv4, ip, 'pod address');
    await this.pod(netns, 'arping -q -U -c 1 -w 0 -i "$1" "$2" >/dev/null 2>&1 || true', [ifname, ip]);
  }
}
