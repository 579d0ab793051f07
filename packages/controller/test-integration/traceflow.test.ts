// The Traceflow controller against the embedded API server: tags for Running Traceflows, results
// written by agents (GET + PUT of status, retried on 409), Succeeded and the tag released, 16 at once
// (14 Running, 2 Pending until tags free up), run-time validation, the timeout and its reason, a
// restart that keeps tags and fails overdue ones, and garbage collection. Time moves by a ManualClock.
import type { Traceflow, TraceflowNodeResult } from '@switchyard/apis/types';
import { TRACEFLOW_TAGS } from '@switchyard/apis/types';
import { KubeRequestError } from '@switchyard/kube';
import { ManualClock } from '@switchyard/runtime/testing';
import type { Controller } from '../src/controller';
import type { TraceflowController } from '../src/parts/traceflow';
import { createPod, eventually, eventuallyPasses, startCluster, type Cluster } from './support';

let c: Cluster;
let controller: Controller | undefined;
// Starts at the wall clock, as the API server's creationTimestamps do; moved forward by the tests.
const clock = new ManualClock(Date.now());
const TF = '/apis/crd.antrea.io/v1beta1/traceflows';

beforeAll(async () => {
  c = await startCluster();
  await createPod(c, 'default', 'client', 'node-a', '10.10.1.2', { app: 'client' });
  await createPod(c, 'default', 'server', 'node-b', '10.10.2.2', { app: 'server' });
  controller = await c.startController({ clock, registerAPIService: false });
});
afterAll(async () => {
  await controller?.stop();
  await c?.api.stop();
});

const part = (): TraceflowController => controller!.part<TraceflowController>('traceflow');
const get = (name: string): Promise<Traceflow> => c.kube.request<Traceflow>('GET', `${TF}/${name}`);
const inPhase = (name: string, phase: string): Promise<Traceflow> => eventually(async () => ((await get(name)).status?.phase === phase ? get(name) : undefined));

async function create(name: string, spec: Partial<Traceflow['spec']> = {}): Promise<void> {
  const body: Traceflow = {
    apiVersion: 'crd.antrea.io/v1beta1',
    kind: 'Traceflow',
    metadata: { name },
    spec: { source: { namespace: 'default', pod: 'client' }, destination: { namespace: 'default', pod: 'server' }, packet: { transportHeader: { tcp: { dstPort: 80 } } }, ...spec },
  };
  await c.kube.request('POST', TF, body);
}

/** What an agent does: GET, add its node's entry to status.results, PUT status over the resourceVersion; again on 409. */
async function agentReports(name: string, result: TraceflowNodeResult): Promise<void> {
  for (;;) {
    const tf = await get(name);
    const results = [...(tf.status?.results ?? []).filter((r) => r.node !== result.node), result];
    try {
      await c.kube.request('PUT', `${TF}/${name}/status`, { ...tf, status: { ...tf.status, results } });
      return;
    } catch (e) {
      if (!(e instanceof KubeRequestError && e.status === 409)) throw e;
    }
  }
}

const sent = (node = 'node-a'): TraceflowNodeResult => ({
  node,
  role: 'Sender',
  timestamp: Math.floor(Date.now() / 1000),
  observations: [{ component: 'SpoofGuard', action: 'Forwarded' }, { component: 'Forwarding', componentInfo: 'Output', action: 'Forwarded', tunnelDstIP: '192.168.0.12' }],
});
const delivered = (node = 'node-b'): TraceflowNodeResult => ({
  node,
  role: 'Receiver',
  timestamp: Math.floor(Date.now() / 1000),
  observations: [{ component: 'Forwarding', action: 'Received' }, { component: 'Forwarding', componentInfo: 'Output', action: 'Delivered' }],
});
/** Keeps the manual clock at or after the wall clock the API server stamps creations with. */
const catchUp = (): void => clock.advance(Math.max(0, Date.now() - clock.now()));

