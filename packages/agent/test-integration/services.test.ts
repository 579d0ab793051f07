// AntreaProxy on real OVS (userspace) and netns, fed by the embedded Kubernetes API: Pods with
// labels and Ready status, a Service selecting them, the API's EndpointSlice controller, and the
// agent turning both into select groups. A client pod reaches the ClusterIP over TCP and the
// backends answer with their own names.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { loadCrds } from '@switchyard/apis';
import { KubeConfigClient } from '@switchyard/kube';
import { startKubeApi, type KubeApiServer } from '@switchyard/kube-api';
import { Testbed, waitFor } from '@switchyard/testbed';
import { Agent } from '../src/index';
import { addPod, ensurePluginBuilt, sandbox, startNode, stopNode, type Node, type Sandbox } from './helpers';

jest.setTimeout(240_000);

const NODE = 'svc-node';
let tb: Testbed;
let api: KubeApiServer;
let kube: KubeConfigClient;
let node: Node | undefined;
let kcDir: string;

interface Backend {
  sb: Sandbox;
  ip: string;
}
let s1: Backend;
let s2: Backend;
let client: Sandbox;

beforeAll(async () => {
  await ensurePluginBuilt();
  tb = await Testbed.create();
  api = await startKubeApi({ crds: loadCrds() as never });
  kcDir = mkdtempSync(join(tmpdir(), 'sy-svc-kc-'));
  const kc = new KubeConfig();
  kc.loadFromFile(api.writeKubeconfig(join(kcDir, 'kubeconfig')));
  kube = new KubeConfigClient(kc);
  node = await startNode(tb, '10.73.0.0/24', { nodeName: NODE, kube });
  const backend = async (name: string): Promise<Backend> => {
    const sb = await sandbox(tb, name);
    const { ip } = await addPod(node!, sb);
    // Each server answers with its own name, so the client sees which backend it reached.
    void tb.spawn(['socat', 'TCP-LISTEN:8080,reuseaddr,fork', `SYSTEM:echo ${name}`], sb.netns.name);
    await apiPod(name, ip, { app: 'web' });
    return { sb, ip };
  };
  s1 = await backend('web-1');
  s2 = await backend('web-2');
  client = await sandbox(tb, 'client');
  // Every pod has its Pod object (kubelet would): a restarted agent detaches pods the API does not know.
  await apiPod('client', (await addPod(node, client)).ip, { app: 'client' });
  await waitFor('servers listening', async () => (await Promise.all([s1, s2].map((s) => s.sb.netns.exec(['ss', '-Hltn', 'sport = :8080'])))).every((r) => r.stdout.includes('8080')), { timeoutMs: 10_000 });
});

afterAll(async () => {
  await stopNode(node);
  await api?.stop().catch(() => undefined);
  await tb?.cleanup();
  if (kcDir) rmSync(kcDir, { recursive: true, force: true });
});

/** A Pod object on this node with its address and readiness, as kubelet would report them. */
async function apiPod(name: string, ip: string, labels: Record<string, string>): Promise<void> {
  const pod = await kube.request<Record<string, unknown>>('POST', '/api/v1/namespaces/default/pods', {
    apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default', labels },
    spec: { nodeName: NODE, containers: [{ name: 'srv', image: 'socat', ports: [{ name: 'web', containerPort: 8080, protocol: 'TCP' }] }] },
  });
  await setReady(name, ip, true, pod);
}

async function setReady(name: string, ip: string, ready: boolean, current?: Record<string, unknown>): Promise<void> {
  const pod = current ?? (await kube.request<Record<string, unknown>>('GET', `/api/v1/namespaces/default/pods/${name}`));
  await kube.request('PUT', `/api/v1/namespaces/default/pods/${name}/status`, {
    ...pod,
    status: { phase: 'Running', podIP: ip, podIPs: [{ ip }], conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }] },
  });
}

async function createService(name: string, selector: Record<string, string>, port: number): Promise<string> {
  const svc = await kube.request<{ spec: { clusterIP: string } }>('POST', '/api/v1/namespaces/default/services', {
    apiVersion: 'v1', kind: 'Service', metadata: { name, namespace: 'default' },
    spec: { selector, ports: [{ name: 'http', port, protocol: 'TCP', targetPort: 'web' }] },
  });
  return svc.spec.clusterIP;
}

const sock = (): string => node!.ovs.mgmtSocket('br-int');
const dumpGroups = async (): Promise<string> => node!.ovs.ofctl('-O', 'OpenFlow15', 'dump-groups', sock());
const dumpFlows = async (): Promise<string> => node!.ovs.ofctl('-O', 'OpenFlow15', 'dump-flows', sock());
/** Buckets of the group whose buckets DNAT to the given endpoints' addresses (0 = no such group). */
const groupLine = async (needle: string): Promise<string | undefined> => (await dumpGroups()).split('\n').find((l) => l.includes('type=select') && l.includes(needle));
const bucketCount = (line: string | undefined): number => (line ? line.split('bucket=').length - 1 : 0);
/** The hex form the group's bucket load uses for an endpoint IP (reg3). */
const hexIp = (ip: string): string => `0x${ip.split('.').map((o) => Number(o).toString(16).padStart(2, '0')).join('').replace(/^0+/, '')}`;

