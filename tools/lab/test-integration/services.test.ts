// Services from outside the cluster, on a 2-node lab, probed from the fabric host (the lab's
// host at <prefix>.254 on the underlay): NodePort on both nodes' addresses, the source each
// backend sees (SNAT for Cluster policy, the client's own address for Local), a node without a
// local endpoint not answering a Local Service, the health-check node port's 200/503, and
// externalIPs routed to a node by the fabric; with proxyAll (the lab runs it), a node's own
// processes reach a ClusterIP and node ports through OVS; 200 long-lived connections through a
// ClusterIP survive its backends scaling from 3 to 5 and back.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { run, waitFor } from '@switchyard/testbed';
import type { KubeConfigClient } from '@switchyard/controller';
import { labClient, readState, type LabState } from '../src/index';
import { agentGet } from '../src/probe';
import { FABRIC_SOURCE, ScenarioRunner } from '../src/probe-run';
import { parseScenario } from '../src/scenario';
import { NETNS_ANNOTATION } from '../src/kubelet';

const BIN = join(__dirname, '../bin/switchyard-lab');
const labDir = mkdtempSync(join(tmpdir(), 'switchyard-lab-services-'));
const lab = (...args: string[]): string => execFileSync(BIN, ['--lab-dir', labDir, ...args], { encoding: 'utf8', timeout: 120_000 });
/** The port each backend's echo server answers on with `<pod> <peer address>`. */
const ECHO_PORT = 8080;
const EXTERNAL_IP = '192.168.77.50';

let st: LabState;
let kube: KubeConfigClient;
const echoServers: ChildProcess[] = [];
const nodeIP = (name: string): string => st.nodes.find((n) => n.name === name)!.nodeIP;

interface PodView { metadata: { name: string; annotations?: Record<string, string> }; status?: { podIP?: string } }
const pod = (name: string, nodeName: string) => ({
  apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default', labels: { app: 'echo' } },
  spec: { nodeName, containers: [{ name: 'c', image: 'echo', ports: [{ containerPort: 80 }] }] },
});
const service = (name: string, spec: Record<string, unknown>) => ({ apiVersion: 'v1', kind: 'Service', metadata: { name, namespace: 'default' }, spec: { selector: { app: 'echo' }, ...spec } });

/** One TCP exchange from the fabric host: the first line the server sends, or '' when nothing answers within 2 s. */
async function fromFabric(ip: string, port: number): Promise<string> {
  const r = await run(['ip', 'netns', 'exec', st.fabricNetns, 'socat', '-T2', '-', `TCP:${ip}:${port},connect-timeout=2`], { allowFailure: true, timeoutMs: 8000, input: '' });
  return r.code === 0 ? r.stdout.trim().split('\n')[0] ?? '' : '';
}
/** One TCP exchange from a node's own namespace (its host processes). */
async function fromNode(node: string, ip: string, port: number): Promise<string> {
  const netns = st.nodes.find((n) => n.name === node)!.netns;
  const r = await run(['ip', 'netns', 'exec', netns, 'socat', '-T2', '-', `TCP:${ip}:${port},connect-timeout=2`], { allowFailure: true, timeoutMs: 8000, input: '' });
  return r.code === 0 ? r.stdout.trim().split('\n')[0] ?? '' : '';
}
/** HTTP GET from the fabric host: status code and body. */
async function httpFromFabric(ip: string, port: number): Promise<{ code: number; body: string }> {
  const r = await run(['ip', 'netns', 'exec', st.fabricNetns, 'curl', '-s', '-m', '3', '-w', '\n%{http_code}', `http://${ip}:${port}/`], { allowFailure: true, timeoutMs: 8000 });
  const lines = r.stdout.trim().split('\n');
  return { code: Number(lines.pop()), body: lines.join('\n') };
}
/** Answers from `n` connections (each a new connection, so a new load-balancing choice). */
async function answers(ip: string, port: number, n: number): Promise<string[]> {
  const out: string[] = [];
  for (let i = 0; i < n; i++) out.push(await fromFabric(ip, port));
  return out;
}

