// Open_vSwitch helpers against ovsdb-server + ovs-vswitchd (userspace datapath), checked with ovs-vsctl.
import type { OvsInstance } from '@switchyard/testbed';
import {
  Replica,
  VSwitch,
  VSwitchError,
  SchemaValueError,
  type OvsdbClient,
  type VswitchTables,
} from '../src/index';
import { ovsClientSuite } from './helpers';

let ovs: OvsInstance;
let client: OvsdbClient;
let vs: VSwitch;
ovsClientSuite(
  (s) => {
    ({ ovs, client } = s);
    vs = new VSwitch(client, { useBundledSchema: true });
  },
  { vswitchd: true },
);

const vsctl = (...a: string[]) => ovs.vsctl('--no-wait', ...a).then((s) => s.trim());

test('ensureBridge creates a secure netdev bridge with OpenFlow15 once and converges on repeats', async () => {
  const spec = {
    datapathType: 'netdev',
    failMode: 'secure' as const,
    protocols: ['OpenFlow10', 'OpenFlow13', 'OpenFlow15'] as const,
    otherConfig: { 'disable-in-band': 'true' },
    externalIds: { owner: 'switchyard' },
  };
  const a = await vs.ensureBridge('br-int', spec);
  expect(a.created).toBe(true);
  const b = await vs.ensureBridge('br-int', spec);
  expect(b).toEqual({ uuid: a.uuid, created: false });
  expect(await vsctl('list-br')).toBe('br-int');
  expect(await vsctl('get', 'Bridge', 'br-int', 'fail_mode')).toBe('secure');
  expect(await vsctl('get', 'Bridge', 'br-int', 'protocols')).toBe('[OpenFlow10, OpenFlow13, OpenFlow15]');
  expect(await vsctl('get', 'Bridge', 'br-int', 'datapath_type')).toBe('netdev');
  expect(await vsctl('get', 'Bridge', 'br-int', 'other_config:disable-in-band')).toBe('"true"');
  // Drift is corrected.
  await vsctl('set', 'Bridge', 'br-int', 'fail_mode=standalone');
  await vs.ensureBridge('br-int', spec);
  expect(await vsctl('get', 'Bridge', 'br-int', 'fail_mode')).toBe('secure');
});

test('ensurePort adds internal, geneve, vxlan, gre, patch and stt ports with options and external_ids, idempotently', async () => {
  await vs.ensureBridge('br-int', { datapathType: 'netdev', failMode: 'secure' });
  const specs = [
    { name: 'gw0', type: 'internal' as const, externalIds: { 'antrea-type': 'gateway' } },
    { name: 'tun-gnv', type: 'geneve' as const, options: { remote_ip: 'flow', key: 'flow' } },
    { name: 'tun-vxl', type: 'vxlan' as const, options: { remote_ip: '10.0.0.2', dst_port: '4789' } },
    { name: 'tun-gre', type: 'gre' as const, options: { remote_ip: '10.0.0.3' } },
    { name: 'patch-a', type: 'patch' as const, options: { peer: 'patch-b' } },
    { name: 'tun-stt', type: 'stt' as const, options: { remote_ip: '10.0.0.4' } },
  ];
  for (const s of specs) {
    const { name, ...spec } = s;
    expect((await vs.ensurePort('br-int', name, spec)).created).toBe(true);
    expect((await vs.ensurePort('br-int', name, spec)).created).toBe(false);
  }
  const ports = (await vsctl('list-ports', 'br-int')).split('\n').sort();
  expect(ports).toEqual(specs.map((s) => s.name).sort());
  expect(await vsctl('get', 'Interface', 'tun-gnv', 'type')).toBe('geneve');
  expect(await vsctl('get', 'Interface', 'tun-gnv', 'options')).toBe('{key=flow, remote_ip=flow}');
  expect(await vsctl('get', 'Interface', 'patch-a', 'options:peer')).toBe('patch-b');
  expect(await vsctl('get', 'Port', 'gw0', 'external_ids:antrea-type')).toBe('gateway');
  // Changing the desired options converges the interface.
  await vs.ensurePort('br-int', 'tun-vxl', { type: 'vxlan', options: { remote_ip: '10.0.0.9' } });
  expect(await vsctl('get', 'Interface', 'tun-vxl', 'options')).toBe('{remote_ip="10.0.0.9"}');
});

test('waitForOfport returns the OpenFlow port ovs-vswitchd assigned (honouring ofport_request)', async () => {
  await vs.ensurePort('br-int', 'gw1', { type: 'internal', ofportRequest: 42 });
  expect(await vs.waitForOfport('gw1', { timeoutMs: 10_000 })).toBe(42);
  const ofport = await vs.waitForOfport('gw0');
  expect(ofport).toBe(Number(await vsctl('get', 'Interface', 'gw0', 'ofport')));
  expect(ofport).toBeGreaterThan(0);
});

test('waitForOfport reports a missing interface', async () => {
  await expect(vs.waitForOfport('nope')).rejects.toMatchObject({ code: 'OVSDB_INTERFACE_NOT_FOUND' });
});

