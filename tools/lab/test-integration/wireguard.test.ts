// trafficEncryptionMode wireGuard on a real dual-stack 2-node lab (`switchyard-lab up --encryption
// wireGuard --ip-family dual`: userspace wireguard-go per node, OVS userspace datapath): each agent
// publishes its public key on its Node and sets the other node as its device's peer (endpoint its
// IPv4 node IP, allowed IPs both its pod CIDRs); a pod on node1 reaches a pod on node2 over IPv4 and
// IPv6 (ping and TCP; IPv6 packets of the pod MTU cross); a capture on the fabric sees only WireGuard
// UDP between the node IPs, never a pod address (of either family) or the payload; a NetworkPolicy
// deny still applies across nodes in both families; a Node with a malformed
// key is skipped with a warning naming it; removing node2's key file rotates its key while a TCP
// connection across the nodes carries on; after node2's agent is SIGKILLed its device runs on and
// is adopted by the new agent, with pod traffic flowing throughout (gaps measured and printed); and
// `down` removes the devices the agents left running.
import { execFileSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isAlive, run, start, waitFor } from '@switchyard/testbed';
import type { KubeConfigClient } from '@switchyard/controller';
import { labClient, readState, type LabState } from '../src/index';
import { NETNS_ANNOTATION } from '../src/kubelet';
import { tcpProbe, tcpReaches } from '../src/probe';

const BIN = join(__dirname, '../bin/switchyard-lab');
const labDir = mkdtempSync(join(tmpdir(), 'switchyard-lab-wg-'));
const lab = (...args: string[]): string => execFileSync(BIN, ['--lab-dir', labDir, ...args], { encoding: 'utf8', timeout: 180_000 });
const KEY_ANNOTATION = 'node.antrea.io/wireguard-public-key';
const WG_PORT = 51820;

let st: LabState;
let kube: KubeConfigClient;
const pods = new Map<string, { ip: string; ip6: string; netns: string }>();

interface PodView { metadata: { name: string; annotations?: Record<string, string> }; status?: { podIP?: string; podIPs?: { ip: string }[] } }
interface NodeView { metadata: { name: string; annotations?: Record<string, string> } }

beforeAll(async () => {
  lab('up', '--nodes', '2', '--encryption', 'wireGuard', '--ip-family', 'dual');
  st = readState(labDir)!;
  kube = labClient(st);
  for (const [name, node] of [['p1', 'node1'], ['p2', 'node2']] as const)
    await kube.request('POST', '/api/v1/namespaces/default/pods', {
      apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default', labels: { app: name } },
      spec: { nodeName: node, containers: [{ name: 'c', image: 'x', ports: [{ containerPort: 80 }] }] },
    });
  await waitFor('pods with an IP and a netns', async () => {
    const list = await kube.request<{ items: PodView[] }>('GET', '/api/v1/namespaces/default/pods');
    for (const p of list.items) {
      const netns = p.metadata.annotations?.[NETNS_ANNOTATION];
      const ip6 = p.status?.podIPs?.map((x) => x.ip).find((ip) => ip.includes(':'));
      if (p.status?.podIP && ip6 && netns) pods.set(p.metadata.name, { ip: p.status.podIP, ip6, netns });
    }
    return pods.has('p1') && pods.has('p2');
  }, { timeoutMs: 60_000, intervalMs: 200 });
}, 240_000);
afterAll(() => {
  if (readState(labDir)) lab('down');
  rmSync(labDir, { recursive: true, force: true });
}, 120_000);

const pod = (name: string): { ip: string; ip6: string; netns: string } => pods.get(name)!;
const nodeIP = (name: string): string => st.nodes.find((n) => n.name === name)!.nodeIP;
const podCIDR = (name: string): string => st.nodes.find((n) => n.name === name)!.podCIDR;
const podCIDRv6 = (name: string): string => st.nodes.find((n) => n.name === name)!.podCIDRv6!;

