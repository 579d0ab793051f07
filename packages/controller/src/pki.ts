// The controller's own CA and serving certificate (made with the openssl CLI: Node 20 cannot
// create X.509 certificates), kept in a Secret across restarts and published in a ConfigMap
// so agents and the APIService can verify the controller.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ControllerError, KubeRequestError } from './errors';
import type { KubeClient } from '@switchyard/kube';

/** CA and serving key pair. */
export interface ControllerPki {
  caPem: string;
  caKeyPem: string;
  certPem: string;
  keyPem: string;
}

function openssl(args: string[], cwd: string): void {
  try {
    execFileSync('openssl', args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
  } catch (e) {
    throw new ControllerError('PKI_FAILED', `openssl ${args[0] ?? ''} failed: ${(e as { stderr?: Buffer }).stderr?.toString() ?? (e as Error).message}`, 'openssl', args.join(' '), { cause: e });
  }
}

/**
 * Make a serving certificate for `sans` (DNS names or IPs), signed by the given CA, or by a new
 * CA when none is given.
 */
export function createPki(sans: string[], ca?: { caPem: string; caKeyPem: string }): ControllerPki {
  const dir = mkdtempSync(join(tmpdir(), 'switchyard-pki-'));
  try {
    if (ca) {
      writeFileSync(join(dir, 'ca.crt'), ca.caPem);
      writeFileSync(join(dir, 'ca.key'), ca.caKeyPem, { mode: 0o600 });
    } else {
      openssl(['ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', 'ca.key'], dir);
      openssl(['req', '-x509', '-new', '-key', 'ca.key', '-sha256', '-days', '3650', '-subj', '/CN=switchyard-controller-ca', '-out', 'ca.crt'], dir);
    }
    openssl(['ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', 'tls.key'], dir);
    openssl(['req', '-new', '-key', 'tls.key', '-subj', '/CN=switchyard-controller', '-out', 'tls.csr'], dir);
    const alt = sans.map((s) => (/^[\d.]+$|:/.test(s) ? `IP:${s}` : `DNS:${s}`)).join(',');
    writeFileSync(join(dir, 'ext.cnf'), `subjectAltName=${alt}\nextendedKeyUsage=serverAuth\nkeyUsage=critical,digitalSignature,keyEncipherment\nbasicConstraints=CA:FALSE\n`);
    openssl(['x509', '-req', '-in', 'tls.csr', '-CA', 'ca.crt', '-CAkey', 'ca.key', '-CAcreateserial', '-days', '365', '-sha256', '-extfile', 'ext.cnf', '-out', 'tls.crt'], dir);
    const r = (f: string): string => readFileSync(join(dir, f), 'utf8');
    return { caPem: r('ca.crt'), caKeyPem: r('ca.key'), certPem: r('tls.crt'), keyPem: r('tls.key') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Default subjectAltNames: the Service names agents and the aggregator use, and loopback. */
export function defaultSans(namespace: string, service: string): string[] {
  return [service, `${service}.${namespace}`, `${service}.${namespace}.svc`, `${service}.${namespace}.svc.cluster.local`, 'localhost', '127.0.0.1', '::1'];
}

/** Where the CA lives in the cluster. */
export interface PkiLocation {
  namespace: string;
  /** Secret holding ca.crt/ca.key (kept across restarts). */
  secretName: string;
  /** ConfigMap publishing ca.crt (Antrea: antrea-ca). */
  configMapName: string;
}

const b64 = (s: string): string => Buffer.from(s, 'utf8').toString('base64');
const unb64 = (s: string | undefined): string => Buffer.from(s ?? '', 'base64').toString('utf8');

async function getOrUndefined<T>(kube: KubeClient, path: string): Promise<T | undefined> {
  try {
    return await kube.request<T>('GET', path);
  } catch (e) {
    if (e instanceof KubeRequestError && e.status === 404) return undefined;
    throw e;
  }
}

/**
 * Load the CA from its Secret (or create and store a new one), issue a fresh serving certificate
 * for `sans`, and publish the CA bundle in the ConfigMap.
 */
export async function ensureClusterPki(kube: KubeClient, loc: PkiLocation, sans: string[]): Promise<ControllerPki> {
  const secretPath = `/api/v1/namespaces/${loc.namespace}/secrets/${loc.secretName}`;
  const secret = await getOrUndefined<{ data?: Record<string, string> }>(kube, secretPath);
  let pki: ControllerPki;
  if (secret?.data?.['ca.crt'] && secret.data['ca.key']) {
    pki = createPki(sans, { caPem: unb64(secret.data['ca.crt']), caKeyPem: unb64(secret.data['ca.key']) });
  } else {
    pki = createPki(sans);
    const body = { apiVersion: 'v1', kind: 'Secret', metadata: { name: loc.secretName, namespace: loc.namespace }, type: 'Opaque', data: { 'ca.crt': b64(pki.caPem), 'ca.key': b64(pki.caKeyPem) } };
    if (secret) await kube.request('PUT', secretPath, body);
    else await kube.request('POST', `/api/v1/namespaces/${loc.namespace}/secrets`, body);
  }
  const cmPath = `/api/v1/namespaces/${loc.namespace}/configmaps/${loc.configMapName}`;
  const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: loc.configMapName, namespace: loc.namespace }, data: { 'ca.crt': pki.caPem } };
  if (await getOrUndefined(kube, cmPath)) await kube.request('PUT', cmPath, cm);
  else await kube.request('POST', `/api/v1/namespaces/${loc.namespace}/configmaps`, cm);
  return pki;
}
