// Antrea NetworkPolicy on an ExternalNode, end to end: kube-api and the real controller (which
// turns ExternalNodes into ExternalEntities and spans the policy to the VM's agent), the agent in
// external-node mode on a "VM" with real OVS, netns and veths, TCP from several fabric addresses.
// Needs root and OVS.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import YAML from 'yaml';
import { KubeConfigClient } from '@switchyard/kube';
import type { KubeObject } from '@switchyard/kube-api';
import { Testbed, run, waitFor } from '@switchyard/testbed';
import { ExternalNodeAgent } from '../src/index';
import { PKG_DIR, startControlPlane, type ControlPlane } from './helpers';
import { VM_IP, createVm, type Vm } from './external-node-vm';

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

/** One TCP connection from the fabric with source `src`: 'open', 'refused' (RST) or 'timeout' (dropped). */
async function connect(src: string, port: number): Promise<'open' | 'refused' | 'timeout'> {
  const r = await v.fabric.exec(['socat', '-T2', '-', `TCP:${VM_IP}:${port},bind=${src},connect-timeout=2`], { allowFailure: true, input: 'x\n', timeoutMs: 8000 });
  if (r.stdout.trim() === 'pong') return 'open';
  if (/refused/i.test(r.stderr)) return 'refused';
  return 'timeout';
}

/**
 * An allowed connection: up to three attempts (on a loaded machine one SYN or one forked reply can
 * take longer than the probe waits); a rejected or dropped one never opens however often it tries.
 */
async function opens(src: string, port: number): Promise<boolean> {
  for (let i = 0; i < 3; i++) if ((await connect(src, port)) === 'open') return true;
  return false;
}

const externalNode = (name: string, ip: string, role: string): KubeObject => ({
  apiVersion: 'crd.antrea.io/v1alpha1', kind: 'ExternalNode', metadata: { name, namespace: NS, labels: { role } }, spec: { interfaces: [{ name: '', ips: [ip] }] },
});

beforeAll(async () => {
  tb = await Testbed.create();
  v = await createVm(tb);
  for (const ip of [FRONT, BYPASS, BLOCKED]) await v.fabric.exec(['ip', 'addr', 'add', `${ip}/24`, 'dev', 'f0']);
  for (const port of [22, 80]) tb.spawn(['socat', `TCP-LISTEN:${port},reuseaddr,fork`, 'SYSTEM:echo pong'], v.vm.name);
  await v.vm.exec(['ethtool', '-K', 'lo', 'tx', 'off']).catch(() => undefined);
  dir = mkdtempSync(join(tmpdir(), 'sy-extnode-np-'));

  cp = await startControlPlane('vm1');
  cp.api.createObjects([{ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } }]);
  cp.api.createObjects(YAML.parseAllDocuments(readFileSync(join(PKG_DIR, 'build', 'externalnode', 'vm-agent-rbac.yaml'), 'utf8')).map((d) => d.toJSON() as KubeObject));
  cp.api.createObjects([externalNode('vm1', VM_IP, 'db'), externalNode('vm-front', FRONT, 'front')]);
  // The seed's policy, and a Drop of SSH from BYPASS that the agent's bypass rule overrides.
  cp.api.createObjects([
    {
      apiVersion: 'crd.antrea.io/v1beta1', kind: 'NetworkPolicy', metadata: { name: 'anp1', namespace: NS },
      spec: {
        priority: 9000, appliedTo: [{ externalEntitySelector: { matchLabels: { role: 'db' } } }],
        ingress: [{ action: 'Reject', ports: [{ protocol: 'TCP', port: 22 }], from: [{ externalEntitySelector: { matchLabels: { role: 'front' } } }, { ipBlock: { cidr: `${BLOCKED}/32` } }] }],
      },
    },
    {
      apiVersion: 'crd.antrea.io/v1beta1', kind: 'NetworkPolicy', metadata: { name: 'drop-ssh', namespace: NS },
      spec: {
        priority: 9001, appliedTo: [{ externalEntitySelector: { matchLabels: { role: 'db' } } }],
        ingress: [{ action: 'Drop', ports: [{ protocol: 'TCP', port: 22 }], from: [{ ipBlock: { cidr: `${BYPASS}/32` } }] }],
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
    await waitFor('anp1 enforced', async () => (await connect(BLOCKED, 22)) === 'refused', { timeoutMs: 8_000, intervalMs: 50 });
  } catch (e) {
    console.log('anp1 not enforced; agent health, policy counts, probes:', JSON.stringify(agent.health()), agent.policies?.policies.view.counts, await connect(BLOCKED, 22), await connect(OTHER, 22));
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
    expect(ee).toMatchObject({ metadata: { labels: { role: 'db' } }, spec: { externalNode: 'vm1', endpoints: [{ ip: VM_IP }] } });
    expect(agent!.policies!.policies.view.counts.policies).toBe(2);
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
