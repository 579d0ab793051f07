// NetworkPolicy validation at create and update, as kube-apiserver refuses invalid ones (an
// ipBlock.except outside its cidr, a port out of range, a bad selector) instead of storing a policy
// no agent can enforce. The checks are the policy compiler's, so the API and the compiler agree.
import { validateK8sNetworkPolicy, type PolicyValidationError } from '@switchyard/policy-compiler';
import type { K8sNetworkPolicy } from '@switchyard/apis/types';
import type { AdmissionRequest } from './api';
import { invalid, type FieldError } from './errors';

function fieldError(e: PolicyValidationError): FieldError {
  const prefix = `${e.path}: `;
  const why = e.message.startsWith(prefix) ? e.message.slice(prefix.length) : e.message;
  if (e.code === 'MISSING_FIELD' && e.value === undefined) return { field: e.path, reason: 'FieldValueRequired', detail: 'Required value' };
  return { field: e.path, reason: 'FieldValueInvalid', detail: `Invalid value: ${JSON.stringify(e.value) ?? 'null'}: ${why}` };
}

/** Admission of networking.k8s.io NetworkPolicies: 422 Invalid naming each bad field and value. */
export function admitNetworkPolicy(r: AdmissionRequest): void {
  if (r.op === 'delete' || r.subresource === 'status') return;
  let errors: FieldError[];
  try {
    errors = validateK8sNetworkPolicy(r.obj as unknown as K8sNetworkPolicy).map(fieldError);
  } catch (e) {
    // A field of another shape than the kind defines (a number where a list belongs, ...).
    errors = [{ field: 'spec', reason: 'FieldValueInvalid', detail: `Invalid value: a field is not of the shape NetworkPolicy defines (${e instanceof Error ? e.message : String(e)})` }];
  }
  if (errors.length > 0) throw invalid('NetworkPolicy', 'networking.k8s.io', r.obj.metadata.name ?? '', errors);
}
