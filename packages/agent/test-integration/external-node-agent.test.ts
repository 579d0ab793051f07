// The ExternalNode agent end to end: kube-api (the only stand-in) with the ExternalNode of the
// seed, the agent authenticated as the least-privilege ServiceAccount of
// build/externalnode/vm-agent-rbac.yaml, and a "VM" on real OVS, netns and veths. Needs root and OVS.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import YAML from 'yaml';
import { loadCrds, type AntreaAgentInfo } from '@switchyard/apis';
import { KubeConfigClient, KubeRequestError } from '@switchyard/kube';
import { startKubeApi, type KubeApiServer, type KubeObject } from '@switchyard/kube-api';
import { Testbed, run, waitFor } from '@switchyard/testbed';
import { ExternalNodeAgent } from '../src/index';
import { PKG_DIR, flowAges, flowsYoungerThan } from './helpers';
import { BEHIND_FABRIC_IP, FABRIC_IP, VM_IP, bridgePorts, createVm, hostState, ping, type Vm } from './external-node-vm';

const EN_PATH = '/apis/crd.antrea.io/v1alpha1/namespaces/vm-ns/externalnodes';
let tb: Testbed;
let v: Vm;
let api: KubeApiServer;
let admin: KubeConfigClient;
let agentKube: KubeConfigClient;
let dir: string;
let agent: ExternalNodeAgent | undefined;

const client = (path: string): KubeConfigClient => {
  const kc = new KubeConfig();
  kc.loadFromFile(path);
  return new KubeConfigClient(kc);
};
const externalNode = (iface: { name?: string; ips: string[] }): KubeObject => ({
  apiVersion: 'crd.antrea.io/v1alpha1', kind: 'ExternalNode', metadata: { name: 'vm1', namespace: 'vm-ns', labels: { role: 'db' } }, spec: { interfaces: [iface] },
});
const agentInfo = () => admin.request<AntreaAgentInfo>('GET', '/apis/crd.antrea.io/v1beta1/antreaagentinfos/vm1');
const healthy = async () => (await agentInfo().catch(() => undefined))?.agentConditions?.find((c) => c.type === 'AgentHealthy');

/** GET on the agent's local API (unix socket). */
function localGet(path: string): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const req = request({ socketPath: join(dir, 'agent.sock'), path, method: 'GET' }, (res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () => resolve(JSON.parse(body)));
    });
    req.on('error', reject);
    req.end();
  });
}

async function startAgent(): Promise<ExternalNodeAgent> {
  return ExternalNodeAgent.start({
    nodeName: 'vm1',
    kube: agentKube,
    externalNode: { namespace: 'vm-ns', policyBypassRules: [] },
    ovsdbRemote: v.ovs.dbRemote,
    ovsRunDir: v.ovs.dir,
    bridge: 'br-int',
    datapathType: 'netdev',
    dataDir: dir,
    nodeNetns: v.vm.name,
    agentInfoIntervalMs: 200,
    apiSocket: join(dir, 'agent.sock'),
  });
}

beforeAll(async () => {
  tb = await Testbed.create();
  v = await createVm(tb);
  // The agent's bridge, as a previous run (or the install) left it: uninstall returns the host to this.
  await v.ovs.addBridge('br-int', { failSecure: true });
  dir = mkdtempSync(join(tmpdir(), 'sy-extnode-agent-'));
  api = await startKubeApi({ crds: loadCrds() as never });
  admin = client(api.kubeconfigPath);
  api.createObjects([{ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'vm-ns' } }]);
  const rbac = YAML.parseAllDocuments(readFileSync(join(PKG_DIR, 'build', 'externalnode', 'vm-agent-rbac.yaml'), 'utf8')).map((d) => d.toJSON() as KubeObject);
  api.createObjects(rbac);
  // What switchyard-controller does when the ExternalNode appears (the agent may not create it).
  api.createObjects([{ apiVersion: 'crd.antrea.io/v1beta1', kind: 'AntreaAgentInfo', metadata: { name: 'vm1' }, nodeRef: { kind: 'ExternalNode', name: 'vm1', namespace: 'vm-ns' } } as KubeObject]);
  const token = api.createServiceAccountToken('vm-ns', 'vm-agent');
  agentKube = client(api.writeKubeconfig(join(dir, 'vm-agent.kubeconfig'), { name: 'vm-agent', token }));
}, 60_000);

