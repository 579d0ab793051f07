// The WireGuard part on real wireguard-go devices in two node namespaces joined by a veth, with the
// embedded Kubernetes API: each part publishes its key and peers with the other; on node a's
// injected clock its key comes of age and is rotated (file, device, Node), node b follows, and a
// ping across the devices works again; a new part adopts the device a stopped one left running
// (same process, nothing reconfigured) and traffic never stops; removal deletes the link and ends
// the recorded process, as `switchyard-agent --uninstall` does.
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { KubeConfigClient } from '@switchyard/kube';
import { startKubeApi, type KubeApiServer } from '@switchyard/kube-api';
import { ManualClock } from '@switchyard/runtime/testing';
import { Testbed, isAlive, run, start, waitFor, type Netns } from '@switchyard/testbed';
import { agentContext } from '../src/context';
import { WireGuardTunnel, removeWireGuardDevice } from '../src/features/wireguard/part';
import { WIREGUARD_DEVICE, WIREGUARD_PUBLIC_KEY_ANNOTATION } from '../src/features/wireguard/wireguard';
import { PKG_DIR, ensurePluginBuilt } from './helpers';

const HOUR = 3_600_000;
const NODES = [
  { name: 'wg-a', nodeIP: '192.168.79.1', podCIDR: '10.79.1.0/24', podIP: '10.79.1.1' },
  { name: 'wg-b', nodeIP: '192.168.79.2', podCIDR: '10.79.2.0/24', podIP: '10.79.2.1' },
] as const;

let tb: Testbed;
let api: KubeApiServer;
let kube: KubeConfigClient;
let dir: string;
const netns: Netns[] = [];
const parts: WireGuardTunnel[] = [];
const clock = new ManualClock(Date.UTC(2026, 5, 1));

const dataDir = (i: number): string => join(dir, NODES[i]!.name);
const hex = (b64: string): string => Buffer.from(b64, 'base64').toString('hex');
const get = async (i: number): Promise<string> =>
  (await run(['socat', '-', `UNIX-CONNECT:${join(dataDir(i), 'wireguard', 'run', `${WIREGUARD_DEVICE}.sock`)}`], { input: 'get=1\n\n', timeoutMs: 5000 })).stdout;
const record = (i: number): { pid: number; start: string } => JSON.parse(readFileSync(join(dataDir(i), 'wireguard', 'device.json'), 'utf8')) as { pid: number; start: string };
const annotation = async (i: number): Promise<string | undefined> =>
  (await kube.request<{ metadata: { annotations?: Record<string, string> } }>('GET', `/api/v1/nodes/${NODES[i]!.name}`)).metadata.annotations?.[WIREGUARD_PUBLIC_KEY_ANNOTATION];
/** A ping from node a's "pod" address to node b's, through the devices. */
const ping = async (count = 2): Promise<boolean> =>
  (await run(['ping', '-c', String(count), '-i', '0.2', '-W', '1', '-I', NODES[0].podIP, NODES[1].podIP], { netns: netns[0]!.name, allowFailure: true, timeoutMs: 10_000 })).code === 0;

function part(i: number, extra: { clock?: ManualClock; wireGuardKeyRotationMs?: number } = {}): WireGuardTunnel {
  const n = NODES[i]!;
  const ctx = agentContext({ nodeName: n.name, podCIDR: n.podCIDR, nodeIP: n.nodeIP, ovsdbRemote: 'unix:/nonexistent', dataDir: dataDir(i), nodeNetns: netns[i]!.name, kube, trafficEncryptionMode: 'wireGuard', ...extra });
  const p = new WireGuardTunnel(ctx, kube);
  parts.push(p);
  return p;
}

/** The addresses and routes the routes part would give: each node's "pod" address, the other's CIDR onto the device. */
async function route(i: number): Promise<void> {
  const other = NODES[1 - i]!;
  await netns[i]!.exec(['ip', 'addr', 'add', `${NODES[i]!.podIP}/32`, 'dev', 'lo']);
  await netns[i]!.exec(['ip', 'route', 'replace', other.podCIDR, 'dev', WIREGUARD_DEVICE]);
}

