// The switchyard-agent binary with an antrea-agent.conf, serving CNI and the local API, stopped by SIGTERM;
// its flags refused by name; an IPv6-only node's pod CIDR and IPv6 underlay address from its Node object.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadCrds } from '@switchyard/apis';
import { startKubeApi } from '@switchyard/kube-api';
import { freePort, parsePromText, Testbed, waitFor, type OvsInstance } from '@switchyard/testbed';
import { addPod, agentApiGet, ensurePluginBuilt, sandbox, PKG_DIR, type Node } from './helpers';

let tb: Testbed;
let ovs: OvsInstance;
let dir: string;
let child: ChildProcess | undefined;
let stdout = '';

const getText = (socketPath: string, path: string): Promise<{ status: number; text: string; type: string }> =>
  new Promise((resolve, reject) => {
    const req = request({ socketPath, path, method: 'GET' }, (res) => {
      let data = '';
      res.on('data', (c: Buffer) => (data += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: data, type: String(res.headers['content-type']) }));
    });
    req.on('error', reject);
    req.end();
  });
const get = (socketPath: string, path: string): Promise<{ status: number; body: unknown }> =>
  new Promise((resolve, reject) => {
    const req = request({ socketPath, path, method: 'GET' }, (res) => {
      let data = '';
      res.on('data', (c: Buffer) => (data += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(data) as unknown }));
    });
    req.on('error', reject);
    req.end();
  });

