// A "VM" for the ExternalNode integration tests: the namespace ovs-vswitchd runs in (so OVS
// internal ports appear there) with an uplink veth eth1 (address, MAC, a route) to a "fabric"
// namespace that answers on 10.66.0.1 and, behind it, 10.99.0.1.
import { run, waitFor, type Netns, type OvsInstance, type Testbed } from '@switchyard/testbed';

export const VM_MAC = '02:00:0a:42:00:02';
export const VM_IP = '10.66.0.2';
export const FABRIC_IP = '10.66.0.1';
export const BEHIND_FABRIC_IP = '10.99.0.1';

export interface Vm {
  ovs: OvsInstance;
  vm: Netns;
  fabric: Netns;
}

export const VM_IP6 = 'fd00:66::2';
export const FABRIC_IP6 = 'fd00:66::1';
export const BEHIND_FABRIC_IP6 = 'fd00:99::1';

/** `ipv6`: also IPv6 (VM_IP6/64 on eth1, fd00:99::/64 via the fabric); else IPv6 is off in both namespaces. */
export async function createVm(tb: Testbed, opts: { ipv6?: boolean } = {}): Promise<Vm> {
  const ovs = await tb.startOvs();
  const vm = ovs.netns;
  const fabric = await tb.createNetns('f');
  const inVm = (...argv: string[]) => vm.exec(argv);
  // Without IPv6 no link-local addresses come and go.
  if (!opts.ipv6) for (const n of [vm, fabric]) await run(['sysctl', '-q', '-w', 'net.ipv6.conf.all.disable_ipv6=1', 'net.ipv6.conf.default.disable_ipv6=1'], { netns: n.name });
  await run(['ip', 'link', 'add', 'eth1', 'netns', vm.name, 'type', 'veth', 'peer', 'name', 'f0', 'netns', fabric.name]);
  await inVm('ip', 'link', 'set', 'eth1', 'address', VM_MAC);
  await inVm('ip', 'addr', 'add', `${VM_IP}/24`, 'dev', 'eth1');
  await inVm('ip', 'link', 'set', 'eth1', 'up');
  await inVm('ip', 'route', 'add', '10.99.0.0/16', 'via', FABRIC_IP, 'dev', 'eth1', 'metric', '50');
  // The userspace datapath's conntrack checks checksums that veth leaves to offload.
  await inVm('ethtool', '-K', 'eth1', 'tx', 'off');
  await fabric.exec(['ip', 'addr', 'add', `${FABRIC_IP}/24`, 'dev', 'f0']);
  await fabric.exec(['ip', 'addr', 'add', `${BEHIND_FABRIC_IP}/32`, 'dev', 'lo']);
  await fabric.exec(['ip', 'link', 'set', 'f0', 'up']);
  await fabric.exec(['ethtool', '-K', 'f0', 'tx', 'off']);
  if (opts.ipv6) {
    // Static addresses (no DAD wait in the test), as a VM with a fixed IPv6 configuration has them.
    await inVm('ip', 'addr', 'add', `${VM_IP6}/64`, 'dev', 'eth1', 'nodad');
    await fabric.exec(['ip', 'addr', 'add', `${FABRIC_IP6}/64`, 'dev', 'f0', 'nodad']);
    await fabric.exec(['ip', 'addr', 'add', `${BEHIND_FABRIC_IP6}/128`, 'dev', 'lo']);
    await inVm('ip', '-6', 'route', 'add', 'fd00:99::/64', 'via', FABRIC_IP6, 'dev', 'eth1', 'metric', '60');
  }
  return { ovs, vm, fabric };
}

/** One ICMP echo; true when it was answered. */
/**
 * `ip` answers an ICMP echo from `from`: up to three single pings (on a loaded machine one echo or
 * its reply can be late; a path that is down answers none of them). The tests use it only for
 * reachability that must hold.
 */
export const ping = async (from: Netns, ip: string): Promise<boolean> => {
  for (let i = 0; i < 3; i++) if ((await run(['ping', '-c', '1', '-W', '2', ip], { netns: from.name, allowFailure: true })).code === 0) return true;
  return false;
};

const json = async <T>(netns: string, ...argv: string[]): Promise<T> => JSON.parse((await run(argv, { netns })).stdout) as T;

/** The VM's links, addresses and routes as `ip -j` reports them, without what changes by itself (ifindex, counters, lifetimes), and `ovs-vsctl show`. */
export async function hostState(v: Vm): Promise<unknown> {
  // The kernel's own work first: a link brought up again (by an undo or uninstall) gets its
  // link-local IPv6 address back only after duplicate address detection, about a second later and
  // longer on a loaded machine; meanwhile the address is `tentative` and its local route missing.
  await waitFor(`no tentative IPv6 address in ${v.vm.name}`, async () => !(await json<{ addr_info?: { tentative?: boolean }[] }[]>(v.vm.name, 'ip', '-j', 'addr', 'show')).some((l) => (l.addr_info ?? []).some((a) => a.tentative)), { timeoutMs: 30_000, intervalMs: 100 });
  const volatile = new Set(['ifindex', 'link_index', 'stats64', 'valid_life_time', 'preferred_life_time', 'operstate', 'qdisc', 'txqlen', 'link_netnsid']);
  const clean = (x: unknown): unknown => {
    if (Array.isArray(x)) return x.map(clean);
    if (x && typeof x === 'object') return Object.fromEntries(Object.entries(x).filter(([k]) => !volatile.has(k)).map(([k, y]) => [k, clean(y)]));
    return x;
  };
  const byName = (a: { ifname: string }, b: { ifname: string }) => a.ifname.localeCompare(b.ifname);
  return {
    links: clean((await json<{ ifname: string }[]>(v.vm.name, 'ip', '-j', 'link', 'show')).sort(byName)),
    // Address order on a link is the order they were added in, which a swap and its undo may change.
    addrs: clean((await json<{ ifname: string; addr_info?: { local: string }[] }[]>(v.vm.name, 'ip', '-j', 'addr', 'show')).sort(byName).map((l) => ({ ...l, addr_info: [...(l.addr_info ?? [])].sort((a, b) => a.local.localeCompare(b.local)) }))),
    routes: clean(await json<unknown[]>(v.vm.name, 'ip', '-j', 'route', 'show', 'table', 'all')),
    ovs: await v.ovs.vsctl('show'),
  };
}

/** Ports of the bridge, sorted. */
export async function bridgePorts(ovs: OvsInstance, bridge = 'br-int'): Promise<string[]> {
  return (await ovs.vsctl('list-ports', bridge)).split('\n').filter(Boolean).sort();
}
