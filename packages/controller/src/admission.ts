// Admission decisions for the Antrea kinds the controller owns, as Antrea's validating webhook makes
// them: pure functions over the request and a view of the cluster. Spec checks are the policy
// compiler's, so the webhook and the compiler refuse the same objects with the same messages.
import type { AntreaNetworkPolicySpec, Egress, ExternalIPPool, GroupSpec, IPPool, Tier } from '@switchyard/apis/types';
import { CidrError, parseCidr, parseIp, type Ip } from '@switchyard/ipam/cidr';
import { PolicyValidationError, STATIC_TIERS, validateAntreaPolicy, validateGroup, validateTier, type ValidationContext } from '@switchyard/policy-compiler';
import type { KubeObject } from '@switchyard/kube';
import { egressPoolFamilyErrors } from './egress';
import { validateExternalIPPool } from './external-ip-pool';

/** The kinds with a webhook, by the path segment after `/validate/`. */
export const ADMISSION_KINDS = {
  acnp: { kind: 'ClusterNetworkPolicy', resource: 'clusternetworkpolicies', namespaced: false, webhook: 'acnpvalidator.antrea.io' },
  anp: { kind: 'NetworkPolicy', resource: 'networkpolicies', namespaced: true, webhook: 'anpvalidator.antrea.io' },
  tier: { kind: 'Tier', resource: 'tiers', namespaced: false, webhook: 'tiervalidator.antrea.io' },
  clustergroup: { kind: 'ClusterGroup', resource: 'clustergroups', namespaced: false, webhook: 'clustergroupvalidator.antrea.io' },
  group: { kind: 'Group', resource: 'groups', namespaced: true, webhook: 'groupvalidator.antrea.io' },
  ippool: { kind: 'IPPool', resource: 'ippools', namespaced: false, webhook: 'ippoolvalidator.antrea.io' },
  externalippool: { kind: 'ExternalIPPool', resource: 'externalippools', namespaced: false, webhook: 'externalippoolvalidator.antrea.io' },
  externalnode: { kind: 'ExternalNode', resource: 'externalnodes', namespaced: true, webhook: 'externalnodevalidator.antrea.io' },
  traceflow: { kind: 'Traceflow', resource: 'traceflows', namespaced: false, webhook: 'traceflowvalidator.antrea.io' },
  egress: { kind: 'Egress', resource: 'egresses', namespaced: false, webhook: 'egressvalidator.antrea.io' },
} as const;

/** A key of {@link ADMISSION_KINDS}. */
export type AdmissionKind = keyof typeof ADMISSION_KINDS;

/** What the decision reads about the rest of the cluster (the controller's informer caches). */
export interface AdmissionView {
  tiers(): Iterable<Tier>;
  clusterGroups(): Iterable<KubeObject>;
  groups(): Iterable<KubeObject>;
  clusterNetworkPolicies(): Iterable<KubeObject>;
  antreaNetworkPolicies(): Iterable<KubeObject>;
  /** The ExternalIPPools stored now (a new pool's ranges may overlap none of theirs). */
  externalIPPools(): Iterable<ExternalIPPool>;
}

/** The request part of an AdmissionReview. */
export interface AdmissionInput {
  operation: 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';
  object?: KubeObject | null;
  oldObject?: KubeObject | null;
}

/** The verdict: allowed, or refused with a message naming each field and value. */
export interface AdmissionDecision {
  allowed: boolean;
  message?: string;
}

const allow: AdmissionDecision = { allowed: true };

/** `path: Invalid value: <json>: why`, the wording kube-apiserver uses for a field error. */
export function fieldMessage(e: PolicyValidationError): string {
  const prefix = `${e.path}: `;
  const why = e.message.startsWith(prefix) ? e.message.slice(prefix.length) : e.message;
  return `${e.path}: Invalid value: ${JSON.stringify(e.value) ?? 'null'}: ${why}`;
}

function refuse(errs: readonly PolicyValidationError[]): AdmissionDecision {
  return errs.length === 0 ? allow : { allowed: false, message: errs.map(fieldMessage).join('; ') };
}

/** Validation context over the view: static tiers plus the Tier objects, group children. */
export function validationContext(view: AdmissionView): ValidationContext {
  const tiers = [...view.tiers()];
  return {
    tierPriority: (n) => STATIC_TIERS[n] ?? tiers.find((t) => t.metadata.name === n)?.spec?.priority,
    tierWithPriority: (p) => Object.entries(STATIC_TIERS).find(([, v]) => v === p)?.[0] ?? tiers.find((t) => t.spec?.priority === p)?.metadata.name,
    childGroups: (ns, n) => {
      const list = ns === undefined ? view.clusterGroups() : view.groups();
      for (const g of list) if (g.metadata.name === n && (ns === undefined || g.metadata.namespace === ns)) return (g.spec as GroupSpec | undefined)?.childGroups;
      return undefined;
    },
  };
}

