// Issues X.509 certificates (CA, serving, client) with @peculiar/x509 over node's webcrypto, in
// the shapes the openssl CLI made them before (same extensions, PEM key formats).
import { createPrivateKey, randomBytes, webcrypto, KeyObject } from 'node:crypto';
import { isIP } from 'node:net';
import type * as X509Module from '@peculiar/x509';

type X509 = typeof X509Module;
type CryptoKey = webcrypto.CryptoKey;
export type { X509 };
type SigningAlgorithm = webcrypto.AlgorithmIdentifier | webcrypto.EcdsaParams | webcrypto.RsaHashedImportParams;
let x509: Promise<X509> | undefined;

/**
 * @peculiar/x509 resolves its algorithms through tsyringe, which needs the reflect-metadata
 * polyfill loaded first. Both are loaded on first use, so importing this package changes no
 * globals until a certificate is made.
 */
export function loadX509(): Promise<X509> {
  x509 ??= import('reflect-metadata').then(() => import('@peculiar/x509'));
  return x509;
}

/** A PEM certificate and its PEM private key. */
export interface CertificateAndKey {
  certPem: string;
  keyPem: string;
}

/** Extended key usages this module issues (`ipsecTunnel`: id-kp-ipsecTunnel, Kubernetes' "ipsec tunnel" usage). */
export type ExtendedKeyUsageName = 'serverAuth' | 'clientAuth' | 'ipsecTunnel';
const EXTENDED_KEY_USAGE_OIDS: Record<ExtendedKeyUsageName, string> = {
  serverAuth: '1.3.6.1.5.5.7.3.1',
  clientAuth: '1.3.6.1.5.5.7.3.2',
  ipsecTunnel: '1.3.6.1.5.5.7.3.6',
};
/** Key usages this module issues. */
export type KeyUsageName = 'digitalSignature' | 'keyEncipherment' | 'keyCertSign' | 'cRLSign';

/** What to put in a certificate. */
export interface CertificateRequest {
  /** Subject CN. */
  commonName: string;
  /** subjectAltName entries: IP addresses (v4 or v6) become IP entries, anything else a DNS name. */
  sans?: readonly string[];
  validityDays: number;
  /** basicConstraints: CA:TRUE (critical), or CA:FALSE (not critical). */
  ca: boolean;
  /** keyUsage, marked critical; omitted when empty. */
  keyUsage?: readonly KeyUsageName[];
  /** extendedKeyUsage; omitted when empty. */
  extendedKeyUsage?: readonly ExtendedKeyUsageName[];
  /** The CA that signs; self-signed when absent. Its key may be EC (P-256/384/521) or RSA, in SEC1, PKCS#1 or PKCS#8 PEM. */
  issuer?: CertificateAndKey;
  /** PEM layout of the new key: `sec1` ("EC PRIVATE KEY", as `openssl ecparam -genkey`) or `pkcs8` ("PRIVATE KEY"). Default sec1. */
  keyFormat?: 'sec1' | 'pkcs8';
  /** Start of validity; default now. */
  notBefore?: Date;
}

/** Stable codes of {@link CertificateError}. */
export type CertificateErrorCode = 'INVALID_REQUEST' | 'BAD_ISSUER';

/** A certificate that cannot be made: a bad request field or an unusable issuer. */
export class CertificateError extends Error {
  constructor(
    readonly code: CertificateErrorCode,
    message: string,
    /** The request field at fault, e.g. `sans[2]` or `issuer.keyPem`. */
    readonly path: string,
    readonly value?: unknown,
    options?: { cause?: unknown },
  ) {
    super(`${message} (${path})`, options);
    this.name = 'CertificateError';
  }
}

const NEW_KEY: webcrypto.EcKeyGenParams = { name: 'ECDSA', namedCurve: 'P-256' };
const CURVES: Record<string, string> = { prime256v1: 'P-256', secp384r1: 'P-384', secp521r1: 'P-521' };
const CURVE_HASH: Record<string, string> = { 'P-256': 'SHA-256', 'P-384': 'SHA-384', 'P-521': 'SHA-512' };