/** One TCP exchange from the client; the answering backend's name, or '' (refused / timed out). */
async function hit(ip: string, port: number): Promise<{ name: string; stderr: string; ms: number }> {
  const t0 = Date.now();
  const r = await client.netns.exec(['socat', '-T2', '-', `TCP:${ip}:${port},connect-timeout=3`], { allowFailure: true, input: '', timeoutMs: 6000 });
  return { name: r.stdout.trim(), stderr: r.stderr, ms: Date.now() - t0 };
}

describe('ClusterIP Service with two local backends', () => {
  let clusterIP: string;

  test('both backends answer on ClusterIP:port over several connections', async () => {
    clusterIP = await createService('web', { app: 'web' }, 80);
    await waitFor('the Service group with both endpoints', async () => bucketCount(await groupLine(hexIp(s1.ip))) === 2 && (await groupLine(hexIp(s2.ip))) !== undefined, { timeoutMs: 20_000 });
    const seen = new Set<string>();
    const answers: string[] = [];
    // Buckets are picked by a hash of the 5-tuple: a new source port per connection spreads them.
    for (let i = 0; i < 40 && seen.size < 2; i++) {
      const { name } = await hit(clusterIP, 80);
      answers.push(name);
      if (name) seen.add(name);
    }
    expect(answers.every((a) => a === 'web-1' || a === 'web-2')).toBe(true);
    expect([...seen].sort()).toEqual(['web-1', 'web-2']);
  });

  test('a backend turning not-ready leaves one bucket, and every connection lands on the other', async () => {
    await setReady('web-2', s2.ip, false);
    await waitFor('the group down to one bucket', async () => bucketCount(await groupLine(hexIp(s1.ip))) === 1, { timeoutMs: 20_000 });
    expect(await groupLine(hexIp(s2.ip))).toBeUndefined();
    const answers: string[] = [];
    for (let i = 0; i < 6; i++) answers.push((await hit(clusterIP, 80)).name);
    expect(answers).toEqual(Array(6).fill('web-1'));
    await setReady('web-2', s2.ip, true);
    await waitFor('both buckets back', async () => bucketCount(await groupLine(hexIp(s1.ip))) === 2, { timeoutMs: 20_000 });
  });

  test('a backend reaching its own Service may land on itself (hairpin) and still gets answers', async () => {
    const seen = new Set<string>();
    for (let i = 0; i < 40 && seen.size < 2; i++) {
      const r = await s1.sb.netns.exec(['socat', '-T2', '-', `TCP:${clusterIP}:80,connect-timeout=3`], { allowFailure: true, input: '', timeoutMs: 6000 });
      seen.add(r.stdout.trim());
    }
    expect([...seen].sort()).toEqual(['web-1', 'web-2']);
  });

  test('after an agent restart the Service is in the first (adopted) round: group and flows present when start returns', async () => {
    const before = node!.agent.round;
    await node!.agent.stop();
    node!.agent = await Agent.start(node!.options);
    expect(node!.agent.round).toBe(before);
    expect(node!.agent.part('node').flows.initialResult?.adopted).toEqual({ added: 0, modified: 0, deleted: 0 });
    // No wait: the Services were listed before the round was installed.
    expect(bucketCount(await groupLine(hexIp(s1.ip)))).toBe(2);
    const lb = (await dumpFlows()).split('\n').filter((l) => l.includes(`nw_dst=${clusterIP},tp_dst=80`));
    expect(lb).toHaveLength(1);
    expect(node!.agent.part('services').services.specs.find((s) => s.clusterIP === clusterIP)?.endpoints).toHaveLength(2);
    const names = new Set<string>();
    for (let i = 0; i < 40 && names.size < 2; i++) names.add((await hit(clusterIP, 80)).name);
    expect([...names].sort()).toEqual(['web-1', 'web-2']);
  });

  test('a Service without endpoints refuses connections quickly (RST from the agent)', async () => {
    const emptyIP = await createService('empty', { app: 'nobody' }, 81);
    await waitFor('the empty Service flow', async () => (await dumpFlows()).includes(`nw_dst=${emptyIP},tp_dst=81`), { timeoutMs: 20_000 });
    const r = await hit(emptyIP, 81);
    expect(r.name).toBe('');
    expect(r.stderr).toMatch(/Connection refused/);
    // Positive control: the proxied Service still answers.
    expect(['web-1', 'web-2']).toContain((await hit(clusterIP, 80)).name);
  });

  test('deleting the Service removes its flows and its group', async () => {
    const groupBefore = await groupLine(hexIp(s1.ip));
    const id = /group_id=(\d+)/.exec(groupBefore ?? '')?.[1];
    expect(id).toBeDefined();
    await kube.request('DELETE', '/api/v1/namespaces/default/services/web');
    await waitFor('the group gone', async () => !(await dumpGroups()).includes(`group_id=${id},`), { timeoutMs: 20_000 });
    expect(await dumpFlows()).not.toContain(`nw_dst=${clusterIP},tp_dst=80`);
    expect((await hit(clusterIP, 80)).name).toBe('');
    // The other Service is untouched.
    expect(node!.agent.part('services').services.specs.map((s) => s.port)).toEqual(expect.arrayContaining([81]));
  });
});
