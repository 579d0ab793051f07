// yardctl on a running Switchyard cluster: the real `switchyard-lab up --nodes 1` (kube-api, the
// switchyard-controller binary, an OVS node with a real switchyard-agent, pods through the real CNI
// plugin). `policy explain` (the controller's evaluator, through the APIService) is checked against
// real TCP probes between the pods' network namespaces, and `--node` reaches the agent through the
// API server's node proxy.
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { YARDCTL_BIN } from './built';

const ROOT = join(__dirname, '../../..');
const LAB = join(ROOT, 'tools/lab/bin/switchyard-lab');
/** Built by `switchyard-lab up` (it builds the agent, the controller and the cli through nx). */
const YARDCTL = YARDCTL_BIN;
const NETNS_ANNOTATION = 'lab.switchyard.io/netns';
const labDir = join(mkdtempSync(join(tmpdir(), 'yardctl-lab-')), 'lab');

interface Result {
  code: number;
  stdout: string;
  stderr: string;
}
function exec(cmd: string, args: string[], opts: { env?: NodeJS.ProcessEnv; stdin?: string; timeoutMs?: number } = {}): Promise<Result> {
  return new Promise((resolve) => {
    const child = execFile(cmd, args, { env: opts.env ?? process.env, maxBuffer: 32 << 20, timeout: opts.timeoutMs ?? 60_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? (typeof (err as { code?: unknown }).code === 'number' ? (err as { code: number }).code : 1) : 0, stdout, stderr }),
    );
    if (opts.stdin !== undefined) child.stdin?.end(opts.stdin);
  });
}