function specOf(o: KubeObject): AntreaNetworkPolicySpec {
  return (o.spec ?? {}) as AntreaNetworkPolicySpec;
}

/** Names of groups a policy refers to (appliedTo and peers), for the in-use check. */
function groupRefs(spec: AntreaNetworkPolicySpec): Set<string> {
  const out = new Set<string>();
  for (const a of spec.appliedTo ?? []) if (a.group) out.add(a.group);
  for (const dir of ['ingress', 'egress'] as const) {
    for (const r of spec[dir] ?? []) {
      for (const a of r.appliedTo ?? []) if (a.group) out.add(a.group);
      for (const p of (dir === 'ingress' ? r.from : r.to) ?? []) if (p.group) out.add(p.group);
    }
  }
  return out;
}

function describeUsers(users: string[]): string {
  return users.length <= 3 ? users.join(', ') : `${users.slice(0, 3).join(', ')} and ${users.length - 3} more`;
}

/** A policy spec that is not an object where lists belong is refused, not thrown on. */
function guarded(run: () => PolicyValidationError[]): PolicyValidationError[] {
  try {
    return run();
  } catch (e) {
    return [new PolicyValidationError('MALFORMED', 'spec', undefined, `a field is not of the shape the kind defines (${(e as Error).message})`)];
  }
}

function admitPolicy(req: AdmissionInput, view: AdmissionView, clusterScoped: boolean): AdmissionDecision {
  if (req.operation === 'DELETE' || !req.object) return allow;
  return refuse(guarded(() => validateAntreaPolicy(specOf(req.object as KubeObject), clusterScoped, validationContext(view))));
}

function admitTier(req: AdmissionInput, view: AdmissionView): AdmissionDecision {
  if (req.operation === 'DELETE') {
    const name = req.oldObject?.metadata.name ?? '';
    if (STATIC_TIERS[name] !== undefined) return { allowed: false, message: `metadata.name: Invalid value: ${JSON.stringify(name)}: cannot delete reserved tier ${name}` };
    const users: string[] = [];
    for (const p of view.clusterNetworkPolicies()) if ((specOf(p).tier ?? '').toLowerCase() === name) users.push(`ClusterNetworkPolicy ${p.metadata.name ?? ''}`);
    for (const p of view.antreaNetworkPolicies()) if ((specOf(p).tier ?? '').toLowerCase() === name) users.push(`NetworkPolicy ${p.metadata.namespace ?? ''}/${p.metadata.name ?? ''}`);
    if (users.length > 0) return { allowed: false, message: `metadata.name: Invalid value: ${JSON.stringify(name)}: tier ${name} is referenced by ${users.length} Antrea NetworkPolicies (${describeUsers(users)}) and cannot be deleted` };
    return allow;
  }
  const t = req.object as Tier | undefined;
  if (!t) return allow;
  const errs = guarded(() => validateTier(t, validationContext(view)));
  const old = req.oldObject as Tier | null | undefined;
  if (req.operation === 'UPDATE' && old && old.spec?.priority !== t.spec?.priority) {
    errs.push(new PolicyValidationError('INVALID_TIER_PRIORITY', 'spec.priority', t.spec?.priority, `tier priority is immutable (was ${JSON.stringify(old.spec?.priority)})`));
  }
  return refuse(errs);
}

function admitGroup(req: AdmissionInput, view: AdmissionView, clusterScoped: boolean): AdmissionDecision {
  if (req.operation === 'DELETE') {
    const name = req.oldObject?.metadata.name ?? '';
    const ns = req.oldObject?.metadata.namespace;
    const users: string[] = [];
    // Only policies hold a group in use: a parent group may name a child that does not exist
    // (yet, or any more), so parent and child can be deleted in either order.
    if (clusterScoped) {
      for (const p of view.clusterNetworkPolicies()) if (groupRefs(specOf(p)).has(name)) users.push(`ClusterNetworkPolicy ${p.metadata.name ?? ''}`);
    } else {
      for (const p of view.antreaNetworkPolicies()) if (p.metadata.namespace === ns && groupRefs(specOf(p)).has(name)) users.push(`NetworkPolicy ${ns ?? ''}/${p.metadata.name ?? ''}`);
    }
    const kind = clusterScoped ? 'ClusterGroup' : 'Group';
    if (users.length > 0) return { allowed: false, message: `metadata.name: Invalid value: ${JSON.stringify(name)}: ${kind} ${name} is referenced by ${describeUsers(users)} and cannot be deleted` };
    return allow;
  }
  const g = req.object;
  if (!g) return allow;
  return refuse(guarded(() => validateGroup((g.spec ?? {}) as GroupSpec, clusterScoped ? undefined : (g.metadata.namespace ?? 'default'), g.metadata.name ?? '', validationContext(view))));
}

