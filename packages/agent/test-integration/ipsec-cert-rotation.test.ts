// IPsec certificate renewal while the agent runs: the agent's certificate keeper and the real
// controller signer on the embedded API server share a ManualClock; the keeper points a real
// OVSDB's Open_vSwitch other_config at content-named copies. Time moved into the certificate's
// renewal window brings a new CertificateSigningRequest, a new certificate and new other_config
// paths (what makes ovs-monitor-ipsec reconfigure strongSwan), the old copies removed; a new CA
// from the controller is noticed at the next periodic check and brings a certificate it signed.
// The real ovs-monitor-ipsec, watching the same database with one certificate tunnel, rewrites
// strongSwan's connection for the new certificate each time. Needs root, OVS and openvswitch-ipsec.
import type { ChildProcess } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { loadCrds } from '@switchyard/apis';
import { IPsecCertificateSigner } from '@switchyard/controller';
import { KubeConfigClient } from '@switchyard/kube';
import { startKubeApi, type KubeApiServer } from '@switchyard/kube-api';
import { OvsdbClient, VSwitch } from '@switchyard/ovsdb';
import { silentLogger } from '@switchyard/runtime';
import { ManualClock } from '@switchyard/runtime/testing';
import { Testbed, type OvsInstance } from '@switchyard/testbed';
import { IPsecCertificateKeeper } from '../src/features/ipsec/certificate';
import { clusterRbac } from './helpers';
import { conns, startMonitor, stopChild, vsctlRows } from './ipsec-support';

jest.setTimeout(60_000);

const DAY = 24 * 60 * 60 * 1000;
const CSRS = '/apis/certificates.k8s.io/v1/certificatesigningrequests';
const clock = new ManualClock(Date.now());
let tb: Testbed;
let api: KubeApiServer;
let admin: KubeConfigClient;
let ovs: OvsInstance;
let ovsdb: OvsdbClient;
let vswitch: VSwitch;
let signer: IPsecCertificateSigner;
let keeper: IPsecCertificateKeeper;
let dir: string;
let monitor: ChildProcess | undefined;
let confFile = '';

function client(kubeconfig: string): KubeConfigClient {
  const kc = new KubeConfig();
  kc.loadFromFile(kubeconfig);
  return new KubeConfigClient(kc);
}

const startSigner = async (): Promise<IPsecCertificateSigner> => {
  const s = new IPsecCertificateSigner({ kube: admin, namespace: 'kube-system', caSecretName: 'switchyard-ipsec-ca', autoApprove: true, selfSignedCA: true, validityDays: 10, clock, logger: silentLogger,
    // The informer's watch-liveness timer runs on the shared clock: at its default (5.5 min) days of
    // ManualClock time would restart the watch thousands of times, in real time.
    informer: { watchTimeoutSeconds: 60 * 24 * 60 * 60 } });
  await s.start();
  return s;
};

/** Moves the shared clock on in small steps (the keeper polls the request on it) until `done`. */
async function advanceUntil(what: string, done: () => boolean | Promise<boolean>, stepMs = 250): Promise<void> {
  for (let i = 0; i < 400; i++) {
    if (await done()) return;
    await clock.advanceAsync(stepMs, () => new Promise((r) => setTimeout(r, 10)));
  }
  throw new Error(`not reached: ${what}`);
}

const otherConfig = async (): Promise<Record<string, string>> => ((await vsctlRows(ovs, 'Open_vSwitch', ['other_config']))[0]?.other_config ?? {}) as Record<string, string>;
const csrCount = async (): Promise<number> => (await admin.request<{ items: unknown[] }>('GET', CSRS)).items.length;
const published = (): string[] => readdirSync(join(dir, 'ipsec', 'ovs')).sort();

beforeAll(async () => {
  tb = await Testbed.create();
  dir = mkdtempSync(join(tmpdir(), 'sy-ipsec-rotate-'));
  api = await startKubeApi({ tokens: { 'token-rot1': { user: 'system:node:rot1', groups: ['system:nodes', 'system:authenticated'] } }, crds: loadCrds() as never });
  api.createObjects(clusterRbac());
  admin = client(api.kubeconfigPath);
  signer = await startSigner();
  ovs = await tb.startOvs();
  ovsdb = await OvsdbClient.connect(ovs.dbRemote);
  vswitch = new VSwitch(ovsdb);
  const node = client(api.writeKubeconfig(join(dir, 'node.kubeconfig'), { name: 'rot1', token: 'token-rot1' }));
  keeper = new IPsecCertificateKeeper({ kube: node, nodeName: 'rot1', dir: join(dir, 'ipsec'), caNamespace: 'kube-system', vswitch, clock, logger: silentLogger, pollMs: 100, timeoutMs: 60 * 60_000, checkIntervalMs: DAY });
  const starting = keeper.start();
  await advanceUntil('the first certificate', async () => keeper.files !== undefined);
  await starting;
  // One certificate-authenticated tunnel, so ovs-monitor-ipsec writes a connection naming our certificate.
  await ovs.vsctl('add-br', 'br-rot', '--', 'set', 'bridge', 'br-rot', 'datapath_type=netdev');
  await ovs.vsctl('add-port', 'br-rot', 'rot-peer', '--', 'set', 'interface', 'rot-peer', 'type=gre', 'options:remote_ip=192.168.79.2', 'options:remote_name=peer2');
  const started = startMonitor(dir, ovs);
  monitor = started.child;
  confFile = join(started.root, 'etc/ipsec.conf');
});