beforeAll(async () => {
  lab('up', '--nodes', '2', '--proxy-all');
  st = readState(labDir)!;
  kube = labClient(st);
  for (const p of [pod('echo1', 'node1'), pod('echo2', 'node2')]) await kube.request('POST', '/api/v1/namespaces/default/pods', p);
  const pods = new Map<string, PodView>();
  await waitFor('echo pods with an IP and a netns', async () => {
    const list = await kube.request<{ items: PodView[] }>('GET', '/api/v1/namespaces/default/pods');
    for (const p of list.items) pods.set(p.metadata.name, p);
    return list.items.length === 2 && list.items.every((p) => p.status?.podIP && p.metadata.annotations?.[NETNS_ANNOTATION]);
  }, { timeoutMs: 60_000, intervalMs: 200 });
  // Echo servers telling which pod answered and whom it saw.
  for (const [name, p] of pods) {
    const netns = p.metadata.annotations![NETNS_ANNOTATION]!;
    const child = spawn('ip', ['netns', 'exec', netns, 'socat', `TCP-LISTEN:${ECHO_PORT},reuseaddr,fork`, `SYSTEM:echo ${name} $SOCAT_PEERADDR`], { stdio: 'ignore' });
    echoServers.push(child);
  }
  await kube.request('POST', '/api/v1/namespaces/default/services', service('cluster', { type: 'NodePort', ports: [{ port: ECHO_PORT, targetPort: ECHO_PORT, nodePort: 30090 }], externalIPs: [EXTERNAL_IP] }));
  await kube.request('POST', '/api/v1/namespaces/default/services', service('local', { type: 'LoadBalancer', externalTrafficPolicy: 'Local', ports: [{ port: ECHO_PORT, targetPort: ECHO_PORT, nodePort: 30091 }] }));
  // The fabric routes the external IP to node1 (as a user's router would).
  await run(['ip', 'netns', 'exec', st.fabricNetns, 'ip', 'route', 'replace', `${EXTERNAL_IP}/32`, 'via', nodeIP('node1')]);
  await waitFor('both node ports answer from the fabric', async () => (await fromFabric(nodeIP('node1'), 30090)) !== '' && (await fromFabric(nodeIP('node2'), 30091)) !== '', { timeoutMs: 60_000, intervalMs: 500 });
}, 240_000);

afterAll(() => {
  for (const c of [...echoServers, ...churnProcs]) c.kill('SIGKILL');
  if (readState(labDir)) lab('down');
});

