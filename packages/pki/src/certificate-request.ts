// PKCS#10 certificate signing requests: a key pair and its request (the side that wants a
// certificate, e.g. an agent asking through a Kubernetes CertificateSigningRequest), and a CA
// signing a verified request (the side that issues it).
import { KeyObject, webcrypto } from 'node:crypto';
import { CertificateError, buildCertificate, checkRequest, loadX509, type CertificateAndKey, type CertificateRequest } from './certificate';

/** A PEM certificate signing request and the PEM private key it was made with. */
export interface CertificateRequestAndKey {
  csrPem: string;
  keyPem: string;
}

/** What a signer reads from a request whose signature it verified. */
export interface VerifiedCertificateRequest {
  /** The subject's CN (undefined when the subject has none). */
  commonName: string | undefined;
  /** The whole subject, RFC 4514 text. */
  subject: string;
}

const EC_KEY: webcrypto.EcKeyGenParams = { name: 'ECDSA', namedCurve: 'P-256' };
const RSA_KEY: webcrypto.RsaHashedKeyGenParams = { name: 'RSASSA-PKCS1-v1_5', modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: 'SHA-256' };

/**
 * Makes a key pair and a signed PKCS#10 request with subject `CN=<commonName>`. `keyType` `ec`
 * (default): P-256, the key in SEC1 PEM; `rsa`: 2048 bits, the key in PKCS#1 PEM ("RSA PRIVATE
 * KEY", what strongSwan's `RSA` secrets load, as ovs-monitor-ipsec writes them).
 */
export async function createCertificateRequest(r: { commonName: string; organization?: string; keyType?: 'ec' | 'rsa' }): Promise<CertificateRequestAndKey> {
  if (!r.commonName) throw new CertificateError('INVALID_REQUEST', 'a certificate request needs a common name', 'commonName', r.commonName);
  const x = await loadX509();
  const rsa = r.keyType === 'rsa';
  const keys = (await webcrypto.subtle.generateKey(rsa ? RSA_KEY : EC_KEY, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
  const csr = await x.Pkcs10CertificateRequestGenerator.create(
    // O before CN, as `O=..., CN=...` (RFC 2253 prints `CN=<cn>,O=<o>`, which ovs-monitor-ipsec expects).
    { name: new x.Name([...(r.organization ? [{ O: [r.organization] }] : []), { CN: [r.commonName] }]), keys, signingAlgorithm: rsa ? RSA_KEY : ({ name: 'ECDSA', hash: 'SHA-256' } as webcrypto.EcdsaParams) },
    webcrypto as unknown as Parameters<typeof x.Pkcs10CertificateRequestGenerator.create>[1],
  );
  const keyPem = KeyObject.from(keys.privateKey).export({ type: rsa ? 'pkcs1' : 'sec1', format: 'pem' }).toString();
  return { csrPem: `${csr.toString('pem')}\n`, keyPem };
}

/** Parses a PEM request and checks its self-signature; a malformed or forged one is `INVALID_REQUEST` on `csrPem`. */
async function verified(csrPem: string): Promise<{ x: Awaited<ReturnType<typeof loadX509>>; csr: InstanceType<Awaited<ReturnType<typeof loadX509>>['Pkcs10CertificateRequest']> }> {
  const x = await loadX509();
  let csr: InstanceType<typeof x.Pkcs10CertificateRequest>;
  try {
    csr = new x.Pkcs10CertificateRequest(csrPem);
  } catch (e) {
    throw new CertificateError('INVALID_REQUEST', `not a PEM certificate request: ${(e as Error).message}`, 'csrPem', undefined, { cause: e });
  }
  let ok = false;
  try {
    ok = await csr.verify(webcrypto as unknown as Parameters<typeof csr.verify>[0]);
  } catch (e) {
    throw new CertificateError('INVALID_REQUEST', `the request's signature cannot be checked: ${(e as Error).message}`, 'csrPem', undefined, { cause: e });
  }
  if (!ok) throw new CertificateError('INVALID_REQUEST', "the request's signature does not match its public key", 'csrPem');
  return { x, csr };
}

/** Reads a request after checking its signature. */
export async function readCertificateRequest(csrPem: string): Promise<VerifiedCertificateRequest> {
  const { csr } = await verified(csrPem);
  const cn = csr.subjectName.getField('CN')[0];
  return { commonName: cn, subject: csr.subject };
}

/**
 * Issues a certificate for a verified request's public key and subject (as the request encodes
 * it), signed by `issuer`, with the other fields (validity, usages, `ca` false) as given. Returns
 * the PEM certificate.
 */
export async function signCertificateRequest(r: Omit<CertificateRequest, 'commonName' | 'issuer' | 'keyFormat' | 'ca'> & { csrPem: string; issuer: CertificateAndKey }): Promise<string> {
  const { x, csr } = await verified(r.csrPem);
  const commonName = csr.subjectName.getField('CN')[0];
  if (!commonName) throw new CertificateError('INVALID_REQUEST', 'the request has no common name', 'csrPem');
  const req = { ...r, commonName, ca: false };
  checkRequest(req);
  const publicKey = await csr.publicKey.export(webcrypto as unknown as Parameters<typeof csr.publicKey.export>[0]);
  return buildCertificate(x, req, publicKey as webcrypto.CryptoKey, undefined, csr.subjectName);
}