describe('Traceflow controller', () => {
  test('a new Traceflow between two Pods runs with the lowest free tag and a start time', async () => {
    await create('tf-basic');
    const tf = await inPhase('tf-basic', 'Running');
    expect(tf.status?.dataplaneTag).toBe(TRACEFLOW_TAGS[0]);
    expect(tf.status?.startTime).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(part().tags()).toEqual(new Map([['tf-basic', TRACEFLOW_TAGS[0]]]));
    expect(controller!.health().parts.find((p) => p.name === 'traceflow')).toEqual({ name: 'traceflow', ok: true, detail: '1 running, 0 pending' });
  });

  test("the sender's Forwarded keeps it Running; the receiver's Delivered makes it Succeeded, keeps both results and releases the tag", async () => {
    await agentReports('tf-basic', sent());
    await part().idle();
    expect((await get('tf-basic')).status?.phase).toBe('Running');
    // Both nodes at once, racing the controller's own writes: everyone retries on 409.
    await Promise.all([agentReports('tf-basic', delivered()), agentReports('tf-basic', { ...sent(), timestamp: sent().timestamp! + 1 })]);
    const tf = await inPhase('tf-basic', 'Succeeded');
    expect(tf.status?.results?.map((r) => r.node).sort()).toEqual(['node-a', 'node-b']);
    expect(tf.status?.dataplaneTag).toBe(TRACEFLOW_TAGS[0]);
    expect(part().tags().size).toBe(0);
  });

  test('16 at once: 14 Running with distinct tags and 2 Pending, which run once two finish; deleting releases tags', async () => {
    catchUp();
    const names = Array.from({ length: 16 }, (_, i) => `tf-many-${String(i).padStart(2, '0')}`);
    for (const n of names) await create(n);
    const all = await eventually(async () => {
      const tfs = await Promise.all(names.map(get));
      return tfs.every((t) => t.status?.phase === 'Running' || t.status?.phase === 'Pending') ? tfs : undefined;
    });
    const running = all.filter((t) => t.status?.phase === 'Running');
    expect(new Set(running.map((t) => t.status?.dataplaneTag))).toEqual(new Set(TRACEFLOW_TAGS));
    const pending = all.filter((t) => t.status?.phase === 'Pending');
    expect(pending.map((t) => [t.metadata.name, t.status?.reason])).toEqual([
      ['tf-many-14', 'waiting for a free data-plane tag (14 Traceflows running)'],
      ['tf-many-15', 'waiting for a free data-plane tag (14 Traceflows running)'],
    ]);
    expect(controller!.health().parts.find((p) => p.name === 'traceflow')?.detail).toBe('14 running, 2 pending');

    const freed = [all[0]!.status?.dataplaneTag, all[1]!.status?.dataplaneTag];
    await agentReports('tf-many-00', { ...sent(), observations: [{ component: 'NetworkPolicy', action: 'Dropped', networkPolicy: 'K8sNetworkPolicy:default/deny' }] });
    // Succeeded once both ends have reported (the receiver alone is not enough).
    await agentReports('tf-many-01', delivered());
    expect((await get('tf-many-01')).status?.phase).toBe('Running');
    await agentReports('tf-many-01', sent());
    const [p14, p15] = [await inPhase('tf-many-14', 'Running'), await inPhase('tf-many-15', 'Running')];
    expect([p14.status?.dataplaneTag, p15.status?.dataplaneTag]).toEqual(freed);
    expect(p14.status?.startTime).toBeDefined();
    expect(p14.status?.reason).toBeUndefined();
    expect((await get('tf-many-00')).status?.phase).toBe('Succeeded');

    for (const n of names) await c.kube.request('DELETE', `${TF}/${n}`);
    await eventuallyPasses(() => expect(part().tags().size).toBe(0));
  });

  test('a missing source Pod, or one without an IP, fails with the field and value', async () => {
    await c.kube.request('POST', '/api/v1/namespaces/default/pods', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'starting', namespace: 'default' }, spec: { containers: [{ name: 'c', image: 'nginx' }] } });
    await create('tf-nobody', { source: { namespace: 'default', pod: 'nobody' } });
    await create('tf-starting', { source: { namespace: 'default', pod: 'starting' } });
    await create('tf-nosvc', { destination: { namespace: 'default', service: 'nothing' } });
    expect((await inPhase('tf-nobody', 'Failed')).status?.reason).toBe('spec.source.pod: Pod default/nobody not found');
    expect((await inPhase('tf-starting', 'Failed')).status?.reason).toBe('spec.source.pod: Pod default/starting has no IP yet (not scheduled or not started)');
    expect((await inPhase('tf-nosvc', 'Failed')).status?.reason).toBe('spec.destination.service: Service default/nothing not found');
    expect(part().tags().size).toBe(0);
  });

  test('a Running one with no final result fails at its timeout, naming the nodes that reported and the agents not running', async () => {
    catchUp();
    // node-a's agent heartbeats; node-b has no AntreaAgentInfo.
    const beat = new Date(clock.now()).toISOString().replace(/\.\d{3}Z$/, 'Z');
    await c.kube.request('POST', '/apis/crd.antrea.io/v1beta1/antreaagentinfos', { apiVersion: 'crd.antrea.io/v1beta1', kind: 'AntreaAgentInfo', metadata: { name: 'node-a' }, agentConditions: [{ type: 'AgentHealthy', status: 'True', lastHeartbeatTime: beat }] });
    await create('tf-silent', { timeout: 5, source: { namespace: 'default', pod: 'server' }, destination: { namespace: 'default', pod: 'client' } });
    await create('tf-forwarded', { timeout: 5 });
    await inPhase('tf-silent', 'Running');
    await inPhase('tf-forwarded', 'Running');
    await agentReports('tf-forwarded', sent());
    await part().idle();
    await clock.advanceAsync(4_000);
    await part().idle();
    expect((await get('tf-silent')).status?.phase).toBe('Running');
    await clock.advanceAsync(2_000);
    expect((await inPhase('tf-silent', 'Failed')).status?.reason).toBe(
      "timed out after 5s: no result from node node-b (the source Pod's node); the agent on node node-b is not running (no recent AntreaAgentInfo heartbeat)",
    );
    expect((await inPhase('tf-forwarded', 'Failed')).status?.reason).toBe(
      "timed out after 5s: node node-a reported (last: Forwarded), no final result from any node; no result from node node-b (the destination Pod's node); the agent on node node-b is not running (no recent AntreaAgentInfo heartbeat)",
    );
    expect((await get('tf-forwarded')).status?.results).toHaveLength(1);
    expect(part().tags().size).toBe(0);
  });

  test('a restart takes the Running tags again and fails the ones overdue; finished ones are deleted after the retention', async () => {
    catchUp();
    await create('tf-long', { timeout: 300 });
    await create('tf-short', { timeout: 5 });
    const long = await inPhase('tf-long', 'Running');
    const short = await inPhase('tf-short', 'Running');
    await controller!.stop();
    await clock.advanceAsync(10_000);
    controller = await c.startController({ clock, registerAPIService: false, traceflowRetentionMs: 60_000 });
    await create('tf-after');
    const after = await inPhase('tf-after', 'Running');
    expect((await inPhase('tf-short', 'Failed')).status?.reason).toBe("timed out after 5s: no result from node node-a (the source Pod's node)");
    const longNow = await get('tf-long');
    expect(longNow.status?.phase).toBe('Running');
    expect(longNow.status?.dataplaneTag).toBe(long.status?.dataplaneTag);
    // tf-short's tag was free again by the time tf-after was given one; never tf-long's.
    expect(after.status?.dataplaneTag).not.toBe(long.status?.dataplaneTag);
    expect([...part().tags().values()].sort()).toEqual([long.status?.dataplaneTag, after.status?.dataplaneTag].sort());
    expect(short.status?.dataplaneTag).toBeDefined();

    await part().idle();
    await clock.advanceAsync(61_000);
    await eventuallyPasses(async () => {
      const list = await c.kube.request<{ items: Traceflow[] }>('GET', TF);
      expect(list.items.map((t) => t.metadata.name).sort()).toEqual(['tf-after', 'tf-long']);
    });
  });
});
