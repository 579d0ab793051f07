// FlowSync against a recording stand-in for the switch connection: diffs, group commit, rounds.
import type { FlowTransport } from '@switchyard/openflow';
import { normalizeFlow, type Flow, type OfMessage } from '@switchyard/openflow/codec';
import { CookieCategory, flowKey, makeCookie, parseCookie, type NodeConfig } from '@switchyard/openflow-pipeline';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FlowSync, vswitchdControlSocket } from '../src/flow-sync';

/** Records what FlowSync sends; dumpFlows adds two flows of other rounds to what it installed. */
class RecordingSwitch implements FlowTransport {
  bundles: OfMessage[][] = [];
  flowModBatches: { command: string; flow: Flow }[][] = [];
  installed: Flow[] = [];
  failNext = false;
  gate: Promise<void> | undefined;
  async bundle(messages: Iterable<OfMessage>): Promise<void> {
    await this.gate;
    if (this.failNext) {
      this.failNext = false;
      throw new Error('switch said no');
    }
    const list = [...messages];
    this.bundles.push(list);
    for (const m of list) if (m.type === 'flowMod' && m.command === 'add') this.installed.push(m.flow);
  }
  async dumpFlows(): Promise<Flow[]> {
    return [
      ...this.installed,
      { table: 0, priority: 5, match: {}, actions: [], cookie: makeCookie(7, 1) },
      { table: 3, priority: 5, match: {}, actions: [], cookie: 0n },
    ];
  }
  async flowMods(mods: Iterable<{ command: string; flow: Flow }>): Promise<void> {
    this.flowModBatches.push([...mods]);
  }
}

const config: NodeConfig = {
  round: 9,
  trafficMode: 'encap',
  gateway: { ofport: 1, ip: '10.1.0.1', mac: '02:00:00:00:00:01' },
  tunnelOfport: 2,
  podCIDR: '10.1.0.0/24',
  nodeIP: '192.168.0.1',
  netdevDatapath: true,
  enableAntreaPolicy: true,
};
const pod = (i: number) => ({ name: `p${i}`, namespace: 'd', ofport: 10 + i, ips: [`10.1.0.${10 + i}`], mac: `02:00:00:00:01:${(10 + i).toString(16)}` });

function setup(): { sw: RecordingSwitch; sync: FlowSync } {
  const sw = new RecordingSwitch();
  return { sw, sync: new FlowSync(sw, config) };
}
/** A FlowSync after its initial sync, with the switch's records cleared. */
async function started(): Promise<{ sw: RecordingSwitch; sync: FlowSync }> {
  const r = setup();
  await r.sync.initialSync([]);
  r.sw.bundles = [];
  return r;
}

it('initialSync installs the round and deletes every other round by cookie mask', async () => {
  const { sw, sync } = setup();
  const r = await sync.initialSync([pod(1)]);
  expect(r.installed).toBe(sw.installed.length);
  expect(sw.installed.every((f) => parseCookie(f.cookie ?? 0n).round === 9)).toBe(true);
  expect(r.staleRounds.sort()).toEqual([0, 7]);
  const deletes = sw.flowModBatches[0]!;
  expect(deletes.map((d) => [d.command, parseCookie(d.flow.cookie!).round, d.flow.cookieMask])).toEqual([
    ['delete', 7, 0xffff_0000_0000_0000n],
    ['delete', 0, 0xffff_0000_0000_0000n],
  ]);
});

it('a pod change sends only its flows; removing it deletes exactly those', async () => {
  const { sw, sync } = await started();
  const base = sync.flows.length;
  const added = await sync.upsertPod(pod(1));
  expect(added.added).toBeGreaterThan(0);
  expect(added.modified + added.deleted).toBe(0);
  expect(sw.bundles[0]!.every((m) => m.type === 'flowMod' && m.command === 'add')).toBe(true);
  expect(sync.flows.length).toBe(base + added.added);
  const removed = await sync.removePod('d', 'p1');
  expect(removed).toEqual({ added: 0, modified: 0, deleted: added.added });
  expect(sw.bundles[1]!.every((m) => m.type === 'flowMod' && m.command === 'deleteStrict')).toBe(true);
  expect(sync.flows.length).toBe(base);
});

it('changes that arrive during a sync are installed together by the next bundle (group commit)', async () => {
  const { sw, sync } = await started();
  let open!: () => void;
  sw.gate = new Promise<void>((r) => (open = r));
  const first = sync.upsertPod(pod(1));
  await new Promise((r) => setImmediate(r)); // the first sync is now waiting inside bundle()
  const rest = [2, 3, 4, 5].map((i) => sync.upsertPod(pod(i)));
  open();
  await Promise.all([first, ...rest]);
  expect(sw.bundles.length).toBe(2);
  const perPod = (await first).added;
  expect((await rest[0]!).added).toBe(4 * perPod);
  expect(sw.bundles[1]!.length).toBe(4 * perPod);
});

