// The AntreaAgentInfo of an ExternalNode agent: written at start and then once a minute by the
// clock the agent is given, with AgentHealthy saying why the ExternalNode is not realized.
import { KubeRequestError, type KubeClient, type WatchStream } from '@switchyard/kube';
import { ManualClock } from '@switchyard/runtime/testing';
import type { AntreaAgentInfo } from '@switchyard/apis';
import { AgentInfoReporter } from '../src/features/agentinfo/agent-info';
import { agentInfo, type AgentIntrospection } from '../src/features/api/api';

/** A KubeClient over one in-memory AntreaAgentInfo, recording each write. */
class OneObjectApi implements KubeClient {
  obj: AntreaAgentInfo | undefined;
  writes: { method: string; at: number; obj: AntreaAgentInfo }[] = [];
  constructor(private readonly clock: ManualClock) {}
  async request<T>(method: string, _path: string, body?: unknown): Promise<T> {
    if (method === 'GET') {
      if (!this.obj) throw new KubeRequestError('GET', _path, 404, 'not found');
      return this.obj as T;
    }
    this.obj = { ...(body as AntreaAgentInfo), metadata: { ...(body as AntreaAgentInfo).metadata, resourceVersion: String(this.writes.length + 1) } };
    this.writes.push({ method, at: this.clock.now(), obj: this.obj });
    return this.obj as T;
  }
  watch(): Promise<WatchStream> {
    throw new Error('not used');
  }
}

function vmAgent(problem: () => string | undefined): AgentIntrospection {
  return {
    nodeName: 'vm1', podCIDR: '', bridge: 'br-int', round: 3, startTime: new Date(0),
    podInterfaces: () => [], installedFlows: async () => [], tableName: () => undefined, tableId: () => undefined,
    ovsVersion: async () => '3.1.0', policyCounts: () => ({ policies: 1, addressGroups: 1, appliedToGroups: 1 }), controllerConnected: () => true,
    healthCondition: () => {
      const p = problem();
      return p === undefined ? { status: 'True' } : { status: 'False', reason: 'ExternalNodeNotRealized', message: p };
    },
  };
}

const settle = () => new Promise<void>((r) => setImmediate(r));

describe('AntreaAgentInfo of an ExternalNode agent', () => {
  test('is created at start, then updated every minute and not in between', async () => {
    const clock = new ManualClock();
    const kube = new OneObjectApi(clock);
    const r = new AgentInfoReporter({ kube, agent: vmAgent(() => undefined), clock });
    r.start();
    await settle();
    expect(kube.writes.map((w) => w.method)).toEqual(['POST']);
    await clock.advanceAsync(59_000);
    expect(kube.writes).toHaveLength(1);
    await clock.advanceAsync(1_000);
    await clock.advanceAsync(60_000);
    expect(kube.writes.map((w) => [w.method, w.at - kube.writes[0]!.at])).toEqual([['POST', 0], ['PUT', 60_000], ['PUT', 120_000]]);
    expect(kube.obj?.agentConditions?.find((c) => c.type === 'AgentHealthy')).toEqual({ type: 'AgentHealthy', status: 'True', lastHeartbeatTime: new Date(kube.writes[2]!.at).toISOString() });
    await r.stop();
    await clock.advanceAsync(300_000);
    expect(kube.writes).toHaveLength(3);
  });

  test('a failed write is tried again after 1, 2, 4 s (not a whole period later), then the heartbeat resumes', async () => {
    const clock = new ManualClock();
    const kube = new OneObjectApi(clock);
    let failing = 3;
    const flaky: KubeClient = { request: async (method, path, body) => { if (failing > 0) { failing--; throw new Error('br-int.mgmt: not connected'); } return kube.request(method, path, body); }, watch: () => kube.watch() };
    const r = new AgentInfoReporter({ kube: flaky, agent: vmAgent(() => undefined), clock });
    const t0 = clock.now();
    r.start();
    await settle();
    expect([r.writes, String(r.lastError)]).toEqual([0, 'Error: br-int.mgmt: not connected']);
    await clock.advanceAsync(1_000);
    await clock.advanceAsync(2_000);
    expect(kube.writes).toHaveLength(0);
    await clock.advanceAsync(4_000);
    expect(kube.writes.map((w) => w.at - t0)).toEqual([7_000]);
    expect(r.lastError).toBeUndefined();
    await clock.advanceAsync(59_000);
    expect(kube.writes).toHaveLength(1);
    await clock.advanceAsync(1_000);
    expect(kube.writes.map((w) => w.at - t0)).toEqual([7_000, 67_000]);
    await r.stop();
  });

  test('says why the ExternalNode is not realized, at the next heartbeat', async () => {
    const clock = new ManualClock();
    const kube = new OneObjectApi(clock);
    const state: { problem?: string } = {};
    const r = new AgentInfoReporter({ kube, agent: vmAgent(() => state.problem), clock });
    r.start();
    await settle();
    state.problem = 'ExternalNode vm-ns/vm1: interface eth9 is not on this host';
    await clock.advanceAsync(60_000);
    expect(kube.obj?.agentConditions?.[0]).toMatchObject({ type: 'AgentHealthy', status: 'False', reason: 'ExternalNodeNotRealized', message: state.problem });
    await r.stop();
  });
});

describe('nodeSubnets', () => {
  const node = (podCIDR: string, podCIDRv6?: string): AgentIntrospection => ({ ...vmAgent(() => undefined), podCIDR, ...(podCIDRv6 !== undefined ? { podCIDRv6 } : {}) });
  test('lists every pod CIDR of the node, IPv4 first, and none on an ExternalNode', async () => {
    expect((await agentInfo(node('10.10.1.0/24', 'fd00:10:1::/64'))).nodeSubnets).toEqual(['10.10.1.0/24', 'fd00:10:1::/64']);
    expect((await agentInfo(node('10.10.1.0/24'))).nodeSubnets).toEqual(['10.10.1.0/24']);
    expect((await agentInfo(node('fd00:10:1::/64'))).nodeSubnets).toEqual(['fd00:10:1::/64']);
    expect((await agentInfo(node(''))).nodeSubnets).toEqual([]);
  });
});
