// What a Service asks of ServiceExternalIP (one IP per IP family it has), which of those families
// its pool can serve, and the Event wording for each reason it does not get an IP (pure): the field
// and the value, as kube-apiserver words a field error.
import { SERVICE_ALLOW_SHARED_IP_ANNOTATION, SERVICE_EXTERNAL_IP_POOL_ANNOTATION, type Service } from '@switchyard/apis/types';
import type { Ip, IpFamily } from '@switchyard/ipam/cidr';
import type { ExternalIPHolding, ExternalIPRefusal } from './external-ip-allocator';
import type { EventNote } from './events';

const POOL_FIELD = `metadata.annotations[${SERVICE_EXTERNAL_IP_POOL_ANNOTATION}]`;
const invalid = (field: string, value: string, why: string): string => `${field}: Invalid value: ${JSON.stringify(value)}: ${why}`;

/** A Service's IP family, as `spec.ipFamilies` spells it. */
export type IPFamilyName = 'IPv4' | 'IPv6';
/** `spec.ipFamilyPolicy`. */
export type IPFamilyPolicy = 'SingleStack' | 'PreferDualStack' | 'RequireDualStack';

/** An external IP request: a `type: LoadBalancer` Service annotated with its pool. */
export interface ExternalIPRequest {
  pool: string;
  /** `spec.loadBalancerIP`, as written. */
  ip?: string;
  sharable: boolean;
  /** One external IP per family, in this order (the Service's `spec.ipFamilies`). */
  families: IPFamilyName[];
  policy: IPFamilyPolicy;
}

export const familyName = (f: IpFamily): IPFamilyName => (f === 4 ? 'IPv4' : 'IPv6');
export const familyNumber = (f: IPFamilyName): IpFamily => (f === 'IPv4' ? 4 : 6);
const familyOfText = (ip: string): IPFamilyName => (ip.includes(':') ? 'IPv6' : 'IPv4');

/**
 * The allocator key of a Service's IP of one family: `namespace/name#IPv4`. A dual-stack Service
 * holds two IPs, one per key; they never share (one Service, one IP per family).
 */
export const serviceHolderKey = (service: string, family: IPFamilyName): string => `${service}#${family}`;
/** The Service key and family of a {@link serviceHolderKey}. */
export function parseServiceHolderKey(key: string): { service: string; family: IPFamilyName } {
  const m = /^(.*)#(IPv4|IPv6)$/.exec(key);
  return m ? { service: m[1]!, family: m[2] as IPFamilyName } : { service: key, family: 'IPv4' };
}

/**
 * The families a Service has: `spec.ipFamilies` as the API server settled it; without it (a stored
 * object that predates dual-stack) the families of `spec.clusterIPs`, else IPv4 (Kubernetes' default).
 */
export function serviceFamilies(svc: Service): IPFamilyName[] {
  const given = (svc.spec?.ipFamilies ?? []).filter((f): f is IPFamilyName => f === 'IPv4' || f === 'IPv6');
  if (given.length > 0) return [...new Set(given)];
  const ips = (svc.spec?.clusterIPs ?? (svc.spec?.clusterIP !== undefined ? [svc.spec.clusterIP] : [])).filter((ip) => ip !== '' && ip !== 'None');
  const fromIps = [...new Set(ips.map(familyOfText))];
  return fromIps.length > 0 ? fromIps : ['IPv4'];
}

// strconv.ParseBool's true values, as Antrea reads the annotation.
const TRUE = new Set(['1', 't', 'T', 'TRUE', 'true', 'True']);

/** The request of a Service, or undefined when it asks for no external IP. */
export function externalIPRequest(svc: Service): ExternalIPRequest | undefined {
  const pool = svc.metadata.annotations?.[SERVICE_EXTERNAL_IP_POOL_ANNOTATION];
  if (svc.spec?.type !== 'LoadBalancer' || pool === undefined || pool === '') return undefined;
  const ip = svc.spec.loadBalancerIP;
  const families = serviceFamilies(svc);
  const given = svc.spec.ipFamilyPolicy;
  const policy: IPFamilyPolicy = given === 'PreferDualStack' || given === 'RequireDualStack' ? given : 'SingleStack';
  return { pool, ...(ip !== undefined && ip !== '' ? { ip } : {}), sharable: TRUE.has(svc.metadata.annotations?.[SERVICE_ALLOW_SHARED_IP_ANNOTATION] ?? ''), families, policy };
}

