// ExternalNode uplink swap on a real OVS (userspace datapath), real namespaces and veths: a "VM"
// namespace (where ovs-vswitchd runs, so the internal port is created there) with an uplink veth
// to a "fabric" namespace. Needs root and OVS (tools/testbed's global setup fails loudly otherwise).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Testbed, run, type Netns, type OvsInstance } from '@switchyard/testbed';
import { ExternalNodeDatapath } from '../src/features/external-node/datapath';
import { SWAP_STEPS } from '../src/features/external-node/uplink-swap';
import { PKG_DIR } from './helpers';
import { BEHIND_FABRIC_IP6, FABRIC_IP6, VM_IP6, VM_MAC, createVm, hostState as vmState, ping, type Vm } from './external-node-vm';

let tb: Testbed;
let v: Vm;
let ovs: OvsInstance;
let vm: Netns;
let fabric: Netns;
let dataDir: string;
const MAC = VM_MAC;

const inVm = async (...argv: string[]) => (await run(argv, { netns: vm.name })).stdout;
const json = async <T>(netns: string, ...argv: string[]): Promise<T> => JSON.parse((await run(argv, { netns })).stdout) as T;
const hostState = () => vmState(v);

async function open(): Promise<ExternalNodeDatapath> {
  return ExternalNodeDatapath.open({ ovsdbRemote: ovs.dbRemote, ovsRunDir: ovs.dir, bridge: 'br-int', datapathType: 'netdev', dataDir, netns: vm.name, txOffloadOff: true });
}

beforeAll(async () => {
  tb = await Testbed.create();
  v = await createVm(tb);
  ({ ovs, vm, fabric } = v);
  dataDir = mkdtempSync(join(tmpdir(), 'sy-extnode-'));
  // The bridge exists before the first snapshot: it is the agent's, and stays between runs.
  await (await open()).close();
});