async function publicKeys(): Promise<Map<string, string | undefined>> {
  const list = await kube.request<{ items: NodeView[] }>('GET', '/api/v1/nodes');
  return new Map(list.items.map((n) => [n.metadata.name, n.metadata.annotations?.[KEY_ANNOTATION]]));
}

/** `get=1` on a node's WireGuard device (its UAPI socket in the agent's data directory). */
async function deviceOf(node: string): Promise<string> {
  const sock = join(labDir, node, 'data', 'wireguard', 'run', 'switchyard-wg0.sock');
  return (await run(['socat', '-', `UNIX-CONNECT:${sock}`], { input: 'get=1\n\n', timeoutMs: 5000 })).stdout;
}
const hexKey = (b64: string): string => Buffer.from(b64, 'base64').toString('hex');

async function ping(from: string, to: string): Promise<boolean> {
  return (await run(['ping', '-c', '3', '-i', '0.2', '-W', '1', pod(to).ip], { netns: pod(from).netns, allowFailure: true, timeoutMs: 10_000 })).code === 0;
}

/** Pings pod `to`'s IPv6 address from pod `from`; `size` is the payload (-s), sent without fragmenting (-M do). */
async function ping6(from: string, to: string, size = 56): Promise<{ ok: boolean; output: string }> {
  const r = await run(['ping', '-6', '-c', '3', '-i', '0.2', '-W', '1', '-M', 'do', '-s', String(size), pod(to).ip6], { netns: pod(from).netns, allowFailure: true, timeoutMs: 10_000 });
  return { ok: r.code === 0, output: r.stdout + r.stderr };
}

it('each node publishes a WireGuard public key on its Node and has the other node as its peer (endpoint its IPv4 node IP:51820, allowed-ips its IPv4 and IPv6 pod CIDRs)', async () => {
  const keys = await publicKeys();
  const k1 = keys.get('node1');
  const k2 = keys.get('node2');
  expect(k1).toMatch(/^[A-Za-z0-9+/]{43}=$/);
  expect(k2).toMatch(/^[A-Za-z0-9+/]{43}=$/);
  expect(k1).not.toBe(k2);
  const d1 = await deviceOf('node1');
  expect(d1).toContain(`listen_port=${WG_PORT}\n`);
  expect(d1).toContain(`public_key=${hexKey(k2!)}\n`);
  expect(d1).toContain(`endpoint=${nodeIP('node2')}:${WG_PORT}\n`);
  expect(d1).toContain(`allowed_ip=${podCIDR('node2')}\n`);
  expect(d1).toContain(`allowed_ip=${podCIDRv6('node2')}\n`);
  const d2 = await deviceOf('node2');
  expect(d2).toContain(`public_key=${hexKey(k1!)}\n`);
  expect(d2).toContain(`endpoint=${nodeIP('node1')}:${WG_PORT}\n`);
  expect(d2).toContain(`allowed_ip=${podCIDR('node1')}\n`);
  expect(d2).toContain(`allowed_ip=${podCIDRv6('node1')}\n`);
  // Pods get the link MTU less the WireGuard overhead (1500 - 80).
  const link = await run(['ip', '-j', 'link', 'show', 'eth0'], { netns: pod('p1').netns });
  expect((JSON.parse(link.stdout) as { mtu: number }[])[0]!.mtu).toBe(1420);
});

it('a pod on node1 reaches a pod on node2 and back through the WireGuard device (ping, TCP)', async () => {
  await waitFor('node1 pod -> node2 pod (TCP)', () => tcpProbe(pod('p1').netns, pod('p2').ip, 80), { timeoutMs: 20_000, intervalMs: 300 });
  expect(await ping('p1', 'p2')).toBe(true);
  expect(await ping('p2', 'p1')).toBe(true);
  expect(await tcpReaches(pod('p2').netns, pod('p1').ip, 80)).toBe(true);
  // The host routes the remote pod CIDR onto the device, and the device carried the packets.
  const routes = (await run(['ip', 'route', 'show', podCIDR('node2')], { netns: st.nodes[0]!.netns })).stdout;
  expect(routes).toContain('dev switchyard-wg0');
  const d1 = await deviceOf('node1');
  expect(Number(/last_handshake_time_sec=(\d+)/.exec(d1)?.[1])).toBeGreaterThan(0);
  expect(Number(/rx_bytes=(\d+)/.exec(d1)?.[1])).toBeGreaterThan(0);
});