/** The leftcert of the tunnel's connection in the ipsec.conf ovs-monitor-ipsec wrote. */
function leftcert(): string | undefined {
  if (!existsSync(confFile)) return undefined;
  return [...conns(readFileSync(confFile, 'utf8')).entries()].find(([name]) => name.startsWith('rot-peer-'))?.[1]['leftcert'];
}

async function eventually(what: string, probe: () => boolean): Promise<void> {
  for (const t0 = Date.now(); !probe(); ) {
    if (Date.now() - t0 > 20_000) throw new Error(`not reached: ${what} (ipsec.conf: ${existsSync(confFile) ? readFileSync(confFile, 'utf8') : 'none'})`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

afterAll(async () => {
  await stopChild(monitor);
  keeper?.stop();
  await keeper?.idle();
  await signer?.stop();
  ovsdb?.close();
  await api?.stop();
  await tb?.cleanup();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('IPsec certificate renewal while running (ManualClock, real signer and OVSDB)', () => {
  it('the first certificate is published and named in other_config; the next check is due at 80% of its 10-day lifetime', async () => {
    const cert = new X509Certificate(readFileSync(keeper.files!.certificate));
    expect(Date.parse(cert.validTo) - Date.parse(cert.validFrom)).toBe(10 * DAY);
    expect(keeper.renewAt).toBe(Date.parse(cert.validFrom) + 8 * DAY);
    expect(await otherConfig()).toMatchObject({ ...keeper.files });
    expect(published()).toHaveLength(3);
    expect(await csrCount()).toBe(1);
    await eventually('ovs-monitor-ipsec naming the first certificate', () => leftcert() === keeper.files!.certificate);
  });

  it('in the renewal window a new certificate is asked for and other_config moves to new paths; the old copies go', async () => {
    const before = { ...keeper.files! };
    const firstFrom = Date.parse(new X509Certificate(readFileSync(before.certificate)).validFrom);
    // Daily checks until day 8 find nothing to do.
    await clock.advanceAsync(7 * DAY, () => new Promise((r) => setTimeout(r, 20)));
    expect(await csrCount()).toBe(1);
    expect(keeper.files).toEqual(before);
    await clock.advanceAsync(DAY + 60_000, () => new Promise((r) => setTimeout(r, 20)));
    await advanceUntil('the renewed certificate in other_config', async () => keeper.rotations === 1);
    expect(await csrCount()).toBe(2);
    const after = keeper.files!;
    expect(after.certificate).not.toBe(before.certificate);
    expect(after.private_key).not.toBe(before.private_key);
    expect(after.ca_cert).toBe(before.ca_cert);
    expect(await otherConfig()).toMatchObject({ ...after });
    expect(existsSync(before.certificate) || existsSync(before.private_key)).toBe(false);
    expect(published()).toHaveLength(3);
    const cert = new X509Certificate(readFileSync(after.certificate));
    // Issued on the shared clock, eight days after the first.
    expect(Date.parse(cert.validFrom)).toBeGreaterThanOrEqual(firstFrom + 8 * DAY);
    expect(keeper.health().ok).toBe(true);
    await eventually('ovs-monitor-ipsec naming the renewed certificate', () => leftcert() === after.certificate);
  });

  it('a new CA from the controller is noticed at the next check: a certificate it signed, and the new CA in other_config', async () => {
    const before = { ...keeper.files! };
    await signer.stop();
    await admin.request('DELETE', '/api/v1/namespaces/kube-system/secrets/switchyard-ipsec-ca');
    signer = await startSigner();
    const newCa = (await admin.request<{ data: Record<string, string> }>('GET', '/api/v1/namespaces/kube-system/configmaps/switchyard-ipsec-ca')).data['ca.crt']!;
    expect(newCa).not.toBe(readFileSync(before.ca_cert, 'utf8'));
    await clock.advanceAsync(DAY, () => new Promise((r) => setTimeout(r, 20)));
    await advanceUntil('a certificate from the new CA', async () => keeper.rotations === 2);
    const after = keeper.files!;
    expect(after.ca_cert).not.toBe(before.ca_cert);
    expect(readFileSync(after.ca_cert, 'utf8')).toBe(newCa);
    expect(new X509Certificate(readFileSync(after.certificate)).verify(new X509Certificate(newCa).publicKey)).toBe(true);
    expect(await otherConfig()).toMatchObject({ ...after });
    expect(await csrCount()).toBe(3);
    await eventually('ovs-monitor-ipsec naming the certificate of the new CA', () => leftcert() === after.certificate && readFileSync(confFile, 'utf8').includes(after.ca_cert));
  });
});
