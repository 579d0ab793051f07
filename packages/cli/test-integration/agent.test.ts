// yardctl's agent commands against a real switchyard-agent (child process, as deployed) on a real OVS
// (tools/testbed), with two pods added through the real CNI plugin. Ground truth is read from OVS
// independently: ovs-vsctl for the pod ports, ovs-ofctl dump-flows for the flows.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Testbed, waitFor, type OvsInstance } from '@switchyard/testbed';
import { AGENT_BIN, buildPackages, YARDCTL_BIN } from './built';

const ROOT = join(__dirname, '../../..');
const AGENT_DIR = join(ROOT, 'packages/agent');
const PLUGIN = join(AGENT_DIR, 'dist/switchyard-cni.js');
/** The built binary, as installed; built in beforeAll (a tsx start per invocation would triple the runtime). */
const YARDCTL = YARDCTL_BIN;
const CIDR = '10.93.0.0/24';

interface Result {
  code: number;
  stdout: string;
  stderr: string;
}
function exec(cmd: string, args: string[], opts: { env?: NodeJS.ProcessEnv; cwd?: string; stdin?: string } = {}): Promise<Result> {
  return new Promise((resolve) => {
    const child = execFile(cmd, args, { env: opts.env ?? process.env, cwd: opts.cwd, maxBuffer: 32 << 20 }, (err, stdout, stderr) =>
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
    if (opts.stdin !== undefined) child.stdin?.end(opts.stdin);
  });
}

let tb: Testbed;
let ovs: OvsInstance;
let dir: string;
let apiSocket: string;
let agent: ChildProcess | undefined;
let agentLog = '';
const PODS = [
  { ns: 'x', name: 'web', containerId: '' },
  { ns: 'y', name: 'client', containerId: '' },
];

const yardctl = (args: string[]): Promise<Result> => exec(process.execPath, [YARDCTL, ...args, '--agent-socket', apiSocket], { env: { ...process.env, NO_COLOR: '1' } });
const yardJson = async <T>(args: string[]): Promise<T> => {
  const r = await yardctl([...args, '-o', 'json']);
  if (r.code !== 0) throw new Error(`yardctl ${args.join(' ')} exited ${r.code}: ${r.stderr}`);
  return JSON.parse(r.stdout) as T;
};

beforeAll(async () => {
  // The agent and the CNI plugin are the agent package's bundles, yardctl the cli's.
  await buildPackages('@switchyard/agent', '@switchyard/cli');
  tb = await Testbed.create();
  ovs = await tb.startOvs();
  dir = mkdtempSync(join(tmpdir(), 'yardctl-agent-it-'));
  const conf = join(dir, 'antrea-agent.conf');
  const cniSocket = join(dir, 'cni.sock');
  apiSocket = join(dir, 'agent.sock');
  writeFileSync(conf, ['ovsBridge: br-int', 'ovsDatapathType: netdev', `ovsRunDir: ${ovs.dir}`, 'hostGateway: sy-gw0', 'tunnelType: vxlan', `cniSocket: ${cniSocket}`, ''].join('\n'));
  agent = spawn(
    process.execPath,
    [AGENT_BIN, '--config', conf, '--node-name', 'node-y', '--pod-cidr', CIDR, '--node-ip', '192.168.77.9', '--data-dir', dir, '--node-netns', ovs.netns.name, '--api-socket', apiSocket],
    { cwd: AGENT_DIR, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  agent.stdout?.on('data', (d: Buffer) => (agentLog += d.toString()));
  agent.stderr?.on('data', (d: Buffer) => (agentLog += d.toString()));
  await waitFor('agent ready', () => agentLog.includes('"msg":"agent ready"'), { timeoutMs: 60_000, intervalMs: 100 }).catch((e: unknown) => {
    throw new Error(`${(e as Error).message}\nagent log:\n${agentLog.slice(-3000)}`);
  });
  // Two pods through the real plugin, the way a container runtime execs it.
  let seq = 0;
  for (const p of PODS) {
    const netns = await tb.createNetns('p');
    p.containerId = `c${Date.now().toString(16)}${(seq++).toString(16).padStart(4, '0')}`;
    const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', CNI_COMMAND: 'ADD', CNI_PATH: '/opt/cni/bin', CNI_CONTAINERID: p.containerId, CNI_NETNS: netns.path, CNI_IFNAME: 'eth0', CNI_ARGS: `IgnoreUnknown=1;K8S_POD_NAMESPACE=${p.ns};K8S_POD_NAME=${p.name};K8S_POD_INFRA_CONTAINER_ID=x` };
    const r = await exec(PLUGIN, [], { env, stdin: JSON.stringify({ cniVersion: '1.0.0', name: 'switchyard', type: 'switchyard-cni', cniSocket }) });
    if (r.code !== 0) throw new Error(`CNI ADD ${p.ns}/${p.name} failed: ${r.stdout}${r.stderr}`);
  }
}, 180_000);

afterAll(async () => {
  if (agent && agent.exitCode === null) {
    const exited = new Promise((r) => agent!.once('exit', r));
    agent.kill('SIGTERM');
    await exited;
  }
  await tb?.cleanup();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

interface OvsdbTable {
  headings: string[];
  data: unknown[][];
}
/** `ovs-vsctl --format=json list <table>` as objects; OVSDB maps decoded, sets of one kept as the value. */
async function listTable(table: string): Promise<Record<string, unknown>[]> {
  const t = JSON.parse(await ovs.vsctl('--format=json', 'list', table)) as OvsdbTable;
  const decode = (v: unknown): unknown => {
    if (Array.isArray(v) && v[0] === 'map') return Object.fromEntries(v[1] as [string, string][]);
    if (Array.isArray(v) && v[0] === 'uuid') return v[1];
    return v;
  };
  return t.data.map((row) => Object.fromEntries(t.headings.map((h, i) => [h, decode(row[i])])));
}

interface DumpedFlow {
  table: number;
  priority: number;
  match: Map<string, string>;
}
/** Independent parse of `ovs-ofctl dump-flows` text: table, priority and the match fields of each flow. */
function parseOfctl(text: string): DumpedFlow[] {
  const flows: DumpedFlow[] = [];
  for (const line of text.split('\n')) {
    const t = /\btable=(\d+)/.exec(line);
    if (!t) continue;
    const head = line.slice(0, line.indexOf(' actions='));
    const match = new Map<string, string>();
    for (const part of head.replace(/^.*?\bn_bytes=\d+,\s*/, '').split(',')) {
      const [k, v] = part.trim().split('=');
      if (k) match.set(k, v ?? '');
    }
    flows.push({ table: Number(t[1]), priority: Number(match.get('priority') ?? 32768), match });
  }
  return flows;
}
const dumpFlows = async (): Promise<DumpedFlow[]> => parseOfctl(await ovs.ofctl('-O', 'OpenFlow15', 'dump-flows', ovs.mgmtSocket('br-int')));
/** Table name and priority of a yardctl flow line (`table=Name, ..., priority=N,...`). */
const yardFlow = (f: string): { table: string; priority: number } => ({ table: /\btable=([^,\s]+)/.exec(f)?.[1] ?? '', priority: Number(/\bpriority=(\d+)/.exec(f)?.[1] ?? 32768) });

test('get agentinfo: the node, its subnet, Healthy, and localPodNum == 2 pods added through CNI', async () => {
  const info = await yardJson<{ nodeRef: { name: string }; nodeSubnets: string[]; localPodNum: number; ovsInfo: { bridgeName: string } }>(['get', 'agentinfo']);
  expect(info.nodeRef.name).toBe('node-y');
  expect(info.nodeSubnets).toEqual([CIDR]);
  expect(info.localPodNum).toBe(2);
  expect(info.ovsInfo.bridgeName).toBe('br-int');
  const table = await yardctl(['get', 'ai']);
  expect(table.code).toBe(0);
  expect(table.stdout.split('\n')[0]).toMatch(/^POD\s+NODE\s+STATUS\s+NODE-SUBNET\s+NETWORK-POLICIES\s+ADDRESS-GROUPS\s+APPLIED-TO-GROUPS\s+LOCAL-PODS$/);
  expect(table.stdout.split('\n')[1]).toMatch(new RegExp(`^<none>\\s+node-y\\s+Healthy\\s+${CIDR.replace(/\./g, '\\.')}\\s+0\\s+0\\s+0\\s+2$`));
});

test('get podinterface agrees with the OVS ports external_ids and interface ofport/MAC read by ovs-vsctl', async () => {
  const ports = (await listTable('port')).filter((p) => (p.external_ids as Record<string, string>)['antrea-type'] === 'container');
  const ifaces = new Map((await listTable('interface')).map((i) => [i.name as string, i]));
  const truth = ports
    .map((p) => {
      const ids = p.external_ids as Record<string, string>;
      return { podNamespace: ids['pod-namespace'], podName: ids['pod-name'], containerId: ids['container-id'], hostIfName: p.name, ip: ids['ip-address']?.split('/')[0], mac: ids['attached-mac'], ofport: ifaces.get(p.name as string)?.ofport };
    })
    .sort((a, b) => `${a.podNamespace}/${a.podName}`.localeCompare(`${b.podNamespace}/${b.podName}`));
  expect(truth.map((t) => `${t.podNamespace}/${t.podName}`)).toEqual(['x/web', 'y/client']);
  const got = await yardJson<{ podNamespace: string; podName: string; containerId: string; hostIfName: string; ipCidr: string; mac: string; ofport: number }[]>(['get', 'podinterface']);
  expect(
    got
      .map((p) => ({ podNamespace: p.podNamespace, podName: p.podName, containerId: p.containerId, hostIfName: p.hostIfName, ip: p.ipCidr.split('/')[0], mac: p.mac, ofport: p.ofport }))
      .sort((a, b) => `${a.podNamespace}/${a.podName}`.localeCompare(`${b.podNamespace}/${b.podName}`)),
  ).toEqual(truth);
  expect(got.map((p) => p.containerId).sort()).toEqual(PODS.map((p) => p.containerId).sort());

  const one = await yardJson<{ podName: string }[]>(['get', 'pi', 'web', '-n', 'x']);
  expect(one.map((p) => p.podName)).toEqual(['web']);
  const table = await yardctl(['get', 'pi', '-n', 'y']);
  const web = truth.find((t) => t.podName === 'client')!;
  expect(table.stdout.split('\n')[1]).toMatch(new RegExp(`^y\\s+client\\s+${web.hostIfName as string}\\s+${(web.ip ?? '').replace(/\./g, '\\.')}\\s+${web.mac ?? ''}\\s+<none>\\s+${String(web.ofport)}\\s+${PODS[1]!.containerId.slice(0, 11)}$`));
  const missing = await yardctl(['get', 'pi', 'nobody', '-n', 'x']);
  expect(missing.code).toBe(1);
  expect(missing.stderr).toBe('Error from server (NotFound): podinterfaces "x/nobody" not found\n');
});

test('get ovsflows: all flows, and per table by number, match ovs-ofctl dump-flows counts and priorities; agentinfo flowTable agrees', async () => {
  const truth = await dumpFlows();
  const all = await yardJson<{ flow: string }[]>(['get', 'ovsflows']);
  expect(all.length).toBe(truth.length);
  const info = await yardJson<{ ovsInfo: { flowTable: Record<string, number> } }>(['get', 'agentinfo']);
  const tables = [...new Set(truth.map((f) => f.table))].sort((a, b) => a - b);
  const names = new Map<number, string>();
  // A few at a time: each yardctl is a process.
  for (let i = 0; i < tables.length; i += 4) {
    await Promise.all(
      tables.slice(i, i + 4).map(async (id) => {
        const got = (await yardJson<{ flow: string }[]>(['get', 'of', '-T', String(id)])).map((f) => yardFlow(f.flow));
        const want = truth.filter((f) => f.table === id);
        expect({ id, priorities: got.map((g) => g.priority).sort((a, b) => a - b) }).toEqual({ id, priorities: want.map((w) => w.priority).sort((a, b) => a - b) });
        const tableNames = [...new Set(got.map((g) => g.table))];
        expect(tableNames).toHaveLength(1);
        names.set(id, tableNames[0]!);
        expect(info.ovsInfo.flowTable[tableNames[0]!]).toBe(want.length);
      }),
    );
  }
  // -T by name is the same table as by number.
  const [someId, someName] = [...names.entries()].find(([, n]) => n === 'SpoofGuard') ?? [...names.entries()][0]!;
  const byName = await yardJson<{ flow: string }[]>(['get', 'of', '-T', someName]);
  expect(byName.length).toBe(truth.filter((f) => f.table === someId).length);
  const bad = await yardctl(['get', 'of', '-T', 'NoSuchTable']);
  expect(bad.code).toBe(1);
  expect(bad.stderr).toContain('no table NoSuchTable');
});

test('get ovsflows -p -n: the flows whose match names the pod (ofport, MAC or IP), as ovs-ofctl shows them', async () => {
  const pi = await yardJson<{ ipCidr: string; mac: string; ofport: number }[]>(['get', 'pi', 'web', '-n', 'x']);
  const pod = pi[0]!;
  const ip = pod.ipCidr.split('/')[0]!;
  const concerns = (f: DumpedFlow): boolean =>
    f.match.get('in_port') === String(pod.ofport) ||
    f.match.get('dl_src') === pod.mac ||
    f.match.get('dl_dst') === pod.mac ||
    ['nw_src', 'nw_dst', 'arp_spa', 'arp_tpa'].some((k) => f.match.get(k) === ip);
  const truth = (await dumpFlows()).filter(concerns);
  expect(truth.length).toBeGreaterThanOrEqual(4);
  // Table names of the agent's pipeline, learned from the per-table dump by number.
  const got = (await yardJson<{ flow: string }[]>(['get', 'ovsflows', '-p', 'web', '-n', 'x'])).map((f) => yardFlow(f.flow));
  const idOf = new Map<string, number>();
  const ids = [...new Set(truth.map((f) => f.table))];
  // A few at a time, as above.
  for (let i = 0; i < ids.length; i += 4) {
    await Promise.all(
      ids.slice(i, i + 4).map(async (id) => {
        const flows = await yardJson<{ flow: string }[]>(['get', 'of', '-T', String(id)]);
        idOf.set(yardFlow(flows[0]!.flow).table, id);
      }),
    );
  }
  const key = (t: number | undefined, p: number): string => `${String(t)}/${p}`;
  expect(got.map((g) => key(idOf.get(g.table), g.priority)).sort()).toEqual(truth.map((f) => key(f.table, f.priority)).sort());
  const other = await yardJson<{ flow: string }[]>(['get', 'of', '-p', 'client', '-n', 'y']);
  expect(other.some((f) => f.flow.includes(ip))).toBe(false);
});