it('changes made before a sync starts share its bundle', async () => {
  const { sw, sync } = await started();
  await Promise.all([1, 2, 3].map((i) => sync.upsertPod(pod(i))));
  expect(sw.bundles.length).toBe(1);
});

it('a failed bundle rejects its callers and leaves the installed set as it was', async () => {
  const { sw, sync } = await started();
  const before = sync.flows;
  sw.failNext = true;
  await expect(sync.upsertPod(pod(1))).rejects.toThrow('switch said no');
  expect(sync.flows).toBe(before);
  // The rollback's removal finds nothing to change.
  expect(await sync.removePod('d', 'p1')).toEqual({ added: 0, modified: 0, deleted: 0 });
  expect(sw.bundles.length).toBe(0);
});

it('a replay after a switch restart also installs a change whose bundle failed while the switch was away', async () => {
  const { sw, sync } = await started();
  const before = sync.flows.length;
  sw.failNext = true;
  await expect(sync.upsertPod(pod(1))).rejects.toThrow('switch said no');
  expect(sync.flows.length).toBe(before);
  await sync.replay();
  // The replay bundle re-sends what was installed; the next one adds the pod that failed.
  expect(sw.bundles.length).toBe(2);
  expect(sw.bundles[0]!.filter((m) => m.type === 'flowMod').length).toBe(before);
  expect(sw.bundles[1]!.every((m) => m.type === 'flowMod' && m.command === 'add')).toBe(true);
  expect(sync.flows.length).toBe(before + sw.bundles[1]!.length);
});

it('groups of Reject rules go in before the flows that use them and out after them', async () => {
  const { sw, sync } = await started();
  await sync.upsertPod(pod(1));
  sw.bundles = [];
  const policy = {
    uid: 'u1', name: 'p', namespace: '', generation: 1, priority: 5, tierPriority: 250, appliedToGroups: ['atg'],
    sourceRef: { type: 'AntreaClusterNetworkPolicy' as const, namespace: '', name: 'p', uid: 'u1' },
    rules: [{ direction: 'In' as const, from: { addressGroups: [], ipBlocks: [{ cidr: '10.9.0.0/16', except: [] }] }, to: { addressGroups: [], ipBlocks: [] }, services: [], action: 'Reject' as const, priority: 0, enableLogging: false }],
  };
  const groups = { addressGroups: [], appliedToGroups: [{ name: 'atg', groupMembers: [{ ips: ['10.1.0.11'] }] }] };
  await sync.set({ policies: [policy], ...groups });
  const add = sw.bundles[0]!;
  const firstFlow = add.findIndex((m) => m.type === 'flowMod');
  const groupMods = add.filter((m) => m.type === 'groupMod');
  const groupAdds = groupMods.filter((m) => m.type === 'groupMod' && m.command === 'add');
  expect(groupAdds.length).toBeGreaterThan(0);
  // Each new group is first deleted (a no-op unless a previous run left one with that id), then added.
  expect(groupMods.map((m) => m.type === 'groupMod' && [m.command, m.groupId])).toEqual(
    groupAdds.flatMap((m) => (m.type === 'groupMod' ? [['delete', m.groupId], ['add', m.groupId]] : [])),
  );
  expect(add.slice(0, groupMods.length)).toEqual(groupMods);
  expect(firstFlow).toBe(groupMods.length);
  await sync.set({ policies: [], addressGroups: [], appliedToGroups: [] });
  const del = sw.bundles[1]!;
  const lastFlow = del.map((m) => m.type).lastIndexOf('flowMod');
  const groupDels = del.filter((m) => m.type === 'groupMod');
  expect(groupDels.every((m) => m.type === 'groupMod' && m.command === 'delete')).toBe(true);
  expect(del.findIndex((m) => m.type === 'groupMod')).toBeGreaterThan(lastFlow);
  expect(groupDels.length).toBe(groupAdds.length);
});

