// The IPsec certificate signer (antrea-controller.conf `ipsecCSRSigner`, feature gate
// IPsecCertAuth): agents ask for their IPsec certificate with a Kubernetes
// CertificateSigningRequest for signer antrea.io/antrea-agent-ipsec-tunnel; this controller
// approves a request whose subject CN is the Node the requester runs on (when autoApprove is on),
// signs approved ones with the IPsec CA, and publishes that CA for the agents to verify peers with.
import { Informer, KubeRequestError, nodeOf, type InformerOptions, type KubeClient, type KubeObject, type ResourceSpec } from '@switchyard/kube';
import { readCertificateRequest, signCertificateRequest } from '@switchyard/pki';
import { silentLogger, systemClock, type Clock, type Logger, type Part, type PartHealth } from '@switchyard/runtime';
import { ensureCa } from './pki';
import { notRunning, type PartState } from './parts/lifecycle';

/** The signer name agents put in their requests (Antrea's). */
export const IPSEC_SIGNER_NAME = 'antrea.io/antrea-agent-ipsec-tunnel';
/** ConfigMap (key `ca.crt`) where agents find the CA that signed every peer's certificate. */
export const IPSEC_CA_CONFIGMAP = 'switchyard-ipsec-ca';

export const CERTIFICATE_SIGNING_REQUESTS: ResourceSpec = { group: 'certificates.k8s.io', version: 'v1', plural: 'certificatesigningrequests', kind: 'CertificateSigningRequest', namespaced: false };

/** Key usages an IPsec request may ask for ("ipsec tunnel" is required). */
const ALLOWED_USAGES = new Set(['ipsec tunnel', 'digital signature', 'key encipherment']);

export interface IPsecSignerOptions {
  kube: KubeClient;
  /** Namespace of the CA Secret and ConfigMap. */
  namespace: string;
  /** Secret holding the CA (`ca.crt`, `ca.key`). */
  caSecretName: string;
  /** Approve valid requests without a human (Antrea's `autoApprove`, default true). */
  autoApprove: boolean;
  /** Make the CA when the Secret has none (Antrea's `selfSignedCA`); else it must be provided. */
  selfSignedCA: boolean;
  /** Validity of issued certificates (default 365 days). */
  validityDays?: number;
  informer?: Omit<InformerOptions, 'clock' | 'logger'>;
  clock?: Clock;
  logger?: Logger;
}

interface Csr extends KubeObject {
  spec: { request?: string; signerName?: string; usages?: string[]; username?: string; uid?: string; groups?: string[]; extra?: Record<string, string[]> };
  status?: { conditions?: { type: string; status?: string; reason?: string; message?: string }[]; certificate?: string };
}

const condition = (csr: Csr, type: string): boolean => (csr.status?.conditions ?? []).some((c) => c.type === type && (c.status ?? 'True') === 'True');

/**
 * Why a request must be denied, or undefined when it is acceptable: its usages, a parseable and
 * self-signed CSR, and a subject `CN=<node>` where <node> is the requester's Node (a node identity
 * `system:node:<name>`, or a token bound to a Pod on it).
 */
export async function ipsecRequestProblem(csr: Csr): Promise<string | undefined> {
  const usages = csr.spec.usages ?? [];
  if (!usages.includes('ipsec tunnel')) return 'usages must include "ipsec tunnel"';
  const extra = usages.filter((u) => !ALLOWED_USAGES.has(u));
  if (extra.length > 0) return `usages ${extra.map((u) => JSON.stringify(u)).join(', ')} are not allowed for IPsec certificates`;
  const node = nodeOf({ username: csr.spec.username ?? '', groups: csr.spec.groups ?? [], ...(csr.spec.extra ? { extra: csr.spec.extra } : {}) });
  if (!node) return `requester ${csr.spec.username ?? '(none)'} is not bound to a Node`;
  let cn: string | undefined;
  try {
    cn = (await readCertificateRequest(Buffer.from(csr.spec.request ?? '', 'base64').toString('utf8'))).commonName;
  } catch (e) {
    return `spec.request: ${(e as Error).message}`;
  }
  if (cn !== node) return `subject CN ${cn ?? '(none)'} is not the requester's Node ${node}`;
  return undefined;
}

/** Approves and signs IPsec certificate requests; see the file comment. In the controller, its part `ipsecSigner`. */
export class IPsecCertificateSigner implements Part {
  readonly name = 'ipsecSigner';
  private informer: Informer | undefined;
  private state: PartState = 'new';
  private ca: { caPem: string; caKeyPem: string } | undefined;
  private chain: Promise<void> = Promise.resolve();
  private readonly log: Logger;
  /** Requests signed and denied so far (metrics, tests). */
  readonly counts = { approved: 0, denied: 0, signed: 0 };

