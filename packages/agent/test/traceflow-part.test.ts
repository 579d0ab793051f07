// The agent's Traceflow part against an in-process API server, with the node's switch stood in
// (its flows and OpenFlow connection): what a busy node must not lose. A trace whose flows the
// switch refused starts again on the reconciler's retry (it used to stay half-active for good and
// time out); a result whose status write failed is written from the next packet-in of its tag
// (the trace used to time out with that node silent). Cost: about 2 s (the API server's start).
// Each Traceflow is Running before its part starts, so the part sees it once, from its first list:
// created after, its two events (created, then Running) could reach the part after the test had
// moved the clock, and the re-injection timer fired too (a loaded CI run saw two probes).
import { EventEmitter } from 'node:events';
import { KubeConfig } from '@kubernetes/client-node';
import { loadCrds } from '@switchyard/apis';
import type { Traceflow } from '@switchyard/apis/types';
import { KubeConfigClient, KubeRequestError, type KubeClient } from '@switchyard/kube';
import { startKubeApi, type KubeApiServer } from '@switchyard/kube-api';
import type { PacketIn } from '@switchyard/openflow';
import { PACKETIN_CATEGORY, type LocalPod } from '@switchyard/openflow-pipeline';
import { RECONCILE_RETRY } from '@switchyard/runtime';
import { ManualClock } from '@switchyard/runtime/testing';
import { waitFor } from '@switchyard/testbed';
import { agentContext } from '../src/context';
import { TRACEFLOWS, TraceflowPart } from '../src/features/traceflow/part';
import type { NodeDatapath } from '../src/features/node/part';
import { buildProbe } from '../src/packet';

const A: LocalPod = { name: 'a', namespace: 'default', ofport: 10, ips: ['10.10.1.5'], mac: '02:00:00:00:00:0a' };
const TAG = 3;
const PATH = `/apis/${TRACEFLOWS.group}/${TRACEFLOWS.version}/traceflows`;

let api: KubeApiServer;
let kube: KubeClient;
beforeAll(async () => {
  api = await startKubeApi({ crds: loadCrds() as never });
  const kc = new KubeConfig();
  kc.loadFromFile(api.kubeconfigPath);
  kube = new KubeConfigClient(kc);
});
afterAll(() => api.stop());

/** The node's switch as the part sees it: `addTrace` refuses its first `refusals` calls. */
function switchStandIn(refusals: number) {
  const openflow = Object.assign(new EventEmitter(), { packetOuts: 0, packetOut: async () => void openflow.packetOuts++ });
  let calls = 0;
  const flows = {
    config: { gateway: { mac: '02:00:00:00:00:01', ips: ['10.10.1.1'] }, nodeIP: '192.168.77.1', podCIDR: '10.10.1.0/24' },
    nodeFlows: undefined,
    conjIds: new Map<string, number>(),
    get: (slice: string) => ({ pods: [A], remoteNodes: [], policies: [], egress: undefined })[slice],
    addTrace: async () => {
      if (++calls <= refusals) throw new Error('the switch refused the bundle');
      return 5;
    },
    removeTrace: async () => undefined,
  };
  return { node: { flows, openflow } as unknown as Pick<NodeDatapath, 'flows' | 'openflow'>, openflow, addTraceCalls: () => calls };
}

/** A Traceflow from pod a to an IP, set Running with {@link TAG} as the controller does. */
async function runningTraceflow(name: string, destination = '10.10.2.7', sourcePod = 'a'): Promise<Traceflow> {
  const tf = await kube.request<Traceflow>('POST', PATH, { apiVersion: 'crd.antrea.io/v1beta1', kind: 'Traceflow', metadata: { name }, spec: { source: { namespace: 'default', pod: sourcePod }, destination: { ip: destination } } });
  return kube.request<Traceflow>('PUT', `${PATH}/${name}/status`, { ...tf, status: { phase: 'Running', dataplaneTag: TAG, startTime: new Date().toISOString() } });
}

/** A Traceflow packet-in on table 0 of a probe carrying the tag in its DSCP (`reply`: the destination's answer, with the tag copied). */
function tracePacketIn(reply = false, tableId = 0): PacketIn {
  const probe = { srcMac: A.mac, dstMac: '02:00:00:00:00:01', srcIP: A.ips[0]!, dstIP: '10.10.2.7', protocol: 6, srcPort: 40000 + TAG, dstPort: 80 };
  const frame = buildProbe(reply ? { ...probe, srcIP: probe.dstIP, dstIP: probe.srcIP, srcPort: probe.dstPort, dstPort: probe.srcPort } : probe);
  frame[15] = TAG << 2;
  return { type: 'packetIn2', packet: frame, userdata: Uint8Array.of(PACKETIN_CATEGORY.TF), tableId, metadata: {} } as unknown as PacketIn;
}

async function startPart(client: KubeClient, node: Pick<NodeDatapath, 'flows' | 'openflow'>, clock: ManualClock): Promise<TraceflowPart> {
  const ctx = agentContext({ nodeName: 'n1', podCIDR: '10.10.1.0/24', nodeIP: '192.168.77.1', ovsdbRemote: 'unix:/nonexistent', dataDir: '/nonexistent', kube: client, clock });
  const part = new TraceflowPart(ctx, client, node);
  await part.start();
  await part.sync();
  return part;
}

