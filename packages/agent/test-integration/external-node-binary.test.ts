// `switchyard-agent` with `nodeType: externalNode` in its antrea-agent.conf, as install-vm.sh's unit
// runs it (NODE_NAME from the environment): it swaps the VM's interface, stops on SIGTERM leaving
// the interface on OVS, and `--uninstall` puts the host back. Real OVS and netns, kube-api; needs root.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import YAML from 'yaml';
import { loadCrds } from '@switchyard/apis';
import { startKubeApi, type KubeApiServer, type KubeObject } from '@switchyard/kube-api';
import { Testbed, waitFor } from '@switchyard/testbed';
import { PKG_DIR } from './helpers';
import { FABRIC_IP, VM_IP, bridgePorts, createVm, hostState, ping, type Vm } from './external-node-vm';

let tb: Testbed;
let v: Vm;
let api: KubeApiServer;
let dir: string;
let child: ChildProcess | undefined;

beforeAll(async () => {
  tb = await Testbed.create();
  v = await createVm(tb);
  await v.ovs.addBridge('br-int', { failSecure: true });
  dir = mkdtempSync(join(tmpdir(), 'sy-extnode-bin-'));
  api = await startKubeApi({ crds: loadCrds() as never });
  api.createObjects([{ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'vm-ns' } }]);
  api.createObjects(YAML.parseAllDocuments(readFileSync(join(PKG_DIR, 'build', 'externalnode', 'vm-agent-rbac.yaml'), 'utf8')).map((d) => d.toJSON() as KubeObject));
  api.createObjects([{ apiVersion: 'crd.antrea.io/v1alpha1', kind: 'ExternalNode', metadata: { name: 'vm1', namespace: 'vm-ns', labels: { role: 'db' } }, spec: { interfaces: [{ name: '', ips: [VM_IP] }] } }]);
}, 60_000);

afterAll(async () => {
  child?.kill('SIGKILL');
  await api?.stop();
  await tb?.cleanup();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test('runs from antrea-agent.conf, keeps the interface on OVS across SIGTERM, and --uninstall restores the host', async () => {
  const kubeconfig = api.writeKubeconfig(join(dir, 'vm-agent.kubeconfig'), { name: 'vm-agent', token: api.createServiceAccountToken('vm-ns', 'vm-agent') });
  const conf = join(dir, 'antrea-agent.conf');
  // The guide's shape: top-level externalNodeNamespace and policyBypassRules.
  writeFileSync(conf, [
    'nodeType: externalNode',
    'externalNodeNamespace: vm-ns',
    'clientConnection:',
    `  kubeconfig: ${kubeconfig}`,
    'ovsBridge: br-int',
    'ovsDatapathType: netdev',
    `ovsRunDir: ${v.ovs.dir}`,
    'policyBypassRules:',
    '  - direction: ingress',
    '    protocol: icmp',
    `    cidr: ${FABRIC_IP}/32`,
    '',
  ].join('\n'));
  const args = ['--import', 'tsx', join(PKG_DIR, 'src/cli.ts'), '--config', conf, '--data-dir', dir, '--node-netns', v.vm.name, '--api-socket', join(dir, 'agent.sock')];
  const before = await hostState(v);

  let out = '';
  child = spawn(process.execPath, args, { cwd: PKG_DIR, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NODE_NAME: 'vm1', NODE_OPTIONS: '' } });
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  await waitFor('agent ready', () => out.includes('"msg":"ExternalNode agent ready"') || child!.exitCode !== null, { timeoutMs: 60_000, intervalMs: 100 });
  if (child.exitCode !== null) throw new Error(`agent exited: ${out}`);
  expect(await bridgePorts(v.ovs)).toEqual(['eth1', 'eth1~']);
  expect(await v.ovs.ofctl('-O', 'OpenFlow15', 'dump-flows', v.ovs.mgmtSocket('br-int'))).toContain(`icmp,nw_src=${FABRIC_IP}`);
  expect(await ping(v.vm, FABRIC_IP)).toBe(true);
  expect(statSync(join(dir, 'agent.sock')).mode & 0o777).toBe(0o600);

  const exited = new Promise<number | null>((r) => child!.once('exit', (code) => r(code)));
  child.kill('SIGTERM');
  expect(await exited).toBe(0);
  child = undefined;
  // Stopped, not uninstalled: the interface stays on OVS with its flows, and keeps working.
  expect(await bridgePorts(v.ovs)).toEqual(['eth1', 'eth1~']);
  expect(await ping(v.vm, FABRIC_IP)).toBe(true);

  const un = spawnSync(process.execPath, [...args, '--uninstall'], { cwd: PKG_DIR, encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '' }, timeout: 60_000 });
  expect(un.status).toBe(0);
  expect(un.stdout).toContain('ExternalNode interfaces restored');
  expect(await hostState(v)).toEqual(before);
  expect(await ping(v.vm, FABRIC_IP)).toBe(true);
});
