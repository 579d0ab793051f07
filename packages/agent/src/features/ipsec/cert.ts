/**
 * IPsec certificate authentication (`ipsec.authenticationMode: cert`): the agent's key pair and
 * its certificate for `CN=<node name>`, asked of the controller's IPsec signer through a Kubernetes
 * CertificateSigningRequest (signer antrea.io/antrea-agent-ipsec-tunnel), and the CA that signed
 * every peer's certificate (ConfigMap switchyard-ipsec-ca). ovs-monitor-ipsec reads the files from
 * Open_vSwitch other_config (`certificate`, `private_key`, `ca_cert`), and reconfigures strongSwan
 * only when those paths change: so it is pointed at copies named by their content
 * ({@link publishIPsecCertificate}), and a renewed certificate or a new CA comes under new names.
 */
import { X509Certificate, createHash, createPrivateKey, createPublicKey } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileDurableSync } from '@switchyard/durable-file';
import { KubeRequestError, type KubeClient } from '@switchyard/kube';
import { createCertificateRequest } from '@switchyard/pki';
import { sleep, systemClock, type Clock, type Logger } from '@switchyard/runtime';
import { AgentError } from '../../errors';

/** The signer the controller answers for (Antrea's name). */
export const IPSEC_SIGNER_NAME = 'antrea.io/antrea-agent-ipsec-tunnel';
/** ConfigMap with the IPsec CA (`ca.crt`), published by the controller's signer. */
export const IPSEC_CA_CONFIGMAP = 'switchyard-ipsec-ca';
/** Organization of the agents' IPsec certificate subjects. */
export const IPSEC_CERT_ORGANIZATION = 'switchyard.io';
/** Usages the agent asks for. */
export const IPSEC_CSR_USAGES = ['ipsec tunnel', 'digital signature', 'key encipherment'] as const;

/** Where the certificate, key and CA live (Open_vSwitch other_config keys as ovs-monitor-ipsec names them). */
export interface IPsecCertificateFiles {
  certificate: string;
  private_key: string;
  ca_cert: string;
}

export interface IPsecCertificateOptions {
  kube: KubeClient;
  nodeName: string;
  /** Directory of cert.pem, key.pem (0600) and ca.pem. */
  dir: string;
  /** Namespace of the CA ConfigMap (the controller's). */
  caNamespace: string;
  /** How long to wait for the CA and the signed certificate (default 60 s). */
  timeoutMs?: number;
  /** Poll interval while waiting (default 250 ms). */
  pollMs?: number;
  /** A certificate with less than this share of its lifetime left is renewed at start (default 0.2). */
  renewBefore?: number;
  clock?: Clock;
  logger: Logger;
}

interface Csr {
  metadata: { name: string };
  status?: { certificate?: string; conditions?: { type: string; status?: string; reason?: string; message?: string }[] };
}

/** Files of the certificate set in `dir`. */
export function ipsecCertificateFiles(dir: string): IPsecCertificateFiles {
  return { certificate: join(dir, 'cert.pem'), private_key: join(dir, 'key.pem'), ca_cert: join(dir, 'ca.pem') };
}

/**
 * Why the certificate on disk cannot be used as it is (undefined: it can): missing, not for this
 * node, not matching the key, not signed by `caPem`, or close to expiry.
 */
