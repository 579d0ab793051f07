// Traceflow end to end on a 2-node encap lab: `yardctl traceflow` creates the Traceflow, the
// controller gives it a tag, the agents install trace flows, the source node injects the probe,
// every node on the path reports what its pipeline did, and yardctl prints the path. Checked:
// an allowed inter-node packet (both nodes, the tunnel, Delivered), an ACNP Drop and Reject with
// the rule (and the compiler's verdict beside it), a Service's DNAT, a packet leaving the cluster
// (SNAT), no disturbance of an iperf3 stream, live traffic caught by droppedOnly, timeouts and bad
// input with their reasons, 20 at once with 14 tags, and no trace flow left behind.
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import YAML from 'yaml';
import { eventually, run, signalProcess, throughputDisruptions, waitFor } from '@switchyard/testbed';
import type { KubeConfigClient } from '@switchyard/controller';
import type { Traceflow, TraceflowNodeResult } from '@switchyard/apis/types';
import { labClient, readState, type LabState } from '../src/index';
import { NETNS_ANNOTATION } from '../src/kubelet';
import { tcpProbe } from '../src/probe';

const BIN = join(__dirname, '../bin/switchyard-lab');
const YARDCTL = join(__dirname, '../../../packages/cli/dist/bin.js');
const TRACEFLOWS = '/apis/crd.antrea.io/v1beta1/traceflows';
const labDir = mkdtempSync(join(tmpdir(), 'switchyard-lab-traceflow-'));
const lab = (...args: string[]): string => execFileSync(BIN, ['--lab-dir', labDir, ...args], { encoding: 'utf8', timeout: 180_000 });
const execFileP = promisify(execFile);

let st: LabState;
let kube: KubeConfigClient;
const ips = new Map<string, string>();
const netns = new Map<string, string>();

interface PodView { metadata: { name: string; annotations?: Record<string, string> }; status?: { podIP?: string } }

/** Runs yardctl against the lab; resolves with its exit code and output (never rejects on a non-zero exit). */
async function yardctl(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const r = await execFileP(process.execPath, [YARDCTL, '--kubeconfig', st.kubeconfig, ...args], { encoding: 'utf8', timeout: 60_000 });
    return { code: 0, stdout: r.stdout, stderr: r.stderr };
  } catch (e) {
    const x = e as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof x.code === 'number' ? x.code : -1, stdout: x.stdout ?? '', stderr: x.stderr ?? '' };
  }
}

/** `yardctl traceflow ... -o json`: the finished Traceflow. */
async function trace(...args: string[]): Promise<Traceflow> {
  const r = await yardctl('traceflow', ...args, '-o', 'json');
  if (!r.stdout.trim().startsWith('{')) throw new Error(`yardctl traceflow ${args.join(' ')} exited ${r.code}: ${r.stdout}${r.stderr}`);
  return JSON.parse(r.stdout) as Traceflow;
}

const resultOf = (tf: Traceflow, role: 'Sender' | 'Receiver'): TraceflowNodeResult | undefined => tf.status?.results?.find((r) => r.role === role);
const summary = (r: TraceflowNodeResult | undefined): string[] => (r?.observations ?? []).map((o) => `${o.component}/${o.action}`);

/** Flows of Traceflow cookies (category 7) on a node's br-int. */
async function traceflowFlows(node: string): Promise<number> {
  const conf = YAML.parse(execFileSync('cat', [join(labDir, node, 'antrea-agent.conf')], { encoding: 'utf8' })) as { ovsRunDir: string };
  const out = (await run(['ovs-ofctl', '-O', 'OpenFlow15', 'dump-flows', join(conf.ovsRunDir, 'br-int.mgmt')])).stdout;
  return [...out.matchAll(/cookie=(0x[0-9a-f]+)/g)].filter((m) => ((BigInt(m[1]!) >> 40n) & 0xffn) === 7n).length;
}

const noTraceFlowsLeft = (): Promise<void> =>
  waitFor('no trace flow left on either node', async () => (await traceflowFlows('node1')) + (await traceflowFlows('node2')) === 0, { timeoutMs: 15_000, intervalMs: 200 });