it('a trace whose flows the switch refused starts again on the retry, then injects its probe', async () => {
  const clock = new ManualClock(Date.now());
  const sw = switchStandIn(1);
  await runningTraceflow('refused-once');
  const part = await startPart(kube, sw.node, clock);
  try {
    await waitFor('the refused addTrace', () => sw.addTraceCalls() === 1, { timeoutMs: 10_000, intervalMs: 20 });
    await part.idle();
    expect(part.activeTraces()).toEqual([]);
    expect(sw.openflow.packetOuts).toBe(0);
    await clock.advanceAsync(RECONCILE_RETRY.initialMs);
    await part.idle();
    expect(sw.addTraceCalls()).toBe(2);
    expect(part.activeTraces()).toEqual([{ name: 'refused-once', tag: TAG, source: true }]);
    expect(sw.openflow.packetOuts).toBe(1);
  } finally {
    await part.stop();
    await kube.request('DELETE', `${PATH}/refused-once`);
  }
}, 30_000);

it('a result whose status write failed is written from the next packet-in of the tag', async () => {
  const clock = new ManualClock(Date.now());
  const sw = switchStandIn(0);
  let refused = 0;
  const flaky: KubeClient = {
    request: (method, path, body, contentType) => {
      if (method === 'PUT' && path.endsWith('/status') && refused++ === 0) return Promise.reject(new KubeRequestError(method, path, 503, 'the API server is busy'));
      return kube.request(method, path, body, contentType);
    },
    watch: (path) => kube.watch(path),
  };
  await runningTraceflow('write-fails-once');
  const part = await startPart(flaky, sw.node, clock);
  try {
    await waitFor('the trace active on the node', () => part.activeTraces().length === 1, { timeoutMs: 10_000, intervalMs: 20 });
    const results = async () => (await kube.request<Traceflow>('GET', `${PATH}/write-fails-once`)).status?.results ?? [];
    sw.openflow.emit('packetIn', tracePacketIn());
    await waitFor('the refused write', () => refused === 1, { timeoutMs: 10_000, intervalMs: 20 });
    expect(part.reports).toBe(0);
    expect(await results()).toEqual([]);
    sw.openflow.emit('packetIn', tracePacketIn());
    await waitFor('the result written', () => part.reports === 1, { timeoutMs: 10_000, intervalMs: 20 });
    expect((await results()).map((r) => [r.node, r.role, r.observations?.[0]])).toEqual([['n1', 'Sender', { component: 'SpoofGuard', action: 'Forwarded' }]]);
    // One result per node: a third packet-in adds nothing.
    sw.openflow.emit('packetIn', tracePacketIn());
    await part.idle();
    expect(part.reports).toBe(1);
  } finally {
    await part.stop();
    await kube.request('DELETE', `${PATH}/write-fails-once`);
  }
}, 30_000);

it('a trace whose probe cannot be built (IPv6 from a pod without an IPv6 address, which the controller refuses) injects nothing and stays quiet', async () => {
  const clock = new ManualClock(Date.now());
  const sw = switchStandIn(0);
  await runningTraceflow('no-v6-source', 'fd00:10:10:2::7');
  const part = await startPart(kube, sw.node, clock);
  try {
    await waitFor('the trace active on the node', () => part.activeTraces().some((t) => t.name === 'no-v6-source'), { timeoutMs: 10_000, intervalMs: 20 });
    await part.idle();
    await clock.advanceAsync(5_000);
    expect(sw.openflow.packetOuts).toBe(0);
    expect(part.health()).toEqual({ ok: true, detail: '1 Traceflows active; 0 results reported' });
  } finally {
    await part.stop();
    await kube.request('DELETE', `${PATH}/no-v6-source`);
  }
}, 30_000);

it('a receiving node does not report the destination\'s tagged answer to the probe, and reports the probe after it', async () => {
  // Seen in CI: the receiver's trace flows came after the first probe had passed; the destination
  // answered a later probe with a RST carrying the probe's DSCP, and that answer (back through the
  // tunnel, never a final result) became the node's only result.
  const clock = new ManualClock(Date.now());
  const sw = switchStandIn(0);
  await runningTraceflow('tagged-answer', '10.10.2.7', 'elsewhere');
  const part = await startPart(kube, sw.node, clock);
  try {
    await waitFor('the trace active on the node', () => part.activeTraces().length === 1, { timeoutMs: 10_000, intervalMs: 20 });
    expect(part.activeTraces()).toEqual([{ name: 'tagged-answer', tag: TAG, source: false }]);
    // The answer's packet-in comes from table 0, the probe's from table 1: the result names which was written.
    sw.openflow.emit('packetIn', tracePacketIn(true, 0));
    sw.openflow.emit('packetIn', tracePacketIn(false, 1));
    await waitFor('a result reported', () => part.reports === 1, { timeoutMs: 10_000, intervalMs: 20 });
    await part.idle();
    expect(part.reports).toBe(1);
    const results = (await kube.request<Traceflow>('GET', `${PATH}/tagged-answer`)).status?.results ?? [];
    expect(results.map((r) => [r.node, r.role, r.observations])).toEqual([
      ['n1', 'Receiver', [{ component: 'Forwarding', componentInfo: 'Classification', action: 'Received' }, { component: 'Forwarding', componentInfo: 'table 1', action: 'Dropped' }]],
    ]);
  } finally {
    await part.stop();
    await kube.request('DELETE', `${PATH}/tagged-answer`);
  }
}, 30_000);
