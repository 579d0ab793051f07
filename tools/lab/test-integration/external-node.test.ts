// ExternalNode in the lab: a "VM" (its own network namespace and OVS, an uplink veth on the lab's
// fabric) runs the real `switchyard-agent` with `nodeType: externalNode` against the lab's API
// server and controller, with the least-privilege identity of build/externalnode/vm-agent-rbac.yaml
// and a token the lab's API server issued (`kubectl create token`). Pods of the lab's nodes reach
// the VM over the fabric; the seed's policy (Reject TCP 22 from role=front entities and from an
// ipBlock) is enforced on the VM; `--uninstall` gives the host back exactly. Needs root and OVS.
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import YAML from 'yaml';
import { Testbed, run, waitFor, type Netns, type OvsInstance } from '@switchyard/testbed';
import type { KubeConfigClient } from '@switchyard/controller';
import { FABRIC_PREFIX, labClient, readState, type LabState } from '../src/index';
import { NETNS_ANNOTATION } from '../src/kubelet';

const REPO = join(__dirname, '../../..');
const BIN = join(__dirname, '../bin/switchyard-lab');
const AGENT_CLI = join(REPO, 'packages/agent/dist/agent-cli.js');
const labDir = mkdtempSync(join(tmpdir(), 'switchyard-lab-extnode-'));
const dir = mkdtempSync(join(tmpdir(), 'switchyard-lab-vm-'));
const lab = (...args: string[]): string => execFileSync(BIN, ['--lab-dir', labDir, ...args], { encoding: 'utf8', timeout: 180_000 });
const kubectl = (...args: string[]): string => execFileSync('kubectl', ['--kubeconfig', st.kubeconfig, ...args], { encoding: 'utf8', timeout: 30_000 });

const NS = 'vm-ns';
const VM_IP = `${FABRIC_PREFIX}.50`;
const VM_MAC = '02:00:c0:a8:4d:32';
const FRONT_IP = `${FABRIC_PREFIX}.51`;
const ROUTER_IP = `${FABRIC_PREFIX}.254`;

let st: LabState;
let kube: KubeConfigClient;
let tb: Testbed;
let ovs: OvsInstance;
let vm: Netns;
let front: Netns;
let agent: ChildProcess | undefined;
let agentArgs: string[];
let startToEnforcedMs = 0;
const podNetns = new Map<string, string>();

interface PodView { metadata: { name: string; annotations?: Record<string, string> }; status?: { podIP?: string } }

/** Links, addresses and routes of the VM as `ip -j` gives them (without what changes by itself), and `ovs-vsctl show`. */
async function hostState(): Promise<unknown> {
  const volatile = new Set(['ifindex', 'link_index', 'stats64', 'valid_life_time', 'preferred_life_time', 'operstate', 'qdisc', 'txqlen', 'link_netnsid']);
  const clean = (x: unknown): unknown => {
    if (Array.isArray(x)) return x.map(clean);
    if (x && typeof x === 'object') return Object.fromEntries(Object.entries(x).filter(([k]) => !volatile.has(k)).map(([k, y]) => [k, clean(y)]));
    return x;
  };
  const ipj = async (...argv: string[]): Promise<unknown> => clean(JSON.parse((await run(['ip', '-j', ...argv], { netns: vm.name })).stdout));
  return { links: await ipj('link', 'show'), addrs: await ipj('addr', 'show'), routes: await ipj('route', 'show', 'table', 'all'), ovs: await ovs.vsctl('show') };
}

/** One TCP connection to the VM from a pod's or a host's namespace: 'open', 'refused' (RST) or 'timeout'. */
async function connect(netns: string, port: number): Promise<'open' | 'refused' | 'timeout'> {
  const r = await run(['socat', '-T2', '-', `TCP:${VM_IP}:${port},connect-timeout=2`], { netns, allowFailure: true, input: 'x\n', timeoutMs: 8000 });
  if (r.stdout.trim() === 'pong') return 'open';
  if (/refused/i.test(r.stderr)) return 'refused';
  return 'timeout';
}