const pod = (name: string, node: string, ports: number[] = []) => ({
  apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default', labels: { app: name } },
  spec: { nodeName: node, containers: [{ name: 'c', image: 'x', ports: ports.map((containerPort) => ({ containerPort, protocol: 'TCP' })) }] },
});

beforeAll(async () => {
  lab('up', '--nodes', '2');
  st = readState(labDir)!;
  kube = labClient(st);
  for (const p of [pod('a', 'node1'), pod('c', 'node1', [80]), pod('b', 'node2', [80, 8080, 9000, 9001])]) await kube.request('POST', '/api/v1/namespaces/default/pods', p);
  await waitFor('pods with an IP and a netns', async () => {
    const list = await kube.request<{ items: PodView[] }>('GET', '/api/v1/namespaces/default/pods');
    for (const p of list.items) {
      if (p.status?.podIP) ips.set(p.metadata.name, p.status.podIP);
      const ns = p.metadata.annotations?.[NETNS_ANNOTATION];
      if (ns) netns.set(p.metadata.name, ns);
    }
    return ['a', 'b', 'c'].every((n) => ips.has(n) && netns.has(n));
  }, { timeoutMs: 60_000, intervalMs: 200 });
  await kube.request('POST', '/api/v1/namespaces/default/services', {
    apiVersion: 'v1', kind: 'Service', metadata: { name: 'web', namespace: 'default' }, spec: { selector: { app: 'b' }, ports: [{ port: 80, targetPort: 8080, protocol: 'TCP' }] },
  });
  await kube.request('POST', '/apis/crd.antrea.io/v1beta1/clusternetworkpolicies', {
    apiVersion: 'crd.antrea.io/v1beta1', kind: 'ClusterNetworkPolicy', metadata: { name: 'deny-b' },
    spec: {
      priority: 5, appliedTo: [{ podSelector: { matchLabels: { app: 'b' } } }],
      ingress: [
        { action: 'Drop', name: 'drop-9000', from: [{ podSelector: { matchLabels: { app: 'a' } } }], ports: [{ protocol: 'TCP', port: 9000 }] },
        { action: 'Reject', name: 'reject-9001', from: [{ podSelector: { matchLabels: { app: 'a' } } }], ports: [{ protocol: 'TCP', port: 9001 }] },
      ],
    },
  });
  await waitFor('the ACNP realized on node2', async () => {
    const acnp = await kube.request<{ status?: { phase?: string; currentNodesRealized?: number; desiredNodesRealized?: number } }>('GET', '/apis/crd.antrea.io/v1beta1/clusternetworkpolicies/deny-b');
    return acnp.status?.phase === 'Realized' && acnp.status.currentNodesRealized === acnp.status.desiredNodesRealized;
  }, { timeoutMs: 30_000, intervalMs: 200 });
}, 300_000);

afterAll(() => {
  if (readState(labDir)) lab('down');
}, 120_000);

