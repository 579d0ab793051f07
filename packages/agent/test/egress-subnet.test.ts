import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { silentLogger } from '@switchyard/runtime';
import { vlanIdOf, vlanLinkInfo } from '../src/host-network/attributes';
import type { ExternalIPSink } from '../src/features/external-ip/controller';
import { assignTables, desiredHostState, emptyHostState, planSubnetSync, subnetOfPool, type EgressSubnet, type SubnetHostState, type SubnetStep } from '../src/features/egress/subnet';
import { batchLine, stateFromIpJson, type SubnetHostOps } from '../src/features/egress/subnet-host';
import { SubnetAnnouncer, readSubnets, subnetsFile, type SubnetLookup } from '../src/features/egress/subnet-announcer';

const VLAN10: EgressSubnet = { gateway: '10.20.0.1', prefixLength: 24, vlan: 10 };
const PLAIN: EgressSubnet = { gateway: '192.168.80.1', prefixLength: 24, vlan: 0 };

describe('subnetOfPool', () => {
  test('reads gateway, prefixLength and vlan (0 when absent)', () => {
    expect(subnetOfPool({ gateway: '10.20.0.1', prefixLength: 24, vlan: 10 }, '10.20.0.5')).toEqual({ subnet: VLAN10 });
    expect(subnetOfPool({ gateway: '192.168.80.1', prefixLength: 24 }, '192.168.80.20')).toEqual({ subnet: PLAIN });
    expect(subnetOfPool(undefined, '10.20.0.5')).toEqual({});
  });

  test.each([
    [{ gateway: 'ten', prefixLength: 24 }, 'spec.subnetInfo.gateway', 'ten'],
    [{ gateway: '10.20.0.1', prefixLength: 32 }, 'spec.subnetInfo.prefixLength', 32],
    [{ gateway: '10.20.0.1', prefixLength: 24, vlan: 4095 }, 'spec.subnetInfo.vlan', 4095],
    [{ gateway: '10.20.0.1', prefixLength: 24, vlan: 1.5 }, 'spec.subnetInfo.vlan', 1.5],
    [{ gateway: '10.20.0.1', prefixLength: 28 }, 'spec.subnetInfo', '10.20.0.1/28'],
  ])('%j is a problem naming %s and the value', (info, field, value) => {
    expect(subnetOfPool(info, '10.20.0.50').problem).toMatchObject({ field, value });
  });

  test('an IPv6 subnet: gateway and prefix read, its table routes the subnet and ::/0 via the gateway, a /128 source rule', () => {
    const v6: EgressSubnet = { gateway: 'fd00:80::1', prefixLength: 64, vlan: 0 };
    expect(subnetOfPool({ gateway: 'fd00:80::1', prefixLength: 64 }, 'fd00:80::20')).toEqual({ subnet: v6 });
    const ips = [{ ip: 'fd00:80::20', subnet: v6 }, { ip: '192.168.80.20', subnet: PLAIN }];
    const want = desiredHostState(ips, assignTables(ips, new Map()).tables, 'br-phy');
    expect(want.routes).toEqual(expect.arrayContaining([{ table: expect.any(Number), dst: 'fd00:80::/64', dev: 'br-phy' }, { table: expect.any(Number), dst: '::/0', via: 'fd00:80::1', dev: 'br-phy' }, { table: expect.any(Number), dst: '0.0.0.0/0', via: '192.168.80.1', dev: 'br-phy' }]));
    const t6 = want.rules.find((r) => r.src === 'fd00:80::20')!.table;
    expect(want.routes.filter((r) => r.table === t6).map((r) => r.dst).sort()).toEqual(['::/0', 'fd00:80::/64']);
    expect(batchLine({ op: 'addRule', src: 'fd00:80::20', table: t6 }, 'br-phy')).toBe(`rule add from fd00:80::20/128 lookup ${t6} priority 32765 protocol 80`);
    expect(batchLine({ op: 'replaceRoute', route: { table: t6, dst: '::/0', via: 'fd00:80::1', dev: 'br-phy' } }, 'br-phy')).toBe(`route replace ::/0 via fd00:80::1 dev br-phy table ${t6} proto 80`);
    expect(batchLine({ op: 'delRule', src: 'fd00:80::20', table: t6 }, 'br-phy')).toBe(`rule del from fd00:80::20/128 lookup ${t6} priority 32765`);
    expect(batchLine({ op: 'delRoute', dst: 'fd00:80::/64', table: t6 }, 'br-phy')).toBe(`route del fd00:80::/64 table ${t6}`);
  });

  test.each([
    [{ gateway: 'fd00:80::1', prefixLength: 128 }, 'spec.subnetInfo.prefixLength', 128, 'must be an integer in 1..127'],
    [{ gateway: 'fd00:80::1', prefixLength: 64, vlan: 4095 }, 'spec.subnetInfo.vlan', 4095, 'must be an integer in 0..4094'],
    [{ gateway: 'fd00:0080::1', prefixLength: 64 }, 'spec.subnetInfo.gateway', 'fd00:0080::1', 'RFC 5952'],
    [{ gateway: 'fd00:81::1', prefixLength: 64 }, 'spec.subnetInfo', 'fd00:81::1/64', 'Egress IP fd00:80::20 is not inside the subnet fd00:81::/64'],
    [{ gateway: '192.168.80.1', prefixLength: 24 }, 'spec.subnetInfo', '192.168.80.1/24', 'Egress IP fd00:80::20 is not inside the subnet 192.168.80.0/24'],
  ])('IPv6: %j is a problem naming %s and the value', (info, field, value, message) => {
    const p = subnetOfPool(info, 'fd00:80::20').problem;
    expect(p).toMatchObject({ field, value });
    expect(p?.message).toContain(message);
  });
});

