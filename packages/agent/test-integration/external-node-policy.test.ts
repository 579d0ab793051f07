// Antrea NetworkPolicy on an ExternalNode, end to end: kube-api and the real controller (which
// turns ExternalNodes into ExternalEntities and spans the policy to the VM's agent), the agent in
// external-node mode on a "VM" with real OVS, netns and veths, TCP from several fabric addresses.
// Needs root and OVS.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import YAML from 'yaml';
import { KubeConfigClient } from '@switchyard/kube';
import type { KubeObject } from '@switchyard/kube-api';
import { Testbed, run, waitFor } from '@switchyard/testbed';
import { ExternalNodeAgent } from '../src/index';
import { PKG_DIR, startControlPlane, type ControlPlane } from './helpers';
import { FABRIC_IP6, VM_IP, VM_IP6, createVm, ping, type Vm } from './external-node-vm';

const NS = 'vm-ns';
let tb: Testbed;
let v: Vm;
let cp: ControlPlane;
let dir: string;
let agent: ExternalNodeAgent | undefined;
let startToEnforcedMs = 0;

const FRONT = '10.66.0.3'; // the ExternalNode labelled role=front
const BYPASS = '10.66.0.4'; // dropped by a policy, let through by a bypass rule
const BLOCKED = '10.66.0.5'; // the seed's ipBlock peer
const OTHER = '10.66.0.1'; // no rule names it
const NAMED = '10.66.0.7'; // what svc.example.test resolves to (FQDN egress rule)
const UNNAMED = '10.66.0.8'; // a fabric address no name resolves to
const BLOCKED6 = 'fd00:66::5'; // the IPv6 ipBlock peer of the seed's Reject rule
const DROPPED6 = 'fd00:66::6'; // an IPv6 ipBlock peer of the Drop rule

/** In the VM: resolve `name` with the fabric's DNS server, then connect at once to the first address on port 7000. */
const RESOLVE_AND_CONNECT = `
const { Resolver } = require('node:dns').promises;
const net = require('node:net');
const [server, name] = process.argv.slice(1);
const r = new Resolver({ timeout: 2000, tries: 2 });
r.setServers([server]);
r.resolve4(name).then((ips) => {
  const s = net.connect({ host: ips[0], port: 7000, timeout: 2000 });
  s.on('connect', () => { console.log(ips[0] + ' connected'); s.destroy(); process.exit(0); });
  s.on('timeout', () => { console.log(ips[0] + ' timeout'); process.exit(0); });
  s.on('error', (e) => { console.log(ips[0] + ' ' + e.code); process.exit(0); });
}, (e) => { console.log('resolve-failed ' + e.code); process.exit(0); });
`;
async function resolveAndConnect(name: string): Promise<{ ip: string; result: string }> {
  const r = await v.vm.exec(['node', '-e', RESOLVE_AND_CONNECT, OTHER, name], { allowFailure: true, timeoutMs: 15_000 });
  const [ip = '', result = ''] = r.stdout.trim().split(' ');
  return { ip, result };
}
/** One TCP connection from the VM to `ip`:7000: true when the fabric's server answered. */
async function fromVm(ip: string): Promise<boolean> {
  const r = await v.vm.exec(['socat', '-T2', '-', `TCP:${ip}:7000,connect-timeout=2`], { allowFailure: true, input: 'x\n', timeoutMs: 8000 });
  return r.stdout.trim() === 'pong';
}

/** A connection from the VM that must open: up to three attempts (a dropped one never opens however often it tries). */
async function vmReaches(ip: string): Promise<boolean> {
  for (let i = 0; i < 3; i++) if (await fromVm(ip)) return true;
  return false;
}

/** One TCP connection from the fabric with source `src`: 'open', 'refused' (RST) or 'timeout' (dropped). */
async function connect(src: string, port: number): Promise<'open' | 'refused' | 'timeout'> {
  const target = src.includes(':') ? `TCP6:[${VM_IP6}]:${port},bind=[${src}]` : `TCP:${VM_IP}:${port},bind=${src}`;
  const r = await v.fabric.exec(['socat', '-T2', '-', `${target},connect-timeout=2`], { allowFailure: true, input: 'x\n', timeoutMs: 8000 });
  if (r.stdout.trim() === 'pong') return 'open';
  if (/refused/i.test(r.stderr)) return 'refused';
  return 'timeout';
}

/**
 * One UDP exchange from the fabric with source `src` to the VM's port 5300: 'answered',
 * 'unreachable' (the ICMP destination unreachable, code 10 as Antrea sends, which Linux reports as
 * "No route to host") or 'timeout'.
 */
