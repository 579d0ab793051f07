/**
 * @switchyard/pki: X.509 certificates for Switchyard's TLS servers (the controller, the agent
 * API, the embedded API server): CA, serving and client certificates made in process with
 * @peculiar/x509 over node's webcrypto, with the extensions and PEM key formats the openssl CLI
 * gave them before. A CA made elsewhere (EC or RSA) can sign.
 * @packageDocumentation
 */
export { issueCertificate, CertificateError } from './certificate';
export type { CertificateAndKey, CertificateRequest, CertificateErrorCode, ExtendedKeyUsageName, KeyUsageName } from './certificate';
export { createCertificateRequest, readCertificateRequest, signCertificateRequest } from './certificate-request';
export type { CertificateRequestAndKey, VerifiedCertificateRequest } from './certificate-request';