function ipAt(text: unknown, path: string, errs: PolicyValidationError[]): Ip | undefined {
  if (typeof text !== 'string') {
    errs.push(new PolicyValidationError('INVALID_CIDR', path, text, 'must be an IP address'));
    return undefined;
  }
  try {
    return parseIp(text);
  } catch {
    errs.push(new PolicyValidationError('INVALID_CIDR', path, text, `invalid IP address: ${text}`));
    return undefined;
  }
}

/** IPPool: every range a CIDR or a start <= end pair of one family, gateway and prefix in range; ranges may not be removed or changed while the pool has allocations. */
export function validateIPPool(pool: IPPool, old: IPPool | undefined): PolicyValidationError[] {
  const errs: PolicyValidationError[] = [];
  const spec = pool.spec ?? ({} as IPPool['spec']);
  const ranges = Array.isArray(spec.ipRanges) ? spec.ipRanges : [];
  if (ranges.length === 0) errs.push(new PolicyValidationError('MISSING_FIELD', 'spec.ipRanges', spec.ipRanges, 'at least one range is required'));
  const gateway = ipAt(spec.subnetInfo?.gateway, 'spec.subnetInfo.gateway', errs);
  const prefix = spec.subnetInfo?.prefixLength;
  const maxPrefix = gateway?.family === 6 ? 128 : 32;
  if (typeof prefix !== 'number' || !Number.isInteger(prefix) || prefix < 1 || prefix > maxPrefix) errs.push(new PolicyValidationError('INVALID_CIDR', 'spec.subnetInfo.prefixLength', prefix, `must be an integer in 1..${maxPrefix}`));
  ranges.forEach((r, i) => {
    const path = `spec.ipRanges[${i}]`;
    if (r.cidr !== undefined && (r.start !== undefined || r.end !== undefined)) errs.push(new PolicyValidationError('INVALID_CIDR', path, r, 'set either cidr or start and end, not both'));
    else if (r.cidr !== undefined) {
      try {
        const c = parseCidr(r.cidr, { path: `${path}.cidr` });
        if (gateway && c.family !== gateway.family) errs.push(new PolicyValidationError('INVALID_CIDR', `${path}.cidr`, r.cidr, `must be of the gateway's family (IPv${gateway.family})`));
      } catch (e) {
        errs.push(new PolicyValidationError('INVALID_CIDR', `${path}.cidr`, r.cidr, e instanceof CidrError ? `invalid CIDR address: ${r.cidr}` : String(e)));
      }
    } else if (r.start !== undefined || r.end !== undefined) {
      const s = ipAt(r.start, `${path}.start`, errs);
      const e = ipAt(r.end, `${path}.end`, errs);
      if (s && e && s.family !== e.family) errs.push(new PolicyValidationError('INVALID_CIDR', `${path}.end`, r.end, `must be of the family of start (${r.start ?? ''})`));
      else if (s && e && s.value > e.value) errs.push(new PolicyValidationError('INVALID_CIDR', `${path}.end`, r.end, `must not be below start (${r.start ?? ''})`));
    } else errs.push(new PolicyValidationError('MISSING_FIELD', path, r, 'must set cidr, or start and end'));
  });
  if (old && (old.status?.usage?.used ?? old.status?.ipAddresses?.length ?? 0) > 0) {
    const kept = new Set(ranges.map((r) => JSON.stringify(r)));
    (old.spec?.ipRanges ?? []).forEach((r, i) => {
      if (!kept.has(JSON.stringify(r))) errs.push(new PolicyValidationError('INVALID_CIDR', `spec.ipRanges[${i}]`, r, 'existing ranges cannot be removed or changed while the pool has allocated addresses'));
    });
  }
  return errs;
}

function admitIPPool(req: AdmissionInput): AdmissionDecision {
  // Deleting a pool in use is not refused: its finalizer holds it until the last address is
  // released (ippool.ts), and it hands out nothing new meanwhile.
  if (req.operation === 'DELETE' || !req.object) return allow;
  return refuse(validateIPPool(req.object as unknown as IPPool, req.operation === 'UPDATE' ? (req.oldObject as unknown as IPPool | undefined) : undefined));
}

function admitExternalIPPool(req: AdmissionInput, view: AdmissionView): AdmissionDecision {
  // Deleting a pool in use is allowed, as in Antrea: its Services lose their IPs with an Event.
  if (req.operation === 'DELETE' || !req.object) return allow;
  const old = req.operation === 'UPDATE' ? (req.oldObject as unknown as ExternalIPPool | null | undefined) : undefined;
  return refuse(guarded(() => validateExternalIPPool(req.object as unknown as ExternalIPPool, view.externalIPPools(), old ?? undefined)));
}

