// NetworkPolicy (and AdminNetworkPolicy) validation at create and update, as kube-apiserver refuses
// invalid ones (an ipBlock.except outside its cidr, a port out of range, a bad selector) instead of
// storing a policy no agent can enforce. The checks are the policy compiler's, so the API and the
// compiler agree.
import { validateAdminPolicy, validateK8sNetworkPolicy, type PolicyValidationError } from '@switchyard/policy-compiler';
import type { AdminNetworkPolicy, BaselineAdminNetworkPolicy, K8sNetworkPolicy } from '@switchyard/apis/types';
import type { AdmissionRequest } from './api';
import { invalid, type FieldError } from './errors';
import type { KubeObject } from './types';

function fieldError(e: PolicyValidationError): FieldError {
  const prefix = `${e.path}: `;
  const why = e.message.startsWith(prefix) ? e.message.slice(prefix.length) : e.message;
  if (e.code === 'MISSING_FIELD' && e.value === undefined) return { field: e.path, reason: 'FieldValueRequired', detail: 'Required value' };
  return { field: e.path, reason: 'FieldValueInvalid', detail: `Invalid value: ${JSON.stringify(e.value) ?? 'null'}: ${why}` };
}

/** Admission hook refusing with 422 what `validate` finds, for objects of `kind` in `group`. */
function admitWith(kind: string, group: string, validate: (obj: KubeObject) => PolicyValidationError[]): (r: AdmissionRequest) => void {
  return (r) => {
    if (r.op === 'delete' || r.subresource === 'status') return;
    let errors: FieldError[];
    try {
      errors = validate(r.obj).map(fieldError);
    } catch (e) {
      // A field of another shape than the kind defines (a number where a list belongs, ...).
      errors = [{ field: 'spec', reason: 'FieldValueInvalid', detail: `Invalid value: a field is not of the shape ${kind} defines (${e instanceof Error ? e.message : String(e)})` }];
    }
    if (errors.length > 0) throw invalid(kind, group, r.obj.metadata.name ?? '', errors);
  };
}

/** Admission of networking.k8s.io NetworkPolicies: 422 Invalid naming each bad field and value. */
export const admitNetworkPolicy = admitWith('NetworkPolicy', 'networking.k8s.io', (o) => validateK8sNetworkPolicy(o as unknown as K8sNetworkPolicy));

/**
 * Admission of AdminNetworkPolicies and BaselineAdminNetworkPolicies with the compiler's checks,
 * standing in for the CEL rules of their CRDs (which this server does not run).
 */
export const admitAdminNetworkPolicy = admitWith('AdminNetworkPolicy', 'policy.networking.k8s.io', (o) => validateAdminPolicy(o as unknown as AdminNetworkPolicy, false));
export const admitBaselineAdminNetworkPolicy = admitWith('BaselineAdminNetworkPolicy', 'policy.networking.k8s.io', (o) => validateAdminPolicy(o as unknown as BaselineAdminNetworkPolicy, true));