afterAll(async () => {
  await tb?.cleanup();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

describe('uplink swap', () => {
  test('moves address, MAC and routes onto the internal port, keeps ARP and ping working, and uninstall restores the host exactly', async () => {
    const before = await hostState();
    expect(await ping(vm, '10.66.0.1')).toBe(true);

    const dp = await open();
    const t0 = performance.now();
    const spec = await dp.apply([{ name: 'eth1' }], false);
    await dp.initialSync();
    const swapMs = performance.now() - t0;
    try {
      expect(spec.interfaces).toEqual([{ uplinkOfport: expect.any(Number), pairOfport: expect.any(Number), ips: ['10.66.0.2'] }]);
      // The internal port carries the original name, MAC, address and route; the uplink has no address.
      const eth1 = (await json<{ address: string; addr_info: { local: string; prefixlen: number }[] }[]>(vm.name, 'ip', '-j', 'addr', 'show', 'dev', 'eth1'))[0]!;
      expect(eth1.address).toBe(MAC);
      expect(eth1.addr_info.map((a) => `${a.local}/${a.prefixlen}`)).toEqual(['10.66.0.2/24']);
      expect((await json<{ addr_info?: unknown[] }[]>(vm.name, 'ip', '-j', '-4', 'addr', 'show', 'dev', 'eth1~')).flatMap((l) => l.addr_info ?? [])).toEqual([]);
      expect((await inVm('ip', 'route', 'show', '10.99.0.0/16')).trim()).toBe('10.99.0.0/16 via 10.66.0.1 dev eth1 metric 50');
      expect((await ovs.vsctl('list-ports', 'br-int')).split('\n').filter(Boolean).sort()).toEqual(['eth1', 'eth1~']);
      expect((await ovs.vsctl('get', 'Interface', 'eth1', 'type')).trim()).toBe('internal');

      // ARP from the fabric resolves the VM's address to its original MAC, through OVS.
      await fabric.exec(['ip', 'neigh', 'flush', 'all']);
      expect(await ping(fabric, '10.66.0.2')).toBe(true);
      expect(await json<{ dst: string; lladdr: string }[]>(fabric.name, 'ip', '-j', 'neigh', 'show', '10.66.0.2')).toEqual([expect.objectContaining({ dst: '10.66.0.2', lladdr: MAC })]);
      expect(await ping(vm, '10.66.0.1')).toBe(true);
      expect(await ping(vm, '10.99.0.1')).toBe(true);
      // IP really crossed the pipeline (conntrack commit, output to the pair), not a bypass.
      expect(await ovs.ofctl('-O', 'OpenFlow15', 'dump-flows', ovs.mgmtSocket('br-int'))).toMatch(/n_packets=[1-9]\d*.*ct\(commit/);
      console.log(`ExternalNode swap + first round installed in ${swapMs.toFixed(0)} ms`);

      await dp.uninstall();
    } finally {
      await dp.close();
    }
    expect(await hostState()).toEqual(before);
    expect(await ping(vm, '10.66.0.1')).toBe(true);
    expect(await ping(vm, '10.99.0.1')).toBe(true);
  });

  test('uninstall returns only once ovs-vswitchd has let go of the uplink: a stalled switch fails it by name at the deadline, a resumed one lets it finish', async () => {
    const before = await hostState();
    const vswitchd = Number(readFileSync(join(ovs.dir, 'vswitchd.pid'), 'utf8').trim());
    const promisc = async (link: string) => (await json<{ flags: string[] }[]>(vm.name, 'ip', '-j', 'link', 'show', 'dev', link))[0]!.flags.includes('PROMISC');
    const dp = await ExternalNodeDatapath.open({ ovsdbRemote: ovs.dbRemote, ovsRunDir: ovs.dir, bridge: 'br-int', datapathType: 'netdev', dataDir, netns: vm.name, txOffloadOff: true, releaseTimeoutMs: 500 });
    try {
      await dp.apply([{ name: 'eth1' }], false);
      await dp.initialSync();
      expect(await promisc('eth1~')).toBe(true);
      process.kill(vswitchd, 'SIGSTOP');
      try {
        // The ports are gone from the database, but the stalled switch still holds the uplink.
        await expect(dp.uninstall()).rejects.toMatchObject({ code: 'EXTERNAL_NODE_UPLINK_HELD', value: 'eth1~', message: expect.stringContaining('eth1~') });
        expect(await promisc('eth1~')).toBe(true);
        expect([...dp.swap.recorded().keys()]).toEqual(['eth1']);
      } finally {
        process.kill(vswitchd, 'SIGCONT');
      }
      // Again, with the switch running: it closes the uplink (PROMISC cleared) before the rename.
      await open().then(async (again) => {
        try {
          await again.uninstall();
        } finally {
          await again.close();
        }
      });
    } finally {
      await dp.close();
    }
    expect(await hostState()).toEqual(before);
    expect(await ping(vm, '10.66.0.1')).toBe(true);
  });

  test('a step that fails is rolled back: the host is as before and the VM answers ping', async () => {
    const before = await hostState();
    const dp = await ExternalNodeDatapath.open({
      ovsdbRemote: ovs.dbRemote, ovsRunDir: ovs.dir, bridge: 'br-int', datapathType: 'netdev', dataDir, netns: vm.name,
      onStep: (_n, step) => {
        if (step === 'hostPortCreated') throw new Error('injected failure');
      },
    });
    try {
      await expect(dp.apply([{ name: 'eth1' }])).rejects.toMatchObject({ code: 'EXTERNAL_NODE_SWAP_FAILED', value: 'eth1' });
      expect(dp.swap.recorded().size).toBe(0);
    } finally {
      await dp.close();
    }
    expect(await hostState()).toEqual(before);
    expect(await ping(fabric, '10.66.0.2')).toBe(true);
  });

  test('an interface that is not on the host is refused by name and nothing changes', async () => {
    const before = await hostState();
    const dp = await open();
    try {
      await expect(dp.apply([{ name: 'eth9' }])).rejects.toMatchObject({ code: 'EXTERNAL_NODE_INTERFACE', value: 'eth9', path: 'spec.interfaces[].name' });
    } finally {
      await dp.close();
    }
    expect(await hostState()).toEqual(before);
  });
});

describe('an uplink another bridge holds', () => {
  test('is refused by name, and the other bridge and the host stay as they were', async () => {
    await ovs.addBridge('br-other');
    await ovs.vsctl('add-port', 'br-other', 'eth1');
    try {
      const before = await hostState();
      const dp = await open();
      try {
        await expect(dp.apply([{ name: 'eth1' }])).rejects.toMatchObject({ code: 'EXTERNAL_NODE_INTERFACE', value: 'eth1', message: expect.stringContaining('already a port of an OVS bridge') });
        expect(dp.swap.recorded().size).toBe(0);
      } finally {
        await dp.close();
      }
      expect(await hostState()).toEqual(before);
    } finally {
      await ovs.vsctl('del-br', 'br-other');
    }
    expect(await ping(fabric, '10.66.0.2')).toBe(true);
  });
});

describe('an agent killed in the middle of the swap', () => {
  const fixture = join(PKG_DIR, 'test-integration', 'fixtures', 'external-node-swap.ts');
  /** Runs the swap in a child agent inside the VM namespace that SIGKILLs itself once `step` is recorded. */
  async function killedAt(step: string): Promise<void> {
    const args = JSON.stringify({ ovsdbRemote: ovs.dbRemote, ovsRunDir: ovs.dir, dataDir, bridge: 'br-int', iface: 'eth1', stopAt: step });
    const r = await run([process.execPath, '--import', 'tsx', fixture, args], { netns: vm.name, env: { ...process.env, NODE_OPTIONS: '' }, allowFailure: true });
    expect(r.stdout).toBe(`killing myself after ${step}\n`);
  }

  test.each(SWAP_STEPS.map((s) => [s]))('killed after "%s": the next start finishes the swap, and uninstall restores the host', async (step) => {
    const before = await hostState();
    await killedAt(step);
    const dp = await open();
    try {
      expect([...dp.swap.recorded().values()].map((r) => r.step)).toEqual([step]);
      await dp.apply([{ name: 'eth1' }], false);
      await dp.initialSync();
      expect((await ovs.vsctl('list-ports', 'br-int')).split('\n').filter(Boolean).sort()).toEqual(['eth1', 'eth1~']);
      expect((await json<{ address: string }[]>(vm.name, 'ip', '-j', 'link', 'show', 'dev', 'eth1'))[0]!.address).toBe(MAC);
      expect(await ping(vm, '10.66.0.1')).toBe(true);
      expect(await ping(vm, '10.99.0.1')).toBe(true);
      await dp.uninstall();
    } finally {
      await dp.close();
    }
    expect(await hostState()).toEqual(before);
  });

  // Killed inside a step: the host moved on but the journal did not (here the rename happened,
  // the journal still says "planned"). Each step checks the host, so both ways out still work.
  test.each([['finishes', true], ['undoes', false]] as const)('killed between a step and its journal entry: the next start %s the swap', async (_what, keep) => {
    const before = await hostState();
    await killedAt('planned');
    await inVm('ip', 'link', 'set', 'dev', 'eth1', 'down');
    await inVm('ip', 'link', 'set', 'dev', 'eth1', 'name', 'eth1~');
    const dp = await open();
    try {
      expect([...dp.swap.recorded().values()].map((r) => r.step)).toEqual(['planned']);
      if (keep) {
        await dp.apply([{ name: 'eth1' }], false);
        await dp.initialSync();
        expect((await ovs.vsctl('list-ports', 'br-int')).split('\n').filter(Boolean).sort()).toEqual(['eth1', 'eth1~']);
        expect(await ping(vm, '10.66.0.1')).toBe(true);
        await dp.uninstall();
      } else {
        await dp.apply([]);
      }
    } finally {
      await dp.close();
    }
    expect(await hostState()).toEqual(before);
    expect(await ping(fabric, '10.66.0.2')).toBe(true);
  });

  test.each(SWAP_STEPS.map((s) => [s]))('killed after "%s": a next start that no longer guards the interface undoes the swap', async (step) => {
    const before = await hostState();
    await killedAt(step);
    const dp = await open();
    try {
      await dp.apply([]);
      expect(dp.swap.recorded().size).toBe(0);
    } finally {
      await dp.close();
    }
    expect(await hostState()).toEqual(before);
    expect(await ping(vm, '10.66.0.1')).toBe(true);
    expect(await ping(fabric, '10.66.0.2')).toBe(true);
  });
});

describe('uplink swap with IPv6', () => {
  let v6: Vm;
  let dir6: string;
  const open6 = () => ExternalNodeDatapath.open({ ovsdbRemote: v6.ovs.dbRemote, ovsRunDir: v6.ovs.dir, bridge: 'br-int', datapathType: 'netdev', dataDir: dir6, netns: v6.vm.name, txOffloadOff: true });

  beforeAll(async () => {
    v6 = await createVm(tb, { ipv6: true });
    dir6 = mkdtempSync(join(tmpdir(), 'sy-extnode6-'));
    await (await open6()).close();
  });
  afterAll(() => {
    if (dir6) rmSync(dir6, { recursive: true, force: true });
  });

  test('moves the global IPv6 address and route too (no DAD wait), IPv6 crosses the pair through the pipeline, and uninstall restores the host exactly', async () => {
    const before = await vmState(v6);
    expect(await ping(v6.vm, BEHIND_FABRIC_IP6)).toBe(true);
    const dp = await open6();
    try {
      const spec = await dp.apply([{ name: 'eth1' }], false);
      await dp.initialSync();
      // The pipeline polices both families: both addresses are local endpoints.
      expect(spec.interfaces.map((i) => i.ips)).toEqual([['10.66.0.2', VM_IP6]]);
      const eth1 = (await json<{ addr_info: { local: string; prefixlen: number; scope: string }[] }[]>(v6.vm.name, 'ip', '-j', 'addr', 'show', 'dev', 'eth1'))[0]!;
      expect(eth1.addr_info.filter((a) => a.scope === 'global').map((a) => `${a.local}/${a.prefixlen}`).sort()).toEqual(['10.66.0.2/24', `${VM_IP6}/64`]);
      expect((await json<{ addr_info?: { scope: string }[] }[]>(v6.vm.name, 'ip', '-j', 'addr', 'show', 'dev', 'eth1~')).flatMap((l) => l.addr_info ?? []).filter((a) => a.scope === 'global')).toEqual([]);
      expect((await run(['ip', '-6', 'route', 'show', 'fd00:99::/64'], { netns: v6.vm.name })).stdout.trim()).toMatch(new RegExp(`^fd00:99::/64 via ${FABRIC_IP6} dev eth1 metric 60`));
      // Neighbour discovery and ICMPv6 through OVS, both ways, right after the swap.
      await v6.fabric.exec(['ip', '-6', 'neigh', 'flush', 'all']);
      expect(await ping(v6.fabric, VM_IP6)).toBe(true);
      expect(await ping(v6.vm, BEHIND_FABRIC_IP6)).toBe(true);
      expect(await ping(v6.vm, '10.99.0.1')).toBe(true);
      await dp.uninstall();
    } finally {
      await dp.close();
    }
    expect(await vmState(v6)).toEqual(before);
    expect(await ping(v6.vm, BEHIND_FABRIC_IP6)).toBe(true);
  });
});

describe('uplink swap of two interfaces', () => {
  let v2: Vm;
  let dir2: string;
  const open2 = () => ExternalNodeDatapath.open({ ovsdbRemote: v2.ovs.dbRemote, ovsRunDir: v2.ovs.dir, bridge: 'br-int', datapathType: 'netdev', dataDir: dir2, netns: v2.vm.name, txOffloadOff: true });

  beforeAll(async () => {
    v2 = await createVm(tb);
    // A second uplink, eth2 (10.67.0.2/24), to the same fabric namespace.
    await run(['ip', 'link', 'add', 'eth2', 'netns', v2.vm.name, 'type', 'veth', 'peer', 'name', 'f1', 'netns', v2.fabric.name]);
    await v2.vm.exec(['ip', 'addr', 'add', '10.67.0.2/24', 'dev', 'eth2']);
    await v2.vm.exec(['ip', 'link', 'set', 'eth2', 'up']);
    await v2.vm.exec(['ethtool', '-K', 'eth2', 'tx', 'off']);
    await v2.fabric.exec(['ip', 'addr', 'add', '10.67.0.1/24', 'dev', 'f1']);
    await v2.fabric.exec(['ip', 'link', 'set', 'f1', 'up']);
    await v2.fabric.exec(['ethtool', '-K', 'f1', 'tx', 'off']);
    dir2 = mkdtempSync(join(tmpdir(), 'sy-extnode2-'));
    await (await open2()).close();
  });
  afterAll(() => {
    if (dir2) rmSync(dir2, { recursive: true, force: true });
  });

  test('both move onto OVS with their own pair, IP crosses the pipeline on each, and uninstall restores the host exactly', async () => {
    const before = await vmState(v2);
    const dp = await open2();
    try {
      const spec = await dp.apply([{ name: 'eth1' }, { name: 'eth2' }], false);
      await dp.initialSync();
      expect(spec.interfaces.map((i) => i.ips)).toEqual([['10.66.0.2'], ['10.67.0.2']]);
      const ofports = spec.interfaces.flatMap((i) => [i.uplinkOfport, i.pairOfport]);
      expect(new Set(ofports).size).toBe(4);
      expect((await v2.ovs.vsctl('list-ports', 'br-int')).split('\n').filter(Boolean).sort()).toEqual(['eth1', 'eth1~', 'eth2', 'eth2~']);
      await v2.fabric.exec(['ip', 'neigh', 'flush', 'all']);
      expect(await ping(v2.fabric, '10.66.0.2')).toBe(true);
      expect(await ping(v2.fabric, '10.67.0.2')).toBe(true);
      // Each pair's IP went through conntrack: a committed flow per classifier direction saw packets.
      const flows = await v2.ovs.ofctl('-O', 'OpenFlow15', 'dump-flows', v2.ovs.mgmtSocket('br-int'));
      for (const p of ofports) expect(flows).toMatch(new RegExp(`n_packets=[1-9]\\d*.*priority=\\d+,ip,in_port=${p} `));
      await dp.uninstall();
    } finally {
      await dp.close();
    }
    expect(await vmState(v2)).toEqual(before);
    expect(await ping(v2.fabric, '10.67.0.2')).toBe(true);
  });
});
