// yardctl against a real API server (tools/kube-api, TLS) and the switchyard-controller binary:
// outputs are compared with kubectl and with the policy compiler run offline on the same objects.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadCrds } from '@switchyard/apis';
import type { KubeApiServer, KubeObject } from '@switchyard/kube-api';
import { startTestKubeApi, type Kubectl } from '@switchyard/kube-api/testing';
import { explain, PolicyEngine, type ClusterObject, type Explanation } from '@switchyard/policy-compiler';
import YAML from 'yaml';
import { eventuallyPasses as waitToPass, freePort } from '@switchyard/testbed';
import { buildPackages, CONTROLLER_BIN, YARDCTL_BIN } from './built';

const ROOT = join(__dirname, '../../..');
const YARDCTL = YARDCTL_BIN;

interface Result {
  code: number;
  stdout: string;
  stderr: string;
}
function exec(cmd: string, args: string[], env: NodeJS.ProcessEnv, stdin?: string): Promise<Result> {
  return new Promise((resolve) => {
    const child = execFile(cmd, args, { env, maxBuffer: 32 << 20 }, (err, stdout, stderr) => resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }));
    if (stdin !== undefined) child.stdin?.end(stdin);
  });
}

let api: KubeApiServer;
let env: NodeJS.ProcessEnv;
let controller: ChildProcess | undefined;
let controllerLog = '';
let k: Kubectl;
let dir: string | undefined;
const kubectl = (args: string[], stdin?: string): Promise<string> => k.ok(args, stdin);
const apply = (...docs: unknown[]): Promise<string> => k.apply(...docs);
/** The real yardctl, as a child process: the built binary (built in beforeAll). */
const yardctl = (args: string[], extraEnv: NodeJS.ProcessEnv = {}): Promise<Result> => exec(process.execPath, [YARDCTL, ...args], { ...env, ...extraEnv });
const yardJson = async <T>(args: string[]): Promise<T> => {
  const r = await yardctl([...args, '-o', 'json']);
  if (r.code !== 0) throw new Error(`yardctl ${args.join(' ')} exited ${r.code}: ${r.stderr}`);
  return JSON.parse(r.stdout) as T;
};
const eventuallyPasses = (assertion: () => Promise<void>, timeoutMs = 30000): Promise<void> => waitToPass(assertion, { timeoutMs, intervalMs: 100 });
const PODS: [string, string, string, Record<string, string>][] = [
  ['x', 'web', '10.10.0.2', { app: 'web' }],
  ['x', 'client', '10.10.0.3', { app: 'client' }],
  ['y', 'other', '10.10.1.2', { app: 'other' }],
  ['y', 'client', '10.10.1.3', { app: 'client' }],
];
const POLICIES = [
  { apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name: 'web-from-client', namespace: 'x' }, spec: { podSelector: { matchLabels: { app: 'web' } }, ingress: [{ from: [{ namespaceSelector: {}, podSelector: { matchLabels: { app: 'client' } } }], ports: [{ protocol: 'TCP', port: 80 }] }] } },
  { apiVersion: 'crd.antrea.io/v1beta1', kind: 'ClusterNetworkPolicy', metadata: { name: 'acnp-drop-other' }, spec: { priority: 5, tier: 'securityops', appliedTo: [{ podSelector: { matchLabels: { app: 'web' } } }], ingress: [{ name: 'drop-other', action: 'Drop', from: [{ podSelector: { matchLabels: { app: 'other' } } }] }] } },
];

beforeAll(async () => {
  await buildPackages('@switchyard/cli', '@switchyard/controller');
  ({ api, kubectl: k } = await startTestKubeApi({ crds: loadCrds() as unknown as KubeObject[] }));
  // yardctl runs with kubectl's environment (its kubeconfig), without colours.
  env = { ...k.env, NO_COLOR: '1' };
  const port = await freePort();
  const rbac = YAML.parseAllDocuments(readFileSync(join(ROOT, 'packages/controller/build/rbac.yaml'), 'utf8')).map((d) => d.toJSON() as unknown);
  await apply(
    ...rbac,
    { apiVersion: 'v1', kind: 'Service', metadata: { name: 'switchyard', namespace: 'kube-system' }, spec: { ports: [{ port: 443, targetPort: port }] } },
    { apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'switchyard', namespace: 'kube-system' }, subsets: [{ addresses: [{ ip: '127.0.0.1' }], ports: [{ port }] }] },
    { apiVersion: 'v1', kind: 'Node', metadata: { name: 'node-a' } },
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'x' } },
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'y' } },
  );
  await apply(...PODS.map(([ns, name, , labels]) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: ns, labels }, spec: { nodeName: 'node-a', containers: [{ name: 'c', image: 'nginx' }] } })));
  // The kubelet's job: report the pod IPs.
  await Promise.all(PODS.map(([ns, name, ip]) => kubectl(['patch', 'pod', name, '-n', ns, '--subresource=status', '--type=merge', '-p', JSON.stringify({ status: { phase: 'Running', podIP: ip, podIPs: [{ ip }] } })])));
  await apply(...POLICIES);
  dir = mkdtempSync(join(tmpdir(), 'yardctl-it-'));
  const caFile = join(dir, 'front-proxy-ca.crt');
  writeFileSync(caFile, api.caPem);
  controller = spawn(process.execPath, [CONTROLLER_BIN, '--kubeconfig', api.kubeconfigPath, '--port', String(port), '--bind-address', '127.0.0.1', '--requestheader-client-ca-file', caFile], { stdio: ['ignore', 'pipe', 'pipe'] });
  controller.stdout?.on('data', (d: Buffer) => (controllerLog += d.toString()));
  controller.stderr?.on('data', (d: Buffer) => (controllerLog += d.toString()));
  // Ready once the read API answers through the aggregator with every policy compiled.
  await eventuallyPasses(async () => {
    const info = await yardJson<{ synced: boolean; networkPolicyNum: number }>(['get', 'controllerinfo']);
    if (!info.synced || info.networkPolicyNum !== POLICIES.length) throw new Error(`not ready: ${JSON.stringify(info)}`);
  }, 60000).catch((e: unknown) => {
    throw new Error(`${(e as Error).message}\ncontroller log:\n${controllerLog.slice(-3000)}`);
  });
}, 120000);