/** The issuer's private key as a webcrypto signing key, with the algorithm to sign with. */
async function signingKeyOf(pem: string): Promise<{ key: CryptoKey; algorithm: SigningAlgorithm }> {
  let k: KeyObject;
  try {
    k = createPrivateKey(pem);
  } catch (e) {
    throw new CertificateError('BAD_ISSUER', `the issuer key is not a PEM private key: ${(e as Error).message}`, 'issuer.keyPem', undefined, { cause: e });
  }
  const der = k.export({ type: 'pkcs8', format: 'der' });
  if (k.asymmetricKeyType === 'ec') {
    const namedCurve = CURVES[k.asymmetricKeyDetails?.namedCurve ?? ''];
    if (!namedCurve) throw new CertificateError('BAD_ISSUER', `EC curve ${k.asymmetricKeyDetails?.namedCurve ?? '?'} is not supported`, 'issuer.keyPem', k.asymmetricKeyDetails?.namedCurve);
    const key = await webcrypto.subtle.importKey('pkcs8', der, { name: 'ECDSA', namedCurve }, false, ['sign']);
    return { key, algorithm: { name: 'ECDSA', hash: CURVE_HASH[namedCurve]! } };
  }
  if (k.asymmetricKeyType === 'rsa') {
    const algorithm = { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' };
    return { key: await webcrypto.subtle.importKey('pkcs8', der, algorithm, false, ['sign']), algorithm };
  }
  throw new CertificateError('BAD_ISSUER', `issuer key type ${k.asymmetricKeyType ?? '?'} is not supported`, 'issuer.keyPem', k.asymmetricKeyType);
}

/** A positive 128-bit serial whose first byte keeps its DER encoding minimal. */
function serialNumber(): string {
  const b = randomBytes(16);
  b[0] = (b[0]! & 0x7f) | 0x40;
  return b.toString('hex');
}

export function checkRequest(r: Omit<CertificateRequest, 'keyFormat'>): void {
  if (!r.commonName) throw new CertificateError('INVALID_REQUEST', 'a certificate needs a common name', 'commonName', r.commonName);
  if (!Number.isFinite(r.validityDays) || r.validityDays <= 0) throw new CertificateError('INVALID_REQUEST', `validity of ${r.validityDays} days`, 'validityDays', r.validityDays);
  (r.sans ?? []).forEach((s, i) => {
    if (!s || /[\s,]/.test(s)) throw new CertificateError('INVALID_REQUEST', `subjectAltName "${s}" is neither an IP address nor a DNS name`, `sans[${i}]`, s);
  });
}

/** Makes a P-256 key pair and a certificate for it, signed by `issuer` or by itself. */
export async function issueCertificate(r: CertificateRequest): Promise<CertificateAndKey> {
  checkRequest(r);
  const x = await loadX509();
  const keys = (await webcrypto.subtle.generateKey(NEW_KEY, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
  const certPem = await buildCertificate(x, r, keys.publicKey, keys.privateKey);
  const keyPem = KeyObject.from(keys.privateKey).export({ type: r.keyFormat ?? 'sec1', format: 'pem' }).toString();
  return { certPem, keyPem };
}

/**
 * A certificate for `publicKey` with the request's subject (`CN=<commonName>`, or `subjectName`
 * as given) and extensions, signed by `r.issuer` or, without one, by `selfKey` (the private half
 * of `publicKey`).
 */
export async function buildCertificate(x: X509, r: Omit<CertificateRequest, 'keyFormat'>, publicKey: CryptoKey, selfKey?: CryptoKey, subjectName?: InstanceType<X509['Name']>): Promise<string> {
  const subject = subjectName ?? new x.Name([{ CN: [r.commonName] }]);
  let issuerName = subject;
  let signing: { key: CryptoKey; algorithm: SigningAlgorithm };
  let authorityKeyId: InstanceType<X509['AuthorityKeyIdentifierExtension']>;
  if (r.issuer) {
    let ca: InstanceType<X509['X509Certificate']>;
    try {
      ca = new x.X509Certificate(r.issuer.certPem);
    } catch (e) {
      throw new CertificateError('BAD_ISSUER', `the issuer certificate is not a PEM certificate: ${(e as Error).message}`, 'issuer.certPem', undefined, { cause: e });
    }
    signing = await signingKeyOf(r.issuer.keyPem);
    // The issuer's subject as encoded in its certificate, so the names match byte for byte.
    issuerName = ca.subjectName;
    // The AKID names the issuer's own SKID, so chain builders find the issuer by it.
    const skid = ca.getExtension(x.SubjectKeyIdentifierExtension);
    authorityKeyId = skid ? new x.AuthorityKeyIdentifierExtension(skid.keyId) : await x.AuthorityKeyIdentifierExtension.create(ca.publicKey, false, webcrypto);
  } else {
    if (!selfKey) throw new CertificateError('INVALID_REQUEST', 'a certificate for a public key alone needs an issuer', 'issuer');
    signing = { key: selfKey, algorithm: { name: 'ECDSA', hash: 'SHA-256' } };
    authorityKeyId = await x.AuthorityKeyIdentifierExtension.create(publicKey, false, webcrypto);
  }
  const extensions: InstanceType<X509['Extension']>[] = [];
  if (r.sans?.length) extensions.push(new x.SubjectAlternativeNameExtension(r.sans.map((s) => ({ type: isIP(s) ? 'ip' : 'dns', value: s }))));
  if (r.extendedKeyUsage?.length) extensions.push(new x.ExtendedKeyUsageExtension(r.extendedKeyUsage.map((u) => EXTENDED_KEY_USAGE_OIDS[u])));
  if (r.keyUsage?.length) extensions.push(new x.KeyUsagesExtension(r.keyUsage.reduce((flags, u) => flags | x.KeyUsageFlags[u], 0), true));
  extensions.push(new x.BasicConstraintsExtension(r.ca, undefined, r.ca));
  extensions.push(await x.SubjectKeyIdentifierExtension.create(publicKey, false, webcrypto), authorityKeyId);
  const notBefore = r.notBefore ?? new Date();
  const cert = await x.X509CertificateGenerator.create(
    {
      serialNumber: serialNumber(),
      subject,
      issuer: issuerName,
      notBefore,
      notAfter: new Date(notBefore.getTime() + r.validityDays * 86_400_000),
      publicKey,
      signingKey: signing.key,
      signingAlgorithm: signing.algorithm,
      extensions,
    },
    webcrypto as unknown as Parameters<X509['X509CertificateGenerator']['create']>[1],
  );
  return `${cert.toString('pem')}\n`;
}
