// `yardctl check installation` over an in-memory cluster (objects by path, pods Ready at once unless
// their node is broken, a connector that honours the deny-all policy) and a clock the waits advance:
// the verdicts, the messages, the report, the exit code and the cleanup.
import { EventEmitter } from 'node:events';
import type { ClientPod, PodConnector } from '../src/check-connect';
import type { CheckClock } from '../src/check-installation';
import { runInstallationCheck } from '../src/check-installation';
import { checkTable, reportExitCode, type CheckResult } from '../src/check-report';
import { usableNodes } from '../src/check-workload';
import type { KubeWriter } from '../src/client';
import { CliError } from '../src/errors';
import { renderTable } from '../src/output';
import { runYardctl } from '../src/program';

const NS = 'yardctl-check-test';

class FakeClock implements CheckClock {
  t = Date.parse('2026-01-01T00:00:00Z');
  now(): number {
    return this.t;
  }
  sleep(ms: number): Promise<void> {
    this.t += ms;
    return Promise.resolve();
  }
}

interface Cluster {
  nodes: string[];
  /** Nodes whose pods never get Ready (a stopped agent: no CNI ADD). */
  broken?: string[];
  /** The agents do not enforce NetworkPolicies. */
  noPolicy?: boolean;
  /** The test namespace exists before the run. */
  namespaceExists?: boolean;
  deployments?: boolean;
}

/** An API server in memory, and the pods' network as the connector sees it. */
function fakeCluster(c: Cluster, clock: FakeClock) {
  const objects = new Map<string, Record<string, unknown>>();
  const requests: string[] = [];
  let policy = false;
  let nextIP = 1;
  const beat = () => new Date(clock.now() - 5000).toISOString();
  if (c.namespaceExists) objects.set(`/api/v1/namespaces/${NS}`, { metadata: { name: NS } });
  const notFound = (path: string) => new CliError('NOT_FOUND', `Error from server (NotFound): ${path}`, 404, path);
  const kube: KubeWriter = {
    server: 'https://fake',
    async request<T>(method: string, path: string, body?: unknown): Promise<T> {
      requests.push(`${method} ${path}`);
      const b = body as { metadata: { name: string; labels?: Record<string, string> }; spec?: Record<string, unknown> };
      if (method === 'GET' && path === '/api/v1/nodes') return { items: c.nodes.map((name) => ({ metadata: { name }, status: { conditions: [{ type: 'Ready', status: 'True' }] } })) } as T;
      if (method === 'GET' && path.endsWith('/deployments/switchyard-controller')) {
        if (c.deployments) return { spec: { replicas: 1 }, status: { readyReplicas: 1 } } as T;
        throw notFound(path);
      }
      if (method === 'GET' && path.endsWith('/daemonsets/switchyard-agent')) {
        if (c.deployments) return { status: { desiredNumberScheduled: c.nodes.length, numberReady: c.nodes.length - (c.broken?.length ?? 0) } } as T;
        throw notFound(path);
      }
      if (method === 'GET' && path.endsWith('/antreacontrollerinfos/antrea-controller')) return { controllerConditions: [{ type: 'ControllerHealthy', status: 'True', lastHeartbeatTime: beat() }] } as T;
      if (method === 'GET' && path.endsWith('/antreaagentinfos')) return { items: c.nodes.map((n) => ({ metadata: { name: n }, nodeRef: { name: n }, agentConditions: [{ type: 'AgentHealthy', status: 'True', lastHeartbeatTime: beat() }] })) } as T;
      if (method === 'POST' && path === '/api/v1/namespaces') {
        const key = `/api/v1/namespaces/${b.metadata.name}`;
        if (objects.has(key)) throw new CliError('SERVER', 'Error from server (AlreadyExists)', 409, path);
        objects.set(key, b);
        return b as T;
      }
      if (method === 'POST' && path.endsWith('/pods')) {
        const ready = !(c.broken ?? []).includes(b.spec!.nodeName as string);
        const pod = { ...b, status: ready ? { phase: 'Running', podIP: `10.10.0.${nextIP++}`, conditions: [{ type: 'Ready', status: 'True' }] } : { phase: 'Pending' } };
        objects.set(`${path}/${b.metadata.name}`, pod);
        return pod as T;
      }
      if (method === 'POST' && path.endsWith('/services')) {
        objects.set(`${path}/${b.metadata.name}`, { ...b, spec: { ...b.spec, clusterIP: `10.96.0.${nextIP++}` } });
        return b as T;
      }
      if (method === 'POST' && path.endsWith('/networkpolicies')) {
        policy = !c.noPolicy;
        return b as T;
      }
      if (method === 'DELETE' && path.includes('/networkpolicies/')) {
        policy = false;
        return {} as T;
      }
      if (method === 'DELETE' && path.startsWith('/api/v1/namespaces/')) {
        for (const k of [...objects.keys()]) if (k.startsWith(path)) objects.delete(k);
        return {} as T;
      }
      if (method === 'GET' && path.endsWith('/pods')) return { items: [...objects.entries()].filter(([k]) => k.startsWith(`${path}/`)).map(([, v]) => v) } as T;
      const o = objects.get(path);
      if (method === 'GET' && o) return o as T;
      throw notFound(path);
    },
  };
  /** Whether an echo IP is on a broken node is moot: broken pods have no IP. A ClusterIP answers as its pod does. */
  const connector: PodConnector = {
    via: 'fake',
    connect: (_from: ClientPod, ip: string) => Promise.resolve(policy && !ip.startsWith('10.96.') ? { ok: false, detail: 'TIMEOUT' } : { ok: true, detail: 'connected' }),
  };
  return { kube, connector, objects, requests, namespaceGone: () => !objects.has(`/api/v1/namespaces/${NS}`) };
}