describe('Services from outside the cluster', () => {
  it('a NodePort answers on every node address, from backends on both nodes; Cluster policy SNATs (virtual IP to a local backend, the gateway IP across the tunnel)', async () => {
    const seen = new Set<string>();
    for (const node of ['node1', 'node2']) {
      const gwIP = node === 'node1' ? '10.10.1.1' : '10.10.2.1';
      const local = node === 'node1' ? 'echo1' : 'echo2';
      // 16 connections make missing a backend of two unlikely (2^-15); any answer must be one of the two forms.
      for (const a of await answers(nodeIP(node), 30090, 16)) {
        expect([`${local} 169.254.0.253`, `${local === 'echo1' ? 'echo2' : 'echo1'} ${gwIP}`]).toContain(a);
        seen.add(`${node} ${a.split(' ')[0]!}`);
      }
    }
    expect([...seen].sort()).toEqual(['node1 echo1', 'node1 echo2', 'node2 echo1', 'node2 echo2']);
  });

  it('proxyAll: a node\'s own processes reach a ClusterIP and both nodes\' node ports through OVS', async () => {
    const svc = await kube.request<{ spec: { clusterIP: string } }>('GET', '/api/v1/namespaces/default/services/cluster');
    const seen = new Set<string>();
    for (let i = 0; i < 12; i++) {
      const a = await fromNode('node1', svc.spec.clusterIP, ECHO_PORT);
      // From the host: its connection leaves by the gateway with the gateway's address (routed back by every node).
      expect(['echo1 10.10.1.1', 'echo2 10.10.1.1']).toContain(a);
      seen.add(a.split(' ')[0]!);
    }
    expect([...seen].sort()).toEqual(['echo1', 'echo2']);
    expect(await fromNode('node1', nodeIP('node1'), 30090)).toMatch(/^echo[12] /);
    expect(await fromNode('node1', nodeIP('node2'), 30090)).toMatch(/^echo[12] /);
  });

  it('kube-proxy replacement: the node\'s own processes and pods reach the API server through the kubernetes Service\'s ClusterIP', async () => {
    const k8s = await kube.request<{ spec: { clusterIP: string } }>('GET', '/api/v1/namespaces/default/services/kubernetes');
    const token = /token:\s*(\S+)/.exec(readFileSync(st.kubeconfig, 'utf8'))![1]!;
    const version = async (netns: string): Promise<string> => {
      const r = await run(['ip', 'netns', 'exec', netns, 'curl', '-sk', '-m', '5', '-H', `Authorization: Bearer ${token}`, `https://${k8s.spec.clusterIP}/version`], { allowFailure: true, timeoutMs: 10_000 });
      return r.code === 0 ? (JSON.parse(r.stdout) as { gitVersion?: string }).gitVersion ?? '' : `curl exit ${r.code}`;
    };
    const podNetns = (await kube.request<PodView>('GET', '/api/v1/namespaces/default/pods/echo1')).metadata.annotations![NETNS_ANNOTATION]!;
    for (const netns of [st.nodes.find((n) => n.name === 'node1')!.netns, st.nodes.find((n) => n.name === 'node2')!.netns, podNetns]) {
      expect(await version(netns)).toMatch(/^v1\.\d+/);
    }
  });

  it('externalTrafficPolicy Local: each node sends to its own backend only, which sees the client address', async () => {
    const fabricHost = '192.168.77.254';
    expect(new Set(await answers(nodeIP('node1'), 30091, 6))).toEqual(new Set([`echo1 ${fabricHost}`]));
    expect(new Set(await answers(nodeIP('node2'), 30091, 6))).toEqual(new Set([`echo2 ${fabricHost}`]));
  });

  it('internalTrafficPolicy Local: a pod reaches only the endpoints on its own node through the ClusterIP', async () => {
    const svc = await kube.request<{ spec: { clusterIP: string } }>('POST', '/api/v1/namespaces/default/services', service('itp', { internalTrafficPolicy: 'Local', ports: [{ port: ECHO_PORT, targetPort: ECHO_PORT }] }));
    const netnsOfPod = async (name: string): Promise<string> => (await kube.request<PodView>('GET', `/api/v1/namespaces/default/pods/${name}`)).metadata.annotations![NETNS_ANNOTATION]!;
    const through = async (pod: string): Promise<string[]> => {
      const netns = await netnsOfPod(pod);
      const out: string[] = [];
      for (let i = 0; i < 8; i++) {
        const r = await run(['ip', 'netns', 'exec', netns, 'socat', '-T2', '-', `TCP:${svc.spec.clusterIP}:${ECHO_PORT},connect-timeout=2`], { allowFailure: true, timeoutMs: 8000, input: '' });
        out.push(r.stdout.trim().split(' ')[0] ?? '');
      }
      return out;
    };
    await waitFor('the itp Service answers', async () => (await through('echo1'))[0] !== '', { timeoutMs: 30_000, intervalMs: 300 });
    // Without the Local policy, 8 connections would reach the other node's backend with probability 1 - 2^-8.
    expect(new Set(await through('echo1'))).toEqual(new Set(['echo1']));
    expect(new Set(await through('echo2'))).toEqual(new Set(['echo2']));
  });

  it('the health-check node port answers 200 with the local endpoint count, then 503 and no answer on the node that lost its backend', async () => {
    const svc = await kube.request<{ spec: { healthCheckNodePort?: number } }>('GET', '/api/v1/namespaces/default/services/local');
    const hc = svc.spec.healthCheckNodePort!;
    expect(hc).toBeGreaterThanOrEqual(30000);
    for (const node of ['node1', 'node2']) {
      const r = await httpFromFabric(nodeIP(node), hc);
      expect([r.code, JSON.parse(r.body)]).toEqual([200, { service: { namespace: 'default', name: 'local' }, localEndpoints: 1, serviceProxyHealthy: true }]);
    }
    await kube.request('DELETE', '/api/v1/namespaces/default/pods/echo2');
    await waitFor('node2 health check turns 503', async () => (await httpFromFabric(nodeIP('node2'), hc)).code === 503, { timeoutMs: 30_000, intervalMs: 300 });
    expect(JSON.parse((await httpFromFabric(nodeIP('node2'), hc)).body)).toMatchObject({ localEndpoints: 0 });
    // node2 has no local endpoint: the Local Service does not answer there (dropped, as kube-proxy does) ...
    expect(await answers(nodeIP('node2'), 30091, 2)).toEqual(['', '']);
    // ... while node1 still does, and its health check stays 200.
    expect(await fromFabric(nodeIP('node1'), 30091)).toBe('echo1 192.168.77.254');
    expect((await httpFromFabric(nodeIP('node1'), hc)).code).toBe(200);
  });

  it('externalIPs: the address the fabric routes to node1 reaches the Service on its port', async () => {
    // echo2 is gone (previous case): every answer comes from echo1.
    await waitFor('the external IP answers', async () => (await fromFabric(EXTERNAL_IP, ECHO_PORT)) !== '', { timeoutMs: 20_000, intervalMs: 300 });
    expect(new Set(await answers(EXTERNAL_IP, ECHO_PORT, 3))).toEqual(new Set(['echo1 169.254.0.253']));
  });
});