/** An allowed connection may need a retry on a loaded machine; a rejected one never opens. */
async function verdict(netns: string, port: number): Promise<'open' | 'refused' | 'timeout'> {
  let last: 'open' | 'refused' | 'timeout' = 'timeout';
  for (let i = 0; i < 3 && last !== 'open'; i++) last = await connect(netns, port);
  return last;
}

/** A host on the fabric: a namespace with a veth on the lab's br0. */
async function onFabric(ns: Netns, ifname: string, ip: string, mac?: string): Promise<void> {
  const peer = `${ns.name.slice(0, 10)}f`;
  await run(['ip', 'link', 'add', ifname, 'netns', ns.name, 'type', 'veth', 'peer', 'name', peer, 'netns', st.fabricNetns]);
  await run(['ip', 'link', 'set', peer, 'master', 'br0', 'up'], { netns: st.fabricNetns });
  await run(['ethtool', '-K', peer, 'tx', 'off'], { netns: st.fabricNetns });
  if (mac) await run(['ip', 'link', 'set', ifname, 'address', mac], { netns: ns.name });
  await run(['ip', 'addr', 'add', `${ip}/24`, 'dev', ifname], { netns: ns.name });
  await run(['ip', 'link', 'set', ifname, 'up'], { netns: ns.name });
  // The userspace datapath's conntrack checks checksums that veth leaves to offload.
  await run(['ethtool', '-K', ifname, 'tx', 'off'], { netns: ns.name });
  // The other fabric subnet through the lab's fabric router (a route the swap must move).
  await run(['ip', 'route', 'add', `${FABRIC_PREFIX.replace(/\d+$/, (n) => String(Number(n) + 1))}.0/24`, 'via', ROUTER_IP, 'dev', ifname], { netns: ns.name });
}

const apply = (objects: unknown[]): string => {
  const f = join(dir, `apply-${Math.random().toString(36).slice(2)}.yaml`);
  writeFileSync(f, objects.map((o) => YAML.stringify(o)).join('---\n'));
  return kubectl('apply', '-f', f);
};