export function certificateProblem(files: IPsecCertificateFiles, nodeName: string, caPem: string, now: number, renewBefore = 0.2): string | undefined {
  if (!existsSync(files.certificate) || !existsSync(files.private_key)) return 'no certificate yet';
  let cert: X509Certificate;
  try {
    cert = new X509Certificate(readFileSync(files.certificate));
    const pub = createPublicKey(createPrivateKey(readFileSync(files.private_key))).export({ type: 'spki', format: 'der' });
    if (!pub.equals(cert.publicKey.export({ type: 'spki', format: 'der' }))) return 'the certificate does not match the key';
  } catch (e) {
    return `unreadable certificate or key: ${(e as Error).message}`;
  }
  const cn = cert.subject.split('\n').find((l) => l.startsWith('CN='))?.slice(3);
  if (cn !== nodeName) return `certificate subject ${cert.subject.replace(/\n/g, ', ')} has not CN=${nodeName}`;
  const ca = new X509Certificate(caPem);
  if (!cert.checkIssued(ca) || !cert.verify(ca.publicKey)) return 'the certificate is not signed by the current IPsec CA';
  const from = Date.parse(cert.validFrom);
  const to = Date.parse(cert.validTo);
  if (now >= to - (to - from) * renewBefore) return `the certificate expires at ${cert.validTo}`;
  return undefined;
}

/**
 * Makes sure `dir` holds a usable certificate set for this node, asking the controller for a new
 * certificate when the one there is missing or no longer usable; returns the file paths. Fails
 * with `IPSEC_CERTIFICATE` when the request is denied or nothing comes within the timeout.
 */
export async function ensureIPsecCertificate(o: IPsecCertificateOptions): Promise<IPsecCertificateFiles> {
  const clock = o.clock ?? systemClock;
  const deadline = clock.now() + (o.timeoutMs ?? 60_000);
  const pollMs = o.pollMs ?? 250;
  const files = ipsecCertificateFiles(o.dir);
  mkdirSync(o.dir, { recursive: true, mode: 0o700 });
  const caPem = await waitFor(clock, deadline, pollMs, `the IPsec CA in ConfigMap ${o.caNamespace}/${IPSEC_CA_CONFIGMAP}`, async () => {
    try {
      const cm = await o.kube.request<{ data?: Record<string, string> }>('GET', `/api/v1/namespaces/${encodeURIComponent(o.caNamespace)}/configmaps/${IPSEC_CA_CONFIGMAP}`);
      return cm.data?.['ca.crt'] || undefined;
    } catch (e) {
      if (e instanceof KubeRequestError && e.status === 404) return undefined;
      throw e;
    }
  });
  writeFileDurableSync(files.ca_cert, caPem, { mode: 0o644 });
  const problem = certificateProblem(files, o.nodeName, caPem, clock.now(), o.renewBefore);
  if (problem === undefined) {
    o.logger.info({ certificate: files.certificate }, 'IPsec certificate on disk still valid');
    return files;
  }
  o.logger.info({ reason: problem }, 'asking the controller for an IPsec certificate');
  // RSA: ovs-monitor-ipsec lists the key as an `RSA` secret for strongSwan.
  // O and CN: ovs-monitor-ipsec reads the local name as the CN of an RFC 2253 subject with more after it.
  const { csrPem, keyPem } = await createCertificateRequest({ commonName: o.nodeName, organization: IPSEC_CERT_ORGANIZATION, keyType: 'rsa' });
  const created = await o.kube.request<Csr>('POST', '/apis/certificates.k8s.io/v1/certificatesigningrequests', {
    apiVersion: 'certificates.k8s.io/v1',
    kind: 'CertificateSigningRequest',
    metadata: { generateName: `${o.nodeName}-ipsec-` },
    spec: { request: Buffer.from(csrPem).toString('base64'), signerName: IPSEC_SIGNER_NAME, usages: [...IPSEC_CSR_USAGES] },
  });
  const name = created.metadata.name;
  const certB64 = await waitFor(clock, deadline, pollMs, `certificate for CertificateSigningRequest ${name}`, async () => {
    const csr = await o.kube.request<Csr>('GET', `/apis/certificates.k8s.io/v1/certificatesigningrequests/${encodeURIComponent(name)}`);
    const refused = (csr.status?.conditions ?? []).find((c) => (c.type === 'Denied' || c.type === 'Failed') && (c.status ?? 'True') === 'True');
    if (refused) throw new AgentError('IPSEC_CERTIFICATE', `CertificateSigningRequest ${name} ${refused.type.toLowerCase()}: ${refused.message ?? refused.reason ?? ''}`, name, 'ipsec.authenticationMode');
    return csr.status?.certificate || undefined;
  });
  // The key first: a certificate on disk is only ever next to its own key.
  writeFileDurableSync(files.private_key, keyPem, { mode: 0o600 });
  writeFileDurableSync(files.certificate, Buffer.from(certB64, 'base64').toString('utf8'), { mode: 0o644 });
  const after = certificateProblem(files, o.nodeName, caPem, clock.now(), 0);
  if (after !== undefined) throw new AgentError('IPSEC_CERTIFICATE', `the certificate issued for CertificateSigningRequest ${name} is not usable: ${after}`, name, 'ipsec.authenticationMode');
  o.logger.info({ csr: name, certificate: files.certificate }, 'IPsec certificate issued');
  return files;
}

