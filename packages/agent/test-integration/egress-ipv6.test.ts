// The host halves of Egress over IPv6 against real namespaces, both ways the agent reaches a node
// (rtnetlink in a child inside the node netns, `ip`/`ip6tables` under nsenter as in the lab): an
// IPv6 subnet's route table (the subnet and ::/0 via its gateway) and /128 source rule
// (EgressSeparateSubnet), made, read back, adopted and taken off; the node's IPv6 addresses and
// their events (an IPv6 Egress IP without a pool); the stand-in SNAT rule in ip6tables, the IPv4
// chain untouched, and both taken off at --uninstall.
import { join } from 'node:path';
import { Testbed, eventuallyPasses, run } from '@switchyard/testbed';
import { assignTables, desiredHostState, emptyHostState, planSubnetSync, type SubnetHostState } from '../src/features/egress/subnet';
import { SubnetHost } from '../src/features/egress/subnet-host';
import { clearManualSnat, manualStandIn, syncManualSnat } from '../src/features/egress/manual-snat';
import { NodeNetwork } from '../src/netops';
import { PKG_DIR } from './helpers';

let tb: Testbed;
beforeAll(async () => {
  tb = await Testbed.create();
});
afterAll(async () => {
  await tb?.cleanup();
});

const WANT_READ: SubnetHostState = {
  links: [],
  addresses: [],
  localRoutes: [],
  routes: [{ table: 101, dst: '::/0', via: 'fd00:80::1', dev: 'tr0' }, { table: 101, dst: 'fd00:80::/64', dev: 'tr0' }],
  rules: [{ src: 'fd00:80::25', table: 101 }],
};
const sorted = (s: SubnetHostState): SubnetHostState => ({ ...s, routes: [...s.routes].sort((a, b) => `${a.table} ${a.dst}`.localeCompare(`${b.table} ${b.dst}`)) });

test('a real node (rtnetlink): the IPv6 subnet\'s table and /128 rule made, read back, adopted, taken off; an IPv6 address added by hand is read, with an event', async () => {
  const node = await tb.createNetns('n');
  const fixture = join(PKG_DIR, 'test-integration', 'fixtures', 'egress-ipv6-own.ts');
  const res = await run([process.execPath, '--import', 'tsx', fixture], { netns: node.name, env: { ...process.env, NODE_OPTIONS: '' } });
  const out = JSON.parse(res.stdout) as Record<string, unknown>;
  expect(out).toMatchObject({ steps: ['replaceRoute', 'replaceRoute', 'addRule'], again: [], cleared: emptyHostState() });
  expect(sorted(out.read as SubnetHostState)).toEqual(WANT_READ);
  expect(out.rules).toBe('32765:\tfrom fd00:80::25 lookup 101 proto 80');
  expect(out.table).toMatch(/^fd00:80::\/64 dev tr0 proto 80 .*\ndefault via fd00:80::1 dev tr0 proto 80 /);
  expect(out.events).toBeGreaterThan(0);
  expect(out.addresses).toContain('fd00:77::f0');
  expect((out.addresses as string[]).some((a) => a.startsWith('fe80:'))).toBe(false);
});

