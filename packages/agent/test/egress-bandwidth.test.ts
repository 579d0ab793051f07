/** Egress bandwidth (EgressTrafficShaping): the meters an egress node keeps, in what order they reach the switch, and their adoption after a restart. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Egress } from '@switchyard/apis/types';
import type { KubeClient, WatchStream } from '@switchyard/kube';
import { OfSwitchError, type FlowTransport, type OfMessage } from '@switchyard/openflow';
import type { Flow } from '@switchyard/openflow/codec';
import { egress as egressFeature, podNodeFeatures } from '@switchyard/openflow-pipeline';
import { ManualClock } from '@switchyard/runtime/testing';
import { waitFor } from '@switchyard/testbed';
import { agentContext } from '../src/context';
import { egressMeters, meterConfig, quantityValue, withMeters } from '../src/features/egress/bandwidth';
import { EgressPart, type EgressGroupSource } from '../src/features/egress/part';
import type { Assignment } from '../src/features/external-ip/ownership';
import { FlowSync } from '../src/flow-sync';
import { MeterTable, type MeterTransport } from '../src/meter-table';
import type { EgressRule } from '@switchyard/openflow-pipeline';

const eg = (name: string, bandwidth?: { rate: string; burst: string }): Egress => ({
  metadata: { name, creationTimestamp: '2026-01-01T00:00:00Z', uid: name }, spec: { appliedTo: { podSelector: { matchLabels: { app: name } } }, externalIPPool: 'p', ...(bandwidth ? { bandwidth } : {}) },
});
const owned = (name: string, mark: number): EgressRule => ({ name, ip: `10.201.0.${mark}`, local: true, mark, localPods: ['10.10.1.5'], remotePods: ['10.10.2.7'] });

describe('quantities and meters', () => {
  test('a quantity\'s value as Kubernetes rounds it (decimal and binary suffixes, milli rounded up)', () => {
    expect(quantityValue('10M')).toBe(10_000_000);
    expect(quantityValue('10Mi')).toBe(10_485_760);
    expect(quantityValue('1.5k')).toBe(1500);
    expect(quantityValue('0.1k')).toBe(100);
    expect(quantityValue('500m')).toBe(1);
    expect(quantityValue('100')).toBe(100);
    expect(quantityValue('ten')).toBeUndefined();
  });

  test('an Egress SNATed here with a bandwidth gets a meter of its mark, in kbit/s and kbit (Antrea divides by 1000); the rules name it', () => {
    const rules = [owned('a', 1), owned('b', 2), { ...owned('c', 3), local: false, mark: undefined as never, ownerIP: '192.168.77.12' }];
    const { meters, problems } = egressMeters(rules, [eg('a', { rate: '10M', burst: '20M' }), eg('b'), eg('c', { rate: '1M', burst: '1M' })]);
    expect([...meters]).toEqual([[1, { rateKbps: 10_000, burstKbit: 20_000 }]]);
    expect(problems).toEqual([]);
    expect(withMeters(rules, meters).map((r) => r.meter)).toEqual([1, undefined, undefined]);
    expect(meterConfig(meters.get(1)!)).toEqual({ flags: ['kbps', 'burst', 'stats'], bands: [{ type: 'drop', rate: 10_000, burstSize: 20_000 }] });
  });

  test('a bandwidth OVS cannot take leaves the Egress unlimited, with a problem naming the field and the value', () => {
    const { meters, problems } = egressMeters([owned('a', 1), owned('b', 2)], [eg('a', { rate: '500', burst: '1M' }), eg('b', { rate: '1M', burst: 'lots' })]);
    expect(meters.size).toBe(0);
    expect(problems).toEqual([
      { egress: 'a', message: 'spec.bandwidth.rate: Invalid value: "500": under 1 kbit/s, the least an OVS meter takes; the Egress is not limited' },
      { egress: 'b', message: 'spec.bandwidth.burst: Invalid value: "lots": not a quantity; the Egress is not limited' },
    ]);
  });
});

/** A switch that records meter mods and flow changes in one log, and holds meters as OVS does (add of an existing id fails). */
class RecordingSwitch implements FlowTransport, MeterTransport {
  readonly log: string[] = [];
  readonly meters = new Map<number, string>();
  async flowLike(msg: OfMessage): Promise<void> {
    if (msg.type !== 'meterMod') throw new Error(`unexpected ${msg.type}`);
    const band = msg.bands[0] ? `${msg.bands[0].rate}/${msg.bands[0].burstSize}` : '';
    if (msg.command === 'add' && this.meters.has(msg.meterId)) throw new OfSwitchError('METER_MOD_FAILED', 'OFPMMFC_METER_EXISTS', msg);
    if (msg.command === 'delete' && !this.meters.has(msg.meterId)) throw new OfSwitchError('METER_MOD_FAILED', 'OFPMMFC_UNKNOWN_METER', msg);
    this.log.push(`meter ${msg.command} ${msg.meterId}${band ? ` ${band}` : ''}`);
    if (msg.command === 'delete') this.meters.delete(msg.meterId);
    else this.meters.set(msg.meterId, band);
  }
  async bundle(messages: Iterable<OfMessage> | AsyncIterable<OfMessage>): Promise<void> {
    const all: OfMessage[] = [];
    for await (const m of messages) all.push(m);
    this.flowChanges(all.flatMap((m) => (m.type === 'flowMod' ? [{ command: m.command, flow: m.flow }] : [])));
  }
  async flowMods(mods: Iterable<{ command: string; flow: Flow }>): Promise<void> {
    this.flowChanges([...mods]);
  }
  async dumpFlows(): Promise<Flow[]> {
    return [];
  }
  private flowChanges(mods: { command: string; flow: Flow }[]): void {
    const metered = mods.filter((m) => m.flow.actions.some((a) => a.type === 'meter'));
    for (const m of metered) this.log.push(`flow ${m.command.startsWith('delete') ? 'delete' : 'add'} meter:${(m.flow.actions.find((a) => a.type === 'meter') as { id: number }).id}`);
  }
}