afterAll(async () => {
  controller?.kill('SIGKILL');
  await api?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** The same objects, compiled offline: the independent ground truth for groups and explain. */
async function offlineEngine(): Promise<PolicyEngine> {
  // One kubectl listing every kind (each kubectl is a process).
  const kinds = ['namespaces', 'pods', 'nodes', 'networkpolicies.networking.k8s.io', 'clusternetworkpolicies.crd.antrea.io', 'tiers.crd.antrea.io'];
  const objs = (JSON.parse(await kubectl(['get', kinds.join(','), '-A', '-o', 'json'])) as { items: ClusterObject[] }).items;
  const engine = new PolicyEngine();
  engine.load(objs);
  return engine;
}

const memberKey = (g: { groupMembers: { pod?: { namespace: string; name: string }; ips: string[] }[] }): string[] => g.groupMembers.map((m) => `${m.pod ? `${m.pod.namespace}/${m.pod.name}` : ''}=${[...m.ips].sort().join(',')}`).sort();

test('get networkpolicy lists exactly the policies kubectl shows, with their kinds', async () => {
  // Each kubectl and yardctl is a process: started side by side.
  const [k8sNps, acnps, list, inX, table] = await Promise.all([
    kubectl(['get', 'networkpolicies.networking.k8s.io', '-A', '-o', 'json']),
    kubectl(['get', 'clusternetworkpolicies.crd.antrea.io', '-o', 'json']),
    yardJson<{ items: { sourceRef: { type: string; namespace: string; name: string } }[] }>(['get', 'networkpolicy']),
    yardJson<{ items: { sourceRef: { name: string } }[] }>(['get', 'netpol', '-n', 'x']),
    yardctl(['get', 'netpol', '-n', 'x']),
  ]);
  const truth = [
    ...(JSON.parse(k8sNps) as { items: { metadata: { namespace: string; name: string } }[] }).items.map((p) => `K8sNetworkPolicy:${p.metadata.namespace}/${p.metadata.name}`),
    ...(JSON.parse(acnps) as { items: { metadata: { name: string } }[] }).items.map((p) => `AntreaClusterNetworkPolicy:/${p.metadata.name}`),
  ].sort();
  expect(list.items.map((p) => `${p.sourceRef.type}:${p.sourceRef.namespace}/${p.sourceRef.name}`).sort()).toEqual(truth);
  expect(inX.items.map((p) => p.sourceRef.name)).toEqual(['web-from-client']);
  expect(table.stdout.split('\n')[0]).toMatch(/^NAMESPACE\s+NAME\s+APPLIED-TO\s+RULES$/);
  expect(table.stdout.split('\n')[1]).toMatch(/^x\s+web-from-client\s+\S+\s+1$/);
});

test('address and applied-to groups have the members the compiler computes offline from the same objects', async () => {
  type Groups = { items: { name: string; groupMembers: { pod?: { namespace: string; name: string }; ips: string[] }[] }[] };
  const [engine, ags, atgs, t] = await Promise.all([offlineEngine(), yardJson<Groups>(['get', 'addressgroup']), yardJson<Groups>(['get', 'appliedtogroup']), yardctl(['get', 'atg', '--no-headers'])]);
  const snap = engine.snapshot();
  const byName = (gs: typeof ags.items) => Object.fromEntries(gs.map((g) => [g.name, memberKey(g)]));
  expect(byName(ags.items)).toEqual(byName(snap.addressGroups as typeof ags.items));
  expect(byName(atgs.items)).toEqual(byName(snap.appliedToGroups as typeof atgs.items));
  expect(ags.items.length).toBeGreaterThan(0);
  // One group by name, and the table view.
  const one = ags.items[0] as (typeof ags.items)[0];
  expect(memberKey(await yardJson<typeof one>(['get', 'ag', one.name]))).toEqual(memberKey(one));
  expect(t.stdout).toContain('x/web');
});

test('policy explain agrees with the compiler for allowed, K8s-isolated and ACNP-dropped flows', async () => {
  const flows: [string, string, number][] = [
    ['x/client', 'x/web', 80],
    ['y/client', 'x/web', 80],
    ['x/client', 'x/web', 81],
    ['y/other', 'x/web', 80],
    ['10.10.1.3', 'x/web', 80],
    ['x/web', 'y/other', 80],
  ];
  // The engine and every explain side by side (each yardctl is a process); compared in order below.
  const [engine, t, ...answers] = await Promise.all([
    offlineEngine(),
    yardctl(['policy', 'explain', '--from', 'y/other', '--to', 'x/web', '--port', '80']),
    ...flows.map(([from, to, port]) => yardJson<Explanation & { kind?: string; apiVersion?: string }>(['policy', 'explain', '--from', from, '--to', to, '--port', String(port)])),
  ]);
  for (const [i, [from, to, port]] of flows.entries()) {
    const { kind: _k, apiVersion: _a, ...verdict } = answers[i]!;
    const want = explain(engine, { src: from.includes('/') ? { pod: from } : { ip: from }, dst: { pod: to }, protocol: 'TCP', port });
    expect({ flow: `${from}->${to}:${port}`, ...verdict, egress: { ...verdict.egress, policy: verdict.egress.policy?.name }, ingress: { ...verdict.ingress, policy: verdict.ingress.policy?.name } }).toEqual({
      flow: `${from}->${to}:${port}`,
      ...want,
      egress: { ...want.egress, policy: want.egress.policy?.name },
      ingress: { ...want.ingress, policy: want.ingress.policy?.name },
    });
  }
  expect(t.stdout.split('\n')[0]).toBe('TCP y/other -> x/web:80: DENIED (Drop)');
  expect(t.stdout).toMatch(/Ingress\s+Denied\s+Drop\s+rule\s+securityops \(100\)\s+ACNP:acnp-drop-other\s+drop-other \(#0\)/);
});

test('query endpoint lists the policies applied to a pod', async () => {
  const [q, c] = await Promise.all([
    yardJson<{ appliedPolicies: { name: string }[]; ingressSrcRules: { policy: { name: string } }[] }>(['query', 'endpoint', 'x/web']),
    yardJson<{ ingressSrcRules: { policy: { name: string } }[] }>(['query', 'endpoint', 'client', '-n', 'y']),
  ]);
  expect(q.appliedPolicies.map((p) => p.name).sort()).toEqual(['acnp-drop-other', 'web-from-client']);
  expect(c.ingressSrcRules.map((r) => r.policy.name)).toEqual(['web-from-client']);
});

test('controllerinfo counts what the API server holds', async () => {
  const [info, y] = await Promise.all([yardJson<{ version: string; networkPolicyNum: number; synced: boolean }>(['get', 'ci']), yardctl(['get', 'ci', '-o', 'yaml'])]);
  expect(info).toMatchObject({ synced: true, networkPolicyNum: POLICIES.length });
  expect(typeof info.version).toBe('string');
  expect((YAML.parse(y.stdout) as { networkPolicyNum: number }).networkPolicyNum).toBe(POLICIES.length);
});

test('a missing object exits 1 with NotFound; a bad kubeconfig exits 1 with a clear message', async () => {
  const nf = await yardctl(['get', 'ag', 'no-such-group']);
  expect(nf.code).toBe(1);
  expect(nf.stderr).toContain('NotFound');
  const badDir = mkdtempSync(join(tmpdir(), 'yardctl-bad-'));
  const bad = join(badDir, 'config');
  writeFileSync(bad, 'this: is: not a kubeconfig');
  const r = await yardctl(['-k', bad, 'get', 'netpol']);
  rmSync(badDir, { recursive: true, force: true });
  expect(r.code).toBe(1);
  expect(r.stderr).toMatch(/^error: invalid kubeconfig /);
  expect(r.stdout).toBe('');
});

test('an unreachable API server and a stopped controller both exit 1 and say what is unreachable', async () => {
  const port = await freePort();
  const r = await yardctl(['-s', `https://127.0.0.1:${port}`, 'get', 'ci']);
  expect(r.code).toBe(1);
  expect(r.stderr).toContain(`unable to connect to the server at https://127.0.0.1:${port}`);
  controller?.kill('SIGKILL');
  await new Promise((res) => controller?.once('exit', res));
  controller = undefined;
  const down = await yardctl(['-t', '5s', 'get', 'netpol']);
  expect(down.code).toBe(1);
  expect(down.stderr).toMatch(/controller is unreachable|unable to connect/);
});