it("IPv6: a pod on node1 reaches a pod on node2 and back through the WireGuard device (ping, TCP); the host routes the peer's IPv6 pod CIDR onto it, and IPv6 packets of the pod MTU (1420) cross unfragmented", async () => {
  await waitFor('node1 pod -> node2 pod over IPv6 (TCP)', () => tcpProbe(pod('p1').netns, pod('p2').ip6, 80), { timeoutMs: 20_000, intervalMs: 300 });
  expect(await tcpReaches(pod('p2').netns, pod('p1').ip6, 80)).toBe(true);
  expect((await ping6('p1', 'p2')).ok).toBe(true);
  expect((await ping6('p2', 'p1')).ok).toBe(true);
  for (const [self, peer] of [[0, 'node2'], [1, 'node1']] as const) {
    const r = (await run(['ip', '-6', 'route', 'show', podCIDRv6(peer)], { netns: st.nodes[self]!.netns })).stdout;
    expect(r).toContain(`${podCIDRv6(peer)} dev switchyard-wg0 `);
  }
  // 1372 bytes of ICMPv6 payload + 8 + 40 = 1420: the pod MTU, through the device (MTU 1420) both ways.
  const wgLink = await run(['ip', '-j', 'link', 'show', 'switchyard-wg0'], { netns: st.nodes[0]!.netns });
  expect((JSON.parse(wgLink.stdout) as { mtu: number }[])[0]!.mtu).toBe(1420);
  const full = await ping6('p1', 'p2', 1372);
  expect(full).toMatchObject({ ok: true });
  expect((await ping6('p2', 'p1', 1372)).ok).toBe(true);
  // One byte more does not leave the pod (its MTU), so the largest IPv6 packet a pod sends fits the device.
  const over = await ping6('p1', 'p2', 1373);
  expect(over.ok).toBe(false);
  expect(over.output).toMatch(/message too long/i);
});