/**
 * An Egress's pools, one per family (a dual-stack Egress's `externalIPPools`). Its other checks stay
 * with the controller's Egress part (IPAllocated=False and an Event), which also catches pools
 * stored or edited after the Egress.
 */
function admitEgress(req: AdmissionInput, view: AdmissionView): AdmissionDecision {
  if (req.operation === 'DELETE' || !req.object) return allow;
  return refuse(guarded(() => egressPoolFamilyErrors(req.object as unknown as Egress, view.externalIPPools())));
}

function admitExternalNode(req: AdmissionInput): AdmissionDecision {
  if (req.operation === 'DELETE' || !req.object) return allow;
  const errs: PolicyValidationError[] = [];
  const ifaces = (req.object.spec as { interfaces?: { name?: string; ips?: unknown[] }[] } | undefined)?.interfaces;
  if (!Array.isArray(ifaces) || ifaces.length === 0) errs.push(new PolicyValidationError('MISSING_FIELD', 'spec.interfaces', ifaces, 'at least one interface is required'));
  const names = new Map<string, number>();
  (Array.isArray(ifaces) ? ifaces : []).forEach((f, i) => {
    if (!Array.isArray(f.ips) || f.ips.length === 0) errs.push(new PolicyValidationError('MISSING_FIELD', `spec.interfaces[${i}].ips`, f.ips, 'at least one IP is required'));
    else f.ips.forEach((ip, j) => ipAt(ip, `spec.interfaces[${i}].ips[${j}]`, errs));
    // Each interface becomes an ExternalEntity named after it: two of one name would collide.
    const name = f.name ?? '';
    const prev = names.get(name);
    if (prev !== undefined) errs.push(new PolicyValidationError('INVALID_NAME', `spec.interfaces[${i}].name`, name, `duplicate interface name (also spec.interfaces[${prev}])`));
    else names.set(name, i);
  });
  return refuse(errs);
}

function admitTraceflow(req: AdmissionInput): AdmissionDecision {
  if (req.operation !== 'CREATE' || !req.object) return allow;
  const errs: PolicyValidationError[] = [];
  const spec = (req.object.spec ?? {}) as { source?: { namespace?: string; pod?: string; ip?: string }; destination?: { namespace?: string; pod?: string; service?: string; ip?: string }; liveTraffic?: boolean; packet?: { ipHeader?: { protocol?: number } } };
  const src = spec.source ?? {};
  if (!src.pod && !(spec.liveTraffic && (src.ip || spec.destination?.pod))) errs.push(new PolicyValidationError('MISSING_FIELD', 'spec.source.pod', src.pod, 'source Pod must be specified (or, in liveTraffic mode, a source IP or a destination Pod)'));
  if (src.pod && !src.namespace) errs.push(new PolicyValidationError('MISSING_FIELD', 'spec.source.namespace', src.namespace, 'required with source.pod'));
  if (src.ip !== undefined) ipAt(src.ip, 'spec.source.ip', errs);
  const dst = spec.destination ?? {};
  const kinds = [dst.pod, dst.service, dst.ip].filter((x) => x !== undefined).length;
  if (kinds > 1) errs.push(new PolicyValidationError('INVALID_PEER', 'spec.destination', dst, 'only one of pod, service and ip may be set'));
  if (kinds === 0 && !spec.liveTraffic) errs.push(new PolicyValidationError('MISSING_FIELD', 'spec.destination', dst, 'a destination pod, service or ip is required'));
  if ((dst.pod || dst.service) && !dst.namespace) errs.push(new PolicyValidationError('MISSING_FIELD', 'spec.destination.namespace', dst.namespace, 'required with destination.pod or destination.service'));
  if (dst.ip !== undefined) ipAt(dst.ip, 'spec.destination.ip', errs);
  const proto = spec.packet?.ipHeader?.protocol;
  if (proto !== undefined && (!Number.isInteger(proto) || proto < 0 || proto > 255)) errs.push(new PolicyValidationError('INVALID_PORT', 'spec.packet.ipHeader.protocol', proto, 'must be an integer in 0..255'));
  return refuse(errs);
}

/** Decide one admission request of `kind`. */
export function decideAdmission(kind: AdmissionKind, req: AdmissionInput, view: AdmissionView): AdmissionDecision {
  switch (kind) {
    case 'acnp':
      return admitPolicy(req, view, true);
    case 'anp':
      return admitPolicy(req, view, false);
    case 'tier':
      return admitTier(req, view);
    case 'clustergroup':
      return admitGroup(req, view, true);
    case 'group':
      return admitGroup(req, view, false);
    case 'ippool':
      return admitIPPool(req);
    case 'externalippool':
      return admitExternalIPPool(req, view);
    case 'externalnode':
      return admitExternalNode(req);
    case 'traceflow':
      return admitTraceflow(req);
    case 'egress':
      return admitEgress(req, view);
  }
}
