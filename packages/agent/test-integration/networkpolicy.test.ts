// NetworkPolicy enforcement end to end: the embedded Kubernetes API, the real controller serving
// this node's controlplane stream, the agent realizing it on a real OVS; pods in real netns talk
// (or not) over TCP as the policies say.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import YAML from 'yaml';
import { Testbed, waitFor } from '@switchyard/testbed';
import { Controller } from '@switchyard/controller';
import type { KubeConfigClient } from '@switchyard/kube';
import type { KubeApiServer } from '@switchyard/kube-api';
import { Agent } from '../src/index';
import { POLICY_CACHE_FILE } from '../src/features/policy/part';
import { addPod, ensurePluginBuilt, sandbox, startControlPlane, startNode, stopNode, type ControlPlane, type Node, type Sandbox } from './helpers';

const NODE = 'node-a';
let tb: Testbed;
let api: KubeApiServer;
let kube: KubeConfigClient;
let controller: Controller | undefined;
let cp: ControlPlane;
let node: Node | undefined;
const pods: Record<string, { sb: Sandbox; ip: string }> = {};

async function startController(port: number): Promise<Controller> {
  const c = new Controller({ kube, port, host: '127.0.0.1', registerAPIService: false, informer: { initialBackoffMs: 50, maxBackoffMs: 500 } });
  await c.start();
  return c;
}

/** One TCP attempt: true when the server answered. */
async function tcp(from: Sandbox, ip: string, port: number): Promise<boolean> {
  const r = await from.netns.exec(['socat', '-T3', '-', `TCP:${ip}:${port},connect-timeout=3`], { allowFailure: true, input: 'x\n', timeoutMs: 8000 });
  return r.stdout.trim() === 'pong';
}
/**
 * An allowed connection opens within 15 s of tries: on a loaded machine one SYN or one forked
 * reply can take longer than a try waits (three tries of 3 s once were not enough in CI); a
 * blocked one never answers however often it tries.
 */
async function reaches(from: Sandbox, ip: string, port: number): Promise<boolean> {
  const deadline = Date.now() + 15_000;
  do if (await tcp(from, ip, port)) return true;
  while (Date.now() < deadline);
  return false;
}
const eventuallyReach = (from: string, to: string, port: number, want: boolean): Promise<void> =>
  waitFor(`${from} -> ${to}:${port} ${want ? 'allowed' : 'blocked'}`, async () => (await tcp(pods[from]!.sb, pods[to]!.ip, port)) === want, { timeoutMs: 20_000, intervalMs: 250 });

beforeAll(async () => {
  await ensurePluginBuilt();
  tb = await Testbed.create();
  cp = await startControlPlane(NODE);
  api = cp.api;
  kube = cp.kube;
  controller = cp.controller;
  node = await startNode(tb, '10.93.0.0/24', { nodeName: NODE, controlplane: cp.agentControlplane() });
  for (const [name, app] of [['a', 'a'], ['b', 'b'], ['c', 'c']] as const) {
    const sb = await sandbox(tb, name);
    const { ip } = await addPod(node, sb);
    pods[name] = { sb, ip };
    await kube.request('POST', '/api/v1/namespaces/default/pods', {
      apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default', labels: { app } },
      spec: { nodeName: NODE, containers: [{ name: 'c', image: 'x', ports: [{ containerPort: 7000, name: 'web' }] }] },
    });
    await kube.request('PATCH', `/api/v1/namespaces/default/pods/${name}/status`, { status: { phase: 'Running', podIP: ip, podIPs: [{ ip }] } }, 'application/merge-patch+json');
    for (const port of [7000, 7001]) tb.spawn(['socat', `TCP-LISTEN:${port},reuseaddr,fork`, 'SYSTEM:echo pong'], sb.netns.name);
  }
}, 180_000);

/** Policies a test created: deleted after it even when it failed, so one failure does not cascade. */
const createdPolicies: string[] = [];
afterEach(async () => {
  for (const path of createdPolicies.splice(0)) await kube.request('DELETE', path).catch(() => undefined);
});

afterAll(async () => {
  await stopNode(node);
  await controller?.stop();
  await api?.stop();
  await tb?.cleanup();
});