it('a capture on the fabric shows only WireGuard UDP between the node IPs: no pod address of either family, no payload over IPv4 or IPv6', async () => {
  const pcap = join(labDir, 'fabric.pcap');
  const payload = `switchyard-wg-secret-${Date.now()}-${Math.random().toString(36).slice(2)}`;
  const payload6 = `switchyard-wg6-secret-${Date.now()}-${Math.random().toString(36).slice(2)}`;
  // Every interface of the fabric netns (the nodes' veth ports): a capture on br0 itself misses
  // frames the bridge forwards between ports once it has learned the MACs. Immediate mode: packets
  // are written as they come, not when a ring block fills or times out (SIGINT would lose them).
  const capture: ChildProcess = start(['tcpdump', '-i', 'any', '--immediate-mode', '-nn', '-U', '-s', '0', '-w', pcap], { netns: st.fabricNetns });
  const stderr: string[] = [];
  capture.stderr?.on('data', (d: Buffer) => stderr.push(d.toString()));
  try {
    await waitFor('tcpdump listening', () => stderr.join('').includes('listening on'), { timeoutMs: 10_000, intervalMs: 50 });
    const server = run(['socat', '-T', '5', '-u', 'TCP-LISTEN:9099,reuseaddr', 'STDOUT'], { netns: pod('p2').netns, timeoutMs: 15_000 });
    await waitFor('the receiver in p2', async () => (await run(['ss', '-ltn'], { netns: pod('p2').netns })).stdout.includes(':9099'), { timeoutMs: 30_000, intervalMs: 50 });
    await run(['socat', '-u', 'STDIN', `TCP:${pod('p2').ip}:9099,connect-timeout=3`], { netns: pod('p1').netns, input: `${payload}\n`, timeoutMs: 10_000 });
    expect((await server).stdout).toContain(payload);
    const server6 = run(['socat', '-T', '5', '-u', 'TCP6-LISTEN:9098,reuseaddr', 'STDOUT'], { netns: pod('p2').netns, timeoutMs: 15_000 });
    await waitFor('the IPv6 receiver in p2', async () => (await run(['ss', '-ltn'], { netns: pod('p2').netns })).stdout.includes(':9098'), { timeoutMs: 30_000, intervalMs: 50 });
    await run(['socat', '-u', 'STDIN', `TCP6:[${pod('p2').ip6}]:9098,connect-timeout=3`], { netns: pod('p1').netns, input: `${payload6}\n`, timeoutMs: 10_000 });
    expect((await server6).stdout).toContain(payload6);
    expect(await ping('p1', 'p2')).toBe(true);
    expect((await ping6('p1', 'p2')).ok).toBe(true);
    await new Promise((r) => setTimeout(r, 300));
  } finally {
    const exited = new Promise((r) => capture.once('exit', r));
    capture.kill('SIGINT');
    await exited;
  }
  expect(readFileSync(pcap).includes(Buffer.from(payload))).toBe(false);
  expect(readFileSync(pcap).includes(Buffer.from(payload6))).toBe(false);
  const text = (await run(['tcpdump', '-nn', '-r', pcap])).stdout;
  const ipLines = text.split('\n').filter((l) => / IP /.test(l));
  expect(ipLines.length).toBeGreaterThan(5);
  const nodes = `(${[nodeIP('node1'), nodeIP('node2')].map((ip) => ip.replaceAll('.', '\\.')).join('|')})`;
  const wg = new RegExp(` IP ${nodes}\\.${WG_PORT} > ${nodes}\\.${WG_PORT}: UDP`);
  expect(ipLines.filter((l) => !wg.test(l))).toEqual([]);
  // IPv6 on the fabric: at most the underlay's own Neighbor Discovery and MLD, never pod traffic.
  expect(text.split('\n').filter((l) => / IP6 /.test(l) && !/ ICMP6, (neighbor|multicast listener|router)/.test(l))).toEqual([]);
  for (const p of ['p1', 'p2']) {
    expect(text).not.toContain(pod(p).ip);
    expect(text).not.toContain(pod(p).ip6);
  }
});

it('a NetworkPolicy deny applies across nodes in wireGuard mode, and lifting it lets traffic through again', async () => {
  const np = { apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name: 'deny-p2', namespace: 'default' }, spec: { podSelector: { matchLabels: { app: 'p2' } }, policyTypes: ['Ingress'] } };
  await kube.request('POST', '/apis/networking.k8s.io/v1/namespaces/default/networkpolicies', np);
  await waitFor('the deny on p2 enforced', async () => !(await tcpProbe(pod('p1').netns, pod('p2').ip, 80)), { timeoutMs: 20_000, intervalMs: 300 });
  expect(await ping('p1', 'p2')).toBe(false);
  expect(await tcpProbe(pod('p1').netns, pod('p2').ip6, 80)).toBe(false);
  expect((await ping6('p1', 'p2')).ok).toBe(false);
  // Egress from p2 is not selected: p2 still reaches p1.
  expect(await tcpReaches(pod('p2').netns, pod('p1').ip, 80)).toBe(true);
  expect(await tcpReaches(pod('p2').netns, pod('p1').ip6, 80)).toBe(true);
  await kube.request('DELETE', '/apis/networking.k8s.io/v1/namespaces/default/networkpolicies/deny-p2');
  await waitFor('the deny lifted', () => tcpProbe(pod('p1').netns, pod('p2').ip, 80), { timeoutMs: 20_000, intervalMs: 300 });
  await waitFor('the deny lifted over IPv6', () => tcpProbe(pod('p1').netns, pod('p2').ip6, 80), { timeoutMs: 20_000, intervalMs: 300 });
}, 60_000);