it('Service ports become select groups and flows; a changed endpoint set modifies the group in place', async () => {
  const { sw } = await started();
  const spec = { groupId: 0x100000, protocol: 'TCP' as const, clusterIP: '10.96.0.10', port: 80, endpoints: [{ ip: '10.1.0.11', port: 8080 }, { ip: '10.1.0.12', port: 8080 }] };
  const proxied = new FlowSync(sw, { ...config, enableProxy: true });
  await proxied.initialSync([]);
  sw.bundles = [];
  await proxied.set('services', [spec]);
  const add = sw.bundles[0]!;
  const groupAdd = add.find((m) => m.type === 'groupMod' && m.command === 'add');
  expect(groupAdd).toMatchObject({ groupId: 0x100000, groupType: 'select' });
  expect(groupAdd?.type === 'groupMod' && groupAdd.buckets.length).toBe(2);
  expect(proxied.get('services')).toEqual([spec]);
  await proxied.set('services', [{ ...spec, endpoints: [{ ip: '10.1.0.11', port: 8080 }] }]);
  const mods = sw.bundles[1]!.filter((m) => m.type === 'groupMod');
  expect(mods.map((m) => m.type === 'groupMod' && [m.command, m.groupId, m.buckets.length])).toEqual([['modify', 0x100000, 1]]);
  await proxied.set('services', []);
  const last = sw.bundles[2]!;
  expect(last.filter((m) => m.type === 'groupMod').map((m) => m.type === 'groupMod' && [m.command, m.groupId])).toEqual([['delete', 0x100000]]);
  expect(last.every((m) => m.type !== 'flowMod' || m.command === 'deleteStrict')).toBe(true);
});

describe('node state slices', () => {
  const remote = { name: 'n2', podCIDR: '10.2.0.0/24', nodeIP: '192.168.0.2', gatewayIP: '10.2.0.1' };

  it('prime puts a slice in place for the next sync without syncing; set replaces it and syncs', async () => {
    const { sw, sync } = await started();
    sync.prime('remoteNodes', [remote]);
    expect(sw.bundles).toEqual([]);
    expect(sync.get('remoteNodes')).toEqual([remote]);
    await sync.requestSync();
    const added = sw.bundles[0]!.filter((m) => m.type === 'flowMod' && m.command === 'add').length;
    expect(added).toBeGreaterThan(0);
    await sync.set('remoteNodes', []);
    expect(sw.bundles[1]!.filter((m) => m.type === 'flowMod' && m.command === 'deleteStrict')).toHaveLength(added);
  });

  it('undefined removes an optional slice; several slices set together go out in one bundle', async () => {
    const { sw, sync } = await started();
    sync.prime('externalNode', undefined);
    expect(sync.get('externalNode')).toBeUndefined();
    await sync.set({ remoteNodes: [remote], pods: [pod(1)] });
    expect(sw.bundles).toHaveLength(1);
    expect(sync.get('pods')).toEqual([pod(1)]);
  });

  it('a derived slice is computed from the rest of the state at every computation, until it is no longer derived', async () => {
    const { sync } = await started();
    const seen: number[] = [];
    sync.derive('fqdn', (state) => {
      seen.push(state.pods.length);
      return undefined;
    });
    await sync.upsertPod(pod(1));
    await sync.upsertPod(pod(2));
    expect(seen).toEqual([1, 2]);
    sync.derive('fqdn', undefined);
    await sync.removePod('d', 'p1');
    expect(seen).toEqual([1, 2]);
  });
});