beforeAll(async () => {
  await ensurePluginBuilt();
  tb = await Testbed.create();
  ovs = await tb.startOvs();
  dir = mkdtempSync(join(tmpdir(), 'sy-agent-bin-'));
});
afterAll(async () => {
  child?.kill('SIGKILL');
  await tb?.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

it('starts from antrea-agent.conf, serves CNI and the local API (unix socket and TCP apiPort), exits cleanly on SIGTERM', async () => {
  const conf = join(dir, 'antrea-agent.conf');
  const apiPort = await freePort();
  const cniSocket = join(dir, 'cni.sock');
  const apiSocket = join(dir, 'agent.sock');
  writeFileSync(
    conf,
    [
      'ovsBridge: br-int',
      'ovsDatapathType: netdev',
      `ovsRunDir: ${ovs.dir}`,
      'hostGateway: sy-gw0',
      'tunnelType: vxlan',
      `cniSocket: ${cniSocket}`,
      `apiPort: ${apiPort}`,
      'someFutureKey: 1',
      '',
    ].join('\n'),
  );
  child = spawn(
    process.execPath,
    ['--import', 'tsx', join(PKG_DIR, 'src/cli.ts'), '--config', conf, '--node-name', 'node-b', '--pod-cidr', '10.92.0.0/24', '--node-ip', '192.168.77.2',
      '--data-dir', dir, '--node-netns', ovs.netns.name, '--api-socket', apiSocket],
    { cwd: PKG_DIR, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (stdout += d.toString()));
  await waitFor('agent ready', () => stdout.includes('"msg":"agent ready"') || child!.exitCode !== null, { timeoutMs: 60_000, intervalMs: 100 });
  if (child.exitCode !== null) throw new Error(`agent exited: ${stdout}`);
  expect(stdout).toContain('someFutureKey'); // unknown keys are reported, not dropped silently
  expect((await ovs.vsctl('get', 'interface', 'sy-gw0', 'type')).trim()).toBe('internal');

  const node = { socket: cniSocket } as Node;
  const sb = await sandbox(tb, 'api-pod');
  const { ip } = await addPod(node, sb);
  expect(ip).toBe('10.92.0.2');

  // Both sockets answer their owner only.
  expect(statSync(apiSocket).mode & 0o777).toBe(0o600);
  expect(statSync(cniSocket).mode & 0o777).toBe(0o600);
  const info = (await get(apiSocket, '/agentinfo')).body as {
    nodeRef: { name: string }; localPodNum: number; nodeSubnets: string[]; ovsInfo: { bridgeName: string; version: string; flowTable: Record<string, number> };
    agentConditions: { type: string; status: string }[];
  };
  expect(info.nodeRef.name).toBe('node-b');
  expect(info.localPodNum).toBe(1);
  expect(info.nodeSubnets).toEqual(['10.92.0.0/24']);
  expect(info.ovsInfo.bridgeName).toBe('br-int');
  expect(info.ovsInfo.version).toMatch(/^3\./);
  expect(info.ovsInfo.flowTable.Classifier).toBeGreaterThan(0);
  expect(info.agentConditions[0]).toMatchObject({ type: 'AgentHealthy', status: 'True' });

  // The same API on the TCP port (what the API server's node proxy reaches).
  // The TCP port speaks HTTPS and, the agent having a Kubernetes client (kubeconfig defaults),
  // wants an authenticated caller; the health check answers anyone.
  const overTcp = await agentApiGet(`https://127.0.0.1:${apiPort}/agentinfo`);
  expect(overTcp).toMatchObject({ status: 401, body: { kind: 'Status', reason: 'Unauthorized' } });
  expect(await agentApiGet(`https://127.0.0.1:${apiPort}/healthz`)).toEqual({ status: 200, body: { status: 'ok' } });
  const ifaces = (await get(apiSocket, '/podinterfaces?namespace=default')).body as { podName: string; ipCidr: string }[];
  expect(ifaces.map((i) => [i.podName, i.ipCidr])).toEqual([['api-pod', '10.92.0.2/24']]);
  const podFlows = (await get(apiSocket, '/ovsflows?pod=default/api-pod')).body as string[];
  expect(podFlows.length).toBeGreaterThanOrEqual(5);
  expect(podFlows.some((l) => l.includes('table=SpoofGuard') && l.includes('nw_src=10.92.0.2'))).toBe(true);
  const l3 = (await get(apiSocket, '/ovsflows?table=L3Forwarding')).body as string[];
  expect(l3.length).toBeGreaterThan(0);
  expect(l3.every((l) => l.includes('table=L3Forwarding'))).toBe(true);
  expect((await get(apiSocket, '/ovsflows?table=NoSuchTable')).status).toBe(404);
  expect((await get(apiSocket, '/ovsflows?pod=default/nobody')).status).toBe(404);

  const metrics = await getText(apiSocket, '/metrics');
  expect(metrics.type).toContain('text/plain');
  expect(() => parsePromText(metrics.text)).not.toThrow();
  expect(metrics.text).toMatch(/^switchyard_agent_ovs_flow_count\{table="Classifier"\} [1-9]\d*$/m);
  expect(metrics.text).toMatch(/^switchyard_agent_local_pod_count 1$/m);
  expect(metrics.text).toMatch(/^switchyard_agent_cni_request_duration_seconds_count\{command="ADD",result="ok"\} 1$/m);
  expect(metrics.text).toMatch(/^switchyard_agent_flow_sync_duration_seconds_count\{kind="diff"\} [1-9]/m);

  const exited = new Promise<number | null>((r) => child!.once('exit', (code) => r(code)));
  child.kill('SIGTERM');
  expect(await exited).toBe(0);
  child = undefined;
  expect(existsSync(cniSocket)).toBe(false);
  expect(existsSync(apiSocket)).toBe(false);
});

it('refuses a --node-ip that is not <IPv4>, <IPv4>,<IPv6> or (IPv6-only nodes) <IPv6>, naming the flag, before touching the node', async () => {
  for (const [bad, msg] of [
    ['192.168.77.2,not-an-ip', `--node-ip takes an IPv4 address, an IPv4 and an IPv6 address comma-separated (dual-stack), or an IPv6 address alone (an IPv6-only node without IPv4), got "192.168.77.2,not-an-ip"`],
    // An IPv6 node IP alone is an IPv6 underlay: for an IPv6-only node, not this dual-stack one.
    ['fd00:77::2', '--node-ip fd00:77::2 is IPv6 alone: an IPv6 underlay is for an IPv6-only node (--pod-cidr an IPv6 CIDR alone), got pod CIDR 10.93.0.0/24,fd00:93::/64'],
  ] as const) {
    const p = spawn(process.execPath, ['--import', 'tsx', join(PKG_DIR, 'src/cli.ts'), '--node-name', 'node-c', '--pod-cidr', '10.93.0.0/24,fd00:93::/64', '--node-ip', bad, '--data-dir', dir], { cwd: PKG_DIR, stdio: ['ignore', 'pipe', 'pipe'] });
    let err = '';
    p.stderr!.on('data', (d: Buffer) => (err += d.toString()));
    const code = await new Promise<number | null>((r) => p.once('exit', (c) => r(c)));
    expect(code).toBe(1);
    expect(JSON.parse(err.trim().split('\n').pop()!)).toEqual({ level: 'fatal', code: 'INVALID_CONFIG', path: '--node-ip', msg });
  }
});

it('an IPv6-only node without --pod-cidr and --node-ip takes its IPv6 pod CIDR and its IPv6 InternalIP from its Node: the tunnel runs from that address', async () => {
  const api = await startKubeApi({ crds: loadCrds() as never });
  const ovs6 = await tb.startOvs();
  const dir6 = mkdtempSync(join(tmpdir(), 'sy-agent-bin6-'));
  try {
    // The Node lists its IPv6 InternalIP alone (in a non-canonical spelling) beside its hostname.
    api.createObjects([{
      apiVersion: 'v1', kind: 'Node', metadata: { name: 'node-6' }, spec: { podCIDR: 'fd00:96:1::/64', podCIDRs: ['fd00:96:1::/64'] },
      status: { addresses: [{ type: 'Hostname', address: 'node-6' }, { type: 'InternalIP', address: 'FD00:77:0::6' }] },
    }]);
    const conf = join(dir6, 'antrea-agent.conf');
    writeFileSync(conf, ['ovsDatapathType: netdev', `ovsRunDir: ${ovs6.dir}`, 'hostGateway: sy-gw0', 'tunnelType: gre', `cniSocket: ${join(dir6, 'cni.sock')}`, `apiPort: ${await freePort()}`,
      `clientConnection:\n  kubeconfig: ${api.writeKubeconfig(join(dir6, 'kubeconfig'))}`, ''].join('\n'));
    let out = '';
    child = spawn(process.execPath, ['--import', 'tsx', join(PKG_DIR, 'src/cli.ts'), '--config', conf, '--node-name', 'node-6', '--data-dir', dir6, '--node-netns', ovs6.netns.name, '--api-socket', join(dir6, 'agent.sock')], { cwd: PKG_DIR, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
    await waitFor('agent ready', () => out.includes('"msg":"agent ready"') || child!.exitCode !== null, { timeoutMs: 60_000, intervalMs: 100 });
    if (child.exitCode !== null) throw new Error(`agent exited: ${out}`);
    // The Node's facts as read: no IPv4 pod CIDR or address, the IPv6 ones.
    expect(out).toMatch(/"nodeName":"node-6","podCIDRv6":"fd00:96:1::\/64","nodeIPv6":"fd00:77::6","msg":"node facts from the Node object"/);
    // An IPv6 underlay: local_ip the Node's address (canonical), GRE over IPv6 (1500 - 62), the gateway IPv6 alone.
    expect((await ovs6.vsctl('get', 'interface', 'antrea-tun0', 'options')).trim()).toBe('{key=flow, local_ip="fd00:77::6", remote_ip=flow}');
    expect((await ovs6.vsctl('get', 'interface', 'sy-gw0', 'mtu_request')).trim()).toBe('1438');
    expect((await ovs6.netns.exec(['ip', '-o', 'addr', 'show', 'dev', 'sy-gw0', 'scope', 'global'])).stdout).toMatch(/^\d+: sy-gw0\s+inet6 fd00:96:1::1\/64 scope global[^\n]*\n$/);
    const exited = new Promise<number | null>((r) => child!.once('exit', (code) => r(code)));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    child = undefined;
  } finally {
    child?.kill('SIGKILL');
    await api.stop();
    rmSync(dir6, { recursive: true, force: true });
  }
});
