// FQDN egress rules end to end: a DNS server pod, a client pod under an ACNP that allows only
// toFQDN svc.example.test (and DNS), delivered by the real controller; the agent intercepts the
// DNS responses on a real OVS, allows the resolved address and only it, and follows a changed
// answer once the old one's TTL has run out on the injected clock. The node and its pods are
// dual-stack: an AAAA answer, asked of the DNS pod over IPv6, allows that IPv6 address alone.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import YAML from 'yaml';
import { Testbed, waitFor } from '@switchyard/testbed';
import { startKubeApi, type KubeApiServer } from '@switchyard/kube-api';
import { loadCrds } from '@switchyard/apis';
import { Controller, KubeConfigClient } from '@switchyard/controller';
import { ManualClock } from '@switchyard/runtime/testing';
import { DNS_INTERCEPT_CONJ_ID, FqdnController } from '../src/features/policy/fqdn';
import { addPod, ensurePluginBuilt, sandbox, startNode, stopNode, type Node, type Sandbox } from './helpers';

const NODE = 'node-f';
const TOKEN = 'token-node-f';
const TTL = 30;
let tb: Testbed;
let api: KubeApiServer;
let kube: KubeConfigClient;
let controller: Controller | undefined;
let node: Node | undefined;
let fqdn: FqdnController;
const clock = new ManualClock(Date.now());
let zoneDir: string;
const pods: Record<string, { sb: Sandbox; ip: string; ip6: string }> = {};

const zoneFile = (): string => join(zoneDir, 'zone.json');
function setZone(svc: { ip: string; ip6: string }): void {
  writeFileSync(zoneFile(), JSON.stringify({
    'svc.example.test': { a: [svc.ip], aaaa: [svc.ip6], ttl: TTL },
    'alias.example.test': { cname: 'svc.example.test', ttl: TTL },
    'other.example.test': { a: [pods.web3!.ip], aaaa: [pods.web3!.ip6], ttl: TTL },
    'junk.example.test': { junk: true },
  }));
}

/**
 * In the client pod: resolve a name with the DNS pod as the only server, then connect at once to
 * the first address (no delay in between: the first connection after resolving must pass).
 */
const RESOLVE_AND_CONNECT = `
const { Resolver } = require('node:dns').promises;
const net = require('node:net');
const [server, name, family] = process.argv.slice(1);
const r = new Resolver({ timeout: 2000, tries: 2 });
r.setServers([server]);
(family === '6' ? r.resolve6(name) : r.resolve4(name)).then((ips) => {
  const s = net.connect({ host: ips[0], port: 7000, timeout: 1500 });
  s.on('connect', () => { console.log(ips[0] + ' connected'); s.end(); });
  s.on('close', () => process.exit(0));
  s.resume();
  s.on('timeout', () => { console.log(ips[0] + ' timeout'); process.exit(0); });
  s.on('error', (e) => { console.log(ips[0] + ' ' + e.code); process.exit(0); });
}, (e) => { console.log('resolve-failed ' + e.code); process.exit(0); });
`;
/** Over IPv6 (`family` 6): the AAAA records, asked of the DNS pod at its IPv6 address. */
async function resolveAndConnect(name: string, family: 4 | 6 = 4): Promise<{ ip: string; result: string }> {
  const server = family === 6 ? `[${pods.dns!.ip6}]` : pods.dns!.ip;
  const r = await pods.client!.sb.netns.exec(['node', '-e', RESOLVE_AND_CONNECT, server, name, String(family)], { allowFailure: true, timeoutMs: 15_000 });
  const [ip = '', result = ''] = r.stdout.trim().split(' ');
  return { ip, result };
}

/**
 * One TCP attempt from the client: true when the server answered. `-t4`: after sending, wait for
 * the answer that long (socat's 0.5 s default loses it when the server forks slowly under load).
 */
async function tcp(ip: string): Promise<boolean> {
  const to = ip.includes(':') ? `TCP6:[${ip}]:7000` : `TCP4:${ip}:7000`;
  const r = await pods.client!.sb.netns.exec(['socat', '-t4', '-T4', '-', `${to},connect-timeout=1`], { allowFailure: true, input: 'x\n', timeoutMs: 8000 });
  return r.stdout.trim() === 'pong';
}
/**
 * An allowed address answers within a few attempts. (Single socat exchanges here occasionally
 * connect but lose the server's reply under load; the first-connection guarantee is asserted by
 * resolveAndConnect, whose connect must succeed on its first try.)
 */
const reaches = (ip: string): Promise<void> => waitFor(`client reaches ${ip}`, () => tcp(ip), { timeoutMs: 8000, intervalMs: 100 });

