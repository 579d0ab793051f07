// yardctl --node and `get agentinfo` against the embedded API server (tools/kube-api, TLS)
// with a stand-in agent API on a TCP port, reached only through the API server's node proxy.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadCrds } from '@switchyard/apis';
import { startKubeApi, type KubeApiServer, type KubeObject } from '@switchyard/kube-api';
import { agentInfoTable } from '../src/agent-views';
import { renderTable } from '../src/output';
import { runYardctl, type CliIo } from '../src/program';

const INFO = {
  nodeRef: { kind: 'Node', name: 'node-a' },
  nodeSubnets: ['10.10.0.0/24'],
  ovsInfo: { bridgeName: 'br-int', version: '3.1.0', flowTable: { Classifier: 4 } },
  localPodNum: 2,
  agentConditions: [{ type: 'AgentHealthy', status: 'True', lastHeartbeatTime: '2026-01-01T00:00:00Z' }],
  networkPolicyControllerInfo: { networkPolicyNum: 1, addressGroupNum: 2, appliedToGroupNum: 3 },
};
const FLOWS = ['table=IngressRule, n_packets=0, n_bytes=0, priority=200,conj_id=7 actions=goto_table:IngressMetric'];

let api: KubeApiServer;
let agent: Server;
let agentPort: number;
const seen: string[] = [];