describe('the egress node\'s meters (EgressPart with a recording switch)', () => {
  let dir: string;
  const objects = { egresses: [] as Egress[] };
  const watchers: ((e: { type: string; object: Record<string, unknown> }) => void)[] = [];
  /** Every path the part asked the API for: the members come from the controller, so never Pods or Namespaces. */
  const asked = new Set<string>();
  const kube: KubeClient = {
    request: async <T>(method: string, path: string) => {
      asked.add(path.replace(/\?.*$/, ''));
      if (method !== 'GET') return {} as T;
      const one = /\/egresses\/([^/?]+)$/.exec(path);
      if (one) return objects.egresses.find((e) => e.metadata.name === one[1]) as T;
      const items = path.includes('/egresses') ? objects.egresses : [];
      return { items, metadata: { resourceVersion: '1' } } as T;
    },
    watch: async (path: string): Promise<WatchStream> => {
      asked.add(`watch ${path.replace(/\?.*$/, '')}`);
      const queue: { type: string; object: Record<string, unknown> }[] = [];
      let wake: (() => void) | undefined;
      let done = false;
      if (path.includes('/egresses')) watchers.push((e) => (queue.push(e), wake?.()));
      const next = async (): Promise<IteratorResult<{ type: string; object: Record<string, unknown> }>> => {
        while (!queue.length && !done) await new Promise<void>((r) => (wake = r));
        return done ? { done: true, value: undefined } : { done: false, value: queue.shift()! };
      };
      return { events: { [Symbol.asyncIterator]: () => ({ next }) }, abort: () => ((done = true), wake?.()) };
    },
  };
  let rv = 1;
  const update = (e: Egress): void => {
    objects.egresses = [...objects.egresses.filter((x) => x.metadata.name !== e.metadata.name), e];
    for (const w of watchers) w({ type: 'MODIFIED', object: { ...e, metadata: { ...e.metadata, resourceVersion: String(++rv) } } as unknown as Record<string, unknown> });
  };
  const remove = (e: Egress): void => {
    objects.egresses = objects.egresses.filter((x) => x.metadata.name !== e.metadata.name);
    for (const w of watchers) w({ type: 'DELETED', object: { ...e, metadata: { ...e.metadata, resourceVersion: String(++rv) } } as unknown as Record<string, unknown> });
  };

  function agent(sw: RecordingSwitch) {
    const base = agentContext({ nodeName: 'n1', podCIDR: '10.10.1.0/24', nodeIP: '192.168.77.11', ovsdbRemote: 'unix:/nonexistent', dataDir: dir, kube, clock: new ManualClock(), egressTrafficShaping: true });
    base.net.close();
    const ctx = { ...base, net: { syncRoutes: async () => undefined } as unknown as typeof base.net };
    const flows = new FlowSync(sw, { round: 1, trafficMode: 'encap', gateway: { ofport: 2, ip: '10.10.1.1', mac: '02:00:00:00:00:01' }, tunnelOfport: 1, podCIDR: '10.10.1.0/24', nodeIP: '192.168.77.11', netdevDatapath: false, enableAntreaPolicy: true, enableProxy: true }, {
      features: [...podNodeFeatures({ enableProxy: true }), egressFeature({ trafficShaping: true })],
    });
    const meters = new MeterTable(() => sw);
    let assigned: ((a: readonly Assignment[]) => void) | undefined;
    // The controller's groups: a1 (app=eg-a, on n1) is eg-a's member.
    const groups = (): EgressGroupSource => ({
      synced: Promise.resolve(),
      groups: () => [{ name: 'eg-a', groupMembers: [{ pod: { namespace: 'default', name: 'a1' }, node: { name: 'n1' }, ips: ['10.10.1.5'] }] }, { name: 'eg-b', groupMembers: [] }],
      connected: () => true,
      stop: async () => undefined,
    });
    const part = new EgressPart(ctx, kube, { flows, meters, onSwitchRestart: () => undefined }, { onAssigned: (cb) => void (assigned = cb) }, groups);
    const placeAll = (placed: [string, string, string][]): void => assigned!(placed.map(([name, ip, owner]) => ({ ip, pool: 'p', services: [], egresses: [name], owner }) as unknown as Assignment));
    const place = (owner: string): void => placeAll([['eg-a', '10.201.0.10', owner]]);
    return { part, flows, meters, place, placeAll };
  }

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'sy-egress-bw-'));
    objects.egresses = [];
    watchers.length = 0;
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  test('the meter goes in before the flow naming it, is modified when the rate changes, and goes after its flow when the bandwidth, the Egress or the IP goes', async () => {
    const sw = new RecordingSwitch();
    const { part, flows, place } = agent(sw);
    objects.egresses = [eg('eg-a', { rate: '10M', burst: '10M' })];
    await part.start();
    await flows.initialSync([], { adopt: false });
    await part.sync();
    place('n1');
    await waitFor('the meter and its flow', async () => (await part.idle(), sw.log.length >= 2), { timeoutMs: 10_000, intervalMs: 10 });
    expect(sw.log).toEqual(['meter add 1 10000/10000', 'flow add meter:1']);
    expect(part.health().detail).toContain('bandwidth meters 1 (10000 kbit/s, burst 10000 kbit)');
    // Two API watches (Egresses, Nodes); no Pod or Namespace is listed or watched.
    expect([...asked].filter((p) => p.startsWith('watch ')).sort()).toEqual(['watch /api/v1/nodes', 'watch /apis/crd.antrea.io/v1beta1/egresses']);
    expect([...asked].filter((p) => /\/(pods|namespaces)\b/.test(p))).toEqual([]);

    update(eg('eg-a', { rate: '20M', burst: '10M' }));
    await waitFor('the meter modified', async () => (await part.idle(), sw.log.length >= 3), { timeoutMs: 10_000, intervalMs: 10 });
    expect(sw.log.slice(2)).toEqual(['meter modify 1 20000/10000']);

    update(eg('eg-a'));
    await waitFor('the meter deleted', async () => (await part.idle(), sw.meters.size === 0), { timeoutMs: 10_000, intervalMs: 10 });
    expect(sw.log.slice(3)).toEqual(['flow delete meter:1', 'meter delete 1']);

    update(eg('eg-a', { rate: '10M', burst: '10M' }));
    await waitFor('the meter back', async () => (await part.idle(), sw.meters.size === 1), { timeoutMs: 10_000, intervalMs: 10 });
    // The IP moves to another node: this one tunnels its members there and keeps no meter.
    place('n2');
    await waitFor('the meter gone with the IP', async () => (await part.idle(), sw.meters.size === 0), { timeoutMs: 10_000, intervalMs: 10 });
    expect(sw.log.slice(-2)).toEqual(['flow delete meter:1', 'meter delete 1']);

    place('n1');
    await waitFor('the meter back with the IP', async () => (await part.idle(), sw.meters.size === 1), { timeoutMs: 10_000, intervalMs: 10 });
    remove(objects.egresses[0]!);
    await waitFor('the meter gone with the Egress', async () => (await part.idle(), sw.meters.size === 0), { timeoutMs: 10_000, intervalMs: 10 });
    expect(sw.log.slice(-2)).toEqual(['flow delete meter:1', 'meter delete 1']);
    await part.stop();
  });

  test('a restarted agent adopts the recorded meters untouched (no modify, no delete) before its flows, and one the switch lost is added again', async () => {
    const sw = new RecordingSwitch();
    const first = agent(sw);
    objects.egresses = [eg('eg-a', { rate: '10M', burst: '10M' })];
    await first.part.start();
    await first.flows.initialSync([], { adopt: false });
    await first.part.sync();
    first.place('n1');
    await waitFor('the meter', async () => (await first.part.idle(), sw.meters.size === 1), { timeoutMs: 10_000, intervalMs: 10 });
    await first.part.stop();

    sw.log.length = 0;
    const second = agent(sw);
    await second.part.start();
    expect(second.meters.ids()).toEqual([1]);
    await second.part.sync();
    second.place('n1');
    await second.part.idle();
    await waitFor('the second run settled', async () => (await second.part.idle(), second.part.meters.size === 1), { timeoutMs: 10_000, intervalMs: 10 });
    // The add found the meter there (refused, not logged): nothing was sent that changed it.
    expect(sw.log.filter((l) => l.startsWith('meter'))).toEqual([]);
    await second.part.stop();

    // ovs-vswitchd lost its meters while the agent was away: the adoption adds it back.
    sw.meters.clear();
    const third = agent(sw);
    await third.part.start();
    expect(sw.log).toEqual(['meter add 1 10000/10000']);
  });

  test('a restarted agent keeps each owned IP\'s mark, so two limited Egresses keep their meters (not swapped by address order)', async () => {
    const sw = new RecordingSwitch();
    const first = agent(sw);
    objects.egresses = [eg('eg-b', { rate: '2M', burst: '2M' })];
    await first.part.start();
    await first.flows.initialSync([], { adopt: false });
    await first.part.sync();
    first.placeAll([['eg-b', '10.201.0.20', 'n1']]);
    await waitFor('eg-b\'s meter', async () => (await first.part.idle(), sw.meters.size === 1), { timeoutMs: 10_000, intervalMs: 10 });
    update(eg('eg-a', { rate: '1M', burst: '1M' }));
    first.placeAll([['eg-b', '10.201.0.20', 'n1'], ['eg-a', '10.201.0.10', 'n1']]);
    await waitFor('both meters', async () => (await first.part.idle(), sw.meters.size === 2), { timeoutMs: 10_000, intervalMs: 10 });
    // eg-b came first: mark and meter 1, though its address sorts after eg-a's.
    expect([...sw.meters]).toEqual([[1, '2000/2000'], [2, '1000/1000']]);
    await first.part.stop();

    sw.log.length = 0;
    const second = agent(sw);
    await second.part.start();
    await second.part.sync();
    second.placeAll([['eg-b', '10.201.0.20', 'n1'], ['eg-a', '10.201.0.10', 'n1']]);
    await waitFor('the second run settled', async () => (await second.part.idle(), second.part.meters.size === 2), { timeoutMs: 10_000, intervalMs: 10 });
    expect(second.part.spec.egresses.map((r) => [r.name, r.mark, r.meter])).toEqual([['eg-a', 2, 2], ['eg-b', 1, 1]]);
    expect(sw.log.filter((l) => l.startsWith('meter'))).toEqual([]);
    await second.part.stop();
  });

  test('a switch that refuses the meter leaves the Egress SNATed here, unlimited, and the part\'s health says why', async () => {
    const sw = new RecordingSwitch();
    sw.flowLike = async (msg) => {
      throw new OfSwitchError('METER_MOD_FAILED', 'OFPMMFC_OUT_OF_METERS', msg);
    };
    const { part, flows, place } = agent(sw);
    objects.egresses = [eg('eg-a', { rate: '10M', burst: '10M' })];
    await part.start();
    await flows.initialSync([], { adopt: false });
    await part.sync();
    place('n1');
    await waitFor('the Egress realized', async () => (await part.idle(), part.spec.egresses.length === 1), { timeoutMs: 10_000, intervalMs: 10 });
    expect(part.spec.egresses[0]).toMatchObject({ name: 'eg-a', local: true, mark: 1 });
    expect(part.spec.egresses[0]!.meter).toBeUndefined();
    expect(part.health()).toMatchObject({ ok: true });
    expect(part.health().detail).toContain('Egress eg-a: spec.bandwidth: the switch refused meter 1');
    await part.stop();
  });

  test('the meter table puts every meter back after ovs-vswitchd restarted', async () => {
    const sw = new RecordingSwitch();
    const table = new MeterTable(() => sw);
    await table.set(1, meterConfig({ rateKbps: 1000, burstKbit: 500 }));
    await table.set(1, meterConfig({ rateKbps: 1000, burstKbit: 500 }));
    await table.set(2, meterConfig({ rateKbps: 2000, burstKbit: 500 }));
    sw.meters.clear();
    await table.replay();
    expect(sw.log).toEqual(['meter add 1 1000/500', 'meter add 2 2000/500', 'meter add 1 1000/500', 'meter add 2 2000/500']);
    await table.delete(3);
    expect(table.ids()).toEqual([1, 2]);
  });
});