beforeAll(async () => {
  await ensurePluginBuilt();
  zoneDir = mkdtempSync(join(tmpdir(), 'sy-fqdn-'));
  tb = await Testbed.create();
  api = await startKubeApi({ tokens: { [TOKEN]: { user: `system:node:${NODE}`, groups: ['system:nodes', 'system:authenticated'] } }, crds: loadCrds() as never });
  const kc = new KubeConfig();
  kc.loadFromFile(api.kubeconfigPath);
  kube = new KubeConfigClient(kc);
  const rbac = YAML.parseAllDocuments(readFileSync(join(__dirname, '../../controller/build/rbac.yaml'), 'utf8')).map((d) => d.toJSON() as Record<string, unknown>);
  for (const obj of [
    ...rbac,
    { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: { name: 'switchyard-agent-nodes' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'switchyard-agent' }, subjects: [{ kind: 'Group', apiGroup: 'rbac.authorization.k8s.io', name: 'system:nodes' }] },
  ]) {
    const meta = obj.metadata as { namespace?: string };
    const kind = obj.kind as string;
    const plural = { ClusterRole: 'clusterroles', ClusterRoleBinding: 'clusterrolebindings', Role: 'roles', RoleBinding: 'rolebindings', ServiceAccount: 'serviceaccounts' }[kind];
    if (!plural) continue;
    const group = kind === 'ServiceAccount' ? '/api/v1' : '/apis/rbac.authorization.k8s.io/v1';
    await kube.request('POST', `${group}${meta.namespace ? `/namespaces/${meta.namespace}` : ''}/${plural}`, obj).catch(() => undefined);
  }
  controller = new Controller({ kube, port: 0, host: '127.0.0.1', registerAPIService: false, informer: { initialBackoffMs: 50, maxBackoffMs: 500 } });
  await controller.start();
  node = await startNode(tb, '10.94.0.0/24', {
    nodeName: NODE,
    podCIDRv6: 'fd00:10:94::/64',
    controlplane: { url: `https://127.0.0.1:${controller.port}`, caPem: controller.pki.caPem, token: TOKEN, backoff: { initialMs: 50, maxMs: 500 } },
  });
  // The FQDN controller with a clock the test moves (replaces one the agent may have made itself).
  fqdn = await FqdnController.attach(node.agent.part('node'), { clock });
  for (const name of ['dns', 'client', 'web1', 'web2', 'web3']) {
    const sb = await sandbox(tb, name);
    const { ip, result } = await addPod(node, sb);
    const ip6 = ((result.ips as { address: string }[])[1]?.address ?? '').split('/')[0]!;
    expect(ip6).toMatch(/^fd00:10:94::/);
    pods[name] = { sb, ip, ip6 };
    await kube.request('POST', '/api/v1/namespaces/default/pods', {
      apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default', labels: { app: name } },
      spec: { nodeName: NODE, containers: [{ name: 'c', image: 'x' }] },
    });
    await kube.request('PATCH', `/api/v1/namespaces/default/pods/${name}/status`, { status: { phase: 'Running', podIP: ip, podIPs: [{ ip }, { ip: ip6 }] } }, 'application/merge-patch+json');
    // -t5: the client's EOF must not close the connection before the forked `echo` has answered.
    if (name.startsWith('web')) {
      tb.spawn(['socat', '-t5', 'TCP4-LISTEN:7000,reuseaddr,fork', 'SYSTEM:echo pong'], sb.netns.name);
      tb.spawn(['socat', '-t5', 'TCP6-LISTEN:7000,ipv6only=1,reuseaddr,fork', 'SYSTEM:echo pong'], sb.netns.name);
    }
  }
  setZone(pods.web1!);
  tb.spawn([process.execPath, join(__dirname, 'dns-responder.cjs'), zoneFile(), '53'], pods.dns!.sb.netns.name);
  await waitFor('DNS responder answering', async () => (await resolveAndConnect('svc.example.test')).ip === pods.web1!.ip, { timeoutMs: 10_000, intervalMs: 200 });
  await waitFor('DNS responder answering over IPv6', async () => (await resolveAndConnect('svc.example.test', 6)).ip === pods.web1!.ip6, { timeoutMs: 10_000, intervalMs: 200 });
}, 180_000);

afterAll(async () => {
  fqdn?.stop();
  await stopNode(node);
  await controller?.stop();
  await api?.stop();
  await tb?.cleanup();
  if (zoneDir) rmSync(zoneDir, { recursive: true, force: true });
});