// ---- Endpoint churn -------------------------------------------------------------------------

const CHURN_PORT = 9000;
const churnProcs: ChildProcess[] = [];
/** An echo server for every connection, first line the pod's name (one process per pod, not one per connection). */
const ECHO_SERVER = "require('net').createServer((s) => { s.write(process.argv[1] + '\\n'); s.pipe(s); s.on('error', () => undefined); }).listen(Number(process.argv[2]))";
/**
 * A client holding N connections to ip:port. It prints `ready` once each connection has read its
 * backend's name; on each `check` line from stdin it sends a line on every connection and prints
 * one JSON line: per connection its backend, whether the line came back, errors, and whether it closed.
 */
const CLIENT = `
const net = require('net');
const [ip, port, n] = [process.argv[1], Number(process.argv[2]), Number(process.argv[3])];
const conns = Array.from({ length: n }, () => {
  const c = { backend: '', buf: '', errors: [], closed: false };
  c.s = net.connect(port, ip);
  c.s.setEncoding('utf8');
  c.s.on('data', (d) => { c.buf += d; if (!c.backend && c.buf.includes('\\n')) { c.backend = c.buf.split('\\n')[0]; c.buf = ''; } });
  c.s.on('error', (e) => c.errors.push(e.code || e.message));
  c.s.on('close', () => { c.closed = true; });
  return c;
});
const waitUntil = (f, ms) => new Promise((res) => { const t0 = Date.now(); const i = setInterval(() => { if (f() || Date.now() - t0 > ms) { clearInterval(i); res(); } }, 20); });
waitUntil(() => conns.every((c) => c.backend || c.closed), 20000).then(() => console.log('ready'));
let round = 0;
require('readline').createInterface({ input: process.stdin }).on('line', async () => {
  round++;
  for (const [i, c] of conns.entries()) { c.buf = ''; if (!c.closed) c.s.write('ping ' + round + ' ' + i + '\\n'); }
  await waitUntil(() => conns.every((c, i) => c.closed || c.buf.includes('ping ' + round + ' ' + i)), 5000);
  console.log(JSON.stringify(conns.map((c, i) => ({ backend: c.backend, echoed: c.buf.includes('ping ' + round + ' ' + i), errors: c.errors, closed: c.closed }))));
});
`;
interface ConnState { backend: string; echoed: boolean; errors: string[]; closed: boolean }