it('a Node with a malformed key annotation is skipped with a warning naming the node and the value; the other peer stays', async () => {
  const bad = 'not-a-wireguard-key';
  await kube.request('POST', '/api/v1/nodes', {
    apiVersion: 'v1', kind: 'Node', metadata: { name: 'node-badkey', annotations: { [KEY_ANNOTATION]: bad } },
    spec: { podCIDR: '10.10.99.0/24', podCIDRs: ['10.10.99.0/24'] }, status: { addresses: [{ type: 'InternalIP', address: '192.168.77.99' }] },
  });
  try {
    const log = join(labDir, 'node1', 'agent.log');
    await waitFor('the warning in node1 agent log', () => readFileSync(log, 'utf8').split('\n').some((l) => l.includes('WireGuard peer skipped') && l.includes('node-badkey') && l.includes(bad)), { timeoutMs: 15_000, intervalMs: 200 });
    const d1 = await deviceOf('node1');
    expect(d1.match(/^public_key=/gm)).toHaveLength(1);
    expect(await tcpReaches(pod('p1').netns, pod('p2').ip, 80)).toBe(true);
  } finally {
    await kube.request('DELETE', '/api/v1/nodes/node-badkey');
  }
}, 40_000);

/** A ping stream from pod `from` to pod `to`, one every 20 ms with ping's own timestamps (-D). */
function pingStream(from: string, to: string): { replies: () => number; stop: () => Promise<{ maxGapMs: number; sent: number; received: number }> } {
  const child = start(['ping', '-D', '-n', '-i', '0.02', '-W', '1', pod(to).ip], { netns: pod(from).netns });
  const replies: { t: number; seq: number }[] = [];
  let buf = '';
  child.stdout?.setEncoding('utf8').on('data', (d: string) => {
    buf += d;
    const lines = buf.split('\n');
    buf = lines.pop() ?? '';
    for (const l of lines) {
      const m = /^\[(\d+\.\d+)\].*icmp_seq=(\d+)/.exec(l);
      if (m) replies.push({ t: Number(m[1]) * 1000, seq: Number(m[2]) });
    }
  });
  return {
    replies: () => replies.length,
    stop: async () => {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGINT');
      await exited;
      let maxGapMs = 0;
      for (let k = 1; k < replies.length; k++) maxGapMs = Math.max(maxGapMs, replies[k]!.t - replies[k - 1]!.t);
      return { maxGapMs, sent: replies.length ? replies[replies.length - 1]!.seq : 0, received: replies.length };
    },
  };
}

/**
 * One TCP connection from pod `from` to pod `to` carrying a numbered line every 20 ms until `done`
 * is called; `done` gives what arrived and the longest time between two arrivals.
 */
/**
 * No outage, asserted on what was lost rather than on gaps: a loaded machine delays replies (the
 * gaps are printed) but an outage of the path loses them. More than 5 of the 20 ms pings lost is
 * a path down for over 100 ms. The TCP stream's lines all on one connection are asserted apart.
 */
function expectNoOutage(ping: { sent: number; received: number }): void {
  expect(ping.received).toBeGreaterThan(0);
  expect(ping.sent - ping.received).toBeLessThanOrEqual(5);
}

