// The Egress subnet host side (EgressSeparateSubnet) against real namespaces, both ways the agent
// reaches a node: rtnetlink in a child started inside the node netns (a real node), and `ip`
// children under nsenter from this process (the lab). A source rule and a route table are made,
// read back (a second plan is empty: adopted), and taken off; the address steps of a VLAN link, IPv4
// and IPv6, on a veth standing in for it; a VLAN link is refused by this kernel (no 802.1Q), which is
// why the lab cannot show the VLAN half (docs/egress.md).
import { join } from 'node:path';
import { Testbed, run, waitFor } from '@switchyard/testbed';
import { assignTables, desiredHostState, emptyHostState, planSubnetSync, type SubnetHostState } from '../src/features/egress/subnet';
import { DEL_LOCAL6_SCRIPT, SubnetHost } from '../src/features/egress/subnet-host';
import { NodeNetwork } from '../src/netops';
import { PKG_DIR } from './helpers';

let tb: Testbed;
beforeAll(async () => {
  tb = await Testbed.create();
});
afterAll(async () => {
  await tb?.cleanup();
});

/** Until the kernel has added the local route of the IPv6 address `ip` in `netns`. */
async function waitForLocal6(netns: string, ip: string): Promise<void> {
  await waitFor(`the local route of ${ip}`, async () => (await run(['ip', '-6', 'route', 'show', 'table', 'local', ip], { netns })).stdout.trim() !== '');
}

const WANT_READ = {
  links: [],
  addresses: [],
  localRoutes: [],
  routes: [{ table: 101, dst: '0.0.0.0/0', via: '192.168.80.1', dev: 'tr0' }, { table: 101, dst: '192.168.80.0/24', dev: 'tr0' }],
  rules: [{ src: '192.168.80.25', table: 101 }],
};
/** The state with its routes in one order (the kernel's dump order is not the plan's). */
const sorted = (s: SubnetHostState): SubnetHostState => ({ ...s, routes: [...s.routes].sort((a, b) => `${a.table} ${a.dst}`.localeCompare(`${b.table} ${b.dst}`)) });

test('a real node (rtnetlink): rule and table made, read back, adopted, taken off; the address of a VLAN link without its local route; no VLAN link on this kernel', async () => {
  const node = await tb.createNetns('n');
  const fixture = join(PKG_DIR, 'test-integration', 'fixtures', 'egress-subnet-own.ts');
  const res = await run([process.execPath, '--import', 'tsx', fixture], { netns: node.name, env: { ...process.env, NODE_OPTIONS: '' } });
  const out = JSON.parse(res.stdout) as Record<string, unknown>;
  // ENOTSUP: the kernel knows no link kind "vlan" (no 802.1Q).
  expect(out).toMatchObject({ steps: ['replaceRoute', 'replaceRoute', 'addRule'], again: [], vlan: 'ENOTSUP', local: '', cleared: emptyHostState() });
  expect(sorted(out.read as SubnetHostState)).toEqual(WANT_READ);
  expect(out.addr).toContain('192.168.80.26/24');
  expect(out.addr).toContain('noprefixroute');
  // An IPv6 subnet's VLAN address, as the IPv4 one: noprefixroute, not tentative (nodad), no local route; then taken off.
  expect(out.addr6).toContain('fd00:80::26/64');
  expect(out.addr6).toContain('noprefixroute');
  expect(out.addr6).not.toContain('tentative');
  expect(out).toMatchObject({ local6: '', main6: '', addr6After: '' });
  expect(out.rules).toBe('32765:\tfrom 192.168.80.25 lookup 101 proto 80');
  expect(out.table).toBe('default via 192.168.80.1 dev tr0 proto 80 \n192.168.80.0/24 dev tr0 proto 80 scope link');
});

test('the lab (`ip` under nsenter): the same rule and table, adopted, taken off; the VLAN link refused with the kernel\'s words', async () => {
  const node = await tb.createNetns('n');
  await run(['ip', 'link', 'add', 'tr0', 'type', 'veth', 'peer', 'name', 'tr0p'], { netns: node.name });
  await run(['ip', 'link', 'set', 'tr0', 'up'], { netns: node.name });
  const net = new NodeNetwork(node.name);
  const host = new SubnetHost(net);
  try {
    const ips = [{ ip: '192.168.80.25', subnet: { gateway: '192.168.80.1', prefixLength: 24, vlan: 0 } }];
    const want = desiredHostState(ips, assignTables(ips, new Map()).tables, 'tr0');
    await host.apply(planSubnetSync(await host.read('tr0'), want), 'tr0');
    expect(sorted(await host.read('tr0'))).toEqual(WANT_READ);
    expect(planSubnetSync(await host.read('tr0'), want)).toEqual([]);
    await expect(host.apply([{ op: 'addLink', name: 'antrea-ext.10', vlan: 10 }], 'tr0')).rejects.toThrow(/Unknown device type/);
    // The lab's wait for an IPv6 local route finds one that is there at its first look (it prints
    // the looks that found none) and deletes it.
    await run(['ip', '-6', 'addr', 'add', 'fd00:80::27/64', 'dev', 'tr0', 'nodad', 'noprefixroute'], { netns: node.name });
    await waitForLocal6(node.name, 'fd00:80::27');
    expect((await run(['sh', '-c', DEL_LOCAL6_SCRIPT, 'sh', 'fd00:80::27', 'tr0'], { netns: node.name })).stdout.trim()).toBe('0');
    expect((await run(['ip', '-6', 'route', 'show', 'table', 'local', 'fd00:80::27'], { netns: node.name })).stdout.trim()).toBe('');
    await run(['ip', '-6', 'addr', 'del', 'fd00:80::27/64', 'dev', 'tr0'], { netns: node.name });
    // The address steps of an IPv6 subnet's VLAN link (in an `ip -6` batch), on the veth: noprefixroute, nodad, no local route.
    // Ten rounds: the kernel adds that route after the add returns, so a delete that came first shows in some.
    for (let round = 0; round < 10; round++) {
      await host.apply([{ op: 'addAddress', dev: 'tr0', ip: 'fd00:80::26', prefix: 64 }, { op: 'delLocalRoute', dev: 'tr0', ip: 'fd00:80::26' }], 'tr0');
      const addr6 = (await run(['ip', '-6', '-o', 'addr', 'show', 'dev', 'tr0', 'scope', 'global'], { netns: node.name })).stdout;
      expect(addr6).toContain('fd00:80::26/64');
      expect(addr6).toContain('noprefixroute');
      expect(addr6).not.toContain('tentative');
      expect({ round, local6: (await run(['ip', '-6', 'route', 'show', 'table', 'local', 'fd00:80::26'], { netns: node.name })).stdout.trim() }).toEqual({ round, local6: '' });
      await host.apply([{ op: 'delAddress', dev: 'tr0', ip: 'fd00:80::26', prefix: 64 }], 'tr0');
      expect((await run(['ip', '-6', '-o', 'addr', 'show', 'dev', 'tr0', 'scope', 'global'], { netns: node.name })).stdout.trim()).toBe('');
    }
    await host.apply(planSubnetSync(await host.read('tr0'), emptyHostState()), 'tr0');
    expect(await host.read('tr0')).toEqual(emptyHostState());
    expect((await run(['ip', '-4', 'rule', 'show', 'priority', '32765'], { netns: node.name })).stdout.trim()).toBe('');
  } finally {
    host.close();
    net.close();
  }
});
