// Certificate signing requests: made in process, read back and signed by a CA; openssl checks the
// request and the issued certificate independently (signature, chain, subject, usages, key).
import { createPrivateKey, createPublicKey, X509Certificate } from 'node:crypto';
import { createCertificateRequest, issueCertificate, readCertificateRequest, signCertificateRequest, type CertificateAndKey } from '../src/index';
import { opensslDir } from './openssl-dir';

const { file, openssl } = opensslDir('sy-pki-csr-');
let ca: CertificateAndKey;
beforeAll(async () => {
  ca = await issueCertificate({ commonName: 'ipsec-ca', validityDays: 365, ca: true, keyUsage: ['keyCertSign', 'cRLSign', 'digitalSignature'] });
});

describe('certificate signing requests', () => {
  it('a request openssl accepts, for CN=<node>, with its own key', async () => {
    const r = await createCertificateRequest({ commonName: 'node-1' });
    const out = openssl('req', '-noout', '-verify', '-subject', '-in', file('n1.csr', r.csrPem));
    expect(out).toMatch(/subject=CN\s?=\s?node-1/);
    expect(createPrivateKey(r.keyPem).asymmetricKeyType).toBe('ec');
    expect(await readCertificateRequest(r.csrPem)).toEqual({ commonName: 'node-1', subject: 'CN=node-1' });
  });

  it('the CA signs it: chain verifies, subject and public key are the request\'s, IPsec usages present', async () => {
    const r = await createCertificateRequest({ commonName: 'node-2' });
    const certPem = await signCertificateRequest({ csrPem: r.csrPem, issuer: ca, validityDays: 30, keyUsage: ['digitalSignature', 'keyEncipherment'], extendedKeyUsage: ['ipsecTunnel'] });
    const cert = new X509Certificate(certPem);
    expect(cert.subject).toBe('CN=node-2');
    expect(cert.issuer).toBe('CN=ipsec-ca');
    expect(cert.checkIssued(new X509Certificate(ca.certPem))).toBe(true);
    expect(cert.verify(new X509Certificate(ca.certPem).publicKey)).toBe(true);
    expect(cert.publicKey.export({ type: 'spki', format: 'pem' })).toBe(createPublicKey(createPrivateKey(r.keyPem)).export({ type: 'spki', format: 'pem' }));
    expect(cert.ca).toBe(false);
    expect(cert.keyUsage).toEqual(['1.3.6.1.5.5.7.3.6']);
    expect(openssl('verify', '-CAfile', file('ca.crt', ca.certPem), file('n2.crt', certPem)).trim()).toMatch(/: OK$/);
    expect(Math.round((Date.parse(cert.validTo) - Date.parse(cert.validFrom)) / 86_400_000)).toBe(30);
  });

  it('an RSA request (PKCS#1 key) with an organization is signed by the EC CA alike, subject kept', async () => {
    const r = await createCertificateRequest({ commonName: 'node-rsa', organization: 'switchyard', keyType: 'rsa' });
    expect(r.keyPem).toContain('-----BEGIN RSA PRIVATE KEY-----');
    expect(createPrivateKey(r.keyPem).asymmetricKeyDetails?.modulusLength).toBe(2048);
    const certPem = await signCertificateRequest({ csrPem: r.csrPem, issuer: ca, validityDays: 1 });
    const cert = new X509Certificate(certPem);
    expect(cert.publicKey.asymmetricKeyType).toBe('rsa');
    // RFC 2253 order (what ovs-monitor-ipsec reads the CN from): CN first, then O.
    expect(openssl('x509', '-noout', '-subject', '-nameopt', 'RFC2253', '-in', file('rsa-subj.crt', certPem)).trim()).toBe('subject=CN=node-rsa,O=switchyard');
    expect(await readCertificateRequest(r.csrPem)).toEqual({ commonName: 'node-rsa', subject: 'O=switchyard, CN=node-rsa' });
    expect(cert.verify(new X509Certificate(ca.certPem).publicKey)).toBe(true);
    expect(openssl('verify', '-CAfile', file('ca2.crt', ca.certPem), file('rsa.crt', certPem)).trim()).toMatch(/: OK$/);
  });

  it('a forged request (the public key swapped) and garbage are refused, naming csrPem', async () => {
    const a = await createCertificateRequest({ commonName: 'node-a' });
    const b = await createCertificateRequest({ commonName: 'node-b' });
    // Re-encode a's request with b's public key: the self-signature no longer matches.
    const der = (pem: string): Buffer => Buffer.from(pem.replace(/-----[^-]+-----/g, '').replace(/\s+/g, ''), 'base64');
    const spki = (pem: string): Buffer => createPublicKey(createPrivateKey(pem)).export({ type: 'spki', format: 'der' });
    const forgedDer = Buffer.from(der(a.csrPem));
    const at = forgedDer.indexOf(spki(a.keyPem));
    expect(at).toBeGreaterThan(0);
    spki(b.keyPem).copy(forgedDer, at);
    const forged = `-----BEGIN CERTIFICATE REQUEST-----\n${forgedDer.toString('base64')}\n-----END CERTIFICATE REQUEST-----\n`;
    await expect(readCertificateRequest(forged)).rejects.toMatchObject({ code: 'INVALID_REQUEST', path: 'csrPem' });
    await expect(signCertificateRequest({ csrPem: forged, issuer: ca, validityDays: 1 })).rejects.toMatchObject({ code: 'INVALID_REQUEST', path: 'csrPem' });
    await expect(readCertificateRequest('not a request')).rejects.toMatchObject({ code: 'INVALID_REQUEST', path: 'csrPem' });
  });
});
