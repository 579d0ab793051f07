// The controller binary killed with SIGKILL (an OOM kill, a node drain) while an agent's client
// watches it: the agent keeps its view while no controller runs, the restarted controller
// recomputes from the API server, the client resumes by itself and ends with the same policies
// plus what changed during the outage; the policy status is written again.
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { ControlplaneClient } from '@switchyard/controlplane-client';
import { createPod, eventually, eventuallyPasses, NODE_TOKENS, startCluster, type Cluster } from './support';

const CLI = join(__dirname, '../dist/cli.js');
let c: Cluster;
let controller: ChildProcess | undefined;
let client: ControlplaneClient | undefined;

function startController(): ChildProcess {
  const child = spawn(process.execPath, [CLI, '--kubeconfig', c.api.kubeconfigPath, '--port', String(c.controllerPort), '--bind-address', '127.0.0.1'], { stdio: 'ignore' });
  controller = child;
  return child;
}
function kill(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
}

beforeAll(async () => {
  c = await startCluster();
  await c.kubectl.ok(['create', 'namespace', 'k']);
  await createPod(c, 'k', 'web', 'node-a', '10.0.1.10', { app: 'web' });
  await createPod(c, 'k', 'client', 'node-b', '10.0.2.10', { app: 'client' });
  await c.kubectl.apply(
    { apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name: 'web-from-client', namespace: 'k' }, spec: { podSelector: { matchLabels: { app: 'web' } }, ingress: [{ from: [{ podSelector: { matchLabels: { app: 'client' } } }] }] } },
    { apiVersion: 'crd.antrea.io/v1beta1', kind: 'ClusterNetworkPolicy', metadata: { name: 'acnp-web' }, spec: { priority: 5, tier: 'application', appliedTo: [{ podSelector: { matchLabels: { app: 'web' } } }], ingress: [{ action: 'Drop', from: [{ podSelector: { matchLabels: { app: 'bad' } } }] }] } },
  );
}, 60_000);
afterAll(async () => {
  await client?.stop();
  if (controller) await kill(controller);
  await c?.api.stop();
});

const policyNames = (w: ControlplaneClient): string[] => w.view.snapshot().policies.map((p) => p.sourceRef.name).sort();
const peers = (w: ControlplaneClient): string[] => w.view.snapshot().addressGroups.flatMap((g) => g.groupMembers.map((m) => m.ips.join(','))).sort();

test('SIGKILL of the controller: the agent keeps its policies, resumes against the restarted controller and catches up', async () => {
  startController();
  const caPem = await eventually(async () => (await c.kube.request<{ data: Record<string, string> }>('GET', '/api/v1/namespaces/kube-system/configmaps/switchyard-ca')).data['ca.crt'], 30_000);
  client = new ControlplaneClient({ url: `https://127.0.0.1:${c.controllerPort}`, caPem, nodeName: 'node-a', token: NODE_TOKENS['node-a']!, backoff: { initialMs: 50, maxMs: 500 } });
  client.start();
  await client.waitFor(() => client!.view.synced && policyNames(client!).length === 2, 30_000, 'initial policies');
  expect(policyNames(client)).toEqual(['acnp-web', 'web-from-client']);
  expect(peers(client)).toEqual(['10.0.2.10']);
  const before = JSON.stringify(client.view.snapshot());

  await kill(controller!);
  // While no controller runs: the view stays as it was, and the cluster changes.
  await createPod(c, 'k', 'client2', 'node-b', '10.0.2.11', { app: 'client' });
  await c.kubectl.apply({ apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name: 'added-while-down', namespace: 'k' }, spec: { podSelector: { matchLabels: { app: 'web' } }, policyTypes: ['Egress'], egress: [] } });
  // A stale status: the restarted controller must write its own.
  await c.kube.request('PATCH', '/apis/crd.antrea.io/v1beta1/clusternetworkpolicies/acnp-web/status', { status: { phase: 'Failed', observedGeneration: 0 } }, 'application/merge-patch+json');
  await new Promise((r) => setTimeout(r, 300));
  expect(JSON.stringify(client.view.snapshot())).toBe(before);

  const t0 = Date.now();
  startController();
  await client.waitFor(() => client!.view.synced && policyNames(client!).includes('added-while-down') && peers(client!).length === 2, 30_000, 'state after the restart');
  const recoveryMs = Date.now() - t0;
  expect(policyNames(client)).toEqual(['acnp-web', 'added-while-down', 'web-from-client']);
  expect(peers(client)).toEqual(['10.0.2.10', '10.0.2.11']);
  expect(client.stats.initial).toBeGreaterThanOrEqual(2);
  // The restarted controller writes the Antrea policy's status again (no agent reported yet).
  await eventuallyPasses(async () => {
    const acnp = await c.kube.request<{ status?: { phase?: string; observedGeneration?: number } }>('GET', '/apis/crd.antrea.io/v1beta1/clusternetworkpolicies/acnp-web');
    expect(acnp.status?.observedGeneration).toBe(1);
    expect(acnp.status?.phase).not.toBe('Failed');
  }, 10_000);
  process.stdout.write(`controller SIGKILL: agent view resynced ${recoveryMs} ms after the restart began\n`);
}, 90_000);