// A test that fails before it uninstalls leaves its agent running: the next test would start
// another over it, and the first one's sockets and timers would keep jest from exiting (CI-A hung
// there after the swap test failed). Uninstalled and stopped here, the next test starts clean.
afterEach(async () => {
  const left = agent;
  agent = undefined;
  if (!left) return;
  try {
    await left.uninstall();
  } finally {
    await left.stop().catch(() => undefined);
  }
});

afterAll(async () => {
  await agent?.stop().catch(() => undefined);
  await api?.stop();
  await tb?.cleanup();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('the VM agent’s identity', () => {
  test('reads ExternalNodes of its namespace only and cannot write them', async () => {
    await expect(agentKube.request('GET', EN_PATH)).resolves.toBeDefined();
    await expect(agentKube.request('GET', '/apis/crd.antrea.io/v1alpha1/namespaces/default/externalnodes')).rejects.toMatchObject({ status: 403 });
    await expect(agentKube.request('POST', EN_PATH, externalNode({ ips: ['10.0.0.1'] }))).rejects.toMatchObject({ status: 403 });
    await expect(agentKube.request('GET', '/apis/crd.antrea.io/v1beta1/antreaagentinfos/other-vm')).rejects.toMatchObject({ status: 403 });
    await expect(agentKube.request('POST', '/apis/crd.antrea.io/v1beta1/antreaagentinfos', { apiVersion: 'crd.antrea.io/v1beta1', kind: 'AntreaAgentInfo', metadata: { name: 'other-vm' } })).rejects.toMatchObject({ status: 403 });
  });
});

describe('external-node mode', () => {
  test('swaps the interface the ExternalNode names by IP, reports AntreaAgentInfo, follows a bad edit without losing the host, and uninstalls cleanly', async () => {
    const before = await hostState(v);
    await admin.request('POST', EN_PATH, externalNode({ name: '', ips: [VM_IP] }));

    const t0 = performance.now();
    agent = await startAgent();
    const startMs = performance.now() - t0;
    console.log(`ExternalNode agent start (ExternalNode read, uplink swapped, first round installed): ${startMs.toFixed(0)} ms`);
    expect(agent.health()).toMatchObject({ ok: true });
    expect(await bridgePorts(v.ovs)).toEqual(['eth1', 'eth1~']);
    expect(await ping(v.vm, FABRIC_IP)).toBe(true);
    expect(await ping(v.vm, BEHIND_FABRIC_IP)).toBe(true);
    await waitFor('AntreaAgentInfo written', async () => (await healthy())?.status === 'True', { timeoutMs: 30_000, intervalMs: 100 });
    expect(await agentInfo()).toMatchObject({ ovsInfo: { bridgeName: 'br-int' }, nodeRef: { kind: 'ExternalNode', name: 'vm1', namespace: 'vm-ns' } });
    // The local API on the VM answers what the agent holds.
    const local = await localGet('/agentinfo') as { nodeRef: { name: string }; ovsInfo: { flowTable: Record<string, number> } };
    expect(local.nodeRef.name).toBe('vm1');
    expect(local.ovsInfo.flowTable.NonIP).toBe(3);

    // The ExternalNode now names an interface this host does not have: nothing is guarded, the
    // host keeps its network, and the AntreaAgentInfo says why, naming the field and value.
    const cur = await admin.request<KubeObject>('GET', `${EN_PATH}/vm1`);
    await admin.request('PUT', `${EN_PATH}/vm1`, { ...cur, spec: { interfaces: [{ name: 'eth9', ips: [VM_IP] }] } });
    await waitFor('bad ExternalNode reported', async () => (await healthy())?.status === 'False', { timeoutMs: 30_000, intervalMs: 100 });
    const cond = await healthy();
    expect(cond).toMatchObject({ reason: 'ExternalNodeNotRealized' });
    expect(cond?.message).toContain('interface eth9 is not on this host');
    expect(await bridgePorts(v.ovs)).toEqual([]);
    expect(await ping(v.vm, FABRIC_IP)).toBe(true);
    expect(agent.health().ok).toBe(false);

    // An IP the host does not have, same story.
    const cur2 = await admin.request<KubeObject>('GET', `${EN_PATH}/vm1`);
    await admin.request('PUT', `${EN_PATH}/vm1`, { ...cur2, spec: { interfaces: [{ name: '', ips: ['192.0.2.77'] }] } });
    await waitFor('unknown IP reported', async () => (await healthy())?.message?.includes('192.0.2.77') === true, { timeoutMs: 30_000, intervalMs: 100 });
    expect(await ping(v.vm, FABRIC_IP)).toBe(true);

    // Fixed again: swapped again, healthy again.
    const cur3 = await admin.request<KubeObject>('GET', `${EN_PATH}/vm1`);
    await admin.request('PUT', `${EN_PATH}/vm1`, { ...cur3, spec: { interfaces: [{ name: 'eth1', ips: [VM_IP] }] } });
    await waitFor('swapped again', async () => (await bridgePorts(v.ovs)).length === 2 && (await healthy())?.status === 'True', { timeoutMs: 30_000, intervalMs: 100 });
    expect(await ping(v.vm, FABRIC_IP)).toBe(true);

    await agent.uninstall();
    agent = undefined;
    expect(await hostState(v)).toEqual(before);
    expect(await ping(v.fabric, VM_IP)).toBe(true);
  });

  test('an agent restart keeps the swap, adopts the flows (same round, no flow added, modified or deleted, every flow keeps aging) and loses no packets', async () => {
    const cur = await admin.request<KubeObject>('GET', `${EN_PATH}/vm1`);
    await admin.request('PUT', `${EN_PATH}/vm1`, { ...cur, spec: { interfaces: [{ name: 'eth1', ips: [VM_IP] }] } });
    agent = await startAgent();
    try {
      expect(agent.health().ok).toBe(true);
      // 200 echo requests 20 ms apart from the fabric while the agent stops and starts again.
      const pinger = run(['ping', '-i', '0.02', '-c', '200', '-W', '1', VM_IP], { netns: v.fabric.name, allowFailure: true, timeoutMs: 30_000 });
      await new Promise((r) => setTimeout(r, 500));
      const round = agent.introspection().round;
      const ages = await flowAges(v.ovs);
      const t0 = performance.now();
      await agent.stop();
      agent = await startAgent();
      const restartMs = performance.now() - t0;
      // OVS kept running: the new agent resumed the round and adopted the flows it found, as they
      // were (no flow-mod), so every flow kept aging through the restart.
      expect(agent.introspection().round).toBe(round);
      expect(agent.part('external-node').flows.initialResult?.adopted).toEqual({ added: 0, modified: 0, deleted: 0 });
      expect(await flowsYoungerThan(v.ovs, ages)).toEqual([]);
      const out = (await pinger).stdout;
      const m = /(\d+) packets transmitted, (\d+) received/.exec(out);
      console.log(`ExternalNode agent restart ${restartMs.toFixed(0)} ms; ping from the fabric: ${m?.[0] ?? out}`);
      expect(m?.[1]).toBe('200');
      expect(m?.[2]).toBe('200');
      expect(await bridgePorts(v.ovs)).toEqual(['eth1', 'eth1~']);
    } finally {
      // Uninstalled whether or not the test passed: the next test starts from a host without the swap.
      try {
        await agent.uninstall();
      } finally {
        await agent.stop().catch(() => undefined);
        agent = undefined;
      }
    }
  });

  test('an ExternalNode that does not exist leaves the host alone and says so', async () => {
    await admin.request('DELETE', `${EN_PATH}/vm1`).catch((e: unknown) => {
      if (!(e instanceof KubeRequestError && e.status === 404)) throw e;
    });
    const before = await hostState(v);
    agent = await startAgent();
    try {
      expect(agent.health()).toMatchObject({ ok: false });
      expect(agent.health().controllers.find((c) => c.name === 'external-node')?.detail).toBe('ExternalNode vm-ns/vm1 not found');
      expect(await hostState(v)).toEqual(before);
    } finally {
      await agent.stop();
      agent = undefined;
    }
  });
});