beforeAll(async () => {
  lab('up', '--nodes', '2');
  st = readState(labDir)!;
  kube = labClient(st);
  tb = await Testbed.create();
  ovs = await tb.startOvs();
  vm = ovs.netns;
  await ovs.addBridge('br-int', { failSecure: true });
  for (const n of [vm]) await run(['sysctl', '-q', '-w', 'net.ipv6.conf.all.disable_ipv6=1', 'net.ipv6.conf.default.disable_ipv6=1'], { netns: n.name });
  await onFabric(vm, 'eth1', VM_IP, VM_MAC);
  front = await tb.createNetns('v');
  await onFabric(front, 'eth0', FRONT_IP);
  for (const port of [22, 80]) tb.spawn(['socat', `TCP-LISTEN:${port},reuseaddr,fork`, 'SYSTEM:echo pong'], vm.name);
  await run(['ethtool', '-K', 'lo', 'tx', 'off'], { netns: vm.name, allowFailure: true });

  for (const [name, node] of [['p1', 'node1'], ['p2', 'node2']] as const)
    await kube.request('POST', '/api/v1/namespaces/default/pods', { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default' }, spec: { nodeName: node, containers: [{ name: 'c', image: 'client' }] } });
  await waitFor('client pods with a netns', async () => {
    const list = await kube.request<{ items: PodView[] }>('GET', '/api/v1/namespaces/default/pods');
    for (const p of list.items) if (p.status?.podIP && p.metadata.annotations?.[NETNS_ANNOTATION]) podNetns.set(p.metadata.name, p.metadata.annotations[NETNS_ANNOTATION]);
    return podNetns.size === 2;
  }, { timeoutMs: 60_000, intervalMs: 200 });
}, 240_000);

afterAll(async () => {
  agent?.kill('SIGKILL');
  await tb?.cleanup();
  if (readState(labDir)) lab('down');
  rmSync(dir, { recursive: true, force: true });
}, 120_000);

describe('a VM protected by switchyard-agent in external-node mode, in the lab', () => {
  let before: unknown;

  it('runs with the least-privilege identity and a token the lab issued; the VM keeps its address, MAC and routes on the internal port', async () => {
    kubectl('create', 'namespace', NS);
    kubectl('apply', '-f', join(REPO, 'packages/agent/build/externalnode/vm-agent-rbac.yaml'));
    apply([
      { apiVersion: 'crd.antrea.io/v1alpha1', kind: 'ExternalNode', metadata: { name: 'vm1', namespace: NS, labels: { role: 'db' } }, spec: { interfaces: [{ name: '', ips: [VM_IP] }] } },
      { apiVersion: 'crd.antrea.io/v1alpha1', kind: 'ExternalNode', metadata: { name: 'vm-front', namespace: NS, labels: { role: 'front' } }, spec: { interfaces: [{ name: '', ips: [FRONT_IP] }] } },
    ]);
    // The seed's policy; the ipBlock is node1's address, which node1's pods leave the cluster with.
    apply([{
      apiVersion: 'crd.antrea.io/v1beta1', kind: 'NetworkPolicy', metadata: { name: 'ssh-from-front', namespace: NS },
      spec: {
        priority: 9000, appliedTo: [{ externalEntitySelector: { matchLabels: { role: 'db' } } }],
        ingress: [{ action: 'Reject', ports: [{ protocol: 'TCP', port: 22 }], from: [{ externalEntitySelector: { matchLabels: { role: 'front' } } }, { ipBlock: { cidr: `${st.nodes[0]!.nodeIP}/32` } }] }],
      },
    }]);
    const token = kubectl('create', 'token', 'vm-agent', '-n', NS).trim();
    const tokenFile = join(dir, 'token');
    writeFileSync(tokenFile, token, { mode: 0o600 });
    const lab = YAML.parse(readFileSync(st.kubeconfig, 'utf8')) as { clusters: { cluster: Record<string, string> }[] };
    const kubeconfig = join(dir, 'vm-agent.kubeconfig');
    writeFileSync(kubeconfig, YAML.stringify({
      apiVersion: 'v1', kind: 'Config', 'current-context': 'vm',
      clusters: [{ name: 'lab', cluster: lab.clusters[0]!.cluster }],
      users: [{ name: 'vm-agent', user: { token } }],
      contexts: [{ name: 'vm', context: { cluster: 'lab', user: 'vm-agent' } }],
    }), { mode: 0o600 });
    const conf = join(dir, 'antrea-agent.conf');
    writeFileSync(conf, YAML.stringify({ nodeType: 'externalNode', externalNodeNamespace: NS, clientConnection: { kubeconfig }, ovsBridge: 'br-int', ovsDatapathType: 'netdev', ovsRunDir: ovs.dir }));
    // RBAC is enforced: the VM's identity cannot list Pods or write its ExternalNode.
    expect(spawnSync('kubectl', ['--kubeconfig', kubeconfig, 'get', 'pods', '-A'], { encoding: 'utf8' }).stderr).toMatch(/forbidden/i);
    expect(spawnSync('kubectl', ['--kubeconfig', kubeconfig, '-n', NS, 'label', 'externalnode', 'vm1', 'x=y'], { encoding: 'utf8' }).stderr).toMatch(/forbidden/i);

    before = await hostState();
    agentArgs = [
      '--enable-source-maps', AGENT_CLI, '--config', conf, '--data-dir', join(dir, 'data'), '--node-netns', vm.name, '--api-socket', join(dir, 'agent.sock'),
      '--controller-url', `https://127.0.0.1:${st.controllerPort}`, '--controller-ca-file', join(labDir, 'controller-ca.pem'), '--token-file', tokenFile,
    ];
    const log = openSync(join(dir, 'agent.log'), 'a');
    const t0 = performance.now();
    agent = spawn(process.execPath, agentArgs, { stdio: ['ignore', log, log], env: { ...process.env, NODE_NAME: 'vm1', NODE_OPTIONS: '' } });
    await waitFor('the seed policy enforced on the VM', async () => {
      if (agent!.exitCode !== null) throw new Error(`agent exited ${agent!.exitCode}: ${readFileSync(join(dir, 'agent.log'), 'utf8').slice(-2000)}`);
      return (await connect(front.name, 22)) === 'refused';
    }, { timeoutMs: 60_000, intervalMs: 100 }).catch((e: unknown) => {
      console.log(`agent log:\n${readFileSync(join(dir, 'agent.log'), 'utf8').slice(-4000)}`);
      throw e;
    });
    startToEnforcedMs = performance.now() - t0;
    console.log(`switchyard-agent (externalNode) start to the seed policy enforced on the VM, in the lab: ${startToEnforcedMs.toFixed(0)} ms`);

    const eth1 = (JSON.parse((await run(['ip', '-j', 'addr', 'show', 'dev', 'eth1'], { netns: vm.name })).stdout) as { address: string; addr_info: { local: string }[] }[])[0]!;
    expect({ mac: eth1.address, ips: eth1.addr_info.map((a) => a.local) }).toEqual({ mac: VM_MAC, ips: [VM_IP] });
    expect((await ovs.vsctl('list-ports', 'br-int')).split('\n').filter(Boolean).sort()).toEqual(['eth1', 'eth1~']);
    expect((await run(['ip', 'route', 'show', 'dev', 'eth1'], { netns: vm.name })).stdout).toContain(`via ${ROUTER_IP}`);
  });

  it('the controller made the ExternalEntity with the seed\'s naming, labels and endpoints', () => {
    const ee = JSON.parse(kubectl('get', 'externalentities.crd.antrea.io', '-n', NS, 'vm1', '-o', 'json')) as { metadata: { labels: Record<string, string> }; spec: { externalNode: string; endpoints: { ip: string }[] } };
    expect(ee.metadata.labels).toMatchObject({ role: 'db' });
    expect(ee.spec).toMatchObject({ externalNode: 'vm1', endpoints: [{ ip: VM_IP }] });
  });

  it('rejects SSH from the role=front host and from node1\'s pods (ipBlock) with RST, and allows every other connection', async () => {
    const cells = {
      'front:22': await verdict(front.name, 22),
      'front:80': await verdict(front.name, 80),
      'pod on node1:22': await verdict(podNetns.get('p1')!, 22),
      'pod on node1:80': await verdict(podNetns.get('p1')!, 80),
      'pod on node2:22': await verdict(podNetns.get('p2')!, 22),
    };
    expect(cells).toEqual({ 'front:22': 'refused', 'front:80': 'open', 'pod on node1:22': 'refused', 'pod on node1:80': 'open', 'pod on node2:22': 'open' });
    // ARP and ICMP still work through the pair: the fabric router reaches the VM.
    expect((await run(['ping', '-c', '1', '-W', '2', VM_IP], { netns: st.fabricNetns, allowFailure: true })).code).toBe(0);
  });

  it('the agent reports itself in its AntreaAgentInfo', async () => {
    await waitFor('AntreaAgentInfo vm1 with AgentHealthy', async () => {
      const r = spawnSync('kubectl', ['--kubeconfig', st.kubeconfig, 'get', 'antreaagentinfos.crd.antrea.io', 'vm1', '-o', 'json'], { encoding: 'utf8' });
      if (r.status !== 0) return false;
      const info = JSON.parse(r.stdout) as { agentConditions?: { type: string; status: string }[] };
      return info.agentConditions?.some((c) => c.type === 'AgentHealthy' && c.status === 'True') ?? false;
    }, { timeoutMs: 30_000, intervalMs: 250 });
  });

  it('stopped and uninstalled, the VM is exactly as before (ip -j link/addr/route, ovs-vsctl show) and still reachable', async () => {
    const exited = new Promise<number | null>((r) => agent!.once('exit', (code) => r(code)));
    agent!.kill('SIGTERM');
    expect(await exited).toBe(0);
    agent = undefined;
    const un = spawnSync(process.execPath, [...agentArgs, '--uninstall'], { encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '' }, timeout: 60_000 });
    expect(un.status).toBe(0);
    expect(await hostState()).toEqual(before);
    expect((await run(['ping', '-c', '1', '-W', '2', VM_IP], { netns: st.fabricNetns, allowFailure: true })).code).toBe(0);
    expect(await verdict(podNetns.get('p1')!, 22)).toBe('open');
  });
});