async function udp(src: string): Promise<'answered' | 'unreachable' | 'timeout'> {
  const r = await v.fabric.exec(['socat', '-T2', '-', `UDP:${VM_IP}:5300,bind=${src}`], { allowFailure: true, input: 'x\n', timeoutMs: 8000 });
  if (r.stdout.trim() === 'pong') return 'answered';
  if (/no route to host/i.test(r.stderr)) return 'unreachable';
  return 'timeout';
}

/**
 * An allowed datagram exchange, waited on for up to 10 s (a rejected source is never answered).
 * Not three attempts in a row: socat's `UDP-LISTEN,fork` server hands its socket to a child per
 * peer and binds a new one, and a datagram arriving before it has is refused at once, so quick
 * attempts can all land in that gap on a loaded machine (CI saw three fail in a row).
 */
async function answered(src: string): Promise<boolean> {
  try {
    await waitFor(`a datagram from ${src} answered`, async () => (await udp(src)) === 'answered', { timeoutMs: 10_000, intervalMs: 200 });
    return true;
  } catch {
    return false;
  }
}

/**
 * An allowed connection: up to three attempts (on a loaded machine one SYN or one forked reply can
 * take longer than the probe waits); a rejected or dropped one never opens however often it tries.
 */
async function opens(src: string, port: number): Promise<boolean> {
  for (let i = 0; i < 3; i++) if ((await connect(src, port)) === 'open') return true;
  return false;
}

const externalNode = (name: string, ips: string[], role: string): KubeObject => ({
  apiVersion: 'crd.antrea.io/v1alpha1', kind: 'ExternalNode', metadata: { name, namespace: NS, labels: { role } }, spec: { interfaces: [{ name: '', ips }] },
});

beforeAll(async () => {
  tb = await Testbed.create();
  // The VM has IPv6 too (fd00:66::2/64): its IPv6 is policed as its IPv4 is.
  v = await createVm(tb, { ipv6: true });
  for (const ip of [FRONT, BYPASS, BLOCKED, NAMED, UNNAMED]) await v.fabric.exec(['ip', 'addr', 'add', `${ip}/24`, 'dev', 'f0']);
  for (const ip of [BLOCKED6, DROPPED6]) await v.fabric.exec(['ip', 'addr', 'add', `${ip}/64`, 'dev', 'f0', 'nodad']);
  for (const port of [22, 80]) {
    tb.spawn(['socat', `TCP-LISTEN:${port},reuseaddr,fork`, 'SYSTEM:echo pong'], v.vm.name);
    tb.spawn(['socat', `TCP6-LISTEN:${port},reuseaddr,fork,ipv6only=1`, 'SYSTEM:echo pong'], v.vm.name);
  }
  tb.spawn(['socat', 'UDP-LISTEN:5300,reuseaddr,fork', 'SYSTEM:echo pong'], v.vm.name);
  // The fabric side of the FQDN test: a TCP server on every fabric address and a DNS server.
  tb.spawn(['socat', '-t5', 'TCP-LISTEN:7000,reuseaddr,fork', 'SYSTEM:echo pong'], v.fabric.name);
  await v.vm.exec(['ethtool', '-K', 'lo', 'tx', 'off']).catch(() => undefined);
  dir = mkdtempSync(join(tmpdir(), 'sy-extnode-np-'));
  writeFileSync(join(dir, 'zone.json'), JSON.stringify({ 'svc.example.test': { a: [NAMED], ttl: 30 } }));
  tb.spawn([process.execPath, join(__dirname, 'dns-responder.cjs'), join(dir, 'zone.json'), '53'], v.fabric.name);

  cp = await startControlPlane('vm1');
  cp.api.createObjects([{ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } }]);
  cp.api.createObjects(YAML.parseAllDocuments(readFileSync(join(PKG_DIR, 'build', 'externalnode', 'vm-agent-rbac.yaml'), 'utf8')).map((d) => d.toJSON() as KubeObject));
  cp.api.createObjects([externalNode('vm1', [VM_IP, VM_IP6], 'db'), externalNode('vm-front', [FRONT], 'front')]);
  // The seed's policy, and a Drop of SSH from BYPASS that the agent's bypass rule overrides.
  cp.api.createObjects([
    {
      apiVersion: 'crd.antrea.io/v1beta1', kind: 'NetworkPolicy', metadata: { name: 'anp1', namespace: NS },
      spec: {
        priority: 9000, appliedTo: [{ externalEntitySelector: { matchLabels: { role: 'db' } } }],
        ingress: [{ action: 'Reject', ports: [{ protocol: 'TCP', port: 22 }], from: [{ externalEntitySelector: { matchLabels: { role: 'front' } } }, { ipBlock: { cidr: `${BLOCKED}/32` } }, { ipBlock: { cidr: `${BLOCKED6}/128` } }] }],
      },
    },
    {
      apiVersion: 'crd.antrea.io/v1beta1', kind: 'NetworkPolicy', metadata: { name: 'drop-ssh', namespace: NS },
      spec: {
        priority: 9001, appliedTo: [{ externalEntitySelector: { matchLabels: { role: 'db' } } }],
        ingress: [{ action: 'Drop', ports: [{ protocol: 'TCP', port: 22 }], from: [{ ipBlock: { cidr: `${BYPASS}/32` } }, { ipBlock: { cidr: `${DROPPED6}/128` } }] }],
      },
    },
  ]);
  // One identity for everything, as on a real VM: the ServiceAccount of vm-agent-rbac.yaml, for
  // the Kubernetes API and for the controller's policy stream alike.
  const token = cp.api.createServiceAccountToken(NS, 'vm-agent');
  const kc = new KubeConfig();
  kc.loadFromFile(cp.api.writeKubeconfig(join(dir, 'vm-agent.kubeconfig'), { name: 'vm-agent', token }));

  const t0 = performance.now();
  agent = await ExternalNodeAgent.start({
    nodeName: 'vm1',
    kube: new KubeConfigClient(kc),
    externalNode: { namespace: NS, policyBypassRules: [{ direction: 'ingress', protocol: 'TCP', cidr: `${BYPASS}/32`, port: 22 }] },
    controlplane: { ...cp.agentControlplane(), token },
    ovsdbRemote: v.ovs.dbRemote,
    ovsRunDir: v.ovs.dir,
    bridge: 'br-int',
    datapathType: 'netdev',
    dataDir: dir,
    nodeNetns: v.vm.name,
  });
  try {
    await waitFor('anp1 enforced', async () => (await connect(BLOCKED, 22)) === 'refused', { timeoutMs: 30_000, intervalMs: 50 });
  } catch (e) {
    console.log('anp1 not enforced; agent health, policy counts, probes:', JSON.stringify(agent.health()), agent.part('policies').policies.view.counts, await connect(BLOCKED, 22), await connect(OTHER, 22));
    console.log(await v.ovs.ofctl('-O', 'OpenFlow15', 'dump-flows', v.ovs.mgmtSocket('br-int')));
    throw e;
  }
  startToEnforcedMs = performance.now() - t0;
  console.log(`ExternalNode agent start to anp1 enforced on the VM: ${startToEnforcedMs.toFixed(0)} ms`);
}, 120_000);

