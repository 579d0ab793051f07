// TrafficControl on real OVS (userspace) and netns, fed by the embedded Kubernetes API: a Mirror
// copies a selected pod's traffic to an OVS internal port while it still reaches its peer, and a
// Redirect sends it through the target port and back in through the return port (a `tc` u32 +
// mirred forwarder between the two stands in for an inline inspector): without the forwarder the traffic
// stops. Counts come from the kernel's interface counters in the node's namespace, not from time.
// Costs about 20 s (one node, three pods).
import { loadCrds } from '@switchyard/apis';
import { KubeConfigClient } from '@switchyard/kube';
import { startTestKubeApi, type TestKubeApi } from '@switchyard/kube-api/testing';
import { Testbed, waitFor } from '@switchyard/testbed';
import type { TrafficControlPart } from '../src/features/traffic-control/part';
import { addPod, ensurePluginBuilt, sandbox, startNode, stopNode, type Node, type Sandbox } from './helpers';

jest.setTimeout(180_000);

const NODE = 'tc-node';
let tb: Testbed;
let kapi: TestKubeApi;
let kube: KubeConfigClient;
let node: Node | undefined;
const pods: Record<'web' | 'db' | 'client', { sb: Sandbox; ip: string }> = {} as never;

beforeAll(async () => {
  await ensurePluginBuilt();
  tb = await Testbed.create();
  kapi = await startTestKubeApi({ crds: loadCrds() as never });
  kube = new KubeConfigClient(kapi.kubeConfig);
  node = await startNode(tb, '10.74.0.0/24', { nodeName: NODE, kube, trafficControl: true, enableProxy: false });
  for (const [name, app] of [['web', 'web'], ['db', 'db'], ['client', 'client']] as const) {
    const sb = await sandbox(tb, name);
    const { ip } = await addPod(node, sb);
    pods[name] = { sb, ip };
    // The Pod object after the attachment, as kubelet reports the address once CNI ADD returned.
    const pod = await kube.request<Record<string, unknown>>('POST', '/api/v1/namespaces/default/pods', {
      apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default', labels: { app } }, spec: { nodeName: NODE, containers: [{ name: 'c', image: app }] },
    });
    await kube.request('PUT', `/api/v1/namespaces/default/pods/${name}/status`, { ...pod, status: { phase: 'Running', podIP: ip, podIPs: [{ ip }] } });
  }
});

afterAll(async () => {
  await stopNode(node);
  await kapi?.api.stop().catch(() => undefined);
  await tb?.cleanup();
});

const part = (): TrafficControlPart => node!.agent.part('traffic-control');
const inNode = (argv: string[]) => node!.ovs.netns.exec(argv);
/** A kernel counter of an interface in the node's namespace. */
const counter = async (dev: string, which: 'rx_packets' | 'tx_packets'): Promise<number> => Number((await inNode(['cat', `/sys/class/net/${dev}/statistics/${which}`])).stdout.trim());
/** `count` pings from the client; how many were answered. */
async function ping(to: 'web' | 'db', count: number): Promise<number> {
  const r = await pods.client.sb.netns.exec(['ping', '-n', '-q', '-c', String(count), '-i', '0.2', '-W', '1', pods[to].ip], { allowFailure: true, timeoutMs: 30_000 });
  return Number(/(\d+) received/.exec(r.stdout)?.[1] ?? 0);
}
const ofportOf = (name: string): number => node!.agent.part('node').interfaces.list().find((i) => i.podName === name)!.ofport;

async function applyTrafficControl(name: string, spec: Record<string, unknown>): Promise<void> {
  await kube.request('POST', '/apis/crd.antrea.io/v1alpha2/trafficcontrols', { apiVersion: 'crd.antrea.io/v1alpha2', kind: 'TrafficControl', metadata: { name }, spec });
}