test('the lab (`ip` under nsenter): the same IPv6 table and rule, adopted, taken off; the addresses and their monitor see IPv6', async () => {
  const node = await tb.createNetns('n');
  await run(['ip', 'link', 'add', 'tr0', 'type', 'veth', 'peer', 'name', 'tr0p'], { netns: node.name });
  for (const d of ['tr0', 'tr0p']) await run(['ip', 'link', 'set', d, 'up'], { netns: node.name });
  const net = new NodeNetwork(node.name);
  const host = new SubnetHost(net);
  try {
    const ips = [{ ip: 'fd00:80::25', subnet: { gateway: 'fd00:80::1', prefixLength: 64, vlan: 0 } }];
    const want = desiredHostState(ips, assignTables(ips, new Map()).tables, 'tr0');
    await host.apply(planSubnetSync(await host.read('tr0'), want), 'tr0');
    expect(sorted(await host.read('tr0'))).toEqual(WANT_READ);
    expect(planSubnetSync(await host.read('tr0'), want)).toEqual([]);
    expect((await run(['ip', '-6', 'rule', 'show', 'priority', '32765'], { netns: node.name })).stdout.trim()).toBe('32765:\tfrom fd00:80::25 lookup 101 proto 80');
    await host.apply(planSubnetSync(await host.read('tr0'), emptyHostState()), 'tr0');
    expect(await host.read('tr0')).toEqual(emptyHostState());
    expect((await run(['ip', '-6', 'rule', 'show', 'priority', '32765'], { netns: node.name })).stdout.trim()).toBe('');

    let events = 0;
    const monitor = net.monitorAddresses(() => void events++, () => undefined);
    try {
      // The lab's monitor subscribes a moment after it starts: add until an event is seen (the add of an address already there fails harmlessly).
      await eventuallyPasses(async () => {
        await run(['sh', '-c', 'ip addr add fd00:77::f1/128 dev tr0 nodad 2>/dev/null; ip addr del fd00:77::f1/128 dev tr0 2>/dev/null; true'], { netns: node.name });
        expect(events).toBeGreaterThan(0);
      }, { timeoutMs: 10_000 });
    } finally {
      monitor.stop();
    }
    await run(['ip', 'addr', 'add', 'fd00:77::f0/128', 'dev', 'tr0', 'nodad'], { netns: node.name });
    const addrs = await net.localAddresses();
    expect(addrs).toContain('fd00:77::f0');
    expect(addrs.some((a) => a.startsWith('fe80:'))).toBe(false);
  } finally {
    host.close();
    net.close();
  }
});

test('an IPv6 Egress IP without a pool: the stand-in SNAT rule in ip6tables (first in POSTROUTING), the IPv4 chain untouched; both chains taken off', async () => {
  const node = await tb.createNetns('n');
  const net = new NodeNetwork(node.name);
  const sh = async (cmd: string): Promise<string> => (await run(['sh', '-c', cmd], { netns: node.name })).stdout.trim();
  try {
    await syncManualSnat(net, [{ standIn: manualStandIn(1, 4), ip: '192.168.77.240' }], 4);
    await syncManualSnat(net, [{ standIn: manualStandIn(3, 6), ip: 'fd00:77::f0' }], 6);
    expect(await sh('ip6tables -w -t nat -S SWITCHYARD-EGRESS')).toBe('-N SWITCHYARD-EGRESS\n-A SWITCHYARD-EGRESS -s fc01::100:3/128 -j SNAT --to-source fd00:77::f0');
    expect((await sh('ip6tables -w -t nat -S POSTROUTING')).split('\n')[1]).toBe('-A POSTROUTING -j SWITCHYARD-EGRESS');
    expect(await sh('iptables -w -t nat -S SWITCHYARD-EGRESS')).toBe('-N SWITCHYARD-EGRESS\n-A SWITCHYARD-EGRESS -s 169.254.100.1/32 -j SNAT --to-source 192.168.77.240');
    // A second sync replaces the rules in one commit; the jump is not added twice.
    await syncManualSnat(net, [], 6);
    expect(await sh('ip6tables -w -t nat -S SWITCHYARD-EGRESS')).toBe('-N SWITCHYARD-EGRESS');
    expect(await sh('ip6tables -w -t nat -S POSTROUTING | grep -c SWITCHYARD-EGRESS')).toBe('1');
    await clearManualSnat(net);
    expect(await sh('ip6tables -w -t nat -S | grep -c SWITCHYARD-EGRESS || true')).toBe('0');
    expect(await sh('iptables -w -t nat -S | grep -c SWITCHYARD-EGRESS || true')).toBe('0');
  } finally {
    net.close();
  }
});