/** The admin's requests, verifying the server against its CA. */
async function fetchApi(path: string, init: { method: string; headers: Record<string, string>; body: string }): Promise<{ status: number; text: string }> {
  const { request } = await import('node:https');
  return new Promise((resolve, reject) => {
    const req = request(`${api.url}${path}`, { method: init.method, headers: init.headers, ca: api.caPem }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on('error', reject);
    req.end(init.body);
  });
}
async function create(path: string, body: Record<string, unknown>): Promise<void> {
  const r = await fetchApi(path, { method: 'POST', headers: { authorization: `Bearer ${api.adminToken}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  if (r.status !== 201) throw new Error(`POST ${path}: ${r.status} ${r.text}`);
}
async function patchStatus(path: string, status: unknown): Promise<void> {
  const r = await fetchApi(`${path}/status`, { method: 'PATCH', headers: { authorization: `Bearer ${api.adminToken}`, 'content-type': 'application/merge-patch+json' }, body: JSON.stringify({ status }) });
  if (r.status !== 200) throw new Error(`PATCH ${path}/status: ${r.status} ${r.text}`);
}

/** A self-signed serving certificate, as the agent makes for its API. */
function selfSigned(): { cert: string; key: string } {
  const dir = mkdtempSync(join(tmpdir(), 'yardctl-test-'));
  try {
    execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1', '-subj', '/CN=agent', '-keyout', join(dir, 'k'), '-out', join(dir, 'c')], { stdio: 'ignore' });
    return { cert: readFileSync(join(dir, 'c'), 'utf8'), key: readFileSync(join(dir, 'k'), 'utf8') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

beforeAll(async () => {
  // The agent API is HTTPS: the node proxy must dial it with TLS.
  agent = createServer(selfSigned(), (req, res) => {
    seen.push(req.url ?? '');
    const url = new URL(req.url ?? '/', 'http://agent');
    const send = (status: number, body: unknown): void => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (url.pathname === '/agentinfo') return send(200, INFO);
    if (url.pathname === '/podinterfaces') return send(200, []);
    if (url.pathname === '/ovsflows') return url.searchParams.get('table') === 'NoSuchTable' ? send(404, { error: 'no table NoSuchTable' }) : send(200, FLOWS);
    send(404, { error: 'no route' });
  });
  await new Promise<void>((r) => agent.listen(0, '127.0.0.1', () => r()));
  agentPort = (agent.address() as AddressInfo).port;
  // Node addresses are TEST-NET-1 (never routed): only the lab-style override reaches the agent.
  // node-c dials 127.0.0.2, where no agent of this host (a lab's, on 127.0.0.1:10350) can answer.
  api = await startKubeApi({ crds: loadCrds() as unknown as KubeObject[], nodeProxyHost: (n) => (n === 'node-c' ? '127.0.0.2' : n.startsWith('node-') ? '127.0.0.1' : undefined) });
  for (const [name, ip] of [
    ['node-a', '192.0.2.10'],
    ['node-b', '192.0.2.11'],
    ['node-c', '192.0.2.12'],
  ] as const) {
    await create('/api/v1/nodes', { metadata: { name } });
    await patchStatus(`/api/v1/nodes/${name}`, { addresses: [{ type: 'InternalIP', address: ip }] });
  }
  await create('/apis/crd.antrea.io/v1beta1/antreaagentinfos', { apiVersion: 'crd.antrea.io/v1beta1', kind: 'AntreaAgentInfo', metadata: { name: 'node-a' }, ...INFO, podRef: { kind: 'Pod', namespace: 'kube-system', name: 'switchyard-agent-a' }, apiPort: agentPort });
  // node-b's agent reports a port nothing listens on (port 1).
  await create('/apis/crd.antrea.io/v1beta1/antreaagentinfos', { apiVersion: 'crd.antrea.io/v1beta1', kind: 'AntreaAgentInfo', metadata: { name: 'node-b' }, ...INFO, nodeRef: { kind: 'Node', name: 'node-b' }, agentConditions: [], localPodNum: 0, apiPort: 1 });
}, 30_000); // starting the embedded API server (certificates) takes seconds on a loaded machine
afterAll(async () => {
  await api?.stop();
  await new Promise((r) => agent.close(r));
});

const run = async (argv: string[], env: Record<string, string> = {}) => {
  let out = '';
  let err = '';
  const io: CliIo = { stdout: { write: (s: string) => (out += s) }, stderr: { write: (s: string) => (err += s) }, isTTY: false, env };
  const code = await runYardctl(['-k', api.kubeconfigPath, ...argv], io);
  return { code, out, err };
};

describe('--node: the agent through the API server node proxy', () => {
  test('get agentinfo --node asks the agent on the apiPort of its AntreaAgentInfo', async () => {
    const r = await run(['get', 'ai', '--node', 'node-a', '-o', 'json']);
    expect(r).toMatchObject({ code: 0, err: '' });
    expect(JSON.parse(r.out)).toEqual(INFO);
    expect(seen.at(-1)).toBe('/agentinfo');
  });

  test('ovsflows --node passes -T, -p and --networkpolicy through as query parameters', async () => {
    const r = await run(['get', 'of', '--node', 'node-a', '-T', 'IngressRule', '--networkpolicy', 'web-from-client', '-n', 'x']);
    expect(r.code).toBe(0);
    expect(r.out).toBe(renderTable({ columns: ['FLOW'], rows: FLOWS.map((f) => [f]) }));
    expect(seen.at(-1)).toBe('/ovsflows?table=IngressRule&networkpolicy=x%2Fweb-from-client');
    await run(['get', 'of', '--node', 'node-a', '-p', 'web', '-n', 'x']);
    expect(seen.at(-1)).toBe('/ovsflows?pod=x%2Fweb');
    // A cluster-scoped policy (no -n) and a namespace/name reference go as given.
    await run(['get', 'of', '--node', 'node-a', '--networkpolicy', 'acnp-drop-other']);
    expect(seen.at(-1)).toBe('/ovsflows?networkpolicy=acnp-drop-other');
    await run(['get', 'of', '--node', 'node-a', '--networkpolicy', 'y/np1', '-n', 'x']);
    expect(seen.at(-1)).toBe('/ovsflows?networkpolicy=y%2Fnp1');
  });

  test("the agent's own errors read as with the socket: an unknown table is NotFound from the agent, exit 1", async () => {
    const r = await run(['get', 'of', '--node', 'node-a', '-T', 'NoSuchTable']);
    expect(r).toMatchObject({ code: 1, out: '', err: 'Error from agent (NotFound): no table NoSuchTable\n' });
  });

  test('an agent that does not answer on its port is unreachable through the node proxy, exit 1', async () => {
    const r = await run(['get', 'pi', '--node', 'node-b']);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/^error: cannot reach the agent of node "node-b" on port 1 through the API server node proxy: error trying to reach service/);
  });

  test('without an AntreaAgentInfo the default port 10350 is used; an unknown node is NotFound from the server', async () => {
    const c = await run(['get', 'pi', '--node', 'node-c', '-t', '5s']);
    expect(c.code).toBe(1);
    expect(c.err).toContain('cannot reach the agent of node "node-c" on port 10350');
    const ghost = await run(['get', 'pi', '--node', 'ghost']);
    expect(ghost).toMatchObject({ code: 1, err: 'Error from server (NotFound): nodes "ghost" not found\n' });
  });

  test('a user who may read AntreaAgentInfos but not get nodes/proxy is Forbidden, exit 1', async () => {
    const token = api.createServiceAccountToken('default', 'viewer');
    await create('/apis/rbac.authorization.k8s.io/v1/clusterroles', { metadata: { name: 'agentinfo-reader' }, rules: [{ apiGroups: ['crd.antrea.io'], resources: ['antreaagentinfos'], verbs: ['get', 'list'] }] });
    await create('/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', { metadata: { name: 'agentinfo-reader' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'agentinfo-reader' }, subjects: [{ kind: 'ServiceAccount', namespace: 'default', name: 'viewer' }] });
    const kc = api.writeKubeconfig(`${api.kubeconfigPath}.viewer`, { name: 'viewer', token });
    let err = '';
    const io: CliIo = { stdout: { write: () => true }, stderr: { write: (s: string) => (err += s) }, isTTY: false, env: {} };
    expect(await runYardctl(['-k', kc, 'get', 'of', '--node', 'node-a'], io)).toBe(1);
    expect(err).toMatch(/^Error from server \(Forbidden\): .*cannot get resource "nodes\/proxy"/);
    // The same user may list the AntreaAgentInfos.
    expect(await runYardctl(['-k', kc, 'get', 'ai'], io)).toBe(0);
  });

  test('--node with --agent-socket, or a malformed node name, is a usage error (exit 2)', async () => {
    expect((await run(['get', 'ai', '--node', 'node-a', '--agent-socket', '/x.sock'])).code).toBe(2);
    const bad = await run(['get', 'ai', '--node', 'Node_A']);
    expect(bad).toMatchObject({ code: 2, err: 'error: invalid node name "Node_A"\n' });
  });
});

describe('get agentinfo with no agent named', () => {
  test('lists every AntreaAgentInfo from the API server, one row per node, in name order', async () => {
    const r = await run(['get', 'agentinfo']);
    expect(r.code).toBe(0);
    const lines = r.out.split('\n');
    expect(lines[0]).toMatch(/^POD\s+NODE\s+STATUS\s+NODE-SUBNET\s+NETWORK-POLICIES\s+ADDRESS-GROUPS\s+APPLIED-TO-GROUPS\s+LOCAL-PODS$/);
    expect(lines[1]).toMatch(/^kube-system\/switchyard-agent-a\s+node-a\s+Healthy\s+10\.10\.0\.0\/24\s+1\s+2\s+3\s+2$/);
    expect(lines[2]).toMatch(/^<none>\s+node-b\s+Unhealthy\s+10\.10\.0\.0\/24\s+1\s+2\s+3\s+0$/);
    expect(lines).toHaveLength(4);
    const j = JSON.parse((await run(['get', 'ai', '-o', 'json'])).out) as { kind: string; items: { metadata: { name: string }; apiPort: number }[] };
    expect(j.kind).toBe('AntreaAgentInfoList');
    expect(j.items.map((i) => [i.metadata.name, i.apiPort])).toEqual([
      ['node-a', agentPort],
      ['node-b', 1],
    ]);
    const wide = await run(['get', 'ai', '-o', 'wide', '--no-headers']);
    expect(wide.out).toBe(renderTable(agentInfoTable(j.items as never, true), { noHeaders: true }));
  });

  test('$YARDCTL_AGENT_SOCKET still selects the local agent', async () => {
    const r = await run(['get', 'ai'], { YARDCTL_AGENT_SOCKET: '/nonexistent/agent.sock' });
    expect(r.code).toBe(1);
    expect(r.err).toContain('unable to connect to the agent at /nonexistent/agent.sock');
  });
});