describe('route tables', () => {
  test('one table per distinct subnet, the lowest free one, kept across passes', () => {
    const first = assignTables([{ ip: '10.20.0.5', subnet: VLAN10 }, { ip: '10.20.0.6', subnet: VLAN10 }], new Map());
    expect([...first.tables.values()]).toEqual([101]);
    const second = assignTables([{ ip: '192.168.80.20', subnet: PLAIN }, { ip: '10.20.0.5', subnet: VLAN10 }], first.tables);
    expect(second.tables.get('10.20.0.1/24@10')).toBe(101);
    expect(second.tables.get('192.168.80.1/24@0')).toBe(102);
  });

  test('a 21st subnet has no table: its IPs are unplaced', () => {
    const ips = Array.from({ length: 21 }, (_, i) => ({ ip: `10.${i}.0.5`, subnet: { gateway: `10.${i}.0.1`, prefixLength: 24, vlan: i + 1 } }));
    const { tables, unplaced } = assignTables(ips, new Map());
    expect(tables.size).toBe(20);
    expect(unplaced).toHaveLength(1);
  });
});

describe('the host state wanted and the steps to it', () => {
  const tables = new Map([['10.20.0.1/24@10', 101], ['192.168.80.1/24@0', 102]]);
  const ips = [{ ip: '10.20.0.5', subnet: VLAN10 }, { ip: '192.168.80.20', subnet: PLAIN }];
  const want = desiredHostState(ips, tables, 'br-phy');

  test('a VLAN subnet: antrea-ext.<vlan> with the IP; an untagged one: the transport device; each a table and a source rule', () => {
    expect(want).toEqual({
      links: [{ name: 'antrea-ext.10', vlan: 10 }],
      addresses: [{ dev: 'antrea-ext.10', ip: '10.20.0.5', prefix: 24 }],
      localRoutes: [],
      routes: [
        { table: 101, dst: '10.20.0.0/24', dev: 'antrea-ext.10' },
        { table: 101, dst: '0.0.0.0/0', via: '10.20.0.1', dev: 'antrea-ext.10' },
        { table: 102, dst: '192.168.80.0/24', dev: 'br-phy' },
        { table: 102, dst: '0.0.0.0/0', via: '192.168.80.1', dev: 'br-phy' },
      ],
      rules: [{ src: '10.20.0.5', table: 101 }, { src: '192.168.80.20', table: 102 }],
    });
  });

  test('from nothing: link, address (its local route off), routes, rules, in that order', () => {
    expect(planSubnetSync(emptyHostState(), want).map((s) => s.op)).toEqual(['addLink', 'addAddress', 'delLocalRoute', 'replaceRoute', 'replaceRoute', 'replaceRoute', 'replaceRoute', 'addRule', 'addRule']);
  });

  test('what is there already is adopted: no step', () => {
    expect(planSubnetSync(want, want)).toEqual([]);
  });

  test('a local route the kernel put back is taken off again', () => {
    expect(planSubnetSync({ ...want, localRoutes: [{ dev: 'antrea-ext.10', ip: '10.20.0.5' }] }, want)).toEqual([{ op: 'delLocalRoute', dev: 'antrea-ext.10', ip: '10.20.0.5' }]);
  });

  test('the last IP of a VLAN gone: its rule first, then the link (its routes and address leave with it)', () => {
    const rest = desiredHostState([ips[1]!], tables, 'br-phy');
    expect(planSubnetSync(want, rest)).toEqual<SubnetStep[]>([{ op: 'delRule', src: '10.20.0.5', table: 101 }, { op: 'delLink', name: 'antrea-ext.10' }]);
    expect(planSubnetSync(rest, emptyHostState())).toEqual<SubnetStep[]>([
      { op: 'delRule', src: '192.168.80.20', table: 102 },
      { op: 'delRoute', table: 102, dst: '192.168.80.0/24' },
      { op: 'delRoute', table: 102, dst: '0.0.0.0/0' },
    ]);
  });

  test('a second IP of a subnet in use adds its address and rule only', () => {
    const more = desiredHostState([...ips, { ip: '10.20.0.6', subnet: VLAN10 }], tables, 'br-phy');
    expect(planSubnetSync(want, more)).toEqual<SubnetStep[]>([
      { op: 'addAddress', dev: 'antrea-ext.10', ip: '10.20.0.6', prefix: 24 },
      { op: 'delLocalRoute', dev: 'antrea-ext.10', ip: '10.20.0.6' },
      { op: 'addRule', src: '10.20.0.6', table: 101 },
    ]);
  });
});

