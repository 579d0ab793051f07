// Certificates for the HTTPS listener: a CA and a serving certificate made with the openssl CLI
// (Node 20 cannot create X.509 certificates itself), plus the kubeconfig writer.

import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import YAML from 'yaml';

export interface ServingPki {
  caPem: string;
  certPem: string;
  keyPem: string;
  /** Client certificate presented to aggregated API servers (CN front-proxy-client). */
  proxyCertPem: string;
  proxyKeyPem: string;
}

/** Raised when openssl is missing or fails; carries the command line that failed. */
export class PkiError extends Error {
  readonly code = 'PkiFailed';
  constructor(
    message: string,
    readonly command: string,
  ) {
    super(message);
    this.name = 'PkiError';
  }
}

function openssl(args: string[], cwd: string): void {
  try {
    execFileSync('openssl', args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
  } catch (e) {
    const err = e as { stderr?: Buffer; message: string };
    throw new PkiError(`openssl failed: ${err.stderr?.toString() ?? err.message}`, `openssl ${args.join(' ')}`);
  }
}

/**
 * Generate (or load from `dir`) a CA and a serving certificate for localhost, 127.0.0.1, ::1,
 * the in-cluster names of the `kubernetes` Service and any extra SANs.
 */
export function ensurePki(dir: string | undefined, extraSans: string[] = []): ServingPki {
  const work = dir ?? mkdtempSync(join(tmpdir(), 'kube-api-pki-'));
  mkdirSync(work, { recursive: true });
  const files = { ca: join(work, 'ca.crt'), caKey: join(work, 'ca.key'), cert: join(work, 'apiserver.crt'), key: join(work, 'apiserver.key'), proxyCert: join(work, 'front-proxy-client.crt'), proxyKey: join(work, 'front-proxy-client.key') };
  try {
    if (!Object.values(files).every((f) => existsSync(f))) {
      openssl(['ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', 'ca.key'], work);
      openssl(['req', '-x509', '-new', '-key', 'ca.key', '-sha256', '-days', '3650', '-subj', '/CN=switchyard-kube-api-ca', '-out', 'ca.crt'], work);
      openssl(['ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', 'apiserver.key'], work);
      openssl(['req', '-new', '-key', 'apiserver.key', '-subj', '/CN=kube-apiserver', '-out', 'apiserver.csr'], work);
      const sans = ['DNS:localhost', 'DNS:kubernetes', 'DNS:kubernetes.default', 'DNS:kubernetes.default.svc', 'DNS:kubernetes.default.svc.cluster.local', 'IP:127.0.0.1', 'IP:::1', ...extraSans.map((s) => (/^[\d.]+$|:/.test(s) ? `IP:${s}` : `DNS:${s}`))];
      writeFileSync(join(work, 'ext.cnf'), `subjectAltName=${sans.join(',')}\nextendedKeyUsage=serverAuth\nkeyUsage=critical,digitalSignature,keyEncipherment\nbasicConstraints=CA:FALSE\n`);
      openssl(['x509', '-req', '-in', 'apiserver.csr', '-CA', 'ca.crt', '-CAkey', 'ca.key', '-CAcreateserial', '-days', '3650', '-sha256', '-extfile', 'ext.cnf', '-out', 'apiserver.crt'], work);
      openssl(['ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', 'front-proxy-client.key'], work);
      openssl(['req', '-new', '-key', 'front-proxy-client.key', '-subj', '/CN=front-proxy-client', '-out', 'front-proxy-client.csr'], work);
      writeFileSync(join(work, 'client.cnf'), 'extendedKeyUsage=clientAuth\nkeyUsage=critical,digitalSignature\nbasicConstraints=CA:FALSE\n');
      openssl(['x509', '-req', '-in', 'front-proxy-client.csr', '-CA', 'ca.crt', '-CAkey', 'ca.key', '-CAcreateserial', '-days', '3650', '-sha256', '-extfile', 'client.cnf', '-out', 'front-proxy-client.crt'], work);
    }
    const read = (f: string): string => readFileSync(f, 'utf8');
    return { caPem: read(files.ca), certPem: read(files.cert), keyPem: read(files.key), proxyCertPem: read(files.proxyCert), proxyKeyPem: read(files.proxyKey) };
  } finally {
    if (dir === undefined) rmSync(work, { recursive: true, force: true });
  }
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