beforeAll(async () => {
  tb = await Testbed.create();
  dir = mkdtempSync(join(tmpdir(), 'sy-wg-'));
  api = await startKubeApi(); // Nodes only: no CRDs needed
  const kc = new KubeConfig();
  kc.loadFromFile(api.writeKubeconfig(join(dir, 'kubeconfig')));
  kube = new KubeConfigClient(kc);
  for (const n of NODES) {
    netns.push(await tb.createNetns('w'));
    await kube.request('POST', '/api/v1/nodes', { apiVersion: 'v1', kind: 'Node', metadata: { name: n.name }, spec: { podCIDR: n.podCIDR, podCIDRs: [n.podCIDR] }, status: { addresses: [{ type: 'InternalIP', address: n.nodeIP }] } });
  }
  const [a, b] = [tb.name('v'), tb.name('v')];
  await run(['ip', 'link', 'add', a, 'netns', netns[0]!.name, 'type', 'veth', 'peer', 'name', b, 'netns', netns[1]!.name]);
  for (const [i, link] of [a, b].entries()) {
    await netns[i]!.exec(['ip', 'addr', 'add', `${NODES[i]!.nodeIP}/24`, 'dev', link]);
    await netns[i]!.exec(['ip', 'link', 'set', link, 'up']);
  }
}, 60_000);

afterAll(async () => {
  for (const p of parts) await p.stop().catch(() => undefined);
  for (const i of [0, 1]) if (netns[i]) await removeWireGuardDevice({ dataDir: dataDir(i), nodeNetns: netns[i]!.name });
  await api?.stop();
  await tb?.cleanup();
  rmSync(dir, { recursive: true, force: true });
}, 60_000);

it('each part runs a device, publishes its key and sets the other node as its peer; a ping crosses the devices', async () => {
  const a = part(0, { clock, wireGuardKeyRotationMs: 24 * HOUR });
  const b = part(1);
  await a.start();
  await b.start();
  await a.sync();
  await b.sync();
  for (const i of [0, 1]) await route(i);
  await waitFor('both peers set', async () => (await get(0)).includes(`public_key=${hex(b.publicKey!)}`) && (await get(1)).includes(`public_key=${hex(a.publicKey!)}`), { timeoutMs: 10_000, intervalMs: 100 });
  expect(await annotation(0)).toBe(a.publicKey);
  expect(await annotation(1)).toBe(b.publicKey);
  expect(await get(0)).toContain(`endpoint=${NODES[1].nodeIP}:51820\n`);
  expect(await ping()).toBe(true);
  // The key file is dated by the part's clock: its age is what the rotation period measures.
  expect(Math.round(statSync(join(dataDir(0), 'wireguard', 'private.key')).mtimeMs)).toBe(clock.now());
});

it("node a's key is rotated when it comes of age on its clock: file, device and Node change, node b follows, traffic flows again", async () => {
  const a = parts[0]!;
  const b = parts[1]!;
  const old = a.publicKey!;
  await clock.advanceAsync(24 * HOUR - 1000);
  await a.idle();
  expect(a.rotations).toBe(0);
  await clock.advanceAsync(1000);
  await waitFor('the rotation', () => a.rotations === 1, { timeoutMs: 30_000, intervalMs: 20 });
  await a.idle();
  expect(a.publicKey).not.toBe(old);
  expect(await annotation(0)).toBe(a.publicKey);
  const key = readFileSync(join(dataDir(0), 'wireguard', 'private.key'), 'utf8').trim();
  expect(await get(0)).toContain(`private_key=${hex(key)}\n`);
  expect(Math.round(statSync(join(dataDir(0), 'wireguard', 'private.key')).mtimeMs)).toBe(clock.now());
  await waitFor("node b's peer is the new key", async () => (await get(1)).includes(`public_key=${hex(a.publicKey!)}`), { timeoutMs: 10_000, intervalMs: 50 });
  expect(await get(1)).not.toContain(`public_key=${hex(old)}`);
  expect(b.health().ok).toBe(true);
  expect(await ping()).toBe(true);
  // The next rotation is due one period later.
  expect(clock.pendingDelays()).toContain(24 * HOUR);
});

it('a new part adopts the device a stopped part left running: same process, key and peers, no reconfiguration, and traffic goes on', async () => {
  const before = record(0);
  const peersBefore = (await get(0)).replace(/^(last_handshake|rx_bytes|tx_bytes)[^\n]*\n/gm, '');
  await parts[0]!.stop();
  expect(isAlive(before.pid, before.start)).toBe(true);
  expect(await ping()).toBe(true); // no agent on node a: the device carries on
  const again = part(0, { clock, wireGuardKeyRotationMs: 24 * HOUR });
  await again.start();
  expect(again.adopted).toBe(true);
  expect(record(0)).toEqual(before);
  expect(again.publicKey).toBe(parts[0]!.publicKey);
  expect((await get(0)).replace(/^(last_handshake|rx_bytes|tx_bytes)[^\n]*\n/gm, '')).toBe(peersBefore);
  expect(again.health()).toMatchObject({ ok: true });
  expect(await ping()).toBe(true);
});