describe('FQDN egress rules on real OVS', () => {
  it('an ACNP allowing toFQDN svc.example.test lets the client reach the resolved address and nothing else', async () => {
    // Learned before the policy existed: not intercepted (no FQDN rule yet), so nothing cached.
    expect(fqdn.cache.entries()).toEqual([]);
    await kube.request('POST', '/apis/crd.antrea.io/v1beta1/clusternetworkpolicies', {
      apiVersion: 'crd.antrea.io/v1beta1', kind: 'ClusterNetworkPolicy', metadata: { name: 'client-fqdn-only' },
      spec: {
        priority: 5, tier: 'application',
        appliedTo: [{ podSelector: { matchLabels: { app: 'client' } } }],
        egress: [
          { action: 'Allow', name: 'dns', to: [{ podSelector: { matchLabels: { app: 'dns' } } }], ports: [{ protocol: 'UDP', port: 53 }] },
          { action: 'Allow', name: 'svc', to: [{ fqdn: 'svc.example.test' }] },
          { action: 'Drop', name: 'rest', to: [{ ipBlock: { cidr: '0.0.0.0/0' } }, { ipBlock: { cidr: '::/0' } }] },
        ],
      },
    });
    await waitFor('policy realized with the DNS intercept', async () => {
      await node!.agent.part('policies').policies.idle();
      return (await node!.agent.part('node').openflow.dumpFlows()).some((f) => f.match.conjId === DNS_INTERCEPT_CONJ_ID);
    }, { timeoutMs: 20_000, intervalMs: 200 });
    await waitFor('web1 blocked before resolving', async () => !(await tcp(pods.web1!.ip)), { timeoutMs: 20_000, intervalMs: 250 });
    // Independent connections, tried together: each blocked one waits out its connect timeout meanwhile.
    expect(await Promise.all([tcp(pods.web2!.ip), tcp(pods.web1!.ip6)])).toEqual([false, false]);

    // Resolve and connect straight away: the address is in the flows before the answer arrives.
    expect(await resolveAndConnect('svc.example.test')).toEqual({ ip: pods.web1!.ip, result: 'connected' });
    expect(fqdn.stats.released).toBeGreaterThanOrEqual(1);
    expect(fqdn.cache.entries().map((e) => [e.name, e.address])).toEqual([['svc.example.test', pods.web1!.ip]]);
    await reaches(pods.web1!.ip);
    const [web2, other, web1v6] = await Promise.all([
      tcp(pods.web2!.ip),
      // A name no rule allows resolves fine (the response is released) but gives no access.
      resolveAndConnect('other.example.test'),
      // Only the A record was asked for: the IPv6 address of the same pod is still blocked.
      tcp(pods.web1!.ip6),
    ]);
    expect(web2).toBe(false);
    expect(other).toEqual({ ip: pods.web3!.ip, result: 'timeout' });
    expect(web1v6).toBe(false);
  });

  it('an AAAA answer asked over IPv6 allows that IPv6 address and nothing else', async () => {
    expect(await resolveAndConnect('svc.example.test', 6)).toEqual({ ip: pods.web1!.ip6, result: 'connected' });
    expect(fqdn.cache.entries().map((e) => [e.name, e.address])).toEqual([['svc.example.test', pods.web1!.ip], ['svc.example.test', pods.web1!.ip6]]);
    await reaches(pods.web1!.ip6);
    const [web2v6, other] = await Promise.all([tcp(pods.web2!.ip6), resolveAndConnect('other.example.test', 6)]);
    expect(web2v6).toBe(false);
    expect(other).toEqual({ ip: pods.web3!.ip6, result: 'timeout' });
  });

  it('follows a changed answer: after the TTL the old address is blocked and the new one allowed', async () => {
    setZone(pods.web2!);
    // Before the old TTL runs out the old address stays allowed (the pod may still use it).
    clock.advance((TTL - 1) * 1000);
    await fqdn.idle();
    await reaches(pods.web1!.ip);
    clock.advance(2000);
    await fqdn.idle();
    expect(fqdn.cache.entries()).toEqual([]);
    expect(await Promise.all([tcp(pods.web1!.ip), tcp(pods.web1!.ip6)])).toEqual([false, false]);
    expect(await resolveAndConnect('svc.example.test')).toEqual({ ip: pods.web2!.ip, result: 'connected' });
    await reaches(pods.web2!.ip);
    expect(await tcp(pods.web1!.ip)).toBe(false);
  });

  it('a CNAME to the allowed name is followed, and malformed DNS does not stop the agent', async () => {
    expect(await resolveAndConnect('alias.example.test')).toEqual({ ip: pods.web2!.ip, result: 'connected' });
    // A broken response: intercepted, released unparsed (the client's resolver sees it and gives
    // up at once instead of timing out), counted; the agent goes on serving.
    // (A release is counted once the switch confirmed it, which may be after the pod got the packet.)
    await fqdn.idle();
    const before = { ...fqdn.stats };
    expect(await resolveAndConnect('junk.example.test')).toEqual({ ip: 'resolve-failed', result: 'EBADRESP' });
    await fqdn.idle();
    // (The resolver may retry once on a bad response: each copy is released.)
    expect(fqdn.stats.malformed).toBeGreaterThan(before.malformed);
    expect(fqdn.stats.released - before.released).toBe(fqdn.stats.malformed - before.malformed);
    expect(await resolveAndConnect('svc.example.test')).toEqual({ ip: pods.web2!.ip, result: 'connected' });
  });
});