  constructor(private readonly o: IPsecSignerOptions) {
    this.log = o.logger ?? silentLogger;
  }

  /** Loads (or makes) the CA, publishes it, and starts following requests. */
  async start(): Promise<void> {
    this.ca = await ensureCa(this.o.kube, { namespace: this.o.namespace, secretName: this.o.caSecretName, configMapName: IPSEC_CA_CONFIGMAP }, 'switchyard-ipsec-ca', { create: this.o.selfSignedCA });
    this.informer = new Informer(this.o.kube, CERTIFICATE_SIGNING_REQUESTS, (e) => {
      if (e.type === 'DELETED') return;
      const csr = e.object as Csr;
      this.chain = this.chain.then(() => this.reconcile(csr)).catch((err: unknown) => {
        this.log.warn({ csr: csr.metadata.name, err: err instanceof Error ? err.message : String(err) }, 'IPsec certificate request not handled; the next change retries it');
      });
    }, { ...this.o.informer, clock: this.o.clock ?? systemClock, logger: this.log });
    this.informer.start();
    await this.informer.synced;
    if (this.state === 'new') this.state = 'running';
  }

  async stop(): Promise<void> {
    this.state = 'stopped';
    await this.informer?.stop();
    await this.chain;
  }

  health(): PartHealth {
    const c = this.counts;
    return notRunning(this.state) ?? { ok: true, detail: `${c.approved} requests approved, ${c.denied} denied, ${c.signed} certificates signed` };
  }

  /** Waits for the requests seen so far (tests). */
  idle(): Promise<void> {
    return this.chain;
  }

  private path(csr: Csr, sub: string): string {
    return `/apis/certificates.k8s.io/v1/certificatesigningrequests/${encodeURIComponent(csr.metadata.name ?? '')}/${sub}`;
  }

  private async reconcile(csr: Csr): Promise<void> {
    if (csr.spec.signerName !== IPSEC_SIGNER_NAME || csr.status?.certificate || condition(csr, 'Denied') || condition(csr, 'Failed')) return;
    const now = new Date((this.o.clock ?? systemClock).now()).toISOString();
    if (!condition(csr, 'Approved')) {
      if (!this.o.autoApprove) return;
      const problem = await ipsecRequestProblem(csr);
      const verdict = problem === undefined
        ? { type: 'Approved', status: 'True', reason: 'AutoApproved', message: 'Auto approving IPsec certificate request for the requester\'s Node', lastUpdateTime: now }
        : { type: 'Denied', status: 'True', reason: 'InvalidIPsecRequest', message: problem, lastUpdateTime: now };
      await this.write(this.path(csr, 'approval'), { ...csr, status: { ...csr.status, conditions: [...(csr.status?.conditions ?? []), verdict] } });
      if (problem === undefined) this.counts.approved++;
      else this.counts.denied++;
      this.log.info({ csr: csr.metadata.name, requester: csr.spec.username, verdict: verdict.type, reason: problem }, 'IPsec certificate request reviewed');
      // The approval is an update: its event brings the request back here to be signed.
      return;
    }
    const ca = this.ca;
    if (!ca) return;
    const certPem = await signCertificateRequest({
      csrPem: Buffer.from(csr.spec.request ?? '', 'base64').toString('utf8'),
      issuer: { certPem: ca.caPem, keyPem: ca.caKeyPem },
      // Valid from the signer's clock (an injected one in tests), not the machine's.
      notBefore: new Date((this.o.clock ?? systemClock).now()),
      validityDays: this.o.validityDays ?? 365,
      keyUsage: ['digitalSignature', 'keyEncipherment'],
      extendedKeyUsage: ['ipsecTunnel'],
    });
    await this.write(this.path(csr, 'status'), { ...csr, status: { ...csr.status, certificate: Buffer.from(certPem).toString('base64') } });
    this.counts.signed++;
    this.log.info({ csr: csr.metadata.name, requester: csr.spec.username }, 'IPsec certificate issued');
  }

  /** PUT, where a conflict (the object moved on) is left to the event of the newer version. */
  private async write(path: string, body: Csr): Promise<void> {
    try {
      await this.o.kube.request('PUT', path, body);
    } catch (e) {
      if (e instanceof KubeRequestError && (e.status === 409 || e.status === 404)) return;
      throw e;
    }
  }
}
