// WireGuard between Multi-cluster gateways, end to end: two lab clusters (west, east; two nodes
// each) on one fabric with `multicluster.trafficEncryptionMode: wireGuard`. Each gateway candidate
// runs a Multi-cluster WireGuard device and publishes its key; the member controllers carry it into
// the Gateway and the ClusterInfo. A pod in east reaches a Service exported from west through both
// gateways, and a capture on the fabric shows that everything between the two clusters' nodes is
// WireGuard UDP: the payload crosses in the clear only inside a cluster (its own Geneve tunnel).
// A gateway agent killed with SIGKILL is replaced by one that adopts the device; removing the
// gateway's key file rotates its key, which the other cluster's gateway takes as its peer.
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isAlive, run, signalProcess, start, waitFor } from '@switchyard/testbed';
import type { MemberCluster, MulticlusterLab } from '../src/index';
import { multiclusterLabWithPods, pong, type PodEnd } from './multicluster-pods';

const labDir = mkdtempSync(join(tmpdir(), 'switchyard-mc-wg-lab-test-'));
const MC_WG_PORT = 51821;
const KEY_ANNOTATION = 'multicluster.antrea.io/wireguard-public-key';
let mcl: MulticlusterLab;
let west: MemberCluster;
let east: MemberCluster;
let client: PodEnd;
let server: PodEnd;
let importedIP = '';

const nodeIPs = (c: MemberCluster): string[] => c.lab.state.nodes.map((n) => n.nodeIP);

beforeAll(async () => {
  // Both ends off the gateways: node -> gateway -> WireGuard -> gateway -> node.
  ({ mcl, west, east, server, client } = await multiclusterLabWithPods({ labDir, nodes: 2, gatewayEncryption: 'wireGuard' }));
}, 480_000);

afterAll(async () => {
  await mcl?.stop();
}, 60_000);