describe('datapath flush after policy changes (issue 13: stale userspace megaflows)', () => {
  const policy = {
    uid: 'u2', name: 'deny', namespace: '', generation: 1, priority: 5, tierPriority: 250, appliedToGroups: ['atg'],
    sourceRef: { type: 'AntreaClusterNetworkPolicy' as const, namespace: '', name: 'deny', uid: 'u2' },
    rules: [{ direction: 'In' as const, from: { addressGroups: [], ipBlocks: [{ cidr: '10.9.0.0/16', except: [] }] }, to: { addressGroups: [], ipBlocks: [] }, services: [], action: 'Drop' as const, priority: 0, enableLogging: false }],
  };
  const groups = { addressGroups: [], appliedToGroups: [{ name: 'atg', groupMembers: [{ ips: ['10.1.0.11'] }] }] };

  function withFlush(fail = false): { sw: RecordingSwitch; sync: FlowSync; events: string[]; warnings: string[] } {
    const sw = new RecordingSwitch();
    const events: string[] = [];
    const origBundle = sw.bundle.bind(sw);
    sw.bundle = async (m) => {
      await origBundle(m);
      events.push('bundle');
    };
    const warnings: string[] = [];
    const logger = { debug: () => undefined, info: () => undefined, error: () => undefined, warn: (_o: unknown, msg: string) => void warnings.push(msg) };
    const sync = new FlowSync(sw, config, {
      logger,
      flushDatapath: async () => {
        events.push('flush');
        if (fail) throw new Error('no ovs-appctl');
      },
    });
    return { sw, sync, events, warnings };
  }

  it('the initial sync and every sync that adds or removes policy flows flush the datapath after their bundle', async () => {
    const { sync, events } = withFlush();
    await sync.initialSync([]);
    expect(events).toEqual(['bundle', 'flush']);
    events.length = 0;
    await sync.upsertPod(pod(1));
    // A pod that no policy selects changes no NetworkPolicy flow: no flush (pod ADD stays cheap).
    expect(events).toEqual(['bundle']);
    events.length = 0;
    await sync.set({ policies: [policy], ...groups });
    expect(events).toEqual(['bundle', 'flush']);
    events.length = 0;
    // Deleting the Drop is the case of issue 13: a cached drop megaflow must not outlive it.
    await sync.set({ policies: [], addressGroups: [], appliedToGroups: [] });
    expect(events).toEqual(['bundle', 'flush']);
    expect(sync.datapathFlushes).toBe(3);
  });

  it('a failing flush is logged and the sync still resolves with its stats', async () => {
    const { sync, warnings } = withFlush(true);
    await sync.initialSync([]);
    await sync.upsertPod(pod(1));
    const r = await sync.set({ policies: [policy], ...groups });
    expect(r.added).toBeGreaterThan(0);
    expect(sync.datapathFlushes).toBe(0);
    // The initial sync's flush and the policy sync's flush both failed, and said so.
    expect(warnings.length).toBe(2);
  });

  it('without a flush hook (kernel datapath) policy syncs only send their bundle', async () => {
    const { sw, sync } = await started();
    await sync.upsertPod(pod(1));
    sw.bundles = [];
    await sync.set({ policies: [policy], ...groups });
    expect(sw.bundles.length).toBe(1);
    expect(sync.datapathFlushes).toBe(0);
  });
});

describe('vswitchdControlSocket', () => {
  const made: string[] = [];
  afterAll(() => made.forEach((d) => rmSync(d, { recursive: true, force: true })));
  const dir = (files: Record<string, string>): string => {
    const d = mkdtempSync(join(tmpdir(), 'vsctl-'));
    made.push(d);
    for (const [n, c] of Object.entries(files)) writeFileSync(join(d, n), c);
    return d;
  };
  it('names ovs-vswitchd.<pid>.ctl from the pid file, as OVS does by default', () => {
    const d = dir({ 'ovs-vswitchd.pid': '4242\n', 'ovs-vswitchd.4242.ctl': '', 'ovs-vswitchd.17.ctl': '' });
    expect(vswitchdControlSocket(d)).toBe(join(d, 'ovs-vswitchd.4242.ctl'));
  });
  it('takes a --unixctl vswitchd.ctl (the testbed layout), else any vswitchd control socket, else none', () => {
    const t = dir({ 'vswitchd.pid': '5', 'vswitchd.ctl': '', 'ovsdb.ctl': '' });
    expect(vswitchdControlSocket(t)).toBe(join(t, 'vswitchd.ctl'));
    const a = dir({ 'ovs-vswitchd.99.ctl': '' });
    expect(vswitchdControlSocket(a)).toBe(join(a, 'ovs-vswitchd.99.ctl'));
    expect(vswitchdControlSocket(dir({ 'ovsdb.ctl': '' }))).toBeUndefined();
  });
});

