// CNI ADD / CHECK / DEL of a pod on an IPv6-only node (an IPv6 podCIDR alone) through the real
// switchyard-cni binary, against the agent on a real OVS with the pod in a real network namespace:
// the gateway with its IPv6 address and no IPv4 one, the pod with one IPv6 address and the IPv6
// default route and no IPv4 address, the CNI 1.0 result, IPv6 to the gateway through the pipeline,
// CHECK before and after an agent restart, DEL releasing the address. The switchyard-netns helper
// sets the IPv6-only pod up (its IPv4 fields `-`), and sends the pod's unsolicited Neighbor
// Advertisement, which the node's host learns the pod's MAC from.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { Testbed, run, waitFor } from '@switchyard/testbed';
import { Agent } from '../src/index';
import { buildNetnsHelper, cni, ensurePluginBuilt, netconf, podArgs, sandbox, startNode, stopNode, type Node } from './helpers';

const V6 = 'fd00:10:93:';
let tb: Testbed;
let node: Node | undefined;
beforeAll(async () => {
  await ensurePluginBuilt();
  tb = await Testbed.create();
  node = await startNode(tb, `${V6}:/64`, { netnsHelper: await buildNetnsHelper() });
}, 120_000);
afterAll(async () => {
  await stopNode(node);
  await tb?.cleanup();
});

const inNode = async (argv: string[]): Promise<string> => (await run(argv, { netns: node!.ovs.netns.name })).stdout;

it('puts the first address of the IPv6 pod CIDR on the gateway and no IPv4 address', async () => {
  expect(await inNode(['ip', '-6', '-o', 'addr', 'show', 'dev', 'sy-gw0', 'scope', 'global'])).toContain(`inet6 ${V6}:1/64 scope global`);
  expect((await inNode(['ip', '-4', '-o', 'addr', 'show', 'dev', 'sy-gw0'])).trim()).toBe('');
  expect(node!.agent.part('node').node.gateway).not.toHaveProperty('ip');
});

it('ADD gives the pod one IPv6 address and the IPv6 default route; CHECK passes before and after a restart; DEL releases it', async () => {
  const sb = await sandbox(tb, 'only6');
  const env = { containerId: sb.containerId, netns: sb.netns.path, ifname: 'eth0', args: podArgs('default', 'only6') };
  const add = await cni('ADD', env, netconf(node!.socket));
  expect(add.code).toBe(0);
  expect(add.out.ips).toEqual([{ address: `${V6}:2/64`, gateway: `${V6}:1`, interface: 1 }]);
  expect(add.out.routes).toEqual([{ dst: '::/0', gw: `${V6}:1` }]);

  const addr6 = (await sb.netns.exec(['ip', '-6', '-o', 'addr', 'show', 'dev', 'eth0', 'scope', 'global'])).stdout;
  expect(addr6).toContain(`inet6 ${V6}:2/64 scope global`);
  expect(addr6).not.toMatch(/tentative|dadfailed/);
  expect((await sb.netns.exec(['ip', '-4', '-o', 'addr', 'show', 'dev', 'eth0'])).stdout.trim()).toBe('');
  expect((await sb.netns.exec(['ip', '-6', 'route', 'show', 'default'])).stdout.trim()).toMatch(new RegExp(`^default via ${V6}:1 dev eth0 `));
  const ids = await node!.ovs.vsctl('get', 'port', (add.out.interfaces as { name: string }[])[0]!.name, 'external_ids:ip-address');
  expect(ids.trim()).toBe(`"${V6}:2/64"`);

  // IPv6 to the gateway through the pipeline's IPv6 flows (ND and ICMPv6).
  await waitFor('IPv6 ping to the gateway', async () => (await sb.netns.exec(['ping', '-6', '-c', '1', '-W', '2', `${V6}:1`], { allowFailure: true })).code === 0, { timeoutMs: 30_000, intervalMs: 250 });
  const check = await cni('CHECK', env, netconf(node!.socket, { prevResult: add.out }));
  expect([check.code, check.raw]).toEqual([0, '']);

  // A restarted agent reads the pod back from OVSDB with its IPv6 address, and CHECK still passes.
  await node!.agent.stop();
  node!.agent = await Agent.start(node!.options);
  expect(node!.agent.part('node').interfaces.get(sb.containerId)).toMatchObject({ ipCidr: `${V6}:2/64`, gateway: `${V6}:1` });
  expect(node!.agent.part('node').interfaces.get(sb.containerId)).not.toHaveProperty('ipv6');
  expect((await cni('CHECK', env, netconf(node!.socket, { prevResult: add.out }))).code).toBe(0);

  const del = await cni('DEL', env, netconf(node!.socket));
  expect(del.code).toBe(0);
  expect(readdirSync(join(node!.dir, 'networks', 'switchyard')).filter((f) => f.startsWith(V6))).toEqual([]);
  expect((await sb.netns.exec(['ip', '-o', 'link', 'show'])).stdout).not.toContain('eth0');
});

it('announces the pod with an unsolicited Neighbor Advertisement: the host learns its MAC without asking', async () => {
  // The node (a router: forwarding on) takes an advertisement for an address it has no entry for.
  await inNode(['sysctl', '-qw', 'net.ipv6.conf.sy-gw0.accept_untracked_na=1']);
  const sb = await sandbox(tb, 'na6');
  const env = { containerId: sb.containerId, netns: sb.netns.path, ifname: 'eth0', args: podArgs('default', 'na6') };
  const add = await cni('ADD', env, netconf(node!.socket));
  expect(add.code).toBe(0);
  const ip = (add.out.ips as { address: string }[])[0]!.address.split('/')[0]!;
  const mac = (add.out.interfaces as { mac?: string; sandbox?: string }[]).find((i) => i.sandbox)!.mac!;
  // Nothing in the pod sends to this address's neighbours: only the advertisement can put it there.
  await waitFor('the host neighbour entry from the advertisement', async () => (await inNode(['ip', '-6', 'neigh', 'show', ip, 'dev', 'sy-gw0'])).includes(`lladdr ${mac}`), { timeoutMs: 30_000, intervalMs: 200 });
  expect((await cni('DEL', env, netconf(node!.socket))).code).toBe(0);
});
