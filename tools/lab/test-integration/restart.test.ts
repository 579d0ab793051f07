// Faults under a running 2-node lab. An agent SIGKILLed during an iperf3 stream across nodes
// (`switchyard-lab restart-agent node2 --kill`; the supervisor starts the agent again) while a pod
// on node1 streams to a pod on node2 over Geneve with 0.1 s intervals: no interval stalls, and
// the new agent adopts the flows it finds, as node2's switch shows: the same flows (cookie, match,
// actions) before and after, and every one of them older than the kill, also the flows and groups
// of two Services created one after the other in the reverse of their names' order (a restarted
// agent lists them by name: their group ids must come from its record, not from the listing). Then
// ovs-vswitchd SIGKILLed under a running agent, a pod created while an agent is down, and the
// run's logs searched for the secrets it issued.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import YAML from 'yaml';
import { flowChanges, flowSnapshot, run, signalProcess, throughputDisruptions, waitFor } from '@switchyard/testbed';
import type { KubeConfigClient } from '@switchyard/controller';
import { agentHealthy, labClient, readState, type LabState } from '../src/index';
import { NETNS_ANNOTATION } from '../src/kubelet';

const BIN = join(__dirname, '../bin/switchyard-lab');
const labDir = mkdtempSync(join(tmpdir(), 'switchyard-lab-restart-'));
const lab = (...args: string[]): string => execFileSync(BIN, ['--lab-dir', labDir, ...args], { encoding: 'utf8', timeout: 180_000 });

let st: LabState;
let kube: KubeConfigClient;

beforeAll(() => {
  lab('up', '--nodes', '2');
  st = readState(labDir)!;
  kube = labClient(st);
}, 240_000);
afterAll(() => {
  if (readState(labDir)) lab('down');
}, 120_000);

interface PodView { metadata: { name: string; annotations?: Record<string, string> }; status?: { podIP?: string } }
interface Interval { sum: { bits_per_second: number; retransmits?: number } }

/** The OpenFlow management socket of a node's br-int (its OVS runs in the node's netns; the socket is a file in its run directory). */
function brInt(node: string): string {
  const conf = YAML.parse(readFileSync(join(labDir, node, 'antrea-agent.conf'), 'utf8')) as { ovsRunDir: string };
  return join(conf.ovsRunDir, 'br-int.mgmt');
}

/** Flow rounds (the cookie's top 16 bits, as @switchyard/openflow-pipeline allocates them) on a node's br-int, with their flow counts. */
async function roundsOn(node: string): Promise<Map<number, number>> {
  const out = (await run(['ovs-ofctl', '-O', 'OpenFlow15', 'dump-flows', brInt(node)])).stdout;
  const rounds = new Map<number, number>();
  for (const m of out.matchAll(/cookie=(0x[0-9a-f]+)/g)) {
    const round = Number(BigInt(m[1]!) >> 48n);
    rounds.set(round, (rounds.get(round) ?? 0) + 1);
  }
  return rounds;
}