async function tcpStream(from: string, to: string, port: number): Promise<{ arrived: () => number; done: () => Promise<{ lines: string[]; maxGapMs: number; senderCode: number | null }> }> {
  const receiver = start(['socat', '-u', `TCP-LISTEN:${port},reuseaddr`, 'STDOUT'], { netns: pod(to).netns });
  const got: string[] = [];
  const at: number[] = [];
  let buf = '';
  receiver.stdout?.setEncoding('utf8').on('data', (d: string) => {
    buf += d;
    const parts = buf.split('\n');
    buf = parts.pop() ?? '';
    for (const l of parts) {
      got.push(l);
      at.push(performance.now());
    }
  });
  const receiverExit = new Promise((r) => receiver.once('exit', r));
  await waitFor('the TCP receiver', async () => (await run(['ss', '-ltn'], { netns: pod(to).netns })).stdout.includes(`:${port} `), { timeoutMs: 30_000, intervalMs: 50 });
  const stopFile = join(labDir, `stream-${port}.stop`);
  const sender = start(['sh', '-c', `i=0; while [ ! -e "$1" ]; do echo $i; i=$((i+1)); sleep 0.02; done | socat -u STDIN TCP:${pod(to).ip}:${port},connect-timeout=3`, 'sh', stopFile], { netns: pod(from).netns });
  const senderExit = new Promise<number | null>((r) => sender.once('exit', (code) => r(code)));
  return {
    arrived: () => got.length,
    done: async () => {
      writeFileSync(stopFile, '');
      const senderCode = await senderExit;
      await Promise.race([receiverExit, new Promise((r) => setTimeout(r, 5000))]);
      if (receiver.exitCode === null && receiver.signalCode === null) {
        const exited = new Promise((r) => receiver.once('exit', r));
        receiver.kill('SIGTERM');
        await exited;
      }
      let maxGapMs = 0;
      for (let k = 1; k < at.length; k++) maxGapMs = Math.max(maxGapMs, at[k]! - at[k - 1]!);
      return { lines: got, maxGapMs, senderCode };
    },
  };
}

const numbered = (n: number): string[] => Array.from({ length: n }, (_, k) => String(k));
const wgDir = (node: string): string => join(labDir, node, 'data', 'wireguard');
const deviceRecord = (node: string): { pid: number; start: string } => JSON.parse(readFileSync(join(wgDir(node), 'device.json'), 'utf8')) as { pid: number; start: string };

it("removing node2's key file rotates its key: the new public key is published, node1 takes it as its peer, and a TCP connection across the nodes survives with a gap of about one handshake", async () => {
  const before = (await publicKeys()).get('node2')!;
  const stream = await tcpStream('p1', 'p2', 9101);
  const pings = pingStream('p1', 'p2');
  await waitFor('the streams running', () => stream.arrived() > 20 && pings.replies() > 20, { timeoutMs: 10_000, intervalMs: 50 });
  const t0 = performance.now();
  rmSync(join(wgDir('node2'), 'private.key'));
  let after: string | undefined;
  await waitFor('a new key on Node node2', async () => {
    after = (await publicKeys()).get('node2');
    return after !== undefined && after !== before;
  }, { timeoutMs: 10_000, intervalMs: 20 });
  const tPublished = performance.now();
  await waitFor("node1's device holding node2's new key", async () => (await deviceOf('node1')).includes(`public_key=${hexKey(after!)}\n`), { timeoutMs: 10_000, intervalMs: 20 });
  const tPeer = performance.now();
  // A few seconds more: a session broken by the rotation would show as a stalled stream.
  const arrivedThen = stream.arrived();
  await waitFor('the stream going on after the rotation', () => stream.arrived() > arrivedThen + 100, { timeoutMs: 15_000, intervalMs: 50 });
  const tcp = await stream.done();
  const ping = await pings.stop();
  // The same connection carried every line, in order: it survived the rotation.
  expect(tcp.senderCode).toBe(0);
  expect(tcp.lines).toEqual(numbered(tcp.lines.length));
  const d1 = await deviceOf('node1');
  expect(d1).not.toContain(`public_key=${hexKey(before)}\n`);
  expect(d1).toContain(`endpoint=${nodeIP('node2')}:${WG_PORT}\n`);
  // The new key is on disk (0600) and on the device.
  const keyFile = join(wgDir('node2'), 'private.key');
  expect(statSync(keyFile).mode & 0o777).toBe(0o600);
  const priv = readFileSync(keyFile, 'utf8').trim();
  expect(execFileSync('wg', ['pubkey'], { input: `${priv}\n`, encoding: 'utf8' }).trim()).toBe(after);
  expect(await deviceOf('node2')).toContain(`private_key=${hexKey(priv)}\n`);
  process.stdout.write(
    `wireguard rotation: key published ${((tPublished - t0) / 1000).toFixed(2)} s and on node1's device ${((tPeer - t0) / 1000).toFixed(2)} s after the key file was removed; ` +
      `ping every 20 ms: longest gap ${(ping.maxGapMs / 1000).toFixed(2)} s (${ping.sent - ping.received} of ${ping.sent} lost); TCP: longest gap between lines ${(tcp.maxGapMs / 1000).toFixed(2)} s, all ${tcp.lines.length} lines on one connection\n`,
  );
  expectNoOutage(ping);
}, 60_000);

