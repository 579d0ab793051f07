// Certificates for the HTTPS listener: a CA, a serving certificate and the front-proxy client
// certificate (made by @switchyard/pki's issueCertificate, kept in `dir` when one is given),
// plus the kubeconfig writer.

import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { writeFileDurableSync } from '@switchyard/durable-file';
import { join } from 'node:path';
import { issueCertificate } from '@switchyard/pki';
import YAML from 'yaml';

export interface ServingPki {
  caPem: string;
  certPem: string;
  keyPem: string;
  /** Client certificate presented to aggregated API servers (CN front-proxy-client). */
  proxyCertPem: string;
  proxyKeyPem: string;
}

/** Raised when the certificates cannot be made or stored; `command` names the step that failed. */
export class PkiError extends Error {
  readonly code = 'PkiFailed';
  constructor(
    message: string,
    readonly command: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'PkiError';
  }
}

async function step<T>(what: string, f: () => Promise<T>): Promise<T> {
  try {
    return await f();
  } catch (e) {
    throw new PkiError(`${what} failed: ${(e as Error).message}`, what, { cause: e });
  }
}

/**
 * Generate (or load from `dir`) a CA and a serving certificate for localhost, 127.0.0.1, ::1,
 * the in-cluster names of the `kubernetes` Service and any extra SANs. Keys are P-256 in SEC1
 * PEM, every certificate lasts ten years.
 */
export async function ensurePki(dir: string | undefined, extraSans: string[] = []): Promise<ServingPki> {
  const files = dir ? { ca: join(dir, 'ca.crt'), caKey: join(dir, 'ca.key'), cert: join(dir, 'apiserver.crt'), key: join(dir, 'apiserver.key'), proxyCert: join(dir, 'front-proxy-client.crt'), proxyKey: join(dir, 'front-proxy-client.key') } : undefined;
  if (files && Object.values(files).every((f) => existsSync(f))) {
    const read = (f: string): string => readFileSync(f, 'utf8');
    return { caPem: read(files.ca), certPem: read(files.cert), keyPem: read(files.key), proxyCertPem: read(files.proxyCert), proxyKeyPem: read(files.proxyKey) };
  }
  const ca = await step('CA certificate', () => issueCertificate({ commonName: 'switchyard-kube-api-ca', validityDays: 3650, ca: true }));
  const sans = ['localhost', 'kubernetes', 'kubernetes.default', 'kubernetes.default.svc', 'kubernetes.default.svc.cluster.local', '127.0.0.1', '::1', ...extraSans];
  const serving = await step('apiserver certificate', () =>
    issueCertificate({ commonName: 'kube-apiserver', sans, validityDays: 3650, ca: false, keyUsage: ['digitalSignature', 'keyEncipherment'], extendedKeyUsage: ['serverAuth'], issuer: ca }),
  );
  const proxy = await step('front-proxy-client certificate', () =>
    issueCertificate({ commonName: 'front-proxy-client', validityDays: 3650, ca: false, keyUsage: ['digitalSignature'], extendedKeyUsage: ['clientAuth'], issuer: ca }),
  );
  if (files) {
    mkdirSync(dir!, { recursive: true });
    const write = (f: string, text: string, mode = 0o644): void => writeFileDurableSync(f, text, { mode });
    write(files.ca, ca.certPem);
    write(files.caKey, ca.keyPem, 0o600);
    write(files.cert, serving.certPem);
    write(files.key, serving.keyPem, 0o600);
    write(files.proxyCert, proxy.certPem);
    write(files.proxyKey, proxy.keyPem, 0o600);
  }
  return { caPem: ca.certPem, certPem: serving.certPem, keyPem: serving.keyPem, proxyCertPem: proxy.certPem, proxyKeyPem: proxy.keyPem };
}

export interface KubeconfigInput {
  server: string;
  caPem?: string;
  token: string;
  user?: string;
  clusterName?: string;
  namespace?: string;
}

/** A kubeconfig document (YAML text) for one cluster, one user and one current context. */
export function renderKubeconfig(k: KubeconfigInput): string {
  const cluster = k.clusterName ?? 'switchyard';
  const user = k.user ?? 'admin';
  const clusterEntry: Record<string, unknown> = { server: k.server };
  if (k.caPem) clusterEntry['certificate-authority-data'] = Buffer.from(k.caPem).toString('base64');
  const context: Record<string, unknown> = { cluster, user };
  if (k.namespace) context.namespace = k.namespace;
  return YAML.stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: cluster, cluster: clusterEntry }],
    users: [{ name: user, user: { token: k.token } }],
    contexts: [{ name: `${user}@${cluster}`, context }],
    'current-context': `${user}@${cluster}`,
    preferences: {},
  });
}
