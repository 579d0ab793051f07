/**
 * The agent API's serving certificate: self-signed and made at every start (as Antrea's agent
 * does), since nothing verifies it but the API server's node proxy, which does not check node
 * serving certificates. One openssl child; Node 20 cannot create X.509 certificates itself.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AgentError } from './errors';

/** PEM certificate and key. */
export interface ServingCert {
  certPem: string;
  keyPem: string;
}

const IP_RE = /^[\d.]+$|:/;

/** A self-signed P-256 serving certificate for `sans` (IP addresses or DNS names), valid one year. */
export function selfSignedCert(commonName: string, sans: readonly string[]): ServingCert {
  const dir = mkdtempSync(join(tmpdir(), 'sy-agent-tls-'));
  try {
    const alt = [...new Set(sans)].map((s) => (IP_RE.test(s) ? `IP:${s}` : `DNS:${s}`)).join(',');
    execFileSync('openssl', [
      'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '365', '-sha256',
      '-subj', `/CN=${commonName}`, '-addext', `subjectAltName=${alt}`, '-addext', 'extendedKeyUsage=serverAuth',
      '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'),
    ], { stdio: ['ignore', 'ignore', 'pipe'] });
    return { certPem: readFileSync(join(dir, 'cert.pem'), 'utf8'), keyPem: readFileSync(join(dir, 'key.pem'), 'utf8') };
  } catch (e) {
    const stderr = (e as { stderr?: Buffer }).stderr?.toString().trim();
    throw new AgentError('EXEC_FAILED', `cannot make the agent API certificate with openssl: ${stderr || (e as Error).message}`, sans, 'openssl req -x509', { cause: e });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
