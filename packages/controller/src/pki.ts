// The controller's own CA and serving certificate (made by @switchyard/pki's issueCertificate),
// kept in a Secret across restarts and published in a ConfigMap so agents and the APIService can
// verify the controller.
import type { KubeClient } from '@switchyard/kube';
import { issueCertificate } from '@switchyard/pki';
import { ControllerError, KubeRequestError } from './errors';

/** CA and serving key pair. */
export interface ControllerPki {
  caPem: string;
  caKeyPem: string;
  certPem: string;
  keyPem: string;
}

/**
 * Make a serving certificate for `sans` (DNS names or IPs), signed by the given CA, or by a new
 * CA when none is given. Keys are P-256 in SEC1 PEM; the CA lasts ten years, the serving
 * certificate one.
 */
export async function createPki(sans: string[], ca?: { caPem: string; caKeyPem: string }): Promise<ControllerPki> {
  try {
    const authority = ca
      ? { certPem: ca.caPem, keyPem: ca.caKeyPem }
      : await issueCertificate({ commonName: 'switchyard-controller-ca', validityDays: 3650, ca: true });
    const serving = await issueCertificate({
      commonName: 'switchyard-controller',
      sans,
      validityDays: 365,
      ca: false,
      keyUsage: ['digitalSignature', 'keyEncipherment'],
      extendedKeyUsage: ['serverAuth'],
      issuer: authority,
    });
    return { caPem: authority.certPem, caKeyPem: authority.keyPem, certPem: serving.certPem, keyPem: serving.keyPem };
  } catch (e) {
    const path = (e as { path?: string }).path ?? 'pki';
    throw new ControllerError('PKI_FAILED', `cannot make the controller certificates: ${(e as Error).message}`, path, (e as { value?: unknown }).value, { cause: e });
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
  const ca = await ensureCa(kube, loc, 'switchyard-controller-ca', { create: true });
  return createPki(sans, ca);
}

/**
 * A CA kept in the Secret `loc.secretName` (`ca.crt`, `ca.key`): loaded when there, else made
 * (ten years, P-256) and stored when `create`, else `PKI_FAILED` naming the Secret. Its
 * certificate is published as `ca.crt` in the ConfigMap `loc.configMapName`.
 */
export async function ensureCa(kube: KubeClient, loc: PkiLocation, commonName: string, opts: { create: boolean }): Promise<{ caPem: string; caKeyPem: string }> {
  const secretPath = `/api/v1/namespaces/${loc.namespace}/secrets/${loc.secretName}`;
  const secret = await getOrUndefined<{ data?: Record<string, string> }>(kube, secretPath);
  let ca: { caPem: string; caKeyPem: string };
  if (secret?.data?.['ca.crt'] && secret.data['ca.key']) {
    ca = { caPem: unb64(secret.data['ca.crt']), caKeyPem: unb64(secret.data['ca.key']) };
  } else {
    if (!opts.create) throw new ControllerError('PKI_FAILED', `no CA in Secret ${loc.namespace}/${loc.secretName} (keys ca.crt and ca.key), and making one is off`, 'secret', `${loc.namespace}/${loc.secretName}`);
    let made: { certPem: string; keyPem: string };
    try {
      made = await issueCertificate({ commonName, validityDays: 3650, ca: true });
    } catch (e) {
      throw new ControllerError('PKI_FAILED', `cannot make the CA ${commonName}: ${(e as Error).message}`, (e as { path?: string }).path ?? 'pki', (e as { value?: unknown }).value, { cause: e });
    }
    ca = { caPem: made.certPem, caKeyPem: made.keyPem };
    const body = { apiVersion: 'v1', kind: 'Secret', metadata: { name: loc.secretName, namespace: loc.namespace }, type: 'Opaque', data: { 'ca.crt': b64(ca.caPem), 'ca.key': b64(ca.caKeyPem) } };
    if (secret) await kube.request('PUT', secretPath, body);
    else await kube.request('POST', `/api/v1/namespaces/${loc.namespace}/secrets`, body);
  }
  const cmPath = `/api/v1/namespaces/${loc.namespace}/configmaps/${loc.configMapName}`;
  const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: loc.configMapName, namespace: loc.namespace }, data: { 'ca.crt': ca.caPem } };
  if (await getOrUndefined(kube, cmPath)) await kube.request('PUT', cmPath, cm);
  else await kube.request('POST', `/api/v1/namespaces/${loc.namespace}/configmaps`, cm);
  return ca;
}