describe('NetworkPolicy from the controller, enforced by the agent', () => {
  it('without policies every pod reaches every other', async () => {
    await eventuallyReach('c', 'b', 7000, true);
    await eventuallyReach('a', 'b', 7001, true);
  });

  it('a K8s NetworkPolicy isolates b: only a, only on port 7000', async () => {
    await kube.request('POST', '/apis/networking.k8s.io/v1/namespaces/default/networkpolicies', {
      apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name: 'b-from-a', namespace: 'default' },
      spec: { podSelector: { matchLabels: { app: 'b' } }, policyTypes: ['Ingress'], ingress: [{ from: [{ podSelector: { matchLabels: { app: 'a' } } }], ports: [{ protocol: 'TCP', port: 7000 }] }] },
    });
    await waitFor('policy in the agent view', () => node!.agent.part('policies').policies.view.counts.policies === 1, { timeoutMs: 15_000 });
    await eventuallyReach('c', 'b', 7000, false);
    expect(await reaches(pods.a!.sb, pods.b!.ip, 7000)).toBe(true);
    expect(await tcp(pods.a!.sb, pods.b!.ip, 7001)).toBe(false);
    // Not selected by the policy: c is still open to everyone.
    expect(await reaches(pods.b!.sb, pods.c!.ip, 7000)).toBe(true);
  });

  it('an ACNP Drop in the application tier overrides the K8s allow, and the controller reports it Realized', async () => {
    await kube.request('POST', '/apis/crd.antrea.io/v1beta1/clusternetworkpolicies', {
      apiVersion: 'crd.antrea.io/v1beta1', kind: 'ClusterNetworkPolicy', metadata: { name: 'drop-a-to-b' },
      spec: {
        priority: 5, tier: 'application',
        appliedTo: [{ podSelector: { matchLabels: { app: 'b' } } }],
        ingress: [{ action: 'Drop', from: [{ podSelector: { matchLabels: { app: 'a' } } }], ports: [{ protocol: 'TCP', port: 7000 }] }],
      },
    });
    await eventuallyReach('a', 'b', 7000, false);
    await waitFor(
      'ACNP status Realized',
      async () => {
        const acnp = await kube.request<{ status?: { phase?: string; currentNodesRealized?: number } }>('GET', '/apis/crd.antrea.io/v1beta1/clusternetworkpolicies/drop-a-to-b');
        return acnp.status?.phase === 'Realized' && acnp.status.currentNodesRealized === 1;
      },
      { timeoutMs: 15_000, intervalMs: 200 },
    );
  });

  it('an ACNP Reject answers TCP with a RST and UDP with ICMP unreachable (the sender fails fast)', async () => {
    createdPolicies.push('/apis/crd.antrea.io/v1beta1/clusternetworkpolicies/reject-c-to-a');
    await kube.request('POST', '/apis/crd.antrea.io/v1beta1/clusternetworkpolicies', {
      apiVersion: 'crd.antrea.io/v1beta1', kind: 'ClusterNetworkPolicy', metadata: { name: 'reject-c-to-a' },
      spec: {
        priority: 6, tier: 'application',
        appliedTo: [{ podSelector: { matchLabels: { app: 'a' } } }],
        ingress: [
          { action: 'Reject', from: [{ podSelector: { matchLabels: { app: 'c' } } }], ports: [{ protocol: 'TCP', port: 7001 }] },
          { action: 'Reject', from: [{ podSelector: { matchLabels: { app: 'c' } } }], ports: [{ protocol: 'UDP', port: 7002 }] },
        ],
      },
    });
    tb.spawn(['socat', 'UDP-RECVFROM:7002,fork', 'SYSTEM:echo pong'], pods.a!.sb.netns.name);
    let tcpErr = '';
    await waitFor('TCP refused by a RST', async () => {
      const r = await pods.c!.sb.netns.exec(['socat', '-T2', '-', `TCP:${pods.a!.ip}:7001,connect-timeout=2`], { allowFailure: true, input: 'x\n', timeoutMs: 5000 });
      tcpErr = r.stderr;
      return /Connection refused/.test(r.stderr);
    }, { timeoutMs: 20_000, intervalMs: 300 });
    expect(tcpErr).toMatch(/Connection refused/);
    const udp = await pods.c!.sb.netns.exec(['socat', '-T2', '-', `UDP:${pods.a!.ip}:7002`], { allowFailure: true, input: 'x\n', timeoutMs: 5000 });
    expect(udp.stdout.trim()).toBe('');
    expect(udp.stderr).toMatch(/No route to host|unreachable|refused/i);
    // Counted once the packet-out is acknowledged, which may be after the client already saw the reply.
    await waitFor('both replies counted', () => node!.agent.part('policies').rejects.sent >= 2, { timeoutMs: 30_000, intervalMs: 50 });
    // Other ports and other sources are not affected.
    expect(await reaches(pods.c!.sb, pods.a!.ip, 7000)).toBe(true);
    expect(await reaches(pods.b!.sb, pods.a!.ip, 7001)).toBe(true);
    await kube.request('DELETE', '/apis/crd.antrea.io/v1beta1/clusternetworkpolicies/reject-c-to-a');
    await eventuallyReach('c', 'a', 7001, true);
  });

  it('an enableLogging rule writes np.log lines with the policy, rule, action and 5-tuple', async () => {
    createdPolicies.push('/apis/crd.antrea.io/v1beta1/clusternetworkpolicies/log-b-to-c');
    await kube.request('POST', '/apis/crd.antrea.io/v1beta1/clusternetworkpolicies', {
      apiVersion: 'crd.antrea.io/v1beta1', kind: 'ClusterNetworkPolicy', metadata: { name: 'log-b-to-c' },
      spec: {
        priority: 7, tier: 'application',
        appliedTo: [{ podSelector: { matchLabels: { app: 'c' } } }],
        ingress: [{ action: 'Allow', name: 'allow-b-web', enableLogging: true, logLabel: 'web-audit', from: [{ podSelector: { matchLabels: { app: 'b' } } }], ports: [{ protocol: 'TCP', port: 7000 }] }],
      },
    });
    await waitFor('logging policy realized', () => node!.agent.part('policies').policies.view.counts.policies === 3, { timeoutMs: 15_000 });
    await node!.agent.part('policies').policies.idle();
    const file = join(node!.dir, 'networkpolicy', 'np.log');
    let lines: string[] = [];
    await waitFor('b reaches c and np.log has its line', async () => {
      if (!(await tcp(pods.b!.sb, pods.c!.ip, 7000))) return false;
      lines = existsSync(file) ? readFileSync(file, 'utf8').trim().split('\n') : [];
      return lines.some((l) => l.includes('log-b-to-c'));
    }, { timeoutMs: 15_000, intervalMs: 300 });
    const line = lines.find((l) => l.includes('log-b-to-c'))!;
    const re = new RegExp(
      `^\\d{4}/\\d{2}/\\d{2} \\d{2}:\\d{2}:\\d{2}\\.\\d{6} AntreaPolicyIngressRule AntreaClusterNetworkPolicy:log-b-to-c allow-b-web Allow \\d+ ${pods.b!.ip.replace(/\./g, '\\.')} \\d+ ${pods.c!.ip.replace(/\./g, '\\.')} 7000 TCP \\d+ web-audit$`,
    );
    expect(line).toMatch(re);
    // Traffic the rule does not log leaves no line.
    expect(await reaches(pods.a!.sb, pods.c!.ip, 7000)).toBe(true);
    expect(readFileSync(file, 'utf8')).not.toContain(`${pods.a!.ip} `);
    await kube.request('DELETE', '/apis/crd.antrea.io/v1beta1/clusternetworkpolicies/log-b-to-c');
    await waitFor('logging policy removed', () => node!.agent.part('policies').policies.view.counts.policies === 2, { timeoutMs: 15_000 });
    await node!.agent.part('policies').policies.idle();
  });

  it('packet-ins pass OpenFlow meters at packetInRate: a flood of logged connections is cut by the meter band', async () => {
    const mgmt = node!.ovs.mgmtSocket('br-int');
    const meters = await node!.ovs.ofctl('-O', 'OpenFlow15', 'dump-meters', mgmt);
    expect(meters).toMatch(/meter=256 pktps burst stats bands=\s*type=drop rate=500 burst_size=1000/);
    expect(meters).toMatch(/meter=258 pktps burst stats bands=\s*type=drop rate=500 burst_size=1000/);
    createdPolicies.push('/apis/crd.antrea.io/v1beta1/clusternetworkpolicies/log-udp');
    await kube.request('POST', '/apis/crd.antrea.io/v1beta1/clusternetworkpolicies', {
      apiVersion: 'crd.antrea.io/v1beta1', kind: 'ClusterNetworkPolicy', metadata: { name: 'log-udp' },
      spec: {
        priority: 8, tier: 'application',
        appliedTo: [{ podSelector: { matchLabels: { app: 'c' } } }],
        ingress: [{ action: 'Allow', enableLogging: true, from: [{ podSelector: { matchLabels: { app: 'b' } } }], ports: [{ protocol: 'UDP', port: 7100 }] }],
      },
    });
    await waitFor('udp logging policy realized', () => node!.agent.part('policies').policies.view.counts.policies === 3, { timeoutMs: 15_000 });
    await node!.agent.part('policies').policies.idle();
    const flows = await node!.ovs.ofctl('-O', 'OpenFlow15', 'dump-flows', mgmt);
    expect(flows).toMatch(/actions=meter:256,controller\(/);
    const bandDrops = async (): Promise<number> => {
      const stats = await node!.ovs.ofctl('-O', 'OpenFlow15', 'meter-stats', mgmt, 'meter=256');
      
      return Number(/0: packet_count:(\d+)/.exec(stats)?.[1] ?? 'NaN');
    };
    const before = await bandDrops();
    // 4,000 datagrams, each from a new socket (a new connection, so each hits the logged rule).
    const flood = `const d=require('dgram');let n=0;(function go(){if(n>=4000)return;const s=d.createSocket('udp4');s.send('x',7100,'${pods.c!.ip}',()=>{s.close();n++;go();});})();`;
    await pods.b!.sb.netns.exec([process.execPath, '-e', flood], { timeoutMs: 30_000 });
    await waitFor('meter band drops', async () => (await bandDrops()) > before, { timeoutMs: 30_000, intervalMs: 200 });
    expect(await bandDrops()).toBeGreaterThan(before);
    await kube.request('DELETE', '/apis/crd.antrea.io/v1beta1/clusternetworkpolicies/log-udp');
    await waitFor('udp logging policy removed', () => node!.agent.part('policies').policies.view.counts.policies === 2, { timeoutMs: 15_000 });
    await node!.agent.part('policies').policies.idle();
  });

  it('a restarted controller hears again that unchanged policies are realized: their status returns to Realized', async () => {
    const port = controller!.port;
    await controller!.stop();
    const path = '/apis/crd.antrea.io/v1beta1/clusternetworkpolicies/drop-a-to-b';
    // What the old instance wrote is gone with it; the new one starts from no reports.
    await kube.request('PATCH', `${path}/status`, { status: { phase: 'Pending', currentNodesRealized: 0 } }, 'application/merge-patch+json');
    controller = await startController(port);
    await waitFor(
      'ACNP status Realized by the new controller',
      async () => {
        const acnp = await kube.request<{ status?: { phase?: string; currentNodesRealized?: number } }>('GET', path);
        return acnp.status?.phase === 'Realized' && acnp.status.currentNodesRealized === 1;
      },
      { timeoutMs: 15_000, intervalMs: 200 },
    );
  });

  it('policies cached on disk stay enforced when the agent restarts while the controller is down', async () => {
    const port = controller!.port;
    await controller!.stop();
    controller = undefined;
    await node!.agent.stop();
    expect(JSON.parse(readFileSync(join(node!.dir, POLICY_CACHE_FILE), 'utf8')).policies).toHaveLength(2);
    node!.agent = await Agent.start(node!.options);
    expect(node!.agent.part('policies').policies.view.counts.policies).toBe(2);
    // Independent connections, tried together: the two blocked ones wait out their 3 s connect timeouts side by side.
    const [aToB, cToB, bToC] = await Promise.all([tcp(pods.a!.sb, pods.b!.ip, 7000), tcp(pods.c!.sb, pods.b!.ip, 7000), reaches(pods.b!.sb, pods.c!.ip, 7000)]);
    expect(aToB).toBe(false);
    expect(cToB).toBe(false);
    expect(bToC).toBe(true);
    // The controller comes back on the same port: the agent resyncs (new epoch) and follows deletions.
    controller = await startController(port);
    await kube.request('DELETE', '/apis/crd.antrea.io/v1beta1/clusternetworkpolicies/drop-a-to-b');
    await eventuallyReach('a', 'b', 7000, true);
    await kube.request('DELETE', '/apis/networking.k8s.io/v1/namespaces/default/networkpolicies/b-from-a');
    await eventuallyReach('c', 'b', 7000, true);
    expect(node!.agent.part('policies').policies.view.counts.policies).toBe(0);
  });

  it("switchyard.yml's agent objects are accepted by the API server (ConfigMap, DaemonSet)", async () => {
    // build/yamls/switchyard.yml is generated by tools/images; tools/images/test/manifest.test.ts applies all of it with kubectl.
    const all = YAML.parseAllDocuments(readFileSync(join(__dirname, '../../../build/yamls/switchyard.yml'), 'utf8')).map((d) => d.toJSON() as Record<string, unknown>);
    const paths: Record<string, string> = {
      ConfigMap: '/api/v1/namespaces/kube-system/configmaps',
      DaemonSet: '/apis/apps/v1/namespaces/kube-system/daemonsets',
    };
    const docs = all.filter((d) => paths[d.kind as string] !== undefined);
    expect(docs.map((d) => d.kind)).toEqual(['ConfigMap', 'DaemonSet']);
    for (const doc of docs) {
      const path = paths[doc.kind as string];
      expect(path).toBeDefined();
      const created = await kube.request<{ metadata: { uid?: string } }>('POST', path!, doc);
      expect(created.metadata.uid).toBeTruthy();
    }
  });
});
