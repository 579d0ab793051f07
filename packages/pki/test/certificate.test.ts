// Certificates made in-process, checked by openssl as an independent verifier: chain, SANs,
// key usage, CA flags, validity and key formats; and a CA made by openssl still issues.
import { createPrivateKey, createPublicKey, X509Certificate } from 'node:crypto';
import { CertificateError, issueCertificate, type CertificateAndKey } from '../src/index';
import { opensslDir } from './openssl-dir';

const { path, file, openssl } = opensslDir('sy-pki-test-');
const text = (pem: string): string => openssl('x509', '-noout', '-text', '-in', file('t.crt', pem));

describe('issueCertificate', () => {
  let ca: CertificateAndKey;
  beforeAll(async () => {
    ca = await issueCertificate({ commonName: 'test-ca', validityDays: 3650, ca: true });
  });

  it('makes a CA: critical CA:TRUE, subject = issuer, key identifiers, ten years', () => {
    const t = text(ca.certPem);
    expect(t).toMatch(/Issuer: CN = test-ca\n/);
    expect(t).toMatch(/Subject: CN = test-ca\n/);
    expect(t).toMatch(/X509v3 Basic Constraints: critical\n\s+CA:TRUE/);
    expect(t).toMatch(/Signature Algorithm: ecdsa-with-SHA256/);
    expect(t).toMatch(/ASN1 OID: prime256v1/);
    const c = new X509Certificate(ca.certPem);
    expect(c.ca).toBe(true);
    const days = (Date.parse(c.validTo) - Date.parse(c.validFrom)) / 86_400_000;
    expect(days).toBe(3650);
    expect(ca.keyPem).toMatch(/^-----BEGIN EC PRIVATE KEY-----\n/);
    expect(ca.certPem).toMatch(/^-----BEGIN CERTIFICATE-----\n[\s\S]+\n-----END CERTIFICATE-----\n$/);
  });

  it('issues a serving certificate openssl verifies against the CA, with its SANs and usages', async () => {
    const s = await issueCertificate({
      commonName: 'svc',
      sans: ['svc.ns.svc', 'localhost', '127.0.0.1', '::1'],
      validityDays: 365,
      ca: false,
      keyUsage: ['digitalSignature', 'keyEncipherment'],
      extendedKeyUsage: ['serverAuth'],
      issuer: ca,
    });
    expect(openssl('verify', '-CAfile', file('ca.crt', ca.certPem), file('s.crt', s.certPem))).toContain(': OK');
    const t = text(s.certPem);
    expect(t).toContain('DNS:svc.ns.svc, DNS:localhost, IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1');
    expect(t).toMatch(/X509v3 Extended Key Usage: \n\s+TLS Web Server Authentication\n/);
    expect(t).toMatch(/X509v3 Key Usage: critical\n\s+Digital Signature, Key Encipherment\n/);
    expect(t).toMatch(/X509v3 Basic Constraints: \n\s+CA:FALSE/);
    expect(t).toMatch(/Issuer: CN = test-ca\n/);
    // The key belongs to the certificate.
    expect(createPublicKey(createPrivateKey(s.keyPem)).export({ type: 'spki', format: 'pem' })).toBe(new X509Certificate(s.certPem).publicKey.export({ type: 'spki', format: 'pem' }));
    // AKID of the leaf names the CA's SKID.
    const skid = /Subject Key Identifier: \n\s+(\S+)/.exec(text(ca.certPem))?.[1];
    expect(/Authority Key Identifier: \n\s+(?:keyid:)?(\S+)/.exec(t)?.[1]).toBe(skid);
  });

  it('issues a client certificate and a self-signed serving certificate with a PKCS#8 key', async () => {
    const client = await issueCertificate({ commonName: 'front-proxy-client', validityDays: 10, ca: false, keyUsage: ['digitalSignature'], extendedKeyUsage: ['clientAuth'], issuer: ca });
    expect(openssl('verify', '-purpose', 'sslclient', '-CAfile', file('ca.crt', ca.certPem), file('c.crt', client.certPem))).toContain(': OK');
    const self = await issueCertificate({ commonName: 'n1@switchyard-agent', sans: ['10.0.0.1', 'n1'], validityDays: 365, ca: true, extendedKeyUsage: ['serverAuth'], keyFormat: 'pkcs8' });
    expect(self.keyPem).toMatch(/^-----BEGIN PRIVATE KEY-----\n/);
    expect(openssl('verify', '-CAfile', file('self.crt', self.certPem), file('self2.crt', self.certPem))).toContain(': OK');
    expect(text(self.certPem)).toContain('IP Address:10.0.0.1, DNS:n1');
  });

  it('keeps issuing from a CA the openssl CLI made (an existing cluster Secret)', async () => {
    openssl('ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', 'old-ca.key');
    openssl('req', '-x509', '-new', '-key', 'old-ca.key', '-sha256', '-days', '30', '-subj', '/CN=old-ca', '-out', 'old-ca.crt');
    const { readFileSync } = await import('node:fs');
    const old = { certPem: readFileSync(path('old-ca.crt'), 'utf8'), keyPem: readFileSync(path('old-ca.key'), 'utf8') };
    const s = await issueCertificate({ commonName: 'svc', sans: ['svc'], validityDays: 1, ca: false, issuer: old });
    expect(openssl('verify', '-CAfile', path('old-ca.crt'), file('s2.crt', s.certPem))).toContain(': OK');
    // An RSA CA works too.
    openssl('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'rsa-ca.key', '-days', '1', '-subj', '/CN=rsa-ca', '-out', 'rsa-ca.crt');
    const rsa = { certPem: readFileSync(path('rsa-ca.crt'), 'utf8'), keyPem: readFileSync(path('rsa-ca.key'), 'utf8') };
    const r = await issueCertificate({ commonName: 'svc', validityDays: 1, ca: false, issuer: rsa });
    expect(openssl('verify', '-CAfile', path('rsa-ca.crt'), file('s3.crt', r.certPem))).toContain(': OK');
  });

  it('refuses bad requests and unusable issuers with typed errors naming the field', async () => {
    await expect(issueCertificate({ commonName: 'x', sans: ['ok', 'two words'], validityDays: 1, ca: false })).rejects.toThrow(
      expect.objectContaining({ code: 'INVALID_REQUEST', path: 'sans[1]', value: 'two words' }),
    );
    await expect(issueCertificate({ commonName: 'x', validityDays: 0, ca: false })).rejects.toThrow(expect.objectContaining({ code: 'INVALID_REQUEST', path: 'validityDays' }));
    await expect(issueCertificate({ commonName: 'x', validityDays: 1, ca: false, issuer: { certPem: ca.certPem, keyPem: 'not a key' } })).rejects.toThrow(CertificateError);
    await expect(issueCertificate({ commonName: 'x', validityDays: 1, ca: false, issuer: { certPem: 'garbage', keyPem: ca.keyPem } })).rejects.toThrow(
      expect.objectContaining({ code: 'BAD_ISSUER', path: 'issuer.certPem' }),
    );
  });
});