interface LabState {
  kubeconfig: string;
  nodes: { name: string; apiSocket: string; netns: string }[];
}
let st: LabState;
let env: NodeJS.ProcessEnv;
const kubectl = async (args: string[], stdin?: string): Promise<string> => {
  const r = await exec('kubectl', args, { env, ...(stdin !== undefined ? { stdin } : {}) });
  if (r.code !== 0) throw new Error(`kubectl ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
};
const apply = (...docs: unknown[]): Promise<string> => kubectl(['apply', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'List', items: docs }));
const yardctl = (args: string[]): Promise<Result> => exec(process.execPath, [YARDCTL, ...args], { env });
const yardJson = async <T>(args: string[]): Promise<T> => {
  const r = await yardctl([...args, '-o', 'json']);
  if (r.code !== 0) throw new Error(`yardctl ${args.join(' ')} exited ${r.code}: ${r.stderr}`);
  return JSON.parse(r.stdout) as T;
};
async function eventually<T>(what: string, fn: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v !== undefined) return v;
    } catch (e) {
      last = e;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${last ? `: ${(last as Error).message}` : ''}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

// ns, name, app: every pod serves TCP 80 and 81 (the lab's kubelet runs a server per containerPort).
const PODS: [string, string, string][] = [
  ['x', 'web', 'web'],
  ['x', 'client', 'client'],
  ['x', 'other', 'other'],
  ['x', 'stranger', 'stranger'],
  ['y', 'client', 'client'],
  ['y', 'stranger', 'stranger'],
];
const pod = new Map<string, { ip: string; netns: string }>();

const acnp = (name: string, tier: string, priority: number, rule: Record<string, unknown>) => ({
  apiVersion: 'crd.antrea.io/v1beta1',
  kind: 'ClusterNetworkPolicy',
  metadata: { name },
  spec: { priority, tier, appliedTo: [{ podSelector: { matchLabels: { app: 'web' } } }], ingress: [rule] },
});
const nsY = { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'y' } } };
const POLICIES = [
  // Allow x/client and y/client to web on 80; everything else to web is isolated (K8s default deny).
  { apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name: 'web-from-client', namespace: 'x' }, spec: { podSelector: { matchLabels: { app: 'web' } }, policyTypes: ['Ingress'], ingress: [{ from: [{ namespaceSelector: {}, podSelector: { matchLabels: { app: 'client' } } }], ports: [{ protocol: 'TCP', port: 80 }] }] } },
  acnp('drop-other', 'securityops', 5, { name: 'drop-other', action: 'Drop', from: [{ podSelector: { matchLabels: { app: 'other' } } }] }),
  acnp('reject-81', 'securityops', 6, { name: 'reject-81', action: 'Reject', from: [{ podSelector: { matchLabels: { app: 'client' } } }], ports: [{ protocol: 'TCP', port: 81 }] }),
  // y is passed on to the K8s NetworkPolicy for port 80, though the application tier drops it.
  acnp('pass-y', 'securityops', 7, { name: 'pass-y', action: 'Pass', from: [nsY], ports: [{ protocol: 'TCP', port: 80 }] }),
  acnp('app-drop-y', 'application', 5, { name: 'drop-y', action: 'Drop', from: [nsY] }),
];

beforeAll(async () => {
  const up = await exec(LAB, ['--lab-dir', labDir, 'up', '--nodes', '1'], { timeoutMs: 180_000 });
  if (up.code !== 0) throw new Error(`switchyard-lab up failed: ${up.stdout}${up.stderr}`);
  st = JSON.parse(readFileSync(join(labDir, 'state.json'), 'utf8')) as LabState;
  env = { ...process.env, KUBECONFIG: st.kubeconfig, NO_COLOR: '1' };
  await apply(
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'x' } },
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'y' } },
    ...PODS.map(([ns, name, app]) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: ns, labels: { app } }, spec: { nodeName: st.nodes[0]!.name, containers: [{ name: 'c', image: app, ports: [{ containerPort: 80 }, { containerPort: 81 }] }] } })),
  );
  await eventually('pods running with an IP and a netns', async () => {
    const list = JSON.parse(await kubectl(['get', 'pods', '-A', '-o', 'json'])) as { items: { metadata: { namespace: string; name: string; annotations?: Record<string, string> }; status?: { podIP?: string } }[] };
    for (const p of list.items) {
      const netns = p.metadata.annotations?.[NETNS_ANNOTATION];
      if (p.status?.podIP && netns) pod.set(`${p.metadata.namespace}/${p.metadata.name}`, { ip: p.status.podIP, netns });
    }
    return pod.size === PODS.length ? true : undefined;
  });
  await apply(...POLICIES);
}, 240_000);

afterAll(async () => {
  if (existsSync(join(labDir, 'state.json'))) await exec(LAB, ['--lab-dir', labDir, 'down'], { timeoutMs: 120_000 });
  rmSync(dirname(labDir), { recursive: true, force: true });
}, 150_000);

type Outcome = 'connected' | 'refused' | 'timeout';
/** One TCP connection attempt from a pod's network namespace (OpenBSD nc, as `kubectl exec` would). */
async function probe(from: string, to: string, port: number): Promise<Outcome> {
  const src = pod.get(from)!;
  const dst = pod.get(to)!;
  const r = await exec('ip', ['netns', 'exec', src.netns, 'nc', '-z', '-v', '-w', '2', dst.ip, String(port)], { timeoutMs: 10_000 });
  if (r.code === 0) return 'connected';
  return /refused/i.test(r.stderr) ? 'refused' : 'timeout';
}
/** What the dataplane must do for a verdict: Allow connects, Reject answers a RST, Drop times out. */
const outcomeOf = (v: { allowed: boolean; action: string }): Outcome => (v.allowed ? 'connected' : v.action === 'Reject' ? 'refused' : 'timeout');

interface Verdict {
  allowed: boolean;
  action: string;
  ingress: { action: string; reason: string; policy?: { name: string }; passedBy?: { name: string }[] };
}

test('policy explain agrees with TCP probes between pods: allow, K8s isolation, ACNP Drop, Reject, Pass to the K8s NetworkPolicy', async () => {
  // [from, to, port, the deciding policy explain must name (the scenario's intent)]
  const cases: [string, string, number, string][] = [
    ['x/client', 'x/web', 80, 'web-from-client'], // allowed by the K8s NetworkPolicy
    ['x/stranger', 'x/web', 80, 'web-from-client'], // K8s isolation: web is selected, stranger is not allowed
    ['x/other', 'x/web', 80, 'drop-other'], // ACNP Drop in securityops
    ['x/client', 'x/web', 81, 'reject-81'], // ACNP Reject: the agent answers with a RST
    ['y/client', 'x/web', 80, 'web-from-client'], // ACNP Pass skips the application tier's drop; the K8s NP allows
    ['y/stranger', 'x/web', 80, 'web-from-client'], // Pass, then K8s isolation
    ['y/stranger', 'x/web', 81, 'app-drop-y'], // no Pass on 81: the application tier drops
    ['x/stranger', 'x/other', 80, ''], // nothing applies to other: allowed
  ];
  const verdicts = await Promise.all(cases.map(([from, to, port]) => yardJson<Verdict>(['policy', 'explain', '--from', from, '--to', to, '--port', String(port)])));
  expect(cases.map((c, i) => [`${c[0]}->${c[1]}:${c[2]}`, verdicts[i]!.ingress.policy?.name ?? ''])).toEqual(cases.map((c) => [`${c[0]}->${c[1]}:${c[2]}`, c[3]]));
  const want = verdicts.map(outcomeOf);
  // Every kind of outcome is present, so the comparison means something.
  expect(new Set(want)).toEqual(new Set(['connected', 'refused', 'timeout']));
  expect(verdicts.some((v) => (v.ingress.passedBy ?? []).some((p) => p.name === 'pass-y'))).toBe(true);
  // The agent realizes the policies asynchronously: probe until the dataplane agrees or time runs out.
  let seen: Outcome[] = [];
  await eventually(
    'the dataplane to match explain',
    async () => {
      seen = await Promise.all(cases.map(([from, to, port]) => probe(from, to, port)));
      return seen.every((o, i) => o === want[i]) ? true : undefined;
    },
    45_000,
  ).catch(() => undefined);
  expect(cases.map((c, i) => `${c[0]}->${c[1]}:${c[2]} ${seen[i] ?? ''}`)).toEqual(cases.map((c, i) => `${c[0]}->${c[1]}:${c[2]} ${want[i] ?? ''}`));
}, 120_000);

test('--node reaches the real agent through the API server node proxy and answers as its local socket does', async () => {
  const node = st.nodes[0]!;
  const viaSocket = await yardJson<{ podNamespace: string; podName: string; ofport: number; mac: string }[]>(['get', 'podinterface', '--agent-socket', node.apiSocket]);
  const viaNode = await yardJson<typeof viaSocket>(['get', 'podinterface', '--node', node.name]);
  const key = (l: typeof viaSocket) => l.map((p) => `${p.podNamespace}/${p.podName} ${p.ofport} ${p.mac}`).sort();
  expect(key(viaNode)).toEqual(key(viaSocket));
  expect(viaNode).toHaveLength(PODS.length);
  const info = await yardJson<{ nodeRef: { name: string }; localPodNum: number }>(['get', 'agentinfo', '--node', node.name]);
  expect(info).toMatchObject({ nodeRef: { name: node.name }, localPodNum: PODS.length });
  // The same table through both paths (flows of one table are stable once policies are realized).
  const [a, b] = await Promise.all([yardJson<{ flow: string }[]>(['get', 'of', '-T', 'SpoofGuard', '--node', node.name]), yardJson<{ flow: string }[]>(['get', 'of', '-T', 'SpoofGuard', '--agent-socket', node.apiSocket])]);
  expect(a.map((f) => f.flow).sort()).toEqual(b.map((f) => f.flow).sort());
  expect(a.length).toBeGreaterThan(PODS.length);
  const ghost = await yardctl(['get', 'pi', '--node', 'no-such-node']);
  expect(ghost).toMatchObject({ code: 1, stderr: 'Error from server (NotFound): nodes "no-such-node" not found\n' });
});

test('kubectl exec into a lab pod: the command runs in the pod\'s network namespace, stdout and stderr apart, stdin piped, the exit code kept', async () => {
  const run = (args: string[], stdin?: string): Promise<Result> => exec('kubectl', args, { env, ...(stdin !== undefined ? { stdin } : {}) });
  const addr = await run(['-n', 'x', 'exec', 'web', '--', 'ip', '-o', '-4', 'addr', 'show', 'dev', 'eth0']);
  expect({ code: addr.code, stderr: addr.stderr }).toEqual({ code: 0, stderr: '' });
  expect(addr.stdout).toContain(` inet ${pod.get('x/web')!.ip}/`);
  const failed = await run(['-n', 'x', 'exec', 'web', '--', 'sh', '-c', 'echo out; echo err >&2; exit 3']);
  expect(failed).toEqual({ code: 3, stdout: 'out\n', stderr: 'err\ncommand terminated with exit code 3\n' });
  expect(await run(['-n', 'y', 'exec', '-i', 'client', '--', 'tr', 'a-z', 'A-Z'], 'piped\n')).toEqual({ code: 0, stdout: 'PIPED\n', stderr: '' });
});

interface CheckReport { namespace: string; connectVia: string; passed: number; failed: number; skipped: number; checks: { name: string; result: string; message: string }[] }
const namespaces = async (): Promise<string[]> => (JSON.parse(await kubectl(['get', 'namespaces', '-o', 'json'])) as { items: { metadata: { name: string } }[] }).items.map((n) => n.metadata.name);

test('check installation on the one-node lab: every check passes but the inter-node ones (skipped), and its namespace is gone', async () => {
  const r = await yardctl(['check', 'installation', '-n', 'check-green', '--timeout', '2m', '-o', 'json']);
  expect({ code: r.code, stderr: r.code === 0 ? '' : r.stderr }).toEqual({ code: 0, stderr: '' });
  const report = JSON.parse(r.stdout) as CheckReport;
  expect(report.checks.map((c) => `${c.name} ${c.result}`)).toEqual([
    'controller-ready Pass', 'agents-ready Pass', 'test-pods-ready Pass', 'pod-to-pod-intra-node Pass', 'pod-to-pod-inter-node Skip', 'pod-to-service-intra-node Pass', 'pod-to-service-inter-node Skip', 'ingress-deny-all Pass',
  ]);
  expect(report.checks[1]!.message).toMatch(/^1\/1 agents AgentHealthy in AntreaAgentInfo/);
  // The connections went through the lab's pods/exec (agnhost connect in the client pod).
  expect(report.connectVia).toBe('pods/exec');
  expect(await namespaces()).not.toContain('check-green');
}, 240_000);

// Last in the file: the node's agent stays stopped until the end of this test.
test('check installation with the agent stopped (no CNI ADD): the test pods are not Ready, the checks that need them fail saying so, exit 1, namespace deleted', async () => {
  const node = st.nodes[0]!.name;
  const stop = await exec(LAB, ['--lab-dir', labDir, 'stop-agent', node]);
  expect(stop.code).toBe(0);
  try {
    const r = await yardctl(['check', 'installation', '-n', 'check-stopped', '--timeout', '10s']);
    expect(r.code).toBe(1);
    const rows = r.stdout.split('\n').slice(1, -1).map((l) => l.split(/\s{3,}/));
    expect(rows.map((c) => `${c[0]} ${c[1]}`)).toEqual([
      'controller-ready Pass', 'agents-ready Pass', 'test-pods-ready Fail', 'pod-to-pod-intra-node Fail', 'pod-to-pod-inter-node Skip', 'pod-to-service-intra-node Fail', 'pod-to-service-inter-node Skip', 'ingress-deny-all Fail',
    ]);
    expect(rows[2]![3]).toBe(`not Ready: client on ${node} (Pending), echo-0 on ${node} (Pending) (after 10s)`);
    expect(rows[3]![3]).toBe(`not run: the client pod is not Ready (client on ${node})`);
    expect(r.stderr).toMatch(/\n2 passed, 4 failed, 2 skipped in [\d.]+s \(namespace check-stopped, connections via none\)\nerror: installation check failed: 4 of 8 checks failed\n$/);
    expect(await namespaces()).not.toContain('check-stopped');
  } finally {
    await exec(LAB, ['--lab-dir', labDir, 'start-agent', node]);
  }
}, 240_000);