test('waitForSwitch returns once ovs-vswitchd applied the changes before it: a deleted port is closed (its PROMISC flag cleared)', async () => {
  await ovs.netns.exec(['ip', 'link', 'add', 'up0', 'type', 'veth', 'peer', 'name', 'up0p']);
  await ovs.netns.exec(['ip', 'link', 'set', 'up0', 'up']);
  const promisc = async () => (JSON.parse((await ovs.netns.exec(['ip', '-j', 'link', 'show', 'dev', 'up0'])).stdout) as { flags: string[] }[])[0]!.flags.includes('PROMISC');
  await vs.ensurePort('br-int', 'up0');
  await vs.waitForOfport('up0');
  expect(await promisc()).toBe(true);
  await vs.deletePort('br-int', 'up0');
  const next = await vs.waitForSwitch();
  expect(Number(await vsctl('get', 'Open_vSwitch', '.', 'cur_cfg'))).toBeGreaterThanOrEqual(next);
  expect(await promisc()).toBe(false);
  await ovs.netns.exec(['ip', 'link', 'del', 'up0']);
});

test('findPortsByExternalIds matches on every given pair', async () => {
  await vs.ensurePort('br-int', 'pod-a', { externalIds: { 'pod-name': 'a', 'pod-namespace': 'ns1' } });
  await vs.ensurePort('br-int', 'pod-b', { externalIds: { 'pod-name': 'b', 'pod-namespace': 'ns1' } });
  const ns1 = await vs.findPortsByExternalIds({ 'pod-namespace': 'ns1' });
  expect(ns1.map((p) => p.name).sort()).toEqual(['pod-a', 'pod-b']);
  const a = await vs.findPortsByExternalIds({ 'pod-namespace': 'ns1', 'pod-name': 'a' });
  expect(a.map((p) => p.name)).toEqual(['pod-a']);
  expect(a[0]!.externalIds.get('pod-name')).toBe('a');
});

test('deletePort removes the port and its interface; deleting again reports false', async () => {
  expect(await vs.deletePort('br-other', 'pod-b')).toBe(false); // not on that bridge: untouched
  expect(await vsctl('list-ports', 'br-int')).toMatch(/pod-b/);
  expect(await vs.deletePort('br-int', 'pod-b')).toBe(true);
  expect(await vs.deletePort('br-int', 'pod-b')).toBe(false);
  expect(await vsctl('list-ports', 'br-int')).not.toMatch(/pod-b/);
  expect(await vsctl('--columns=name', 'find', 'Interface', 'name=pod-b')).toBe('');
});

test('setOpenVSwitchExternalIds sets and removes keys, keeping the others', async () => {
  await vsctl('set', 'Open_vSwitch', '.', 'external_ids:keep=1');
  await vs.setOpenVSwitchExternalIds({ 'system-id': 'node-1', 'switchyard-version': '0.1.0' });
  await vs.setOpenVSwitchExternalIds({ 'system-id': 'node-1' }, { remove: ['switchyard-version'] });
  const ids = await vs.getOpenVSwitchExternalIds();
  expect(ids.get('system-id')).toBe('node-1');
  expect(ids.get('keep')).toBe('1');
  expect(ids.has('switchyard-version')).toBe(false);
  expect(await vsctl('get', 'Open_vSwitch', '.', 'external_ids:system-id')).toBe('node-1');
});

test('setOpenVSwitchOtherConfig sets and removes keys, keeping the others', async () => {
  await vsctl('set', 'Open_vSwitch', '.', 'other_config:keep=1');
  await vs.setOpenVSwitchOtherConfig({ certificate: '/x/cert.pem', private_key: '/x/key.pem', ca_cert: '/x/ca.pem' });
  await vs.setOpenVSwitchOtherConfig({ certificate: '/y/cert.pem' }, { remove: ['ca_cert'] });
  const cfg = await vs.getOpenVSwitchOtherConfig();
  expect(Object.fromEntries(cfg)).toMatchObject({ keep: '1', certificate: '/y/cert.pem', private_key: '/x/key.pem' });
  expect(cfg.has('ca_cert')).toBe(false);
  expect(await vsctl('get', 'Open_vSwitch', '.', 'other_config:certificate')).toBe('"/y/cert.pem"');
});

test('bad input is refused before reaching the server with a typed error', async () => {
  await expect(vs.ensurePort('br-int', 'x', { type: 'bogus' as never })).rejects.toBeInstanceOf(VSwitchError);
  await expect(vs.ensurePort('br-int', 'x', { ofportRequest: 0 })).rejects.toBeInstanceOf(SchemaValueError);
  await expect(vs.ensurePort('no-such-br', 'x')).rejects.toMatchObject({ code: 'OVSDB_BRIDGE_NOT_FOUND' });
});

test('deleteBridge removes the bridge with its ports', async () => {
  await vs.ensureBridge('br-tmp', { datapathType: 'netdev' });
  await vs.ensurePort('br-tmp', 'tmp-p', {});
  expect(await vs.deleteBridge('br-tmp')).toBe(true);
  expect(await vsctl('list-br')).toBe('br-int');
  expect(await vs.deleteBridge('br-tmp')).toBe(false);
});

test('a typed replica watches Interface rows and sees the ofport ovs-vswitchd assigns', async () => {
  const replica = new Replica<VswitchTables>(client, {
    db: 'Open_vSwitch',
    tables: { Interface: { columns: ['name', 'ofport', 'type'] } },
  });
  await replica.start();
  try {
    const seen = new Promise<number>((resolve) => {
      const stop = replica.watch('Interface', {
        update: (row, old) => {
          if (row.name === 'watched0' && row.ofport !== null && old.ofport === null) {
            stop();
            resolve(row.ofport);
          }
        },
      });
    });
    await vs.ensurePort('br-int', 'watched0', { type: 'internal' });
    const ofport = await seen;
    expect(ofport).toBe(Number(await vsctl('get', 'Interface', 'watched0', 'ofport')));
    expect(replica.find('Interface', (r) => r.name === 'watched0')[0]?.type).toBe('internal');
  } finally {
    await replica.stop();
  }
});
