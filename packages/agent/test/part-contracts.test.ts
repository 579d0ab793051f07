/**
 * runtime's part contract (checkPartContract) over every part of the agent that runs without OVS:
 * a recording switch stands in for the OpenFlow connection and a quiet Kubernetes API (empty
 * lists, watches that wait) for the cluster. The node, pods and WireGuard parts need a switch or
 * wireguard-go: the integration tests run them.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KubeClient, WatchStream } from '@switchyard/kube';
import type { FlowTransport, PacketIn, PacketInChannel } from '@switchyard/openflow';
import type { Flow } from '@switchyard/openflow/codec';
import { TrafficControlPart } from '../src/features/traffic-control/part';
import { checkPartContract, ManualClock } from '@switchyard/runtime/testing';
import type { Part } from '@switchyard/runtime';
import { agentContext, type AgentContext } from '../src/context';
import type { AgentIntrospection } from '../src/features/api/api';
import { AgentApi } from '../src/features/api/part';
import { AgentInfoHeartbeat } from '../src/features/agentinfo/part';
import { MulticlusterRoutes } from '../src/features/multicluster/part';
import { PodGC } from '../src/features/pod-gc/part';
import type { PodNetwork } from '../src/features/pods/pod-network';
import { PolicyEnforcement } from '../src/features/policy/part';
import { RemoteNodes } from '../src/features/routes/part';
import { ServiceProxy } from '../src/features/services/part';
import { ServiceExternalIPPart } from '../src/features/external-ip/part';
import { EgressPart } from '../src/features/egress/part';
import { MeterTable } from '../src/meter-table';
import { FlowSync } from '../src/flow-sync';
import { InterfaceStore } from '../src/interface-store';

/** A switch that takes every bundle and holds no flows. */
class QuietSwitch implements FlowTransport, PacketInChannel {
  async bundle(): Promise<void> {}
  async dumpFlows(): Promise<Flow[]> {
    return [];
  }
  async flowMods(): Promise<void> {}
  on(_e: 'packetIn', _fn: (p: PacketIn) => void): void {}
  off(_e: 'packetIn', _fn: (p: PacketIn) => void): void {}
  async resume(): Promise<void> {}
  async packetOut(): Promise<void> {}
}

/** A Kubernetes API with nothing in it: every list is empty, every write is taken, watches wait until aborted. */
const quietKube: KubeClient = {
  request: async <T>(method: string) => (method === 'GET' ? { items: [], metadata: { resourceVersion: '1' } } : {}) as T,
  watch: async (): Promise<WatchStream> => {
    let abort!: () => void;
    const aborted = new Promise<void>((r) => (abort = r));
    const end = async (): Promise<IteratorResult<never>> => (await aborted, { done: true, value: undefined });
    return { events: { [Symbol.asyncIterator]: () => ({ next: end }) }, abort };
  },
};

const introspection: AgentIntrospection = {
  nodeName: 'n1', podCIDR: '10.10.1.0/24', bridge: 'br-int', round: 1, startTime: new Date(0),
  podInterfaces: () => [], installedFlows: async () => [], tableName: () => undefined, tableId: () => undefined, ovsVersion: async () => '3.3.0',
  policyCounts: () => ({ policies: 0, addressGroups: 0, appliedToGroups: 0 }), controllerConnected: () => undefined,
};

let dir: string;
let ctx: AgentContext;
const sw = new QuietSwitch();
/** What the parts read of the node part, without a switch behind it. */
const node = () => {
  const flows = new FlowSync(sw, { round: 1, trafficMode: 'encap', gateway: { ofport: 2, ip: '10.10.1.1', mac: '02:00:00:00:00:01' }, tunnelOfport: 1, podCIDR: '10.10.1.0/24', nodeIP: '192.168.1.1', netdevDatapath: false, enableAntreaPolicy: true });
  return { flows, openflow: sw, interfaces: new InterfaceStore(), transport: undefined, transport6: undefined, vswitch: undefined as never, onSwitchRestart: () => undefined, meters: new MeterTable(() => ({ flowLike: async () => undefined })) };
};

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'sy-part-contract-'));
  ctx = agentContext({ nodeName: 'n1', podCIDR: '10.10.1.0/24', nodeIP: '192.168.1.1', ovsdbRemote: 'unix:/nonexistent', dataDir: dir, kube: quietKube, clock: new ManualClock() });
});
afterAll(() => {
  ctx.net.close();
  rmSync(dir, { recursive: true, force: true });
});

const parts: [string, () => Part][] = [
  ['policies', () => new PolicyEnforcement(ctx, node())],
  ['api', () => new AgentApi(ctx, () => introspection)],
  ['routes', () => new RemoteNodes(ctx, quietKube, node())],
  ['pod-gc', () => new PodGC(ctx, quietKube, node(), { pods: undefined as unknown as PodNetwork })],
  ['services', () => new ServiceProxy(ctx, quietKube, node())],
  ['multicluster', () => new MulticlusterRoutes(ctx, quietKube, node(), { namespace: 'kube-system', enablePodToPodConnectivity: false })],
  ['agentinfo', () => new AgentInfoHeartbeat(ctx, quietKube, () => introspection, { port: undefined })],
  ['traffic-control', () => new TrafficControlPart(ctx, quietKube, node())],
  ['external-ip', () => new ServiceExternalIPPart(ctx, quietKube, { transport: { dev: 'eth0', prefix: 24 } })],
  ['egress', () => new EgressPart(ctx, quietKube, node(), { onAssigned: () => undefined })],
];

describe.each(parts)('the %s part', (name, make) => {
  test('keeps the part contract, and is healthy once synced with nothing to do', async () => {
    const report = await checkPartContract(make);
    expect(report.name).toBe(name);
    expect(report.health.running).toMatchObject({ ok: true });
  });
});