describe('yardctl traceflow on a 2-node encap lab', () => {
  it('no trace flow on a node while no Traceflow runs', async () => {
    expect([await traceflowFlows('node1'), await traceflowFlows('node2')]).toEqual([0, 0]);
  });

  it('an allowed inter-node TCP packet: node1 sends it into the tunnel to node2, which delivers it to b; the tree shows both nodes', async () => {
    const r = await yardctl('traceflow', '-S', 'default/a', '-D', 'default/b', '-f', 'tcp,tcp_dst=80');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/: Succeeded \(tag \d+\)/);
    expect(r.stdout).toMatch(/node1 \(Sender\)\n\s+SpoofGuard\s+Forwarded\n\s+Forwarding\s+Forwarded\s+Output\s+tunnel to 192\.168\.77\.2\nnode2 \(Receiver\)\n\s+Forwarding\s+Received\s+Classification\n\s+Forwarding\s+Delivered\s+Output\s+to default\/b/);
    await noTraceFlowsLeft();
  });

  it('an ACNP Drop names the policy and rule, and the compiler agrees; a Reject shows Rejected', async () => {
    const dropped = await yardctl('traceflow', '-S', 'default/a', '-D', 'default/b', '-f', 'tcp,tcp_dst=9000');
    expect(dropped.code).toBe(0);
    expect(dropped.stdout).toMatch(/NetworkPolicy\s+Dropped\s+IngressMetric\s+AntreaClusterNetworkPolicy:deny-b rule drop-9000\n\s+explain: Drop by AntreaClusterNetworkPolicy:deny-b .*\(agrees\)/);
    const rejected = await trace('-S', 'default/a', '-D', 'default/b', '-f', 'tcp,tcp_dst=9001');
    expect(resultOf(rejected, 'Receiver')?.observations?.at(-1)).toEqual({ component: 'NetworkPolicy', componentInfo: 'IngressMetric', action: 'Rejected', networkPolicy: 'AntreaClusterNetworkPolicy:deny-b', networkPolicyRule: 'reject-9001' });
    expect(summary(resultOf(rejected, 'Sender'))).toEqual(['SpoofGuard/Forwarded', 'Forwarding/Forwarded']);
  });

  it('a packet to a Service shows the DNAT to its endpoint on the sending node', async () => {
    const tf = await trace('-S', 'default/a', '-D', 'default/web', '-f', 'tcp');
    expect(resultOf(tf, 'Sender')?.observations).toContainEqual({ component: 'LB', componentInfo: 'EndpointDNAT', action: 'Forwarded', translatedDstIP: ips.get('b') });
    expect(resultOf(tf, 'Receiver')?.observations?.at(-1)).toMatchObject({ action: 'Delivered', pod: 'default/b' });
  });

  it('a packet to the fabric host leaves the overlay through the gateway, masqueraded to node1\'s IP; a pod on the same node is delivered by node1 alone', async () => {
    const out = await trace('-S', 'default/a', '-D', '192.168.77.254', '-f', 'tcp,tcp_dst=7777');
    expect(out.status?.results?.length).toBe(1);
    expect(resultOf(out, 'Sender')?.observations?.at(-1)).toEqual({ component: 'Forwarding', componentInfo: 'Output', action: 'ForwardedOutOfOverlay', translatedSrcIP: '192.168.77.1' });
    const local = await trace('-S', 'default/a', '-D', 'default/c');
    expect(local.status?.results?.map((r) => [r.node, summary(r)])).toEqual([['node1', ['SpoofGuard/Forwarded', 'Forwarding/Delivered']]]);
  });

  it('tracing does not disturb an iperf3 stream between the same pods', async () => {
    const server = run(['ip', 'netns', 'exec', netns.get('b')!, 'iperf3', '-s', '-1', '-p', '5201'], { allowFailure: true, timeoutMs: 60_000 });
    await waitFor('the iperf3 server', async () => (await run(['ip', 'netns', 'exec', netns.get('b')!, 'ss', '-ltn'], { allowFailure: true })).stdout.includes(':5201'), { timeoutMs: 10_000, intervalMs: 100 });
    const client = run(['ip', 'netns', 'exec', netns.get('a')!, 'iperf3', '-c', ips.get('b')!, '-p', '5201', '-t', '6', '-i', '0.1', '-b', '50M', '-J', '--connect-timeout', '3000'], { timeoutMs: 60_000, allowFailure: true });
    const traced: string[] = [];
    for (let i = 0; i < 4; i++) {
      const st = (await trace('-S', 'default/a', '-D', 'default/b', '-f', 'tcp,tcp_dst=5201')).status;
      // A failure shows its reason (which node stayed silent, what the others saw last).
      traced.push(st?.phase === 'Succeeded' ? 'Succeeded' : `${st?.phase ?? 'no phase'}: ${st?.reason ?? ''} ${JSON.stringify(st?.results ?? [])}`);
    }
    const report = JSON.parse((await client).stdout) as { intervals: { sum: { bits_per_second: number; retransmits?: number } }[]; end: { sum_sent?: { retransmits?: number } } };
    await server;
    expect(traced).toEqual(['Succeeded', 'Succeeded', 'Succeeded', 'Succeeded']);
    expect(report.intervals.length).toBeGreaterThan(40);
    expect(throughputDisruptions(report.intervals.map((x) => x.sum.bits_per_second), report.intervals.map((x) => x.sum.retransmits ?? 0))).toEqual({ stalls: [], lastingDips: [] });
  });

  it('live traffic with droppedOnly: the first dropped packet of a real connection is caught, where and by which rule', async () => {
    const r = yardctl('traceflow', '-S', 'default/a', '-D', 'default/b', '-f', 'tcp,tcp_dst=9000', '--live', '--dropped-only', '-t', '30s', '-o', 'json');
    await waitFor('the live Traceflow running on both nodes', async () => {
      const list = await kube.request<{ items: Traceflow[] }>('GET', TRACEFLOWS);
      return list.items.some((t) => t.spec.liveTraffic && t.status?.phase === 'Running') && (await traceflowFlows('node1')) > 0 && (await traceflowFlows('node2')) > 0;
    }, { timeoutMs: 15_000, intervalMs: 100 });
    // A real connection attempt from a's namespace (dropped: it never opens).
    expect(await tcpProbe(netns.get('a')!, ips.get('b')!, 9000, 1)).toBe(false);
    const done = await r;
    expect(done.code).toBe(0);
    const tf = JSON.parse(done.stdout) as Traceflow;
    expect(tf.status?.phase).toBe('Succeeded');
    expect(tf.status?.results?.map((x) => [x.node, x.observations?.at(-1)?.action, x.observations?.at(-1)?.networkPolicyRule])).toEqual([['node2', 'Dropped', 'drop-9000']]);
    expect(tf.status?.capturedPacket).toMatchObject({ srcIP: ips.get('a'), dstIP: ips.get('b'), ipHeader: { protocol: 6 }, transportHeader: { tcp: { dstPort: 9000 } } });
    await noTraceFlowsLeft();
  });

  it('live traffic naming only the destination pod: node2 tags what arrives for b, and the drop is caught there', async () => {
    const r = yardctl('traceflow', '-D', 'default/b', '-f', 'tcp,tcp_dst=9000', '--live', '--dropped-only', '-t', '30s', '-o', 'json');
    await waitFor('the live Traceflow running with node2 tagging', async () => {
      const list = await kube.request<{ items: Traceflow[] }>('GET', TRACEFLOWS);
      return list.items.some((t) => t.spec.liveTraffic && t.status?.phase === 'Running') && (await traceflowFlows('node2')) > 0;
    }, { timeoutMs: 15_000, intervalMs: 100 });
    expect(await tcpProbe(netns.get('a')!, ips.get('b')!, 9000, 1)).toBe(false);
    const done = await r;
    expect(done.code).toBe(0);
    const tf = JSON.parse(done.stdout) as Traceflow;
    expect(tf.status?.results?.map((x) => [x.node, x.role, x.observations?.at(-1)?.action, x.observations?.at(-1)?.networkPolicyRule])).toEqual([['node2', 'Receiver', 'Dropped', 'drop-9000']]);
    expect(tf.status?.capturedPacket).toMatchObject({ srcIP: ips.get('a'), dstIP: ips.get('b') });
    await noTraceFlowsLeft();
  });

  it('a trace that cannot complete (live, nothing sent) fails at its timeout with the reason, and leaves no flow', async () => {
    const r = await yardctl('traceflow', '-S', 'default/a', '-D', 'default/b', '-f', 'tcp,tcp_dst=4444', '--live', '-t', '2s');
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/failed: timed out after 2s: no result from node node1 \(the source Pod's node\)/);
    await noTraceFlowsLeft();
  });

  it('bad input fails with a reason naming the field and value: a pod that does not exist, a packet spec that contradicts itself', async () => {
    await kube.request('POST', TRACEFLOWS, { apiVersion: 'crd.antrea.io/v1beta1', kind: 'Traceflow', metadata: { name: 'bad-src' }, spec: { source: { namespace: 'default', pod: 'nope' }, destination: { namespace: 'default', pod: 'b' } } });
    await kube.request('POST', TRACEFLOWS, {
      apiVersion: 'crd.antrea.io/v1beta1', kind: 'Traceflow', metadata: { name: 'bad-packet' },
      spec: { source: { namespace: 'default', pod: 'a' }, destination: { namespace: 'default', pod: 'b' }, packet: { ipHeader: { protocol: 17 }, transportHeader: { tcp: { dstPort: 80 } } } },
    });
    const failed = async (name: string): Promise<string> =>
      eventually(async () => {
        const tf = await kube.request<Traceflow>('GET', `${TRACEFLOWS}/${name}`);
        return tf.status?.phase === 'Failed' ? tf.status.reason ?? '' : undefined;
      }, { what: `${name} Failed`, timeoutMs: 10_000, intervalMs: 100 });
    expect(await failed('bad-src')).toBe('spec.source.pod: Pod default/nope not found');
    expect(await failed('bad-packet')).toMatch(/^spec\.packet/);
    for (const n of ['bad-src', 'bad-packet']) await kube.request('DELETE', `${TRACEFLOWS}/${n}`);
  });

  it('a source pod on a node whose agent is down: Failed at the timeout, naming that node', async () => {
    const n2 = st.nodes.find((n) => n.name === 'node2')!;
    const ref = { pid: n2.agentPid, start: n2.agentStart };
    expect(signalProcess(ref, 'SIGSTOP')).toBe(true);
    try {
      const r = await yardctl('traceflow', '-S', 'default/b', '-D', 'default/a', '-t', '2s');
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/timed out after 2s: no result from node node2 \(the source Pod's node\)/);
    } finally {
      signalProcess(ref, 'SIGCONT');
    }
    await noTraceFlowsLeft();
  });

  it('20 Traceflows at once: 14 tags, the others wait for one, every one succeeds, tags are released and no flow is left', async () => {
    const names = Array.from({ length: 20 }, (_, i) => `many-${String(i).padStart(2, '0')}`);
    await Promise.all(names.map((name) => kube.request('POST', TRACEFLOWS, {
      apiVersion: 'crd.antrea.io/v1beta1', kind: 'Traceflow', metadata: { name },
      spec: { source: { namespace: 'default', pod: 'a' }, destination: { namespace: 'default', pod: 'b' }, packet: { ipHeader: { protocol: 6 }, transportHeader: { tcp: { dstPort: 80 } } }, timeout: 60 },
    })));
    const seenPending = new Set<string>();
    const overlaps: string[] = [];
    const final = await eventually(async () => {
      const list = (await kube.request<{ items: Traceflow[] }>('GET', TRACEFLOWS)).items.filter((t) => names.includes(t.metadata.name ?? ''));
      for (const t of list) if (t.status?.phase === 'Pending') seenPending.add(t.metadata.name ?? '');
      // Never two running with one tag, never more than 14 running.
      const tags = list.filter((t) => t.status?.phase === 'Running').map((t) => t.status?.dataplaneTag);
      if (new Set(tags).size !== tags.length || tags.length > 14) overlaps.push(tags.join(','));
      return list.length === 20 && list.every((t) => t.status?.phase === 'Succeeded' || t.status?.phase === 'Failed') ? list : undefined;
    }, { what: 'all 20 finished', timeoutMs: 90_000, intervalMs: 100 });
    expect(overlaps).toEqual([]);
    expect(final.filter((t) => t.status?.phase !== 'Succeeded').map((t) => `${t.metadata.name}: ${t.status?.reason}`)).toEqual([]);
    expect(final.every((t) => resultOf(t, 'Receiver')?.observations?.at(-1)?.action === 'Delivered')).toBe(true);
    process.stdout.write(`20 Traceflows at once: ${seenPending.size} seen Pending (waiting for a tag)\n`);
    for (const n of names) await kube.request('DELETE', `${TRACEFLOWS}/${n}`);
    await noTraceFlowsLeft();
  });
});