it("after node2's agent is SIGKILLed, its WireGuard device runs on (adopted by the new agent, same key) and pod traffic across the nodes keeps flowing (gap measured)", async () => {
  const before = (await publicKeys()).get('node2');
  const device = deviceRecord('node2');
  const stream = await tcpStream('p1', 'p2', 9102);
  const pings = pingStream('p1', 'p2');
  await waitFor('the streams running', () => stream.arrived() > 20 && pings.replies() > 20, { timeoutMs: 10_000, intervalMs: 50 });
  const t0 = performance.now();
  // Asynchronously: the streams' arrival times are taken on this event loop.
  const out = (await run([BIN, '--lab-dir', labDir, 'restart-agent', 'node2', '--kill'], { timeoutMs: 90_000 })).stdout;
  const tAgent = performance.now();
  const arrivedThen = stream.arrived();
  await waitFor('the stream going on after the restart', () => stream.arrived() > arrivedThen + 50, { timeoutMs: 15_000, intervalMs: 50 });
  const tcp = await stream.done();
  const ping = await pings.stop();
  expect(tcp.senderCode).toBe(0);
  expect(tcp.lines).toEqual(numbered(tcp.lines.length));
  // The same wireguard-go (pid and start time), adopted by the new agent, with the same key.
  expect(deviceRecord('node2')).toEqual(device);
  expect(isAlive(device.pid, device.start)).toBe(true);
  await waitFor('the adoption in the new agent log', () => readFileSync(join(labDir, 'node2', 'agent.log'), 'utf8').includes('WireGuard device adopted'), { timeoutMs: 30_000, intervalMs: 100 });
  expect((await publicKeys()).get('node2')).toBe(before);
  expect(await deviceOf('node1')).toContain(`public_key=${hexKey(before!)}\n`);
  expect(await tcpReaches(pod('p1').netns, pod('p2').ip, 80)).toBe(true);
  expect(await tcpReaches(pod('p1').netns, pod('p2').ip6, 80)).toBe(true);
  process.stdout.write(
    `wireguard restart: ${out.trim()}; restart-agent command ${((tAgent - t0) / 1000).toFixed(1)} s; ` +
      `ping every 20 ms: longest gap ${(ping.maxGapMs / 1000).toFixed(2)} s (${ping.sent - ping.received} of ${ping.sent} lost); TCP: longest gap between lines ${(tcp.maxGapMs / 1000).toFixed(2)} s, all ${tcp.lines.length} lines on one connection\n`,
  );
  expectNoOutage(ping);
}, 120_000);

it('lab down removes the WireGuard devices the agents left running (by their records), with their namespaces', async () => {
  const devices = ['node1', 'node2'].map(deviceRecord);
  for (const d of devices) expect(isAlive(d.pid, d.start)).toBe(true);
  const t0 = performance.now();
  const out = lab('down');
  process.stdout.write(`wireguard lab down in ${((performance.now() - t0) / 1000).toFixed(1)} s: ${out.trim().split('\n').join('; ')}\n`);
  for (const d of devices) expect(isAlive(d.pid, d.start)).toBe(false);
  const netns = (await run(['ip', 'netns', 'list'])).stdout;
  for (const n of st.nodes) expect(netns).not.toContain(n.netns);
}, 120_000);