async function run(c: Cluster, signal?: AbortSignal) {
  const clock = new FakeClock();
  const f = fakeCluster(c, clock);
  const report = await runInstallationCheck({ kube: f.kube, connectorFor: () => f.connector, namespace: NS, switchyardNamespace: 'kube-system', image: 'agnhost', waitMs: 20_000, clock, ...(signal ? { signal } : {}) });
  return { report, ...f };
}

const verdicts = (checks: CheckResult[]) => Object.fromEntries(checks.map((c) => [c.name, c.result]));

describe('check installation: verdicts', () => {
  test('a healthy two-node cluster passes every check, and the test namespace is gone afterwards', async () => {
    const { report, namespaceGone } = await run({ nodes: ['node1', 'node2'] });
    expect(verdicts(report.checks)).toEqual({
      'controller-ready': 'Pass', 'agents-ready': 'Pass', 'test-pods-ready': 'Pass', 'pod-to-pod-intra-node': 'Pass', 'pod-to-pod-inter-node': 'Pass',
      'pod-to-service-intra-node': 'Pass', 'pod-to-service-inter-node': 'Pass', 'ingress-deny-all': 'Pass',
    });
    expect(report).toMatchObject({ kind: 'InstallationCheck', namespace: NS, connectVia: 'fake', passed: 8, failed: 0, skipped: 0 });
    expect(report.checks[0]!.message).toMatch(/AntreaControllerInfo antrea-controller: ControllerHealthy, heartbeat 5s ago \(no Deployment kube-system\/switchyard-controller/);
    expect(report.checks[1]!.message).toMatch(/^2\/2 agents AgentHealthy/);
    expect(report.checks[2]!.message).toBe('3 pods Ready on 2 node(s): client@node1, echo-0@node1, echo-1@node2');
    expect(reportExitCode(report)).toBe(0);
    expect(namespaceGone()).toBe(true);
  });

  test('the Deployment and DaemonSet are read when they exist', async () => {
    const { report } = await run({ nodes: ['node1', 'node2'], deployments: true });
    expect(report.checks.slice(0, 2).map((c) => c.message)).toEqual(['Deployment kube-system/switchyard-controller: 1/1 ready', 'DaemonSet kube-system/switchyard-agent: 2/2 ready']);
  });

  test('one node: the inter-node checks are skipped, and the run passes', async () => {
    const { report } = await run({ nodes: ['node1'] });
    expect(report.checks.filter((c) => c.result === 'Skip').map((c) => c.name)).toEqual(['pod-to-pod-inter-node', 'pod-to-service-inter-node']);
    expect(reportExitCode(report)).toBe(0);
  });

  test('a node whose pods never get Ready fails the pod check naming the pod and node, and the inter-node checks as not run', async () => {
    const { report, namespaceGone } = await run({ nodes: ['node1', 'node2'], broken: ['node2'], deployments: true });
    const by = new Map(report.checks.map((c) => [c.name, c]));
    expect(by.get('agents-ready')).toMatchObject({ result: 'Fail', message: 'DaemonSet kube-system/switchyard-agent: 1/2 ready (after 20s)' });
    expect(by.get('test-pods-ready')).toMatchObject({ result: 'Fail', message: 'not Ready: echo-1 on node2 (Pending) (after 20s)' });
    expect([by.get('pod-to-pod-intra-node')!.result, by.get('pod-to-service-intra-node')!.result]).toEqual(['Pass', 'Pass']);
    expect(by.get('pod-to-pod-inter-node')).toMatchObject({ result: 'Fail', message: 'not run: test pod echo-1 on node2 is not Ready' });
    expect(by.get('pod-to-service-inter-node')).toMatchObject({ result: 'Fail', message: 'not run: test pod echo-1 on node2 is not Ready' });
    expect(by.get('ingress-deny-all')).toMatchObject({ result: 'Fail', message: 'not run: test pod echo-1 on node2 is not Ready' });
    expect(reportExitCode(report)).toBe(1);
    expect(namespaceGone()).toBe(true);
  });

  test('a NetworkPolicy that is not enforced fails ingress-deny-all saying who still connects', async () => {
    const { report } = await run({ nodes: ['node1', 'node2'], noPolicy: true });
    expect(report.checks.at(-1)).toMatchObject({ name: 'ingress-deny-all', result: 'Fail', message: 'NetworkPolicy ingress-deny-all applied but client still connects to echo-0@node1, echo-1@node2 (after 20s)' });
  });

  test('when no connection can be attempted (no pods/exec), every connection check fails at once saying so, none passes', async () => {
    const clock = new FakeClock();
    const f = fakeCluster({ nodes: ['node1', 'node2'] }, clock);
    const noExec: PodConnector = { via: 'pods/exec', connect: () => Promise.resolve({ ok: false, fatal: true, detail: 'pods/exec of ns/client: Unexpected server response: 404' }) };
    const t0 = clock.now();
    const report = await runInstallationCheck({ kube: f.kube, connectorFor: () => noExec, namespace: NS, switchyardNamespace: 'kube-system', image: 'agnhost', waitMs: 20_000, clock });
    const connections = report.checks.slice(3);
    expect(connections.map((c) => c.result)).toEqual(['Fail', 'Fail', 'Fail', 'Fail', 'Fail']);
    for (const c of connections) expect(c.message).toBe('no connection could be made: pods/exec of ns/client: Unexpected server response: 404');
    // No wait ran to its limit.
    expect(clock.now() - t0).toBeLessThan(20_000);
  });

  test('an existing namespace is refused and left alone', async () => {
    const { report, requests, namespaceGone } = await run({ nodes: ['node1'], namespaceExists: true });
    expect(report.checks.find((c) => c.name === 'test-pods-ready')).toMatchObject({ result: 'Fail', message: `namespace ${NS} already exists: the check creates and deletes its own namespace, pick another --namespace` });
    expect(requests.filter((r) => r.startsWith('DELETE'))).toEqual([]);
    expect(namespaceGone()).toBe(false);
  });

  test('an abort stops at the running check, reports it interrupted, and still deletes the namespace', async () => {
    const abort = new AbortController();
    const clock = new FakeClock();
    const f = fakeCluster({ nodes: ['node1', 'node2'] }, clock);
    // Aborted during the first connection: the checks before it are reported, the namespace goes.
    const connector: PodConnector = { via: 'fake', connect: (from, ip, port, t) => (abort.abort(), f.connector.connect(from, ip, port, t).then(() => ({ ok: false, detail: 'TIMEOUT' }))) };
    const report = await runInstallationCheck({ kube: f.kube, connectorFor: () => connector, namespace: NS, switchyardNamespace: 'kube-system', image: 'agnhost', waitMs: 20_000, clock, signal: abort.signal });
    expect(report.checks.map((c) => `${c.name} ${c.result}`)).toEqual(['controller-ready Pass', 'agents-ready Pass', 'test-pods-ready Pass', 'pod-to-pod-intra-node Fail']);
    expect(report.checks.at(-1)!.message).toBe('interrupted');
    expect(f.namespaceGone()).toBe(true);
  });

  test('usable nodes: Ready, schedulable, no taint but the control plane\'s', () => {
    const ready = { conditions: [{ type: 'Ready', status: 'True' }] };
    expect(usableNodes([
      { metadata: { name: 'b' }, status: ready },
      { metadata: { name: 'a' }, status: ready, spec: { taints: [{ key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule' }] } },
      { metadata: { name: 'c' }, status: ready, spec: { unschedulable: true } },
      { metadata: { name: 'd' }, status: { conditions: [{ type: 'Ready', status: 'False' }] } },
      { metadata: { name: 'e' }, status: ready, spec: { taints: [{ key: 'dedicated', effect: 'NoExecute' }] } },
    ])).toEqual(['a', 'b']);
  });
});

describe('check installation: report and exit code', () => {
  const pass: CheckResult = { name: 'a', result: 'Pass', durationMs: 1234, message: 'ok' };
  const skip: CheckResult = { name: 'b', result: 'Skip', durationMs: 0, message: 'one node' };
  const fail: CheckResult = { name: 'c', result: 'Fail', durationMs: 20_000, message: 'no' };

  test('exit code 0 only when no check failed, the cleanup worked and something ran', () => {
    expect(reportExitCode({ checks: [pass, skip] })).toBe(0);
    expect(reportExitCode({ checks: [pass, fail] })).toBe(1);
    expect(reportExitCode({ checks: [pass], cleanupError: 'namespace x still terminating' })).toBe(1);
    expect(reportExitCode({ checks: [] })).toBe(1);
  });

  test('the table: one row per check with result and duration', () => {
    expect(renderTable(checkTable([pass, skip, fail]))).toBe(
      'CHECK   RESULT   DURATION   MESSAGE\na       Pass     1.23s      ok\nb       Skip     0.00s      one node\nc       Fail     20.0s      no\n',
    );
  });
});

describe('yardctl check installation', () => {
  const cli = async (argv: string[], c: Cluster, onConnect?: (signals: EventEmitter) => void) => {
    const clock = new FakeClock();
    const f = fakeCluster(c, clock);
    let out = '';
    let err = '';
    const signals = new EventEmitter();
    const connector: PodConnector = { via: 'fake', connect: (...a) => (onConnect?.(signals), f.connector.connect(...a)) };
    const code = await runYardctl(argv, {
      stdout: { write: (s: string) => (out += s) },
      stderr: { write: (s: string) => (err += s) },
      isTTY: false,
      env: {},
      connectKubeWriter: () => f.kube,
      check: { podConnector: () => connector, clock, signals: signals as unknown as NodeJS.Process },
    });
    return { code, out, err, requests: f.requests, namespaceGone: f.namespaceGone(), listeners: signals.listenerCount('SIGINT') + signals.listenerCount('SIGTERM') };
  };

  test('all green: a table on stdout, the summary on stderr, exit 0, no signal listener left', async () => {
    const r = await cli(['check', 'installation', '-n', NS], { nodes: ['node1', 'node2'] });
    expect(r.code).toBe(0);
    expect(r.out.split('\n')[0]).toMatch(/^CHECK\s+RESULT\s+DURATION\s+MESSAGE$/);
    expect(r.out.split('\n').slice(1, -1).map((l) => l.split(/\s+/).slice(0, 2).join(' '))).toEqual([
      'controller-ready Pass', 'agents-ready Pass', 'test-pods-ready Pass', 'pod-to-pod-intra-node Pass', 'pod-to-pod-inter-node Pass', 'pod-to-service-intra-node Pass', 'pod-to-service-inter-node Pass', 'ingress-deny-all Pass',
    ]);
    expect(r.err).toMatch(new RegExp(`\\n8 passed, 0 failed, 0 skipped in [\\d.]+s \\(namespace ${NS}, connections via fake\\)\\n$`));
    expect(r.listeners).toBe(0);
  });

  test('-o json: the structured report; a failure exits 1 naming the count', async () => {
    const r = await cli(['check', 'installation', '-n', NS, '-o', 'json', '--timeout', '5s'], { nodes: ['node1', 'node2'], noPolicy: true });
    expect(r.code).toBe(1);
    const report = JSON.parse(r.out) as { failed: number; checks: CheckResult[] };
    expect(report.failed).toBe(1);
    expect(report.checks.at(-1)).toMatchObject({ name: 'ingress-deny-all', result: 'Fail', message: expect.stringContaining('(after 5s)') });
    expect(r.err).toMatch(/error: installation check failed: 1 of 8 checks failed\n$/);
  });

  test('Ctrl-C (SIGINT) between two checks: the next one reported interrupted (not a pass), the rest not run, the namespace deleted, exit 1', async () => {
    const r = await cli(['check', 'installation', '-n', NS], { nodes: ['node1', 'node2'] }, (signals) => signals.emit('SIGINT'));
    expect(r.code).toBe(1);
    expect(r.err).toContain(`interrupted: stopping and deleting namespace ${NS}\n`);
    // The connection that saw the signal completed; the next check is the one reported interrupted.
    expect(r.out.trim().split('\n').at(-1)).toMatch(/^pod-to-pod-inter-node\s+Fail\s+\S+\s+interrupted$/);
    expect(r.namespaceGone).toBe(true);
    expect(r.listeners).toBe(0);
  });

  test('a bad --namespace or --timeout 0 exits 2 before touching the cluster', async () => {
    const bad = await cli(['check', 'installation', '-n', 'Not_A_Label'], { nodes: ['node1'] });
    expect(bad).toMatchObject({ code: 2, requests: [] });
    expect(bad.err).toContain('invalid --namespace "Not_A_Label"');
    const zero = await cli(['check', 'installation', '--timeout', '0'], { nodes: ['node1'] });
    expect(zero).toMatchObject({ code: 2, requests: [] });
    expect(zero.err).toContain('invalid --timeout "0"');
  });
});
