// What a Service asks of ServiceExternalIP, and the Event wording for each reason it does not get
// an IP (pure): the field and the value, as kube-apiserver words a field error.
import { SERVICE_ALLOW_SHARED_IP_ANNOTATION, SERVICE_EXTERNAL_IP_POOL_ANNOTATION, type Service } from '@switchyard/apis/types';
import type { ExternalIPHolding, ExternalIPRefusal } from './external-ip-allocator';
import type { EventNote } from './events';

/** An external IP request: a `type: LoadBalancer` Service annotated with its pool. */
export interface ExternalIPRequest {
  pool: string;
  /** `spec.loadBalancerIP`, as written. */
  ip?: string;
  sharable: boolean;
}

// strconv.ParseBool's true values, as Antrea reads the annotation.
const TRUE = new Set(['1', 't', 'T', 'TRUE', 'true', 'True']);

/** The request of a Service, or undefined when it asks for no external IP. */
export function externalIPRequest(svc: Service): ExternalIPRequest | undefined {
  const pool = svc.metadata.annotations?.[SERVICE_EXTERNAL_IP_POOL_ANNOTATION];
  if (svc.spec?.type !== 'LoadBalancer' || pool === undefined || pool === '') return undefined;
  const ip = svc.spec.loadBalancerIP;
  return { pool, ...(ip !== undefined && ip !== '' ? { ip } : {}), sharable: TRUE.has(svc.metadata.annotations?.[SERVICE_ALLOW_SHARED_IP_ANNOTATION] ?? '') };
}

/** The first ingress IP of a Service's status (what Antrea reads back), or undefined. */
export function ingressIP(svc: Service): string | undefined {
  const ip = svc.status?.loadBalancer?.ingress?.[0]?.ip;
  return ip === '' ? undefined : ip;
}

/** `Service ns/name` or `Egress name`, from an allocator key. */
export const holderName = (key: string): string => (key.startsWith('Egress/') ? `Egress ${key.slice('Egress/'.length).replace(/#\d+$/, '')}` : `Service ${key}`);

const POOL_FIELD = `metadata.annotations[${SERVICE_EXTERNAL_IP_POOL_ANNOTATION}]`;
const invalid = (field: string, value: string, why: string): string => `${field}: Invalid value: ${JSON.stringify(value)}: ${why}`;

/** The Warning a Service gets for a refusal. */
export function refusalNote(r: ExternalIPRefusal): EventNote {
  switch (r.reason) {
    case 'PoolNotFound':
      return { type: 'Warning', reason: 'ExternalIPPoolNotFound', message: invalid(POOL_FIELD, r.pool, `ExternalIPPool ${r.pool} not found; the Service stays pending until it exists`) };
    case 'NotInPool':
      return {
        type: 'Warning',
        reason: 'LoadBalancerIPNotInPool',
        message: invalid('spec.loadBalancerIP', r.ip.toString(), `not in ExternalIPPool ${r.pool}; ${r.owner !== undefined ? `it belongs to ExternalIPPool ${r.owner}` : 'it is in no ExternalIPPool'}`),
      };
    case 'InUse':
      return {
        type: 'Warning',
        reason: 'LoadBalancerIPInUse',
        message: invalid('spec.loadBalancerIP', r.ip.toString(), `already allocated to ${r.holders.map(holderName).join(', ')} (only Services that all set ${SERVICE_ALLOW_SHARED_IP_ANNOTATION}: "true" share an IP); the Service stays pending until it is released`),
      };
    case 'Exhausted':
      return { type: 'Warning', reason: 'ExternalIPPoolExhausted', message: invalid(POOL_FIELD, r.pool, `ExternalIPPool ${r.pool} has no free IP (${r.used} of ${r.total} in use); the Service stays pending until one is released`) };
  }
}

/** The Warning a Service gets for a `spec.loadBalancerIP` that is not an address. */
export function malformedIPNote(ip: string): EventNote {
  return { type: 'Warning', reason: 'InvalidLoadBalancerIP', message: invalid('spec.loadBalancerIP', ip, 'not an IP address') };
}

/** The Warning a Service gets when the pool it held an IP of is deleted. */
export function poolDeletedNote(h: ExternalIPHolding): EventNote {
  return { type: 'Warning', reason: 'ExternalIPPoolDeleted', message: invalid(POOL_FIELD, h.pool, `ExternalIPPool ${h.pool} was deleted; external IP ${h.ip.toString()} released`) };
}

/** The Normal Event of an allocation. */
export function allocatedNote(h: ExternalIPHolding): EventNote {
  return { type: 'Normal', reason: 'ExternalIPAllocated', message: `external IP ${h.ip.toString()} allocated from ExternalIPPool ${h.pool}${h.sharable ? ' (shareable)' : ''}` };
}

/** The Normal Event of a release the Service asked for (type, annotation or loadBalancerIP changed). */
export function releasedNote(h: ExternalIPHolding, why: string): EventNote {
  return { type: 'Normal', reason: 'ExternalIPReleased', message: `external IP ${h.ip.toString()} of ExternalIPPool ${h.pool} released: ${why}` };
}