describe('a VLAN on an IPv6 subnet, as on an IPv4 one', () => {
  const V6VLAN: EgressSubnet = { gateway: 'fd00:80::1', prefixLength: 64, vlan: 20 };
  const ips6 = [{ ip: 'fd00:80::25', subnet: V6VLAN }, { ip: '10.20.0.5', subnet: VLAN10 }];
  const tables6 = assignTables(ips6, new Map()).tables;
  const want6 = desiredHostState(ips6, tables6, 'br-phy');
  const t6 = tables6.get('fd00:80::1/64@20')!;

  test('is read, not refused: antrea-ext.<vlan> with the IPv6 address, its table (the subnet, ::/0 via the gateway on the link) and its /128 rule', () => {
    expect(subnetOfPool({ gateway: 'fd00:80::1', prefixLength: 64, vlan: 20 }, 'fd00:80::25')).toEqual({ subnet: V6VLAN });
    expect(want6.links).toEqual([{ name: 'antrea-ext.10', vlan: 10 }, { name: 'antrea-ext.20', vlan: 20 }]);
    expect(want6.addresses).toEqual(expect.arrayContaining([{ dev: 'antrea-ext.20', ip: 'fd00:80::25', prefix: 64 }]));
    expect(want6.routes.filter((r) => r.table === t6)).toEqual([{ table: t6, dst: 'fd00:80::/64', dev: 'antrea-ext.20' }, { table: t6, dst: '::/0', via: 'fd00:80::1', dev: 'antrea-ext.20' }]);
    expect(want6.rules).toEqual(expect.arrayContaining([{ src: 'fd00:80::25', table: t6 }]));
  });

  test('from nothing: the link, the address with its local route off, routes, rule; adopted when there; the last IP gone takes the link', () => {
    const steps = planSubnetSync(emptyHostState(), want6);
    expect(steps.filter((s) => 'ip' in s && s.ip === 'fd00:80::25')).toEqual<SubnetStep[]>([
      { op: 'addAddress', dev: 'antrea-ext.20', ip: 'fd00:80::25', prefix: 64 },
      { op: 'delLocalRoute', dev: 'antrea-ext.20', ip: 'fd00:80::25' },
    ]);
    expect(steps.map((s) => s.op).indexOf('addLink')).toBeLessThan(steps.map((s) => s.op).indexOf('addAddress'));
    expect(planSubnetSync(want6, want6)).toEqual([]);
    // Its routes and address leave with the link.
    expect(planSubnetSync(want6, desiredHostState([ips6[1]!], tables6, 'br-phy'))).toEqual<SubnetStep[]>([{ op: 'delRule', src: 'fd00:80::25', table: t6 }, { op: 'delLink', name: 'antrea-ext.20' }]);
  });

  test('the lab\'s `ip` lines: the address noprefixroute and nodad (usable at once), its local route off', () => {
    expect(batchLine({ op: 'addAddress', dev: 'antrea-ext.20', ip: 'fd00:80::25', prefix: 64 }, 'br-phy')).toBe('addr replace fd00:80::25/64 dev antrea-ext.20 noprefixroute nodad');
    expect(batchLine({ op: 'delLocalRoute', dev: 'antrea-ext.20', ip: 'fd00:80::25' }, 'br-phy')).toBe('route del table local local fd00:80::25 dev antrea-ext.20');
    expect(batchLine({ op: 'replaceRoute', route: { table: 101, dst: '::/0', via: 'fd00:80::1', dev: 'antrea-ext.20' } }, 'br-phy')).toBe('route replace ::/0 via fd00:80::1 dev antrea-ext.20 table 101 proto 80');
  });

  test('`ip -j` read: the IPv6 address and local route of the VLAN link, not the kernel\'s link-local address', () => {
    const s = stateFromIpJson('br-phy', {
      links: [{ ifname: 'antrea-ext.20', link: 'br-phy', linkinfo: { info_kind: 'vlan', info_data: { id: 20 } } }],
      addrs: [{ ifname: 'antrea-ext.20', addr_info: [{ family: 'inet6', local: 'fd00:80::25', prefixlen: 64, scope: 'global' }, { family: 'inet6', local: 'fe80::1c2:3ff:fe04:506', prefixlen: 64, scope: 'link' }] }],
      local: [{ dst: 'fd00:80::25', dev: 'antrea-ext.20', type: 'local' }],
      routes: [],
      rules: [],
    });
    expect(s.addresses).toEqual([{ dev: 'antrea-ext.20', ip: 'fd00:80::25', prefix: 64 }]);
    expect(s.localRoutes).toEqual([{ dev: 'antrea-ext.20', ip: 'fd00:80::25' }]);
  });
});

