// The switchyard-controller binary: config file + flags + kubeconfig, serves until SIGTERM.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually, eventuallyPasses, startCluster, type Cluster } from './support';

let c: Cluster;
let child: ChildProcess | undefined;
beforeAll(async () => {
  c = await startCluster();
});
afterAll(async () => {
  child?.kill('SIGKILL');
  await c?.api.stop();
});

const get = (port: number, path: string, ca: string, token?: string): Promise<{ status: number; body: string }> =>
  new Promise((resolve, reject) => {
    https.get({ hostname: '127.0.0.1', port, path, ca, headers: token ? { authorization: `Bearer ${token}` } : {} }, (res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    }).on('error', reject);
  });

test('starts from antrea-controller.conf keys and flags, becomes ready, logs JSON, exits 0 on SIGTERM', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'sy-ctl-'));
  const conf = join(dir, 'controller.conf');
  writeFileSync(conf, `apiPort: 1\nfeatureGates:\n  ExternalNode: true\nnodeIPAM:\n  enableNodeIPAM: true\n  clusterCIDRs: [10.50.0.0/16]\n`);
  await c.kubectl.apply({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'bin-node' } });
  child = spawn(process.execPath, ['--import', 'tsx', join(__dirname, '../src/cli.ts'), '--config', conf, '--kubeconfig', c.api.kubeconfigPath, '--port', String(c.controllerPort), '--bind-address', '127.0.0.1'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (out += d.toString()));
  const ca = await eventually(async () => (await c.kube.request<{ data: Record<string, string> }>('GET', '/api/v1/namespaces/kube-system/configmaps/switchyard-ca')).data['ca.crt'], 30000);
  const ready = await eventually(async () => {
    const r = await get(c.controllerPort, '/readyz', ca);
    expect(r.status).toBe(200);
    return r;
  }, 30000);
  expect(ready.body).toBe('ok');
  // The config's nodeIPAM section is in force.
  await eventuallyPasses(async () => {
    const n = await c.kube.request<{ spec: { podCIDRs?: string[] } }>('GET', '/api/v1/nodes/bin-node');
    expect(n.spec.podCIDRs?.[0]).toMatch(/^10\.50\.\d+\.0\/24$/);
  }, 10000);
  expect((await get(c.controllerPort, '/metrics', ca)).status).toBe(401);
  expect((await get(c.controllerPort, '/metrics', ca, c.api.adminToken)).body).toContain('switchyard_controller_cluster_events_total');
  const exited = new Promise<number | null>((r) => child?.once('exit', (code) => r(code)));
  child.kill('SIGTERM');
  expect(await exited).toBe(0);
  child = undefined;
  const lines = out.split('\n').filter((l) => l.startsWith('{'));
  expect(lines.some((l) => (JSON.parse(l) as { msg?: string }).msg === 'switchyard-controller started')).toBe(true);
});

test('the manifests in build/ apply to the API server', async () => {
  const { readFileSync } = await import('node:fs');
  const YAML = (await import('yaml')).default;
  const docs = ['rbac.yaml', 'controller.yaml'].flatMap((f) => YAML.parseAllDocuments(readFileSync(join(__dirname, '../build', f), 'utf8')).map((d) => d.toJSON() as { kind: string; metadata: { name: string } }));
  // The Role it binds to is a kube-apiserver bootstrap object; the embedded server lacks it, so create it.
  await c.kubectl.apply({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: 'extension-apiserver-authentication-reader', namespace: 'kube-system' }, rules: [{ apiGroups: [''], resources: ['configmaps'], resourceNames: ['extension-apiserver-authentication'], verbs: ['get', 'list', 'watch'] }] });
  await c.kubectl.ok(['apply', '--dry-run=server', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'List', items: docs }));
  expect(docs.map((d) => d.kind)).toEqual(expect.arrayContaining(['Deployment', 'Service', 'APIService', 'ConfigMap', 'ClusterRole', 'ClusterRoleBinding', 'ServiceAccount']));
});