test('Mirror: the selected pod\'s traffic, both ways, is copied to the target port and still delivered; other pods\' is not', async () => {
  await applyTrafficControl('mirror-web', { appliedTo: { podSelector: { matchLabels: { app: 'web' } } }, direction: 'Both', action: 'Mirror', targetPort: { ovsInternal: { name: 'tap0' } } });
  await waitFor('the mirror rule with the web pod', async () => part().rules.some((r) => r.name === 'mirror-web' && r.podOfports.includes(ofportOf('web'))), { timeoutMs: 20_000 });
  await inNode(['ip', 'link', 'set', 'tap0', 'up']);
  expect((await inNode(['ovs-vsctl', '--db', node!.ovs.dbRemote, 'get', 'Interface', 'tap0', 'type'])).stdout.trim()).toBe('internal');

  const before = await counter('tap0', 'rx_packets');
  const answered = await ping('web', 5);
  // A loaded machine may lose a ping; the copies are counted against what was answered.
  expect(answered).toBeGreaterThanOrEqual(4);
  // Each echo request is traffic to web (Ingress) and each reply traffic from it (Egress).
  await waitFor('two mirrored packets per answered ping on tap0', async () => (await counter('tap0', 'rx_packets')) - before >= 2 * answered, { timeoutMs: 10_000 });

  // The first ping to db resolves its address (ARP broadcasts reach every port, tap0 too); then only IP.
  expect(await ping('db', 1)).toBe(1);
  const quiet = await counter('tap0', 'rx_packets');
  expect(await ping('db', 5)).toBeGreaterThanOrEqual(4);
  // Mirrored, db's pings would add about ten; flooded multicast (an IPv6 router solicitation) may add one or two.
  expect((await counter('tap0', 'rx_packets')) - quiet).toBeLessThan(4);
  expect(part().health()).toEqual({ ok: true, detail: '1 TrafficControls on 1 pods' });
});

test('Redirect: traffic to the pod goes out the target and comes back in through the return port; without the forwarder it stops', async () => {
  await kube.request('DELETE', '/apis/crd.antrea.io/v1alpha2/trafficcontrols/mirror-web');
  await applyTrafficControl('inspect-web', {
    appliedTo: { podSelector: { matchLabels: { app: 'web' } } }, direction: 'Ingress', action: 'Redirect',
    targetPort: { ovsInternal: { name: 'tap0' } }, returnPort: { ovsInternal: { name: 'tap1' } },
  });
  await waitFor('only the redirect rule', async () => part().rules.length === 1 && part().rules[0]!.name === 'inspect-web' && part().rules[0]!.returnOfport !== undefined, { timeoutMs: 20_000 });
  await inNode(['ip', 'link', 'set', 'tap1', 'up']);

  // Without a forwarder, what goes to web is taken to tap0 and goes no further.
  expect(await ping('web', 3)).toBe(0);

  // The inline "inspector": whatever OVS hands to tap0 is sent back into OVS through tap1.
  await inNode(['tc', 'qdisc', 'add', 'dev', 'tap0', 'clsact']);
  await inNode(['tc', 'filter', 'add', 'dev', 'tap0', 'ingress', 'protocol', 'all', 'u32', 'match', 'u32', '0', '0', 'action', 'mirred', 'egress', 'redirect', 'dev', 'tap1']);
  const [out0, back1] = [await counter('tap0', 'rx_packets'), await counter('tap1', 'tx_packets')];
  const answered = await ping('web', 5);
  expect(answered).toBeGreaterThanOrEqual(4);
  expect((await counter('tap0', 'rx_packets')) - out0).toBeGreaterThanOrEqual(answered);
  expect((await counter('tap1', 'tx_packets')) - back1).toBeGreaterThanOrEqual(answered);
  // Only traffic to web is redirected: other pods are not affected.
  expect(await ping('db', 3)).toBeGreaterThanOrEqual(2);
});

test('deleting the TrafficControl removes its flows: traffic flows directly again', async () => {
  await kube.request('DELETE', '/apis/crd.antrea.io/v1alpha2/trafficcontrols/inspect-web');
  await waitFor('no rules', async () => part().rules.length === 0, { timeoutMs: 20_000 });
  await inNode(['tc', 'qdisc', 'del', 'dev', 'tap0', 'clsact']);
  const out0 = await counter('tap0', 'rx_packets');
  expect(await ping('web', 5)).toBeGreaterThanOrEqual(4);
  expect((await counter('tap0', 'rx_packets')) - out0).toBeLessThan(4);
});

test('a tunnel target is not realized here, and the part says which TrafficControl and why', async () => {
  await applyTrafficControl('to-analyzer', { appliedTo: { podSelector: {} }, direction: 'Both', action: 'Mirror', targetPort: { geneve: { remoteIP: '10.0.10.2' } } });
  await waitFor('the refusal in the part health', async () => part().health().detail.includes('to-analyzer (targetPort: only ovsInternal and device ports are supported so far)'), { timeoutMs: 20_000 });
  expect(part().rules).toEqual([]);
  expect(part().health().ok).toBe(true);
});
