// certificates.k8s.io/v1 CertificateSigningRequest as kube-apiserver treats it: the requester's
// identity is written into the spec by the server (whatever the client sent), the spec never
// changes after creation, and approval (Approved / Denied conditions) goes through the `approval`
// subresource while the signer writes `status.certificate` through `status`.
import { invalid } from './errors';
import { isRecord, type KubeObject, type UserInfo } from './types';

export const CSR_GROUP = 'certificates.k8s.io';
export const CSR_RESOURCE = 'certificatesigningrequests';

const APPROVAL_TYPES = new Set(['Approved', 'Denied']);
const CERT_PEM = /-----BEGIN CERTIFICATE REQUEST-----/;

/** On create: checks the request and stamps the requester's identity into the spec. */
export function admitCsrCreate(obj: KubeObject, requester: UserInfo | undefined): void {
  const name = obj.metadata.name ?? '';
  const spec = isRecord(obj.spec) ? obj.spec : {};
  const errs: { field: string; reason: string; detail: string }[] = [];
  const request = spec.request;
  if (typeof request !== 'string' || request === '') errs.push({ field: 'spec.request', reason: 'FieldValueRequired', detail: 'Required value' });
  else if (!CERT_PEM.test(Buffer.from(request, 'base64').toString('utf8'))) errs.push({ field: 'spec.request', reason: 'FieldValueInvalid', detail: 'Invalid value: "<omitted>": PEM block type must be CERTIFICATE REQUEST' });
  if (typeof spec.signerName !== 'string' || spec.signerName === '') errs.push({ field: 'spec.signerName', reason: 'FieldValueRequired', detail: 'Required value' });
  if (spec.usages !== undefined && !Array.isArray(spec.usages)) errs.push({ field: 'spec.usages', reason: 'FieldValueInvalid', detail: 'Invalid value: must be a list' });
  if (errs.length > 0) throw invalid('CertificateSigningRequest', CSR_GROUP, name, errs);
  const stamped: Record<string, unknown> = { ...spec, username: requester?.username ?? '', groups: requester?.groups ?? [] };
  if (requester?.uid !== undefined) stamped.uid = requester.uid;
  else delete stamped.uid;
  if (requester?.extra && Object.keys(requester.extra).length > 0) stamped.extra = requester.extra;
  else delete stamped.extra;
  obj.spec = stamped;
  delete obj.status;
}

/**
 * What an update of a CertificateSigningRequest stores, from the generic result `next`: the spec
 * never changes; through `approval` only the Approved/Denied conditions of `input` are taken (the
 * rest of the object stays as stored).
 */
export function csrUpdate(old: KubeObject, next: KubeObject, input: KubeObject, subresource: string | undefined): KubeObject {
  next.spec = old.spec;
  if (subresource !== 'approval') return next;
  const before = isRecord(old.status) ? old.status : {};
  const asked = isRecord(input.status) && Array.isArray(input.status.conditions) ? input.status.conditions : [];
  const kept = (Array.isArray(before.conditions) ? before.conditions : []).filter((c) => !(isRecord(c) && APPROVAL_TYPES.has(String(c.type))));
  const approval = asked.filter((c) => isRecord(c) && APPROVAL_TYPES.has(String(c.type)));
  const types = new Set(approval.map((c) => (c as Record<string, unknown>).type));
  if (types.has('Approved') && types.has('Denied')) {
    throw invalid('CertificateSigningRequest', CSR_GROUP, old.metadata.name ?? '', [{ field: 'status.conditions', reason: 'FieldValueInvalid', detail: 'Approved and Denied conditions are mutually exclusive' }]);
  }
  return { ...next, status: { ...before, conditions: [...kept, ...approval] } };
}
