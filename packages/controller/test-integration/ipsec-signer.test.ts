// The IPsec certificate signer against the embedded API server: a node's agent identity asks for
// its certificate with a CertificateSigningRequest; the controller approves a request for the
// requester's own Node, signs it with the IPsec CA it published, and denies one for another Node.
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { KubeConfigClient } from '@switchyard/kube';
import { createCertificateRequest } from '@switchyard/pki';
import type { Controller } from '../src/controller';
import { IPSEC_CA_CONFIGMAP, IPSEC_SIGNER_NAME, type IPsecCertificateSigner } from '../src/ipsec-signer';
import { eventually, NODE_TOKENS, startCluster, type Cluster } from './support';

let c: Cluster;
let controller: Controller;
let dir: string;
let nodeA: KubeConfigClient;
const BASE = '/apis/certificates.k8s.io/v1/certificatesigningrequests';
type Csr = { spec: { username: string }; status?: { certificate?: string; conditions?: { type: string; reason?: string; message?: string }[] } };

async function ask(name: string, commonName: string, usages = ['ipsec tunnel', 'digital signature', 'key encipherment']): Promise<void> {
  const { csrPem } = await createCertificateRequest({ commonName });
  await nodeA.request('POST', BASE, { apiVersion: 'certificates.k8s.io/v1', kind: 'CertificateSigningRequest', metadata: { name }, spec: { request: Buffer.from(csrPem).toString('base64'), signerName: IPSEC_SIGNER_NAME, usages } });
}
const get = (name: string): Promise<Csr> => c.kube.request<Csr>('GET', `${BASE}/${name}`);

beforeAll(async () => {
  c = await startCluster();
  controller = await c.startController({ ipsecCSRSigner: { autoApprove: true, selfSignedCA: true, validityDays: 30 } });
  dir = mkdtempSync(join(tmpdir(), 'sy-ipsec-signer-'));
  const kc = new KubeConfig();
  kc.loadFromFile(c.api.writeKubeconfig(join(dir, 'node-a.kubeconfig'), { name: 'node-a', token: NODE_TOKENS['node-a']! }));
  nodeA = new KubeConfigClient(kc);
});

afterAll(async () => {
  await controller?.stop();
  await c?.api.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('IPsec certificate signer', () => {
  test('publishes its CA and issues node-a a certificate for CN=node-a, signed by that CA, valid 30 days', async () => {
    const cm = await c.kube.request<{ data: Record<string, string> }>('GET', `/api/v1/namespaces/kube-system/configmaps/${IPSEC_CA_CONFIGMAP}`);
    const ca = new X509Certificate(cm.data['ca.crt']!);
    expect(ca.ca).toBe(true);
    await ask('node-a-ipsec', 'node-a');
    const csr = await eventually(async () => {
      const o = await get('node-a-ipsec');
      if (!o.status?.certificate) throw new Error('not signed yet');
      return o;
    });
    expect(csr.spec.username).toBe('system:node:node-a');
    expect(csr.status?.conditions?.map((x) => [x.type, x.reason])).toEqual([['Approved', 'AutoApproved']]);
    const cert = new X509Certificate(Buffer.from(csr.status!.certificate!, 'base64').toString('utf8'));
    expect(cert.subject).toBe('CN=node-a');
    expect(cert.verify(ca.publicKey)).toBe(true);
    expect(cert.keyUsage).toEqual(['1.3.6.1.5.5.7.3.6']);
    expect(Math.round((Date.parse(cert.validTo) - Date.parse(cert.validFrom)) / 86_400_000)).toBe(30);
  });

  test('denies node-a a certificate for another Node, and one without the ipsec tunnel usage, saying why', async () => {
    await ask('node-a-as-b', 'node-b');
    await ask('node-a-server', 'node-a', ['server auth']);
    const denied = async (name: string): Promise<string> => eventually(async () => {
      const d = (await get(name)).status?.conditions?.find((x) => x.type === 'Denied');
      if (!d) throw new Error('not reviewed yet');
      return d.message ?? '';
    });
    expect(await denied('node-a-as-b')).toBe("subject CN node-b is not the requester's Node node-a");
    expect(await denied('node-a-server')).toBe('usages must include "ipsec tunnel"');
    expect((await get('node-a-as-b')).status?.certificate).toBeUndefined();
    expect(controller.part<IPsecCertificateSigner>('ipsecSigner').counts).toMatchObject({ approved: 1, denied: 2, signed: 1 });
  });
});