describe('adopting the flows of the previous run (agent restart on a running switch)', () => {
  /** A switch that keeps a flow table the way OVS does: one flow per (table, priority, match). */
  class ModelSwitch implements FlowTransport {
    table = new Map<string, Flow>();
    sent: OfMessage[] = [];
    refuseFlowBundles = 0;
    async bundle(messages: Iterable<OfMessage>): Promise<void> {
      const list = [...messages];
      if (this.refuseFlowBundles > 0 && list.some((m) => m.type === 'flowMod')) {
        this.refuseFlowBundles--;
        throw new Error('switch said no');
      }
      for (const m of list) {
        if (m.type !== 'flowMod') continue;
        this.sent.push(m);
        const f = normalizeFlow(m.flow);
        if (m.command === 'add') this.table.set(flowKey(f), f);
        else if (m.command === 'deleteStrict') this.table.delete(flowKey(f));
        else throw new Error(`unexpected ${m.command}`);
      }
    }
    async dumpFlows(): Promise<Flow[]> {
      return [...this.table.values()];
    }
    async flowMods(mods: Iterable<{ command: string; flow: Flow }>): Promise<void> {
      for (const m of mods) {
        if (m.command !== 'delete') throw new Error(`unexpected ${m.command}`);
        const { round } = parseCookie(m.flow.cookie!);
        for (const [k, f] of this.table) if (parseCookie(f.cookie ?? 0n).round === round) this.table.delete(k);
      }
    }
  }
  const desiredIn = (sync: FlowSync): Map<string, Flow> => new Map(sync.flows.map((f) => [flowKey(normalizeFlow(f)), normalizeFlow(f)]));

  async function previousRun(): Promise<ModelSwitch> {
    const sw = new ModelSwitch();
    await new FlowSync(sw, config).initialSync([pod(1), pod(2)]);
    sw.sent = [];
    return sw;
  }

  it('with the same node state it sends no flow-mod at all', async () => {
    const sw = await previousRun();
    const sync = new FlowSync(sw, config);
    const r = await sync.initialSync([pod(1), pod(2)], { adopt: true });
    expect(r.adopted).toEqual({ added: 0, modified: 0, deleted: 0 });
    expect(sw.sent).toEqual([]);
    expect(sync.initialResult).toEqual(r);
    expect(sw.table).toEqual(desiredIn(sync));
  });

  it('sends only the difference: a missing flow, changed or other-round flows, and flows nobody wants', async () => {
    const sw = await previousRun();
    const flows = [...sw.table.values()];
    const missing = flows[3]!;
    sw.table.delete(flowKey(missing));
    const changed = flows[5]!;
    sw.table.set(flowKey(changed), { ...changed, actions: [] });
    const oldRound = flows[7]!;
    sw.table.set(flowKey(oldRound), { ...oldRound, cookie: makeCookie(7, 3) });
    const stray = normalizeFlow({ table: 0, priority: 77, match: { inPort: 999 }, actions: [], cookie: makeCookie(9, 1) });
    sw.table.set(flowKey(stray), stray);
    // pod 2 went away while the agent was down: its flows go too.
    const sync = new FlowSync(sw, config);
    const r = await sync.initialSync([pod(1)], { adopt: true });
    const pod2Flows = flows.filter((f) => !desiredIn(sync).has(flowKey(f))).length;
    expect(pod2Flows).toBeGreaterThan(0);
    expect(r.adopted).toEqual({ added: 1, modified: 2, deleted: 1 + pod2Flows });
    expect(r.staleRounds).toEqual([7]);
    expect(sw.sent.length).toBe(4 + pod2Flows);
    expect(sw.table).toEqual(desiredIn(sync));
  });

  it('purges the datapath after adopting only when the bundle changed NetworkPolicy flows', async () => {
    const purges = async (change: (sw: ModelSwitch) => void): Promise<{ flushes: number; sent: number }> => {
      const sw = await previousRun();
      change(sw);
      let flushes = 0;
      const sync = new FlowSync(sw, config, { flushDatapath: async () => void flushes++ });
      await sync.initialSync([pod(1), pod(2)], { adopt: true });
      expect(sw.table).toEqual(desiredIn(sync));
      return { flushes, sent: sw.sent.length };
    };
    // Nothing changed: the megaflows were translated against these very flows.
    expect(await purges(() => undefined)).toEqual({ flushes: 0, sent: 0 });
    // A pod's flow rewritten: not a policy verdict, so no purge either (as after any other sync).
    expect(await purges((sw) => {
      const [k, f] = [...sw.table].find(([, f]) => parseCookie(f.cookie ?? 0n).category === CookieCategory.PodConnectivity)!;
      sw.table.set(k, { ...f, actions: [] });
    })).toEqual({ flushes: 0, sent: 1 });
    // A policy flow nobody wants any more (a Drop of the previous run): its cached verdict must go.
    expect(await purges((sw) => {
      const drop = normalizeFlow({ table: 0, priority: 77, match: { inPort: 999 }, actions: [], cookie: makeCookie(0, CookieCategory.NetworkPolicy, 5) });
      sw.table.set(flowKey(drop), drop);
    })).toEqual({ flushes: 1, sent: 1 });
  });

  it('falls back to installing every flow when the switch refuses the difference', async () => {
    const sw = await previousRun();
    const [first] = sw.table.keys();
    sw.table.delete(first!);
    sw.refuseFlowBundles = 1;
    const sync = new FlowSync(sw, config);
    const r = await sync.initialSync([pod(1), pod(2)], { adopt: true });
    expect(r.adopted).toBeUndefined();
    expect(sw.sent.length).toBe(sync.flows.length);
    expect(sw.table).toEqual(desiredIn(sync));
  });
});