/** Polls `probe` until it gives a value; AgentError `IPSEC_CERTIFICATE` naming `what` at the deadline. */
async function waitFor<T>(clock: Clock, deadline: number, pollMs: number, what: string, probe: () => Promise<T | undefined>): Promise<T> {
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (clock.now() >= deadline) throw new AgentError('IPSEC_CERTIFICATE', `timed out waiting for ${what}`, what, 'ipsec.authenticationMode');
    await sleep(pollMs, { clock });
  }
}

/** Sub-directory of the content-named copies ovs-monitor-ipsec is pointed at. */
const PUBLISHED_DIR = 'ovs';
const contentId = (pem: Buffer): string => createHash('sha256').update(pem).digest('hex').slice(0, 16);

/**
 * Copies of the certificate set named by content in `<dir>/ovs` (`cert-<id>.pem`, `key-<id>.pem`
 * with the certificate's id, `ca-<id>.pem`), made when missing; returns their paths. The same set
 * gives the same paths (a restart changes nothing in OVSDB); a new certificate or CA, new ones.
 */
export function publishIPsecCertificate(files: IPsecCertificateFiles, dir: string): IPsecCertificateFiles {
  const out = join(dir, PUBLISHED_DIR);
  mkdirSync(out, { recursive: true, mode: 0o700 });
  const cert = readFileSync(files.certificate);
  const ca = readFileSync(files.ca_cert);
  const id = contentId(cert);
  const published = { certificate: join(out, `cert-${id}.pem`), private_key: join(out, `key-${id}.pem`), ca_cert: join(out, `ca-${contentId(ca)}.pem`) };
  // The key first, as for the originals: a published certificate is only ever next to its key.
  if (!existsSync(published.private_key)) writeFileDurableSync(published.private_key, readFileSync(files.private_key), { mode: 0o600 });
  if (!existsSync(published.certificate)) writeFileDurableSync(published.certificate, cert, { mode: 0o644 });
  if (!existsSync(published.ca_cert)) writeFileDurableSync(published.ca_cert, ca, { mode: 0o644 });
  return published;
}

/** Removes the published copies in `<dir>/ovs` other than `keep`; returns their names. */
export function removeStaleIPsecCopies(dir: string, keep: IPsecCertificateFiles): string[] {
  const out = join(dir, PUBLISHED_DIR);
  const wanted = new Set(Object.values(keep));
  const removed: string[] = [];
  for (const f of existsSync(out) ? readdirSync(out) : []) {
    if (wanted.has(join(out, f))) continue;
    rmSync(join(out, f), { force: true });
    removed.push(f);
  }
  return removed;
}

/** When the certificate at `certificate` enters its renewal window (the last `renewBefore` of its lifetime), ms since the epoch. */
export function certificateRenewAt(certificate: string, renewBefore = 0.2): number {
  const cert = new X509Certificate(readFileSync(certificate));
  const from = Date.parse(cert.validFrom);
  const to = Date.parse(cert.validTo);
  return to - (to - from) * renewBefore;
}