it('iperf3 node1 -> node2 never stalls while node2\'s agent is SIGKILLed and started again, and the new agent adopts node2\'s flows without replacing them', async () => {
  for (const [name, node] of [['ipc', 'node1'], ['ips', 'node2']] as const)
    await kube.request('POST', '/api/v1/namespaces/default/pods', { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default', labels: { app: name } }, spec: { nodeName: node, containers: [{ name: 'c', image: 'iperf3' }] } });
  const pods = new Map<string, PodView>();
  await waitFor('iperf pods with an IP and a netns', async () => {
    const list = await kube.request<{ items: PodView[] }>('GET', '/api/v1/namespaces/default/pods');
    for (const p of list.items) pods.set(p.metadata.name, p);
    return ['ipc', 'ips'].every((n) => pods.get(n)?.status?.podIP && pods.get(n)?.metadata.annotations?.[NETNS_ANNOTATION]);
  }, { timeoutMs: 60_000, intervalMs: 200 });
  const netns = (n: string): string => pods.get(n)!.metadata.annotations![NETNS_ANNOTATION]!;
  const server = pods.get('ips')!.status!.podIP!;

  // zz-iperf first, aa-iperf once node2 holds zz's group: zz gets the lower group id.
  const groupsOn = async (node: string): Promise<number> => (await bridgeState(node)).groups.length;
  for (const name of ['zz-iperf', 'aa-iperf']) {
    const had = await groupsOn('node2');
    await kube.request('POST', '/api/v1/namespaces/default/services', { apiVersion: 'v1', kind: 'Service', metadata: { name, namespace: 'default' }, spec: { selector: { app: 'ips' }, ports: [{ port: 5201 }] } });
    await waitFor(`node2 holds ${name}'s group`, async () => (await groupsOn('node2')) > had, { timeoutMs: 30_000, intervalMs: 200 });
  }

  const before = await roundsOn('node2');
  expect(before.size).toBe(1);
  const oldRound = [...before.keys()][0]!;

  const srv = run(['ip', 'netns', 'exec', netns('ips'), 'iperf3', '-s', '-1'], { allowFailure: true, timeoutMs: 60_000 });
  await waitFor('the iperf3 server', async () => (await run(['ip', 'netns', 'exec', netns('ips'), 'ss', '-ltn'], { allowFailure: true })).stdout.includes(':5201'), { timeoutMs: 10_000, intervalMs: 100 });
  // The flows are read before the stream starts: a dump keeps ovs-vswitchd's main thread, which
  // also forwards the userspace datapath's packets, busy for a moment, and CI saw the stream dip
  // for two intervals during it, before the kill.
  const flowsBefore = await flowSnapshot(brInt('node2'));
  const groupsBefore = (await bridgeState('node2')).groups;
  expect(flowsBefore.ages.size).toBeGreaterThan(20);
  const client = run(['ip', 'netns', 'exec', netns('ipc'), 'iperf3', '-c', server, '-t', '8', '-i', '0.1', '-b', '50M', '-J', '--connect-timeout', '3000'], { timeoutMs: 60_000, allowFailure: true });
  await new Promise((r) => setTimeout(r, 1500));
  const t0 = Date.now();
  lab('restart-agent', 'node2', '--kill');
  const restartMs = Date.now() - t0;
  const result = await client;
  await srv;

  expect(result.code).toBe(0);
  const { intervals } = JSON.parse(result.stdout) as { intervals: Interval[] };
  const bps = intervals.map((i) => i.sum.bits_per_second);
  expect(bps.length).toBeGreaterThanOrEqual(70);
  // No stall and no lasting dip (testbed's throughputDisruptions): paced at 50 Mbit/s, well under
  // what the userspace datapath carries, so only a real disruption (drops: TCP retransmitting and
  // backing off for 200 ms or more) counts, not the shared machine holding back the sender (CI-E,
  // load 11: two intervals at half the pace, nothing retransmitted).
  const mbps = bps.map((x) => Math.round(x / 1e6));
  expect({ ...throughputDisruptions(bps, intervals.map((i) => i.sum.retransmits ?? 0)), restartMs, mbps }).toEqual({ stalls: [], lastingDips: [], restartMs, mbps });

  // The new agent resumed the round and adopted its flows, as node2's switch shows once the agent
  // is healthy again: no flow added, deleted or modified (a flow's identity is its cookie, table,
  // priority, match and actions), and every flow aged by the whole time since the snapshot before
  // the kill (a re-sent flow, even an identical one, restarts its age).
  await waitFor('node2 agent healthy', () => agentHealthy(readState(labDir)!.nodes[1]!), { timeoutMs: 30_000, intervalMs: 200 });
  const flowsAfter = await flowSnapshot(brInt('node2'));
  expect(flowChanges(flowsBefore, flowsAfter)).toEqual({ added: [], deleted: [], younger: [] });
  expect((await bridgeState('node2')).groups).toEqual(groupsBefore);
  expect(flowsAfter.ages.size).toBe(flowsBefore.ages.size);
  expect([...(await roundsOn('node2')).keys()]).toEqual([oldRound]);
  process.stdout.write(`agent SIGKILL under iperf3: restart-agent took ${restartMs} ms; node2's ${flowsAfter.ages.size} flows unchanged and ${((flowsAfter.takenAt - flowsBefore.takenAt) / 1000).toFixed(1)} s older than before the kill\n`);
  expect(readState(labDir)!.nodes[1]!.agentPid).not.toBe(st.nodes[1]!.agentPid);
}, 120_000);

/** What OVS holds on a node's br-int: flows (without counters), groups and meters, each sorted. */
async function bridgeState(node: string): Promise<{ flows: string[]; groups: string[]; meters: string[] }> {
  const mgmt = brInt(node);
  const lines = async (argv: string[]): Promise<string[]> =>
    (await run(['ovs-ofctl', '-O', 'OpenFlow15', ...argv, mgmt])).stdout.split('\n').map((l) => l.trim()).filter((l) => l !== '' && !/reply \(/.test(l)).sort();
  return { flows: await lines(['--no-stats', 'dump-flows']), groups: await lines(['dump-groups']), meters: await lines(['dump-meters']) };
}

it('ovs-vswitchd SIGKILLed and restarted under node2\'s running agent: the same flows, groups and meters come back, and pods reach each other again', async () => {
  const pods = await kube.request<{ items: PodView[] }>('GET', '/api/v1/namespaces/default/pods');
  const pod = (n: string): PodView => pods.items.find((p) => p.metadata.name === n)!;
  const inPod = (n: string, argv: string[]): string[] => ['ip', 'netns', 'exec', pod(n).metadata.annotations![NETNS_ANNOTATION]!, ...argv];
  const target = pod('ips').status!.podIP!;
  // A TCP server in the node2 pod answering `pong` (no ping on these machines).
  const [cmd, ...args] = inPod('ips', ['socat', 'TCP-LISTEN:7070,fork,reuseaddr', 'SYSTEM:echo pong']);
  const server = spawn(cmd!, args, { stdio: 'ignore' });
  const serverExited = new Promise((r) => server.once('exit', r));
  const ping = async (): Promise<boolean> => (await run(inPod('ipc', ['socat', '-T', '1', '-', `TCP:${target}:7070,connect-timeout=1`]), { allowFailure: true, timeoutMs: 5000 })).stdout.includes('pong');
  await waitFor('node1 pod -> node2 pod before the restart', ping, { timeoutMs: 15_000, intervalMs: 200 });
  const before = await bridgeState('node2');
  expect(before.flows.length).toBeGreaterThan(50);
  const agentPid = readState(labDir)!.nodes[1]!.agentPid;

  const t0 = Date.now();
  const said = lab('restart-ovs', 'node2', '--kill');
  const restartedMs = Date.now() - t0;
  // From the kill to vswitchd answering with br-phy addressed again, as the command measured it (without its own start-up).
  const downMs = Math.round(Number(/in ([\d.]+) s/.exec(said)?.[1] ?? NaN) * 1000);
  let reachedMs = -1;
  await waitFor('node1 pod -> node2 pod after the vswitchd restart', async () => {
    if (!(await ping())) return false;
    reachedMs = Date.now() - t0;
    return true;
  }, { timeoutMs: 30_000, intervalMs: 100 });

  let after = before;
  await waitFor('the same bridge state on node2', async () => {
    after = await bridgeState('node2');
    return JSON.stringify(after) === JSON.stringify(before);
  }, { timeoutMs: 15_000, intervalMs: 200 }).catch(() => undefined);
  expect(after).toEqual(before);
  // The agent was not restarted: it put everything back itself.
  expect(readState(labDir)!.nodes[1]!.agentPid).toBe(agentPid);
  process.stdout.write(`vswitchd SIGKILL: vswitchd back ${downMs} ms after the kill, pods reach each other ${reachedMs - restartedMs} ms after \`restart-ovs\` returned (${reachedMs} ms after the command started), ${after.flows.length} flows, ${after.groups.length} groups, ${after.meters.length} meters back\n`);
  server.kill();
  await serverExited;
}, 120_000);

it('a pod created while node1\'s agent is down (SIGKILL) gets networking once the agent is back', async () => {
  const node = readState(labDir)!.nodes[0]!;
  const t0 = Date.now();
  expect(signalProcess({ pid: node.agentPid, start: node.agentStart }, 'SIGKILL')).toBe(true);
  await kube.request('POST', '/api/v1/namespaces/default/pods', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'late', namespace: 'default' }, spec: { nodeName: 'node1', containers: [{ name: 'c', image: 'socat' }] } });
  let late: PodView | undefined;
  await waitFor('pod late running with an IP', async () => {
    late = await kube.request<PodView>('GET', '/api/v1/namespaces/default/pods/late');
    return !!late.status?.podIP && !!late.metadata.annotations?.[NETNS_ANNOTATION];
  }, { timeoutMs: 60_000, intervalMs: 200 });
  const runningMs = Date.now() - t0;
  // The first CNI ADD met no agent: the kubelet stand-in tried again once it was back.
  expect(readFileSync(join(labDir, 'supervisor.log'), 'utf8')).toMatch(/CNI ADD default\/late failed \(attempt 1\)/);
  const ips = await kube.request<PodView>('GET', '/api/v1/namespaces/default/pods/ips');
  const server = spawn('ip', ['netns', 'exec', ips.metadata.annotations![NETNS_ANNOTATION]!, 'socat', 'TCP-LISTEN:7071,fork,reuseaddr', 'SYSTEM:echo pong'], { stdio: 'ignore' });
  const serverExited = new Promise((r) => server.once('exit', r));
  await waitFor('late (node1) -> ips (node2)', async () =>
    (await run(['ip', 'netns', 'exec', late!.metadata.annotations![NETNS_ANNOTATION]!, 'socat', '-T', '1', '-', `TCP:${ips.status!.podIP!}:7071,connect-timeout=1`], { allowFailure: true, timeoutMs: 5000 })).stdout.includes('pong'),
  { timeoutMs: 15_000, intervalMs: 200 });
  process.stdout.write(`pod created while the agent was down: running with an IP ${runningMs} ms after the kill, reaching node2 ${Date.now() - t0} ms after it\n`);
  server.kill();
  await serverExited;
}, 120_000);

it('no token the lab issued and no private key appears in any log of the run', async () => {
  const { readdirSync, statSync } = await import('node:fs');
  const files: string[] = [];
  const walk = (d: string): void => {
    for (const e of readdirSync(d)) {
      const p = join(d, e);
      const s = statSync(p, { throwIfNoEntry: false });
      if (s?.isDirectory()) walk(p);
      else if (s?.isFile() && /\.log$/.test(e)) files.push(p);
    }
  };
  walk(labDir);
  // The agents' logs, the controller's, and every OVS daemon's.
  expect(files.filter((f) => f.endsWith('agent.log'))).toHaveLength(2);
  expect(files.some((f) => f.endsWith('controller.log'))).toBe(true);
  const secrets = new Map<string, string>();
  for (const n of st.nodes) secrets.set(`${n.name} token`, readFileSync(join(labDir, n.name, 'token'), 'utf8').trim());
  const kubeconfig = YAML.parse(readFileSync(st.kubeconfig, 'utf8')) as { users: { user: { token?: string } }[] };
  secrets.set('admin token', kubeconfig.users[0]!.user.token!);
  const caSecret = await kube.request<{ data: Record<string, string> }>('GET', '/api/v1/namespaces/kube-system/secrets/switchyard-controller-ca');
  const caKey = Buffer.from(caSecret.data['ca.key']!, 'base64').toString('utf8');
  secrets.set('controller CA key', caKey.split('\n').filter((l) => l && !l.startsWith('-----'))[1]!);
  for (const value of secrets.values()) expect(value.length).toBeGreaterThan(16);
  const found: string[] = [];
  for (const f of files) {
    const text = readFileSync(f, 'utf8');
    for (const [what, value] of secrets) if (text.includes(value)) found.push(`${what} in ${f}`);
    if (/PRIVATE KEY-----/.test(text)) found.push(`a PEM private key in ${f}`);
  }
  expect({ files: files.length, found }).toEqual({ files: files.length, found: [] });
});
