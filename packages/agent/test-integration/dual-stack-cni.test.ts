// CNI ADD / CHECK / DEL of a pod on a dual-stack node (podCIDR and podCIDRv6) through the real
// switchyard-cni binary, against the agent on a real OVS with the pod in a real network namespace:
// both addresses in the netns, the IPv6 default route via the gateway's IPv6 address, the CNI 1.0
// result, the host-local store, and DEL releasing both. Once with the switchyard-netns helper and
// once with the nsenter child (the two ways the agent configures a pod).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Testbed, run, waitFor } from '@switchyard/testbed';
import { Agent } from '../src/index';
import { buildNetnsHelper, cni, ensurePluginBuilt, netconf, podArgs, sandbox, startNode, stopNode, type Node } from './helpers';

let tb: Testbed;
beforeAll(async () => {
  await ensurePluginBuilt();
  tb = await Testbed.create();
});
afterAll(async () => {
  await tb?.cleanup();
});

describe.each([
  ['the switchyard-netns helper', 94, true],
  ['an nsenter child', 95, false],
] as const)('a dual-stack pod set up by %s', (_how, n, helper) => {
  const v4 = `10.${n}.0`;
  const v6 = `fd00:10:${n}:`;
  let node: Node | undefined;
  beforeAll(async () => {
    node = await startNode(tb, `${v4}.0/24`, { podCIDRv6: `${v6}:/64`, netnsHelper: helper ? await buildNetnsHelper() : false });
  });
  afterAll(() => stopNode(node));

  const ipamDir = (): string => join(node!.dir, 'networks', 'switchyard');
  const inNode = async (argv: string[]): Promise<string> => (await run(argv, { netns: node!.ovs.netns.name })).stdout;

  it('puts the first address of podCIDRv6 on the gateway', async () => {
    expect(await inNode(['ip', '-6', '-o', 'addr', 'show', 'dev', 'sy-gw0', 'scope', 'global'])).toContain(`inet6 ${v6}:1/64 scope global`);
  });

  it('ADD gives the pod an address of each family, both in its netns, and lists both in the CNI result; DEL releases both', async () => {
    const sb = await sandbox(tb, 'dual');
    const env = { containerId: sb.containerId, netns: sb.netns.path, ifname: 'eth0', args: podArgs('default', 'dual') };
    const add = await cni('ADD', env, netconf(node!.socket));
    expect(add.code).toBe(0);
    expect(add.out.ips).toEqual([
      { address: `${v4}.2/24`, gateway: `${v4}.1`, interface: 1 },
      { address: `${v6}:2/64`, gateway: `${v6}:1`, interface: 1 },
    ]);
    expect(add.out.routes).toEqual([
      { dst: '0.0.0.0/0', gw: `${v4}.1` },
      { dst: '::/0', gw: `${v6}:1` },
    ]);
    expect((add.out.interfaces as { name: string; sandbox?: string }[])[1]).toMatchObject({ name: 'eth0', sandbox: sb.netns.path });

    // In the pod: both addresses (the IPv6 one usable at once: no DAD), both default routes.
    const addr6 = (await sb.netns.exec(['ip', '-6', '-o', 'addr', 'show', 'dev', 'eth0', 'scope', 'global'])).stdout;
    expect(addr6).toContain(`inet6 ${v6}:2/64 scope global`);
    expect(addr6).not.toMatch(/tentative|dadfailed/);
    expect((await sb.netns.exec(['ip', '-4', '-o', 'addr', 'show', 'dev', 'eth0'])).stdout).toContain(`inet ${v4}.2/24`);
    expect((await sb.netns.exec(['ip', '-6', 'route', 'show', 'default'])).stdout.trim()).toMatch(new RegExp(`^default via ${v6}:1 dev eth0 `));
    expect((await sb.netns.exec(['ip', '-4', 'route', 'show', 'default'])).stdout.trim()).toMatch(new RegExp(`^default via ${v4.replace(/\./g, '\\.')}\\.1 dev eth0`));
    // The kernel sends IPv6 to the gateway out of eth0 from the pod's address.
    expect((await sb.netns.exec(['ip', '-6', 'route', 'get', `${v6}:1`])).stdout).toMatch(new RegExp(`dev eth0 .*src ${v6}:2 `));

    // The host-local store holds one file per family for the container (host-local's layout).
    const files = readdirSync(ipamDir()).filter((f) => f.startsWith(v4) || f.startsWith(v6));
    expect(files.sort()).toEqual([`${v4}.2`, `${v6}:2`].sort());
    for (const f of files) expect(readFileSync(join(ipamDir(), f), 'utf8').split(/\r?\n/)[0]).toBe(sb.containerId);
    const ids = await node!.ovs.vsctl('get', 'port', (add.out.interfaces as { name: string }[])[0]!.name, 'external_ids:ip-address');
    expect(ids.trim()).toBe(`"${v4}.2/24,${v6}:2/64"`);

    // IPv4 to the gateway works as on an IPv4-only node.
    await waitFor('IPv4 ping to the gateway', async () => (await sb.netns.exec(['ping', '-c', '1', '-W', '2', `${v4}.1`], { allowFailure: true })).code === 0, { timeoutMs: 30_000, intervalMs: 250 });

    // IPv6 to the gateway too, through the pipeline's IPv6 flows (ND and ICMPv6), resolved on eth0.
    await waitFor('IPv6 ping to the gateway', async () => (await sb.netns.exec(['ping', '-6', '-c', '1', '-W', '2', `${v6}:1`], { allowFailure: true })).code === 0, { timeoutMs: 30_000, intervalMs: 250 });
    expect((await sb.netns.exec(['ip', '-6', 'neigh', 'show', 'to', `${v6}:1`])).stdout).toMatch(new RegExp(`^${v6}:1 dev eth0 `));
    const check = await cni('CHECK', env, netconf(node!.socket, { prevResult: add.out }));
    expect([check.code, check.raw]).toEqual([0, '']);

    // A restarted agent reads the pod back from OVSDB with both addresses, and CHECK still passes.
    await node!.agent.stop();
    node!.agent = await Agent.start(node!.options);
    expect(node!.agent.part('node').interfaces.get(sb.containerId)).toMatchObject({ ipCidr: `${v4}.2/24`, ipv6: { ipCidr: `${v6}:2/64`, gateway: `${v6}:1` } });
    expect((await cni('CHECK', env, netconf(node!.socket, { prevResult: add.out }))).code).toBe(0);

    const del = await cni('DEL', env, netconf(node!.socket));
    expect(del.code).toBe(0);
    expect(readdirSync(ipamDir()).filter((f) => f.startsWith(v4) || f.startsWith(v6))).toEqual([]);
    expect((await sb.netns.exec(['ip', '-o', 'link', 'show'])).stdout).not.toContain('eth0');
    // The next pod gets the released addresses back (host-local's order: after the last reserved).
    const sb2 = await sandbox(tb, 'dual2');
    const again = await cni('ADD', { ...env, containerId: sb2.containerId, netns: sb2.netns.path, args: podArgs('default', 'dual2') }, netconf(node!.socket));
    expect((again.out.ips as { address: string }[]).map((i) => i.address)).toEqual([`${v4}.3/24`, `${v6}:3/64`]);
  });
});