it('a recorded process that is gone is not adopted: a new device is started and recorded', async () => {
  const b = parts[1]!;
  await b.stop();
  const before = record(1);
  // Deleting the link ends wireguard-go, as removal does; the record stays behind.
  await netns[1]!.exec(['ip', 'link', 'del', WIREGUARD_DEVICE]);
  await waitFor('wireguard-go of node b to exit', () => !isAlive(before.pid, before.start), { timeoutMs: 30_000, intervalMs: 50 });
  const again = part(1);
  await again.start();
  expect(again.adopted).toBe(false);
  expect(record(1).pid).not.toBe(before.pid);
  await again.sync();
  // The route went with the link; the address stays.
  await netns[1]!.exec(['ip', 'route', 'replace', NODES[0].podCIDR, 'dev', WIREGUARD_DEVICE]);
  await waitFor('traffic again', () => ping(1), { timeoutMs: 15_000, intervalMs: 200 });
});

it('removal (and `switchyard-agent --uninstall`) deletes the link and ends the recorded process', async () => {
  for (const p of parts) await p.stop();
  const recs = [record(0), record(1)];
  expect(await removeWireGuardDevice({ dataDir: dataDir(0), nodeNetns: netns[0]!.name })).toBe(true);
  await ensurePluginBuilt();
  const out = await run([process.execPath, join(PKG_DIR, 'dist', 'agent-cli.js'), '--uninstall', '--data-dir', dataDir(1), '--node-netns', netns[1]!.name], { timeoutMs: 30_000 });
  expect(out.stdout).toContain('WireGuard device removed');
  for (const r of recs) expect(isAlive(r.pid, r.start)).toBe(false);
  expect(existsSync(join(dataDir(1), 'wireguard', 'device.json'))).toBe(false);
  for (const i of [0, 1]) expect((await netns[i]!.exec(['ip', 'link', 'show', WIREGUARD_DEVICE], { allowFailure: true })).code).not.toBe(0);
});

