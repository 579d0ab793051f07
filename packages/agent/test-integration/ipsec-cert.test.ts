// IPsec with certificate authentication on a real OVS: the agent (node ip1, with its node
// identity) asks the real controller's IPsec signer for a certificate through a
// CertificateSigningRequest on the embedded API server, keeps it with its key and the CA in
// <dataDir>/ipsec, points Open_vSwitch other_config at them and names each peer (remote_name) on
// its tunnel port instead of a PSK; the real ovs-monitor-ipsec turns that into strongSwan
// certificate connections that strongSwan's parser accepts; a restarted agent keeps its
// certificate. Needs root, OVS, openvswitch-ipsec and strongSwan.
import type { ChildProcess } from 'node:child_process';
import { X509Certificate, createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { KubeConfigClient } from '@switchyard/kube';
import { Testbed, waitFor, type OvsInstance } from '@switchyard/testbed';
import { Agent } from '../src/index';
import { ipsecTunnelPortName } from '../src/features/ipsec/ipsec';
import { startControlPlane, type ControlPlane } from './helpers';
import { conns, ipsecSecrets, starterParse, startMonitor, stopChild, vsctlRows } from './ipsec-support';

jest.setTimeout(120_000);

const SELF = { name: 'ip1', podCIDR: '10.74.1.0/24', nodeIP: '192.168.74.1' };
const PEERS = [
  { name: 'ip2', podCIDR: '10.74.2.0/24', nodeIP: '192.168.74.2' },
  { name: 'ip3', podCIDR: '10.74.3.0/24', nodeIP: '192.168.74.3' },
];
const CSRS = '/apis/certificates.k8s.io/v1/certificatesigningrequests';

let tb: Testbed;
let cp: ControlPlane;
let nodeKube: KubeConfigClient;
let ovs: OvsInstance;
let agent: Agent | undefined;
let monitor: ChildProcess | undefined;
let dir: string;
let startMs = 0;

/** The content-named copies other_config should name (`<dir>/ipsec/ovs/{cert,key,ca}-<sha256 prefix>.pem`). */
function published(): { certificate: string; private_key: string; ca_cert: string } {
  const id = (f: string): string => createHash('sha256').update(readFileSync(join(dir, 'ipsec', f))).digest('hex').slice(0, 16);
  const out = join(dir, 'ipsec', 'ovs');
  return { certificate: join(out, `cert-${id('cert.pem')}.pem`), private_key: join(out, `key-${id('cert.pem')}.pem`), ca_cert: join(out, `ca-${id('ca.pem')}.pem`) };
}

function agentOptions(): Parameters<typeof Agent.start>[0] {
  return {
    nodeName: SELF.name, podCIDR: SELF.podCIDR, nodeIP: SELF.nodeIP,
    ovsdbRemote: ovs.dbRemote, ovsRunDir: ovs.dir, datapathType: 'netdev', gatewayName: 'sy-gw0', tunnelName: 'sy-tun0', tunnelType: 'gre',
    trafficEncryptionMode: 'ipsec', ipsecAuthenticationMode: 'cert',
    dataDir: dir, cniSocket: join(dir, 'cni.sock'), nodeNetns: ovs.netns.name, kube: nodeKube, apiPort: 0,
  };
}

beforeAll(async () => {
  tb = await Testbed.create();
  dir = mkdtempSync(join(tmpdir(), 'sy-ipsec-cert-'));
  cp = await startControlPlane(SELF.name, { ipsecCSRSigner: { autoApprove: true, selfSignedCA: true } });
  const kc = new KubeConfig();
  kc.loadFromFile(cp.api.writeKubeconfig(join(dir, 'node.kubeconfig'), { name: SELF.name, token: `token-${SELF.name}` }));
  nodeKube = new KubeConfigClient(kc);
  ovs = await tb.startOvs();
  for (const n of [SELF, ...PEERS]) {
    await cp.kube.request('POST', '/api/v1/nodes', {
      apiVersion: 'v1', kind: 'Node', metadata: { name: n.name }, spec: { podCIDR: n.podCIDR, podCIDRs: [n.podCIDR] }, status: { addresses: [{ type: 'InternalIP', address: n.nodeIP }] },
    });
  }
  const t0 = performance.now();
  agent = await Agent.start(agentOptions());
  startMs = performance.now() - t0;
  console.log(`agent start with an IPsec certificate issued by the controller: ${startMs.toFixed(0)} ms`);
});

afterAll(async () => {
  await stopChild(monitor);
  await agent?.stop().catch(() => undefined);
  await cp?.stop().catch(() => undefined);
  await tb?.cleanup();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('IPsec certificate authentication (three Nodes, real OVS and controller signer)', () => {
  it('the agent got a certificate for CN=ip1 from the controller, signed by the published CA, key 0600', async () => {
    const csrs = (await cp.kube.request<{ items: { metadata: { name: string }; spec: { username: string; signerName: string } }[] }>('GET', CSRS)).items;
    expect(csrs.map((c) => [c.spec.username, c.spec.signerName])).toEqual([['system:node:ip1', 'antrea.io/antrea-agent-ipsec-tunnel']]);
    const cm = await cp.kube.request<{ data: Record<string, string> }>('GET', '/api/v1/namespaces/kube-system/configmaps/switchyard-ipsec-ca');
    const ca = new X509Certificate(cm.data['ca.crt']!);
    const cert = new X509Certificate(readFileSync(join(dir, 'ipsec/cert.pem')));
    expect(cert.subject).toBe('O=switchyard.io\nCN=ip1');
    expect(cert.verify(ca.publicKey)).toBe(true);
    expect(readFileSync(join(dir, 'ipsec/ca.pem'), 'utf8')).toBe(cm.data['ca.crt']);
    expect(statSync(join(dir, 'ipsec/key.pem')).mode & 0o777).toBe(0o600);
  });

  it('Open_vSwitch other_config names copies of the files named by their content, and each peer port carries remote_name, not a PSK', async () => {
    const [row] = await vsctlRows(ovs, 'Open_vSwitch', ['other_config']);
    expect(row?.other_config).toMatchObject(published());
    for (const [k, f] of Object.entries(published())) expect(readFileSync(f)).toEqual(readFileSync(join(dir, 'ipsec', `${k === 'certificate' ? 'cert' : k === 'private_key' ? 'key' : 'ca'}.pem`)));
    expect(statSync(published().private_key).mode & 0o777).toBe(0o600);
    await waitFor('ports of both peers', async () => (await vsctlRows(ovs, 'Interface', ['name'])).filter((r) => PEERS.some((p) => ipsecTunnelPortName(p.name) === r.name)).length === 2, { timeoutMs: 20_000, intervalMs: 100 });
    const ifaces = await vsctlRows(ovs, 'Interface', ['name', 'options']);
    for (const p of PEERS) expect(ifaces.find((i) => i.name === ipsecTunnelPortName(p.name))?.options).toEqual({ remote_ip: p.nodeIP, remote_name: p.name });
  });

  it('ovs-monitor-ipsec writes certificate connections (leftcert, leftid ip1, rightid = peer) and RSA secrets that strongSwan parses', async () => {
    const started = startMonitor(dir, ovs);
    monitor = started.child;
    const confFile = join(started.root, 'etc/ipsec.conf');
    const read = (f: string): string => (existsSync(f) ? readFileSync(f, 'utf8') : '');
    const peersIn = (): number => [...conns(read(confFile)).keys()].filter((n) => n !== '%default').length;
    // Both files waited for (ipsecSecrets: the monitor writes them one after the other).
    await waitFor('ipsec.conf and ipsec.secrets with both peers', () => peersIn() >= 2 && ipsecSecrets(started.root).length >= PEERS.length, { timeoutMs: 20_000, intervalMs: 100 }).catch((e: unknown) => {
      console.log(read(join(dir, 'monitor.log')), read(confFile));
      throw e;
    });
    const c = conns(read(confFile));
    for (const peer of PEERS) {
      const mine = [...c.entries()].filter(([name]) => name.startsWith(`${ipsecTunnelPortName(peer.name)}-`));
      expect(mine).toHaveLength(1);
      expect(mine[0]![1]).toMatchObject({ left: '%any', right: peer.nodeIP, leftid: 'ip1', rightid: peer.name, leftcert: published().certificate });
      expect(mine[0]![1]).not.toHaveProperty('authby');
    }
    expect(read(confFile)).toContain(published().ca_cert);
    const secrets = ipsecSecrets(started.root);
    expect(secrets.sort()).toEqual(PEERS.map((p) => `%any ${p.nodeIP} : RSA ${published().private_key}`).sort());
    const parsed = await starterParse(dir, confFile);
    expect(parsed).not.toMatch(/unknown keyword|parsing error|fatal/);
    for (const peer of PEERS) expect(parsed).toContain(`rightid=${peer.name}`);
  });

  it('a restarted agent keeps its certificate: no second request, other_config unchanged', async () => {
    const before = readFileSync(join(dir, 'ipsec/cert.pem'), 'utf8');
    await agent!.stop();
    agent = await Agent.start(agentOptions());
    expect(readFileSync(join(dir, 'ipsec/cert.pem'), 'utf8')).toBe(before);
    expect((await cp.kube.request<{ items: unknown[] }>('GET', CSRS)).items).toHaveLength(1);
    expect((await vsctlRows(ovs, 'Open_vSwitch', ['other_config']))[0]?.other_config).toMatchObject(published());
  });
});
