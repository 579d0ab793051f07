/**
 * The agent API's serving certificate: self-signed and made at every start (as Antrea's agent
 * does), since nothing verifies it but the API server's node proxy, which does not check node
 * serving certificates. Made in-process by @switchyard/pki's issueCertificate, in the shape
 * `openssl req -x509` gave it before (CA:TRUE, serverAuth, PKCS#8 key).
 */
import { issueCertificate } from '@switchyard/pki';
import { AgentError } from '../../errors';

/** PEM certificate and key. */
export interface ServingCert {
  certPem: string;
  keyPem: string;
}

/** A self-signed P-256 serving certificate for `sans` (IP addresses or DNS names), valid one year. */
export async function selfSignedCert(commonName: string, sans: readonly string[]): Promise<ServingCert> {
  try {
    return await issueCertificate({ commonName, sans: [...new Set(sans)], validityDays: 365, ca: true, extendedKeyUsage: ['serverAuth'], keyFormat: 'pkcs8' });
  } catch (e) {
    throw new AgentError('INVALID_CONFIG', `cannot make the agent API certificate: ${(e as Error).message}`, sans, (e as { path?: string }).path ?? 'sans', { cause: e });
  }
}