/** The ingress IPs of a Service's status, in order. */
export function ingressIPs(svc: Service): string[] {
  return (svc.status?.loadBalancer?.ingress ?? []).flatMap((i) => (i.ip !== undefined && i.ip !== '' ? [i.ip] : []));
}

/** `Service ns/name` or `Egress name`, from an allocator key. */
export const holderName = (key: string): string => (key.startsWith('Egress/') ? `Egress ${key.slice('Egress/'.length).replace(/#\d+$/, '')}` : `Service ${parseServiceHolderKey(key).service}`);

/** Which of a Service's families get an IP from its pool, and the Warning when the pool lacks one. */
export interface FamilyPlan {
  /** The families to allocate, in the Service's order (none: the Service stays pending). */
  families: IPFamilyName[];
  note?: EventNote;
}

/**
 * One IP per family of the Service, each from the pool's ranges of that family. A family the pool
 * has no range of: `PreferDualStack` gets the other family's IP alone, `RequireDualStack` and
 * `SingleStack` get none; either way a Warning names the family.
 */
export function familyPlan(req: ExternalIPRequest, poolFamilies: ReadonlySet<IpFamily>): FamilyPlan {
  const missing = req.families.filter((f) => !poolFamilies.has(familyNumber(f)));
  if (missing.length === 0) return { families: req.families };
  const has = req.families.filter((f) => !missing.includes(f));
  const lacks = `ExternalIPPool ${req.pool} has no ${missing.join(' or ')} range`;
  const families = `spec.ipFamilies ${JSON.stringify(req.families)}`;
  if (has.length > 0 && req.policy === 'PreferDualStack') {
    return { families: has, note: { type: 'Warning', reason: 'ExternalIPFamilyNotInPool', message: invalid(POOL_FIELD, req.pool, `${lacks}; the Service gets its ${has.join(' and ')} external IP alone (${families}, spec.ipFamilyPolicy PreferDualStack)`) } };
  }
  const why = req.policy === 'RequireDualStack' ? `spec.ipFamilyPolicy RequireDualStack needs an external IP of each of ${families}` : `${families} asks for ${missing.join(' and ')}`;
  return { families: [], note: { type: 'Warning', reason: 'ExternalIPFamilyNotInPool', message: invalid(POOL_FIELD, req.pool, `${lacks}; ${why}; the Service stays pending until the pool has one`) } };
}

/** The Warning a Service gets for a `spec.loadBalancerIP` of a family the Service does not have. */
export function loadBalancerIPFamilyNote(ip: Ip, req: ExternalIPRequest): EventNote {
  return { type: 'Warning', reason: 'LoadBalancerIPFamilyMismatch', message: invalid('spec.loadBalancerIP', ip.toString(), `an ${familyName(ip.family)} address, and spec.ipFamilies is ${JSON.stringify(req.families)}; the Service stays pending until they agree`) };
}


/**
 * The Warning a Service gets for a refusal. `holds`: the families the Service has an IP of all the
 * same (a PreferDualStack Service refused one family is not pending).
 */
export function refusalNote(r: ExternalIPRefusal, holds: readonly IPFamilyName[] = []): EventNote {
  const waits = holds.length > 0 ? `the Service has its ${holds.join(' and ')} external IP alone` : 'the Service stays pending';
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
        message: invalid('spec.loadBalancerIP', r.ip.toString(), `already allocated to ${r.holders.map(holderName).join(', ')} (only Services that all set ${SERVICE_ALLOW_SHARED_IP_ANNOTATION}: "true" share an IP); ${waits} until it is released`),
      };
    case 'Exhausted':
      return { type: 'Warning', reason: 'ExternalIPPoolExhausted', message: invalid(POOL_FIELD, r.pool, `ExternalIPPool ${r.pool} has no free ${r.family !== undefined ? `${familyName(r.family)} ` : ''}IP (${r.used} of ${r.total} in use); ${waits} until one is released`) };
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