describe('the lab\'s `ip` path', () => {
  test('reads only what the agent owns from `ip -j`', () => {
    const s = stateFromIpJson('br-phy', {
      links: [{ ifname: 'antrea-ext.10', link: 'br-phy', linkinfo: { info_kind: 'vlan', info_data: { id: 10 } } }, { ifname: 'eth0.5', link: 'eth0', linkinfo: { info_kind: 'vlan', info_data: { id: 5 } } }],
      addrs: [{ ifname: 'antrea-ext.10', addr_info: [{ family: 'inet', local: '10.20.0.5', prefixlen: 24 }] }, { ifname: 'br-phy', addr_info: [{ family: 'inet', local: '192.168.77.12', prefixlen: 24 }] }],
      local: [{ dst: '10.20.0.5', dev: 'antrea-ext.10', type: 'local' }, { dst: '192.168.77.12', dev: 'br-phy', type: 'local' }],
      routes: [{ dst: 'default', gateway: '10.20.0.1', dev: 'antrea-ext.10', table: '101' }, { dst: '10.20.0.0/24', dev: 'antrea-ext.10', table: '101' }, { dst: '10.10.1.0/24', gateway: '192.168.77.11', dev: 'br-phy' }, { dst: 'default', gateway: '1.1.1.1', dev: 'br-phy', table: '200' }],
      rules: [{ src: 'all', table: 'local' }, { src: '10.20.0.5', table: '101', protocol: '80' }, { src: '10.9.9.9', table: '101' }],
    });
    expect(s).toEqual<SubnetHostState>({
      links: [{ name: 'antrea-ext.10', vlan: 10 }],
      addresses: [{ dev: 'antrea-ext.10', ip: '10.20.0.5', prefix: 24 }],
      localRoutes: [{ dev: 'antrea-ext.10', ip: '10.20.0.5' }],
      routes: [{ table: 101, dst: '0.0.0.0/0', via: '10.20.0.1', dev: 'antrea-ext.10' }, { table: 101, dst: '10.20.0.0/24', dev: 'antrea-ext.10' }],
      rules: [{ src: '10.20.0.5', table: 101 }],
    });
    // IPv6 tables and rules, as `ip -j -6` prints them.
    const s6 = stateFromIpJson('br-phy', {
      links: [], addrs: [], local: [],
      routes: [{ dst: 'default', gateway: 'fd00:80::1', dev: 'br-phy', table: '102' }, { dst: 'fd00:80::/64', dev: 'br-phy', table: '102' }, { dst: 'fd00:77::/64', dev: 'br-phy' }],
      rules: [{ src: 'all', table: 'main' }, { src: 'fd00:80::20', srclen: 128, table: '102', protocol: '80' }],
    });
    expect(s6.routes).toEqual([{ table: 102, dst: '::/0', via: 'fd00:80::1', dev: 'br-phy' }, { table: 102, dst: 'fd00:80::/64', dev: 'br-phy' }]);
    expect(s6.rules).toEqual([{ src: 'fd00:80::20', table: 102 }]);
  });

  test('one batch line per step, checked values only', () => {
    expect(batchLine({ op: 'addLink', name: 'antrea-ext.10', vlan: 10 }, 'br-phy')).toBe('link add link br-phy name antrea-ext.10 type vlan id 10\nlink set dev antrea-ext.10 up');
    expect(batchLine({ op: 'addRule', src: '10.20.0.5', table: 101 }, 'br-phy')).toBe('rule add from 10.20.0.5/32 lookup 101 priority 32765 protocol 80');
    expect(batchLine({ op: 'replaceRoute', route: { table: 101, dst: '0.0.0.0/0', via: '10.20.0.1', dev: 'antrea-ext.10' } }, 'br-phy')).toBe('route replace default via 10.20.0.1 dev antrea-ext.10 table 101 proto 80');
    expect(batchLine({ op: 'addAddress', dev: 'antrea-ext.10', ip: '10.20.0.5', prefix: 24 }, 'br-phy')).toBe('addr replace 10.20.0.5/24 dev antrea-ext.10 noprefixroute');
    expect(() => batchLine({ op: 'addRule', src: '10.20.0.5; reboot', table: 101 }, 'br-phy')).toThrow('invalid Egress IP');
    expect(() => batchLine({ op: 'delRoute', dst: '10.0.0.0/8', table: 254 }, 'br-phy')).toThrow('outside 101..120');
  });
});