// IPv6-only nodes: an IPv6 pod CIDR alone, Nodes with an IPv6 InternalIP alone, and a veth that
// carries no IPv4 at all, so the only way between the devices is the IPv6 underlay.
describe('IPv6-only nodes', () => {
  const V6 = [
    { name: 'wg6-a', nodeIPv6: 'fd00:79::1', podCIDR: 'fd00:79:1::/64', podIP: 'fd00:79:1::1' },
    { name: 'wg6-b', nodeIPv6: 'fd00:79::2', podCIDR: 'fd00:79:2::/64', podIP: 'fd00:79:2::1' },
  ] as const;
  const ns6: Netns[] = [];
  const parts6: WireGuardTunnel[] = [];
  /** node b's end of the veth: the IPv6 underlay as node b sees it. */
  let underlayB = '';
  const dataDir6 = (i: number): string => join(dir, V6[i]!.name);
  const get6 = async (i: number): Promise<string> =>
    (await run(['socat', '-', `UNIX-CONNECT:${join(dataDir6(i), 'wireguard', 'run', `${WIREGUARD_DEVICE}.sock`)}`], { input: 'get=1\n\n', timeoutMs: 5000 })).stdout;

  beforeAll(async () => {
    for (const n of V6) {
      ns6.push(await tb.createNetns('w6'));
      await kube.request('POST', '/api/v1/nodes', { apiVersion: 'v1', kind: 'Node', metadata: { name: n.name }, spec: { podCIDR: n.podCIDR, podCIDRs: [n.podCIDR] }, status: { addresses: [{ type: 'InternalIP', address: n.nodeIPv6 }] } });
    }
    const [a, b] = [tb.name('v'), tb.name('v')];
    underlayB = b;
    await run(['ip', 'link', 'add', a, 'netns', ns6[0]!.name, 'type', 'veth', 'peer', 'name', b, 'netns', ns6[1]!.name]);
    for (const [i, link] of [a, b].entries()) {
      await ns6[i]!.exec(['ip', '-6', 'addr', 'add', `${V6[i]!.nodeIPv6}/64`, 'dev', link, 'nodad']);
      await ns6[i]!.exec(['ip', 'link', 'set', link, 'up']);
    }
  }, 60_000);

  afterAll(async () => {
    for (const p of parts6) await p.stop().catch(() => undefined);
    for (const i of [0, 1]) if (ns6[i]) await removeWireGuardDevice({ dataDir: dataDir6(i), nodeNetns: ns6[i]!.name });
  }, 60_000);

  it("each part peers with the other at [its IPv6 node address]:51820, allowing its IPv6 pod CIDR; an IPv6 ping crosses the devices over the IPv6 underlay, and every underlay packet is WireGuard UDP over IPv6", async () => {
    for (const [i, n] of V6.entries()) {
      const ctx = agentContext({ nodeName: n.name, podCIDR: n.podCIDR, nodeIP: n.nodeIPv6, nodeIPv6: n.nodeIPv6, ovsdbRemote: 'unix:/nonexistent', dataDir: dataDir6(i), nodeNetns: ns6[i]!.name, kube, trafficEncryptionMode: 'wireGuard' });
      expect([ctx.podCIDR, ctx.podCIDRv6]).toEqual([undefined, n.podCIDR]);
      parts6.push(new WireGuardTunnel(ctx, kube));
    }
    for (const p of parts6) await p.start();
    for (const p of parts6) await p.sync();
    for (const [i, n] of V6.entries()) {
      await ns6[i]!.exec(['ip', '-6', 'addr', 'add', `${n.podIP}/128`, 'dev', 'lo']);
      await ns6[i]!.exec(['ip', '-6', 'route', 'replace', V6[1 - i]!.podCIDR, 'dev', WIREGUARD_DEVICE]);
    }
    const [a, b] = parts6 as [WireGuardTunnel, WireGuardTunnel];
    await waitFor('both IPv6 peers set', async () => (await get6(0)).includes(`public_key=${hex(b.publicKey!)}`) && (await get6(1)).includes(`public_key=${hex(a.publicKey!)}`), { timeoutMs: 10_000, intervalMs: 100 });
    for (const i of [0, 1]) {
      const d = await get6(i);
      // One peer: the IPv4-only Nodes of the other tests are no peers of an IPv6-only node.
      expect(d.match(/^public_key=/gm)).toHaveLength(1);
      expect(d).toContain(`endpoint=[${V6[1 - i]!.nodeIPv6}]:51820\n`);
      expect(d).toContain(`allowed_ip=${V6[1 - i]!.podCIDR}\n`);
      expect(d).not.toMatch(/allowed_ip=\d/);
    }
    expect(parts6.map((p) => p.health())).toEqual([expect.objectContaining({ ok: true }), expect.objectContaining({ ok: true })]);
    const pcap = join(dir, 'wg6.pcap');
    const capture = start(['tcpdump', '-i', underlayB, '--immediate-mode', '-nn', '-U', '-s', '0', '-w', pcap], { netns: ns6[1]!.name });
    const stderr: string[] = [];
    capture.stderr?.on('data', (d: Buffer) => stderr.push(d.toString()));
    try {
      await waitFor('tcpdump listening', () => stderr.join('').includes('listening on'), { timeoutMs: 10_000, intervalMs: 50 });
      const r = await run(['ping', '-6', '-c', '3', '-i', '0.2', '-W', '1', '-I', V6[0].podIP, V6[1].podIP], { netns: ns6[0]!.name, allowFailure: true, timeoutMs: 10_000 });
      expect(r.code).toBe(0);
    } finally {
      const exited = new Promise((res) => capture.once('exit', res));
      capture.kill('SIGINT');
      await exited;
    }
    // On the underlay: WireGuard UDP between the IPv6 node addresses (and the link's own Neighbor
    // Discovery), never the pods' ICMPv6 (no IPv4 exists there at all).
    const lines = (await run(['tcpdump', '-nn', '-r', pcap])).stdout.split('\n').filter((l) => l.trim() !== '' && !/ ICMP6, (neighbor|multicast listener|router)/.test(l));
    const wg = / IP6 fd00:79::[12]\.51820 > fd00:79::[12]\.51820: UDP/;
    expect(lines.filter((l) => wg.test(l)).length).toBeGreaterThanOrEqual(6);
    expect(lines.filter((l) => !wg.test(l))).toEqual([]);
  });
});