afterAll(async () => {
  await agent?.stop().catch(() => undefined);
  await cp?.stop();
  await tb?.cleanup();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('Antrea NetworkPolicy applied to an ExternalNode', () => {
  test('the controller made the ExternalEntity and the agent received the policies', async () => {
    const ee = await cp.kube.request<KubeObject>('GET', `/apis/crd.antrea.io/v1alpha2/namespaces/${NS}/externalentities/vm1`);
    expect(ee).toMatchObject({ metadata: { labels: { role: 'db' } }, spec: { externalNode: 'vm1', endpoints: [{ ip: VM_IP }, { ip: VM_IP6 }] } });
    expect(agent!.part('policies').policies.view.counts.policies).toBe(2);
  });

  test('rejects SSH from the role=front ExternalEntity and from the ipBlock with a RST', async () => {
    expect(await connect(FRONT, 22)).toBe('refused');
    expect(await connect(BLOCKED, 22)).toBe('refused');
  });

  test('allows SSH from a peer no rule names, and other ports from the rejected peers', async () => {
    expect(await opens(OTHER, 22)).toBe(true);
    expect(await opens(FRONT, 80)).toBe(true);
    expect(await opens(BLOCKED, 80)).toBe(true);
  });

  test('polices IPv6 as IPv4: the IPv6 ipBlock peers are rejected (RST over IPv6) and dropped, other IPv6 sources and ports get through, and neighbour discovery crosses', async () => {
    // Independent connections (each from its own source address or port), tried together: the dropped one waits out its connect timeout meanwhile.
    const [blocked, dropped, other, blocked80, dropped80] = await Promise.all([connect(BLOCKED6, 22), connect(DROPPED6, 22), opens(FABRIC_IP6, 22), opens(BLOCKED6, 80), opens(DROPPED6, 80)]);
    expect(blocked).toBe('refused');
    expect(dropped).toBe('timeout');
    expect(other).toBe(true);
    expect(blocked80).toBe(true);
    expect(dropped80).toBe(true);
    // ND went through the pair untouched (the neighbour entries above were learnt) and ICMPv6 echo is policed and allowed.
    expect(await ping(v.vm, FABRIC_IP6)).toBe(true);
    const flows = await v.ovs.ofctl('-O', 'OpenFlow15', 'dump-flows', v.ovs.mgmtSocket('br-int'));
    expect(flows).toContain(`ipv6_src=${BLOCKED6}`);
    expect(flows).toMatch(/icmp6,icmp_type=135 actions=goto_table/);
  });

  test('a policy bypass rule lets its source through despite a Drop rule', async () => {
    expect(await opens(BYPASS, 22)).toBe(true);
    // The Drop rule is real: without the bypass flow the same connection is dropped.
    const flows = await v.ovs.ofctl('-O', 'OpenFlow15', 'dump-flows', v.ovs.mgmtSocket('br-int'));
    const bypass = flows.split('\n').find((l) => l.includes(`nw_src=${BYPASS}`) && l.includes('priority=64990'));
    expect(bypass).toBeDefined();
    const table = /table=(\d+)/.exec(bypass!)![1];
    await v.ovs.ofctl('-O', 'OpenFlow15', '--strict', 'del-flows', v.ovs.mgmtSocket('br-int'), `table=${table},priority=64990,tcp,nw_src=${BYPASS},tp_dst=22`);
    await run(['ovs-appctl', '-t', v.ovs.vswitchdCtl, 'dpctl/del-flows'], { allowFailure: true });
    expect(await connect(BYPASS, 22)).toBe('timeout');
  });
});

describe('Reject of UDP on an ExternalNode', () => {
  test('answers the rejected source with ICMP destination unreachable and lets others through', async () => {
    await waitFor('UDP server answering', async () => (await udp(OTHER)) === 'answered', { timeoutMs: 10_000, intervalMs: 200 });
    await cp.kube.request('POST', `/apis/crd.antrea.io/v1beta1/namespaces/${NS}/networkpolicies`, {
      apiVersion: 'crd.antrea.io/v1beta1', kind: 'NetworkPolicy', metadata: { name: 'reject-udp', namespace: NS },
      spec: {
        priority: 8000, appliedTo: [{ externalEntitySelector: { matchLabels: { role: 'db' } } }],
        ingress: [{ action: 'Reject', ports: [{ protocol: 'UDP', port: 5300 }], from: [{ ipBlock: { cidr: `${BLOCKED}/32` } }] }],
      },
    });
    await waitFor('UDP reject enforced', async () => (await udp(BLOCKED)) === 'unreachable', { timeoutMs: 10_000, intervalMs: 200 });
    expect(await answered(OTHER)).toBe(true);
    await cp.kube.request('DELETE', `/apis/crd.antrea.io/v1beta1/namespaces/${NS}/networkpolicies/reject-udp`);
    await waitFor('UDP reject removed', async () => (await udp(BLOCKED)) === 'answered', { timeoutMs: 10_000, intervalMs: 200 });
  }, 60_000);
});

describe('FQDN egress rules on an ExternalNode', () => {
  test('an egress rule toFQDN lets the VM reach what the name resolves to, and only that', async () => {
    // Before the policy the VM reaches every fabric address.
    expect(await vmReaches(UNNAMED)).toBe(true);
    await cp.kube.request('POST', `/apis/crd.antrea.io/v1beta1/namespaces/${NS}/networkpolicies`, {
      apiVersion: 'crd.antrea.io/v1beta1', kind: 'NetworkPolicy', metadata: { name: 'db-egress-fqdn', namespace: NS },
      spec: {
        priority: 5, tier: 'application', appliedTo: [{ externalEntitySelector: { matchLabels: { role: 'db' } } }],
        egress: [
          { action: 'Allow', name: 'dns', to: [{ ipBlock: { cidr: `${OTHER}/32` } }], ports: [{ protocol: 'UDP', port: 53 }] },
          { action: 'Allow', name: 'svc', to: [{ fqdn: 'svc.example.test' }] },
          { action: 'Drop', name: 'rest', to: [{ ipBlock: { cidr: '0.0.0.0/0' } }] },
        ],
      },
    });
    await waitFor('egress drop enforced on the VM', async () => !(await fromVm(UNNAMED)), { timeoutMs: 10_000, intervalMs: 200 });
    // Not resolved yet: the named address is dropped like every other.
    expect(await fromVm(NAMED)).toBe(false);
    // The VM resolves the name; its first connection right after is allowed.
    expect(await resolveAndConnect('svc.example.test')).toEqual({ ip: NAMED, result: 'connected' });
    expect(agent!.part('policies').fqdn.cache.entries().map((e) => [e.name, e.address])).toEqual([['svc.example.test', NAMED]]);
    expect(await Promise.all([vmReaches(NAMED), fromVm(UNNAMED)])).toEqual([true, false]);
    await cp.kube.request('DELETE', `/apis/crd.antrea.io/v1beta1/namespaces/${NS}/networkpolicies/db-egress-fqdn`);
    await waitFor('egress policy removed', () => fromVm(UNNAMED), { timeoutMs: 10_000, intervalMs: 200 });
  }, 60_000);
});