describe('endpoint churn', () => {
  const netnsOf = async (name: string): Promise<string> => {
    let netns = '';
    await waitFor(`${name} has a netns`, async () => {
      const p = await kube.request<PodView>('GET', `/api/v1/namespaces/default/pods/${name}`);
      netns = p.metadata.annotations?.[NETNS_ANNOTATION] ?? '';
      return netns !== '' && p.status?.podIP !== undefined;
    }, { timeoutMs: 60_000, intervalMs: 200 });
    return netns;
  };
  const podIP = async (name: string): Promise<string> => (await kube.request<PodView>('GET', `/api/v1/namespaces/default/pods/${name}`)).status!.podIP!;
  const backend = async (name: string, node: string): Promise<string> => {
    await kube.request('POST', '/api/v1/namespaces/default/pods', { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default', labels: { app: 'churn' } }, spec: { nodeName: node, containers: [{ name: 'c', image: 'churn' }] } });
    churnProcs.push(spawn('ip', ['netns', 'exec', await netnsOf(name), process.execPath, '-e', ECHO_SERVER, name, String(CHURN_PORT)], { stdio: 'ignore' }));
    return podIP(name);
  };
  /** Every node's flows DNAT to exactly these endpoints of the churn port. */
  const realized = (ips: string[]) =>
    waitFor(`flows DNAT to exactly ${ips.join(', ')}`, async () => {
      for (const n of st.nodes) {
        const flows = (await agentGet<string[]>(n.apiSocket, '/ovsflows')).filter((l) => l.includes(`:${CHURN_PORT})`) && l.includes('nat(dst='));
        const have = flows.map((l) => /nat\(dst=([0-9.]+):/.exec(l)?.[1]).sort();
        if (JSON.stringify(have) !== JSON.stringify([...ips].sort())) return false;
      }
      return true;
    }, { timeoutMs: 30_000, intervalMs: 200 });

  it('200 connections through a ClusterIP keep their backends, with no reset, while the backends scale from 3 to 5 and back', async () => {
    const ips = [await backend('churn1', 'node1'), await backend('churn2', 'node2'), await backend('churn3', 'node1')];
    const svc = await kube.request<{ spec: { clusterIP: string } }>('POST', '/api/v1/namespaces/default/services', service('churn', { selector: { app: 'churn' }, ports: [{ port: CHURN_PORT, targetPort: CHURN_PORT }] }));
    await realized(ips);
    await kube.request('POST', '/api/v1/namespaces/default/pods', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'churn-client', namespace: 'default', labels: { app: 'client' } }, spec: { nodeName: 'node2', containers: [{ name: 'c', image: 'client' }] } });
    const client = spawn('ip', ['netns', 'exec', await netnsOf('churn-client'), process.execPath, '-e', CLIENT, svc.spec.clusterIP, String(CHURN_PORT), '200'], { stdio: ['pipe', 'pipe', 'inherit'] });
    churnProcs.push(client);
    const lines = createInterface({ input: client.stdout! });
    const next = (): Promise<string> => new Promise((resolve) => lines.once('line', resolve));
    expect(await next()).toBe('ready');
    const check = async (): Promise<ConnState[]> => {
      const answer = next();
      client.stdin!.write('check\n');
      return JSON.parse(await answer) as ConnState[];
    };
    const before = await check();
    const backendsOf = (states: ConnState[]) => [...new Set(states.map((c) => c.backend))].sort();
    expect(backendsOf(before)).toEqual(['churn1', 'churn2', 'churn3']);
    const healthy = (states: ConnState[]) => states.filter((c) => c.echoed && !c.closed && c.errors.length === 0).length;
    expect(healthy(before)).toBe(200);

    const more = [await backend('churn4', 'node2'), await backend('churn5', 'node1')];
    await realized([...ips, ...more]);
    const scaledUp = await check();
    for (const name of ['churn4', 'churn5']) await kube.request('DELETE', `/api/v1/namespaces/default/pods/${name}`);
    await realized(ips);
    const scaledDown = await check();
    // Every connection still on the backend it started with, none reset or closed.
    for (const states of [scaledUp, scaledDown]) {
      expect(states.map((c) => c.backend)).toEqual(before.map((c) => c.backend));
      expect(healthy(states)).toBe(200);
    }
  });

  it('UDP: a client whose endpoint goes moves to the other one at once (its conntrack entry is flushed), though it never stops sending', async () => {
    const UDP_PORT = 5300;
    const UDP_SERVER = "const s = require('dgram').createSocket('udp4'); s.on('message', (_m, r) => s.send(process.argv[1], r.port, r.address)); s.bind(Number(process.argv[2]))";
    const CLIENT_UDP = "const s = require('dgram').createSocket('udp4'); s.on('message', (m) => console.log(m.toString())); s.bind(40000, () => setInterval(() => s.send('x', Number(process.argv[2]), process.argv[1]), 100))";
    const udpBackend = async (name: string, node: string): Promise<string> => {
      await kube.request('POST', '/api/v1/namespaces/default/pods', { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default', labels: { app: 'udp' } }, spec: { nodeName: node, containers: [{ name: 'c', image: 'udp' }] } });
      churnProcs.push(spawn('ip', ['netns', 'exec', await netnsOf(name), process.execPath, '-e', UDP_SERVER, name, String(UDP_PORT)], { stdio: 'ignore' }));
      return podIP(name);
    };
    const ips = new Map([['udp1', await udpBackend('udp1', 'node1')], ['udp2', await udpBackend('udp2', 'node2')]]);
    const svc = await kube.request<{ spec: { clusterIP: string } }>('POST', '/api/v1/namespaces/default/services', service('udp', { selector: { app: 'udp' }, ports: [{ port: UDP_PORT, targetPort: UDP_PORT, protocol: 'UDP' }] }));
    await waitFor('both UDP endpoints in every node\'s flows', async () => {
      for (const n of st.nodes) {
        const f = (await agentGet<string[]>(n.apiSocket, '/ovsflows')).join('\n');
        if (![...ips.values()].every((ip) => f.includes(`nat(dst=${ip}:${UDP_PORT})`))) return false;
      }
      return true;
    }, { timeoutMs: 30_000, intervalMs: 200 });
    const client = spawn('ip', ['netns', 'exec', await netnsOf('churn-client'), process.execPath, '-e', CLIENT_UDP, svc.spec.clusterIP, String(UDP_PORT)], { stdio: ['ignore', 'pipe', 'inherit'] });
    churnProcs.push(client);
    const answers: string[] = [];
    createInterface({ input: client.stdout! }).on('line', (l) => answers.push(l));
    await waitFor('the UDP client gets answers', () => answers.length >= 3, { timeoutMs: 20_000, intervalMs: 50 });
    const first = answers[answers.length - 1]!;
    // One flow, one endpoint: every answer so far from the same backend.
    expect(new Set(answers)).toEqual(new Set([first]));
    const other = first === 'udp1' ? 'udp2' : 'udp1';
    await kube.request('DELETE', `/api/v1/namespaces/default/pods/${first}`);
    const seen = answers.length;
    // Without the flush the entry, refreshed every 100 ms, would keep the flow on the gone endpoint for good.
    await waitFor(`answers from ${other} after ${first} is gone`, () => answers.slice(seen).includes(other), { timeoutMs: 15_000, intervalMs: 50 });
  });
});

describe('probe --via nodeport', () => {
  it('the fabric host probes each pod through its own NodePort (Local): a policy allowing only the fabric host to one pod shows in the row', async () => {
    const scenario = parseScenario(
      `apiVersion: v1
kind: Namespace
metadata: {name: np}
---
apiVersion: v1
kind: Pod
metadata: {name: open, namespace: np, labels: {pod: open}}
spec: {nodeName: node1, containers: [{name: c, ports: [{containerPort: 80}]}]}
---
apiVersion: v1
kind: Pod
metadata: {name: shut, namespace: np, labels: {pod: shut}}
spec: {nodeName: node2, containers: [{name: c, ports: [{containerPort: 80}]}]}
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: only-fabric-to-open, namespace: np}
spec:
  podSelector: {matchLabels: {pod: open}}
  policyTypes: [Ingress]
  ingress:
    - from: [{ipBlock: {cidr: 192.168.77.254/32}}]
      ports: [{port: 80}]
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: shut-off, namespace: np}
spec:
  podSelector: {matchLabels: {pod: shut}}
  policyTypes: [Ingress]
  ingress: []
`,
      'via-nodeport.yaml',
    );
    const runner = new ScenarioRunner({ kube, state: st, via: 'nodeport', timeoutMs: 1000 });
    try {
      const [r] = await runner.run(scenario);
      const cells = r!.results.filter((c) => c.protocol === 'TCP' && c.port === 80).map((c) => [c.from, c.to, c.allowed]);
      expect(cells).toEqual([[FABRIC_SOURCE, 'np/open', true], [FABRIC_SOURCE, 'np/shut', false]]);
    } finally {
      runner.close();
    }
    // The probe Services went with the scenario's pods.
    const left = await kube.request<{ items: unknown[] }>('GET', '/api/v1/namespaces/np/services');
    expect(left.items).toEqual([]);
  });
});
