// The lab end to end: `switchyard-lab up --nodes 2` (the real binary: detached supervisor, kube-api,
// controller, two OVS nodes with real agents), pods through the kubelet stand-in and the real CNI
// plugin, TCP between pods, a K8s NetworkPolicy enforced as the policy compiler's explain() says,
// and `down` leaving nothing behind.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isAlive, readRecords, run, waitFor, type RunRecord } from '@switchyard/testbed';
import { explain } from '@switchyard/policy-compiler';
import type { KubeConfigClient } from '@switchyard/controller';
import { labClient, readState, type LabState } from '../src/index';
import { NETNS_ANNOTATION } from '../src/kubelet';
import { agentGet, tcpProbe, tcpReaches } from '../src/probe';

const BIN = join(__dirname, '../bin/switchyard-lab');
const labDir = mkdtempSync(join(tmpdir(), 'switchyard-lab-test-'));
const lab = (...args: string[]): string => execFileSync(BIN, ['--lab-dir', labDir, ...args], { encoding: 'utf8', timeout: 120_000 });

let st: LabState;
let kube: KubeConfigClient;
let record: RunRecord | undefined;
interface PodView { kind?: string; apiVersion?: string; metadata: { name: string; namespace: string; labels?: Record<string, string>; annotations?: Record<string, string> }; spec?: { nodeName?: string }; status?: { podIP?: string; phase?: string; conditions?: { type: string; status: string }[]; containerStatuses?: { name: string; ready: boolean }[] } }
const pods = new Map<string, PodView>();
const netnsOf = (name: string): string => pods.get(name)!.metadata.annotations![NETNS_ANNOTATION]!;
const ipOf = (name: string): string => pods.get(name)!.status!.podIP!;

const podObj = (name: string, app: string, nodeName?: string) => ({
  apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default', labels: { app } },
  spec: { ...(nodeName ? { nodeName } : {}), containers: [{ name: 'c', image: app, ports: [{ containerPort: 80 }, { containerPort: 81 }] }] },
});

beforeAll(async () => {
  lab('up', '--nodes', '2');
  st = readState(labDir)!;
  kube = labClient(st);
  record = readRecords().find((r) => r.ownerPid === st.pid);
  for (const p of [podObj('a1', 'a', 'node1'), podObj('b1', 'b', 'node1'), podObj('c1', 'c', 'node1'), podObj('a2', 'a', 'node2'), podObj('free', 'free')])
    await kube.request('POST', '/api/v1/namespaces/default/pods', p);
  await waitFor('pods running with an IP and a netns', async () => {
    const list = await kube.request<{ items: PodView[] }>('GET', '/api/v1/namespaces/default/pods');
    for (const p of list.items) pods.set(p.metadata.name, p);
    return list.items.length === 5 && list.items.every((p) => p.status?.podIP && p.metadata.annotations?.[NETNS_ANNOTATION]);
  }, { timeoutMs: 60_000, intervalMs: 200 });
}, 180_000);

afterAll(() => {
  // Normally done by the last test; a no-op then.
  if (readState(labDir)) lab('down');
});

describe('switchyard-lab up --nodes 2', () => {
  it('registers node1 and node2 with their pod CIDRs and runs an agent on each', async () => {
    const nodes = await kube.request<{ items: { metadata: { name: string }; spec: { podCIDRs: string[] } }[] }>('GET', '/api/v1/nodes');
    expect(nodes.items.map((n) => [n.metadata.name, n.spec.podCIDRs])).toEqual([
      ['node1', ['10.10.1.0/24']],
      ['node2', ['10.10.2.0/24']],
    ]);
    for (const n of st.nodes) {
      const info = await agentGet<{ nodeRef: { name: string }; nodeSubnets: string[] }>(n.apiSocket, '/agentinfo');
      expect([info.nodeRef.name, info.nodeSubnets]).toEqual([n.name, [n.podCIDR]]);
    }
  });

  it('gives each pod an address from its node, Ready, and schedules a pod without nodeName', () => {
    expect(ipOf('a1')).toMatch(/^10\.10\.1\./);
    expect(ipOf('a2')).toMatch(/^10\.10\.2\./);
    const free = pods.get('free')!;
    expect(['node1', 'node2']).toContain(free.spec?.nodeName);
    expect(ipOf('free').startsWith(free.spec?.nodeName === 'node1' ? '10.10.1.' : '10.10.2.')).toBe(true);
    expect(free.status?.conditions).toContainEqual(expect.objectContaining({ type: 'Ready', status: 'True' }));
    // A ready status per container, so kubectl's READY column reads 1/1.
    expect(free.status?.containerStatuses).toEqual([expect.objectContaining({ name: 'c', ready: true })]);
  });

  it('pods on one node talk TCP on every declared port (the pod servers answer)', async () => {
    expect(await tcpReaches(netnsOf('a1'), ipOf('b1'), 80)).toBe(true);
    expect(await tcpReaches(netnsOf('b1'), ipOf('c1'), 81)).toBe(true);
    expect(await tcpReaches(netnsOf('a2'), ipOf('a2'), 80)).toBe(true);
  });

  it('a K8s NetworkPolicy blocks on the dataplane exactly what explain() says it blocks', async () => {
    const np = {
      apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name: 'b-from-a', namespace: 'default' },
      spec: { podSelector: { matchLabels: { app: 'b' } }, policyTypes: ['Ingress'], ingress: [{ from: [{ podSelector: { matchLabels: { app: 'a' } } }], ports: [{ protocol: 'TCP', port: 80 }] }] },
    };
    await kube.request('POST', '/apis/networking.k8s.io/v1/namespaces/default/networkpolicies', np);
    const cluster = [
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default', labels: { 'kubernetes.io/metadata.name': 'default' } } },
      ...[...pods.values()].map((p) => ({ ...p, apiVersion: 'v1', kind: 'Pod' })),
      np,
    ];
    const probes: [string, string, number][] = [['a1', 'b1', 80], ['c1', 'b1', 80], ['a1', 'b1', 81], ['b1', 'c1', 80]];
    const expected = probes.map(([from, to, port]) => explain(cluster as never, { src: `default/${from}`, dst: `default/${to}`, protocol: 'TCP', port }).allowed);
    // The case is only meaningful with both outcomes present.
    expect(expected).toEqual(expect.arrayContaining([true, false]));
    let seen: boolean[] = [];
    await waitFor('dataplane matrix equal to explain()', async () => {
      seen = await Promise.all(probes.map(([from, to, port]) => tcpProbe(netnsOf(from), ipOf(to), port)));
      return seen.every((v, i) => v === expected[i]);
    }, { timeoutMs: 30_000, intervalMs: 250 }).catch(() => undefined);
    expect(seen).toEqual(expected);
  });

  it('down removes every process, netns, interface and file the lab made', async () => {
    expect(record).toBeDefined();
    const procs = record!.procs;
    expect(procs.length).toBeGreaterThan(0);
    lab('down');
    // By pid and start time: a pid reused by an unrelated process is not the lab's.
    expect([{ pid: st.pid, start: st.pidStart }, ...procs].filter((p) => isAlive(p.pid, p.start))).toEqual([]);
    const netns = (await run(['ip', 'netns', 'list'])).stdout;
    expect(record!.netns.filter((n) => netns.includes(n))).toEqual([]);
    const links = (await run(['ip', '-o', 'link', 'show'])).stdout;
    expect(links.includes(record!.prefix)).toBe(false);
    expect(existsSync(labDir)).toBe(false);
    expect(readRecords().some((r) => r.prefix === record!.prefix)).toBe(false);
  });
});