describe('WireGuard between Multi-cluster gateways', () => {
  it("publishes each gateway's key on its Node, in its Gateway, and in the other cluster's ClusterInfoImport", async () => {
    for (const [c, other] of [[west, east], [east, west]] as const) {
      const node = await c.kube.request<{ metadata: { annotations?: Record<string, string> } }>('GET', '/api/v1/nodes/node1');
      const key = node.metadata.annotations?.[KEY_ANNOTATION] ?? '';
      expect(key).toMatch(/^[A-Za-z0-9+/]{43}=$/);
      await waitFor(`${c.plan.name}'s key in its Gateway and in ${other.plan.name}'s ClusterInfoImport`, async () => {
        const gws = await c.kube.request<{ items: { metadata: { name: string }; wireGuard?: { publicKey?: string } }[] }>('GET', '/apis/multicluster.crd.antrea.io/v1alpha1/namespaces/kube-system/gateways');
        const infos = await other.kube.request<{ items: { spec: { clusterID: string; wireGuard?: { publicKey?: string } } }[] }>('GET', '/apis/multicluster.crd.antrea.io/v1alpha1/namespaces/kube-system/clusterinfoimports');
        return gws.items[0]?.metadata.name === 'node1' && gws.items[0].wireGuard?.publicKey === key
          && infos.items.some((i) => i.spec.clusterID === c.plan.id && i.spec.wireGuard?.publicKey === key);
      }, { timeoutMs: 60_000, intervalMs: 200 });
    }
  });

  it('a pod in east reaches a Service exported from west through the gateways, routed into their WireGuard devices', async () => {
    await west.kube.request('POST', '/api/v1/namespaces/default/services', { apiVersion: 'v1', kind: 'Service', metadata: { name: 'nginx', namespace: 'default' }, spec: { selector: { app: 'nginx' }, ports: [{ name: 'tcp80', protocol: 'TCP', port: 80, targetPort: 80 }] } });
    const t0 = Date.now();
    await west.kube.request('POST', '/apis/multicluster.x-k8s.io/v1alpha1/namespaces/default/serviceexports', { apiVersion: 'multicluster.x-k8s.io/v1alpha1', kind: 'ServiceExport', metadata: { name: 'nginx', namespace: 'default' } });
    await waitFor('antrea-mc-nginx imported into east', async () => {
      const svc = await east.kube.request<{ spec?: { clusterIP?: string } }>('GET', '/api/v1/namespaces/default/services/antrea-mc-nginx').catch(() => undefined);
      importedIP = svc?.spec?.clusterIP ?? '';
      return importedIP !== '';
    }, { timeoutMs: 60_000, intervalMs: 200 });
    await waitFor('east client -> antrea-mc-nginx', () => pong(client.netns, importedIP, 80), { timeoutMs: 60_000, intervalMs: 100 });
    console.log(`multi-cluster WireGuard: ServiceExport -> traffic ${Date.now() - t0} ms`);
    // Each gateway routes the other cluster's CIDRs into its device; the other node does not.
    for (const [c, other] of [[west, east], [east, west]] as const) {
      const gw = c.lab.state.nodes.find((n) => n.name === 'node1')!;
      const routes = (await run(['ip', '-4', 'route', 'show', 'dev', 'switchyard-mcwg'], { netns: gw.netns })).stdout;
      expect(routes).toContain(other.plan.serviceCIDR);
      expect(routes).toContain(other.plan.podCIDRs[0]);
      const node2 = c.lab.state.nodes.find((n) => n.name === 'node2')!;
      expect((await run(['ip', '-4', 'route', 'show', 'dev', 'switchyard-mcwg'], { netns: node2.netns })).stdout.trim()).toBe('');
    }
  });

  it('a capture on the fabric shows only WireGuard UDP between the clusters: the payload is in the clear only inside a cluster', async () => {
    const pcap = join(labDir, 'fabric.pcap');
    const payload = `switchyard-mc-wg-secret-${Date.now()}-${Math.random().toString(36).slice(2)}`;
    const capture: ChildProcess = start(['tcpdump', '-i', 'any', '--immediate-mode', '-nn', '-U', '-s', '0', '-w', pcap], { netns: west.lab.state.fabricNetns });
    const stderr: string[] = [];
    capture.stderr?.on('data', (d: Buffer) => stderr.push(d.toString()));
    try {
      await waitFor('tcpdump listening', () => stderr.join('').includes('listening on'), { timeoutMs: 10_000, intervalMs: 50 });
      // 3 s each: a SYN retransmitted once on a loaded machine is not a miss (CI saw one with -w 1).
      for (let i = 0; i < 3; i++) expect(await pong(client.netns, importedIP, 80, `${payload}\n`, 3)).toBe(true);
      await new Promise((r) => setTimeout(r, 300));
    } finally {
      const exited = new Promise((r) => capture.once('exit', r));
      capture.kill('SIGINT');
      await exited;
    }
    // The payload is on the fabric (each cluster's own Geneve hop is not encrypted): the capture sees it.
    expect(readFileSync(pcap).includes(Buffer.from(payload))).toBe(true);
    const text = (await run(['tcpdump', '-nn', '-A', '-r', pcap])).stdout;
    // One record per packet: a header line with a timestamp, then its payload as text.
    const records = text.split(/\n(?=\d\d:\d\d:\d\d\.\d+ )/);
    const westIPs = new Set(nodeIPs(west));
    const eastIPs = new Set(nodeIPs(east));
    const across: string[] = [];
    for (const r of records) {
      const m = /IP (\d+\.\d+\.\d+\.\d+)\.(\d+) > (\d+\.\d+\.\d+\.\d+)\.(\d+):/.exec(r);
      if (!m) continue;
      const [, src, , dst] = m;
      if ((westIPs.has(src!) && eastIPs.has(dst!)) || (eastIPs.has(src!) && westIPs.has(dst!))) across.push(r);
    }
    expect(across.length).toBeGreaterThan(5);
    const wg = new RegExp(` IP [\\d.]+\\.${MC_WG_PORT} > [\\d.]+\\.${MC_WG_PORT}: UDP`);
    expect(across.map((r) => r.split('\n')[0]).filter((h) => !wg.test(h!))).toEqual([]);
    for (const r of across) {
      expect(r).not.toContain(payload);
      expect(r).not.toContain(client.ip);
      expect(r).not.toContain(server.ip);
    }
  });

  it('a gateway agent killed with SIGKILL comes back adopting its device: the imported Service answers all the while', async () => {
    const gw = west.lab.state.nodes.find((n) => n.name === 'node1')!;
    const before = { pid: gw.agentPid, start: gw.agentStart };
    const log = join(labDir, 'west', 'node1', 'agent.log');
    const adopted = (): number => readFileSync(log, 'utf8').split('\n').filter((l) => l.includes('"device":"switchyard-mcwg"') && l.includes('WireGuard device adopted')).length;
    const adoptedBefore = adopted();
    const device = JSON.parse(readFileSync(join(labDir, 'west', 'node1', 'data', 'multicluster-wireguard', 'device.json'), 'utf8')) as { pid: number; start: string };
    let ok = 0;
    let failed = 0;
    let stop = false;
    const loop = (async (): Promise<void> => {
      while (!stop) {
        // 3 s: an exchange delayed by one TCP retransmission is answered; an outage of the path is not.
        if (await pong(client.netns, importedIP, 80, '', 3)) ok++;
        else failed++;
      }
    })();
    await waitFor('some exchanges before the kill', () => ok >= 3, { timeoutMs: 10_000, intervalMs: 20 });
    const t0 = Date.now();
    expect(signalProcess(before, 'SIGKILL')).toBe(true);
    await waitFor('a new agent that adopted the Multi-cluster device', () => gw.agentPid !== before.pid && adopted() > adoptedBefore, { timeoutMs: 60_000, intervalMs: 100 });
    const okAtAdoption = ok;
    await waitFor('exchanges after the adoption', () => ok >= okAtAdoption + 3, { timeoutMs: 10_000, intervalMs: 20 });
    stop = true;
    await loop;
    console.log(`multi-cluster WireGuard gateway agent SIGKILL: adopted after ${Date.now() - t0} ms; ${ok} exchanges answered, ${failed} not`);
    // The same wireguard-go carried the traffic through the restart.
    expect(isAlive(device.pid, device.start)).toBe(true);
    expect(failed).toBe(0);
  }, 90_000);

  it("removing west's gateway key file rotates its key: the new key travels Node -> Gateway -> east's ClusterInfoImport -> east's device, and traffic comes back", async () => {
    const nodeKey = async (): Promise<string> => (await west.kube.request<{ metadata: { annotations?: Record<string, string> } }>('GET', '/api/v1/nodes/node1')).metadata.annotations?.[KEY_ANNOTATION] ?? '';
    // `get=1` on a gateway's device (its UAPI socket in the agent's data directory); keys are hex there.
    const uapi = async (c: MemberCluster): Promise<string> => (await run(['socat', '-', `UNIX-CONNECT:${join(labDir, c.plan.name, 'node1', 'data', 'multicluster-wireguard', 'run', 'switchyard-mcwg.sock')}`], { input: 'get=1\n\n', timeoutMs: 5000 })).stdout;
    const base64 = (hex: string): string => Buffer.from(hex, 'hex').toString('base64');
    const eastPeers = async (): Promise<string[]> => [...(await uapi(east)).matchAll(/^public_key=([0-9a-f]{64})$/gm)].map((m) => base64(m[1]!));
    const old = await nodeKey();
    expect(await eastPeers()).toEqual([old]);
    const t0 = Date.now();
    unlinkSync(join(labDir, 'west', 'node1', 'data', 'multicluster-wireguard', 'private.key'));
    let fresh = '';
    await waitFor("west's new key on its Node", async () => {
      fresh = await nodeKey();
      return fresh !== old && fresh !== '';
    }, { timeoutMs: 30_000, intervalMs: 50 });
    const tNode = Date.now();
    // The device the agent adopted carries the new key.
    const devicePrivate = /^private_key=([0-9a-f]{64})$/m.exec(await uapi(west))![1]!;
    expect((await run(['wg', 'pubkey'], { input: `${base64(devicePrivate)}\n` })).stdout.trim()).toBe(fresh);
    await waitFor("west's new key as east's gateway's only peer", async () => JSON.stringify(await eastPeers()) === JSON.stringify([fresh]), { timeoutMs: 60_000, intervalMs: 50 });
    const tPeer = Date.now();
    await waitFor('east client -> antrea-mc-nginx after the rotation', () => pong(client.netns, importedIP, 80), { timeoutMs: 30_000, intervalMs: 50 });
    const tTraffic = Date.now();
    const infos = await east.kube.request<{ items: { spec: { clusterID: string; wireGuard?: { publicKey?: string } } }[] }>('GET', '/apis/multicluster.crd.antrea.io/v1alpha1/namespaces/kube-system/clusterinfoimports');
    expect(infos.items.find((i) => i.spec.clusterID === west.plan.id)?.spec.wireGuard?.publicKey).toBe(fresh);
    // And it settles: five exchanges in a row answered, with at most MAX_MISSED misses on the way.
    // Right after the first answer an exchange can still miss (measured in 3 of 10 runs: one or two
    // misses within about 2 s of the first answer, docs/multicluster.md), likely while the gateways'
    // handshakes settle on the new key; more than that is a regression, so the wait stops there.
    const MAX_MISSED = 2;
    let inARow = 0;
    let missed = 0;
    let lastMiss = tTraffic;
    await waitFor('five exchanges in a row after the rotation', async () => {
      if (await pong(client.netns, importedIP, 80)) inARow++;
      else [inARow, missed, lastMiss] = [0, missed + 1, Date.now()];
      return inARow >= 5 || missed > MAX_MISSED;
    }, { timeoutMs: 30_000, intervalMs: 10 });
    console.log(`multi-cluster WireGuard key rotation: on the Node ${tNode - t0} ms, east's peer ${tPeer - t0} ms, traffic ${tTraffic - t0} ms after the key file was removed; ${missed} exchanges missed before five in a row${missed > 0 ? `, the last ${lastMiss - tTraffic} ms after the first answer` : ''}`);
    expect(missed).toBeLessThanOrEqual(MAX_MISSED);
  }, 120_000);
});