test('a VLAN link\'s IFLA_LINKINFO: kind vlan, IFLA_VLAN_ID in IFLA_INFO_DATA, read back by the dump parser', () => {
  const info = vlanLinkInfo(10);
  expect(info.toString('hex')).toBe('09000100766c616e000000000c000280060001000a000000');
  expect(vlanIdOf(info)).toBe(10);
  expect(vlanIdOf(Buffer.from('090001007665746800000000', 'hex'))).toBeUndefined();
});

describe('SubnetAnnouncer: the external IP sink with EgressSeparateSubnet', () => {
  const dataDirs: string[] = [];
  afterAll(() => dataDirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
  const newDataDir = (): string => {
    const d = mkdtempSync(join(tmpdir(), 'egress-subnet-'));
    dataDirs.push(d);
    return d;
  };
  /** A node in memory: the host state the steps make, and the proxy entries per link. */
  function fakeNode(): { host: SubnetHostOps; proxies: Set<string>; state: () => SubnetHostState } {
    let state = emptyHostState();
    const proxies = new Set<string>();
    const host: SubnetHostOps = {
      read: async () => structuredClone(state),
      apply: async (steps) => {
        for (const s of steps) {
          if (s.op === 'addLink') state.links.push({ name: s.name, vlan: s.vlan });
          if (s.op === 'delLink') {
            state = { ...state, links: state.links.filter((l) => l.name !== s.name), addresses: state.addresses.filter((a) => a.dev !== s.name), routes: state.routes.filter((r) => r.dev !== s.name) };
            for (const p of [...proxies]) if (p.startsWith(`${s.name} `)) proxies.delete(p);
          }
          if (s.op === 'addAddress') state.addresses.push({ dev: s.dev, ip: s.ip, prefix: s.prefix });
          if (s.op === 'replaceRoute') state.routes.push(s.route);
          if (s.op === 'delRoute') state.routes = state.routes.filter((r) => !(r.table === s.table && r.dst === s.dst));
          if (s.op === 'addRule') state.rules.push({ src: s.src, table: s.table });
          if (s.op === 'delRule') state.rules = state.rules.filter((r) => !(r.src === s.src && r.table === s.table));
        }
      },
      close: () => undefined,
    };
    return { host, proxies, state: () => state };
  }
  const sinkOn = (proxies: Set<string>, dev: string): ExternalIPSink => ({
    take: async (ip) => void proxies.add(`${dev} ${ip}`),
    release: async (ip) => void proxies.delete(`${dev} ${ip}`),
  });
  const subnets = new Map<string, SubnetLookup>([['10.20.0.5', { subnet: VLAN10 }], ['192.168.80.20', { subnet: PLAIN }], ['10.20.9.9', { problem: { field: 'spec.subnetInfo.vlan', value: 5000, message: 'must be an integer in 0..4094' } }]]);
  const announcer = (dataDir: string, node: ReturnType<typeof fakeNode>): SubnetAnnouncer =>
    new SubnetAnnouncer({ dev: 'br-phy', dataDir, plain: sinkOn(node.proxies, 'br-phy'), proxyOn: (d) => sinkOn(node.proxies, d), host: node.host, subnetOf: (ip) => subnets.get(ip), logger: silentLogger });

  test('a VLAN IP is answered on antrea-ext.<vlan> only, an untagged one on the transport device, a plain one as before', async () => {
    const dataDir = newDataDir();
    const node = fakeNode();
    const a = announcer(dataDir, node);
    await a.take('10.20.0.5');
    await a.take('192.168.80.20');
    await a.take('192.168.77.220');
    expect([...node.proxies].sort()).toEqual(['antrea-ext.10 10.20.0.5', 'br-phy 192.168.77.220', 'br-phy 192.168.80.20']);
    expect(node.state().rules).toEqual([{ src: '10.20.0.5', table: 101 }, { src: '192.168.80.20', table: 102 }]);
    expect(readSubnets(dataDir)?.ips.map((x) => x.ip).sort()).toEqual(['10.20.0.5', '192.168.80.20']);
    expect(a.placements().map((p) => `${p.ip} ${p.link} ${p.table}`)).toEqual(['10.20.0.5 antrea-ext.10 101', '192.168.80.20 br-phy 102']);
  });

  test('a restarted agent adopts the record: nothing is applied again, and releasing takes it all off', async () => {
    const dataDir = newDataDir();
    const node = fakeNode();
    await announcer(dataDir, node).take('10.20.0.5');
    const applied: SubnetStep[][] = [];
    const apply = node.host.apply.bind(node.host);
    node.host.apply = async (steps, dev) => {
      applied.push([...steps]);
      await apply(steps, dev);
    };
    const again = announcer(dataDir, node);
    expect(again.placements().map((p) => p.ip)).toEqual(['10.20.0.5']);
    await again.release('10.20.0.5');
    expect(applied).toEqual([[{ op: 'delRule', src: '10.20.0.5', table: 101 }, { op: 'delLink', name: 'antrea-ext.10' }]]);
    expect(node.state()).toEqual(emptyHostState());
    expect(node.proxies.size).toBe(0);
    expect(existsSync(subnetsFile(dataDir))).toBe(false);
  });

  test('a VLAN link the kernel refuses: nothing half made stays, the take fails naming the field, and the problem stays in the health', async () => {
    const dataDir = newDataDir();
    const node = fakeNode();
    const apply = node.host.apply.bind(node.host);
    node.host.apply = async (steps, dev) => {
      if (steps.some((s) => s.op === 'addLink')) throw new Error('Error: Unknown device type.');
      await apply(steps, dev);
    };
    const a = announcer(dataDir, node);
    await expect(a.take('10.20.0.5')).rejects.toThrow('Egress IP 10.20.0.5: spec.subnetInfo.vlan 10 not applied on antrea-ext.10: Error: Unknown device type.');
    expect(node.state()).toEqual(emptyHostState());
    expect(node.proxies.size).toBe(0);
    expect(a.placements()).toEqual([]);
    expect(a.problems.get('10.20.0.5')).toMatchObject({ field: 'spec.subnetInfo.vlan', value: 10 });
  });

  test('an unusable subnetInfo is a problem naming the field, and the IP is announced on the transport device', async () => {
    const dataDir = newDataDir();
    const node = fakeNode();
    const a = announcer(dataDir, node);
    await a.take('10.20.9.9');
    expect([...node.proxies]).toEqual(['br-phy 10.20.9.9']);
    expect(a.problems.get('10.20.9.9')).toMatchObject({ field: 'spec.subnetInfo.vlan', value: 5000 });
  });
});
