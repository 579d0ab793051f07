// What an Egress asks of the external IP allocator, its admission checks, and the wording of its
// Events and IPAllocated condition (pure): each problem names the field and the value.
import type { Egress, ExternalIPPool, LabelSelector } from '@switchyard/apis/types';
import { parseIp, type Ip } from '@switchyard/ipam/cidr';
import { PolicyValidationError, validateSelector } from '@switchyard/policy-compiler';
import type { EventNote } from './events';
import { egressHolderKey, type ExternalIPHolding, type ExternalIPRefusal } from './external-ip-allocator';
import { poolRanges } from './external-ip-pool';
import { holderName } from './service-external-ip';

/** One IP an Egress asks for: from a pool (`externalIPPool`, or `externalIPPools[i]`), given or not. */
export interface EgressIPSlot {
  /** The allocator key: {@link egressHolderKey}, `#<i>` after the first of a dual-stack Egress. */
  key: string;
  pool: string;
  /** The IP written in the spec (given by the user, or allocated before), as written. */
  ip?: string;
  poolField: string;
  ipField: string;
}

// A Kubernetes quantity (as `resource.ParseQuantity` takes it, without exponents).
const QUANTITY = /^[+]?(\d+(\.\d*)?|\.\d+)(m|k|M|G|T|P|E|Ki|Mi|Gi|Ti|Pi|Ei)?$/;

const bad = (path: string, value: unknown, why: string): PolicyValidationError => new PolicyValidationError('MALFORMED', path, value, why);

function parsedIp(text: string | undefined): Ip | undefined {
  if (text === undefined || text === '') return undefined;
  try {
    return parseIp(text);
  } catch {
    return undefined;
  }
}

/**
 * Antrea's Egress checks: appliedTo selects with valid selectors; `egressIP` and `egressIPs`, and
 * `externalIPPool` and `externalIPPools`, are exclusive; every IP parses; a dual-stack Egress names
 * no more IPs than pools; `bandwidth` rate and burst are quantities.
 */
export function validateEgress(eg: Egress): PolicyValidationError[] {
  const errors: PolicyValidationError[] = [];
  const spec = eg.spec ?? ({} as Egress['spec']);
  const applied = spec.appliedTo;
  if (applied?.podSelector === undefined && applied?.namespaceSelector === undefined) errors.push(new PolicyValidationError('MISSING_FIELD', 'spec.appliedTo', applied ?? null, 'must set podSelector or namespaceSelector'));
  errors.push(...validateSelector(applied?.podSelector as LabelSelector | undefined, 'spec.appliedTo.podSelector'));
  errors.push(...validateSelector(applied?.namespaceSelector as LabelSelector | undefined, 'spec.appliedTo.namespaceSelector'));
  const hasIP = spec.egressIP !== undefined && spec.egressIP !== '';
  if (hasIP && parsedIp(spec.egressIP) === undefined) errors.push(bad('spec.egressIP', spec.egressIP, 'not an IP address'));
  if (hasIP && (spec.egressIPs?.length ?? 0) > 0) errors.push(bad('spec.egressIPs', spec.egressIPs, 'set either egressIP or egressIPs, not both'));
  const hasPool = spec.externalIPPool !== undefined && spec.externalIPPool !== '';
  if (hasPool && (spec.externalIPPools?.length ?? 0) > 0) errors.push(bad('spec.externalIPPools', spec.externalIPPools, 'set either externalIPPool or externalIPPools, not both'));
  (spec.egressIPs ?? []).forEach((ip, i) => {
    if (parsedIp(ip) === undefined) errors.push(bad(`spec.egressIPs[${i}]`, ip, 'not an IP address'));
  });
  const pools = spec.externalIPPools ?? [];
  if (pools.length > 0 && (spec.egressIPs?.length ?? 0) > pools.length) errors.push(bad('spec.egressIPs', spec.egressIPs, `names more IPs than spec.externalIPPools has pools (${pools.length})`));
  if (pools.length === 0 && (spec.egressIPs?.length ?? 0) > 0 && !hasPool) errors.push(bad('spec.egressIPs', spec.egressIPs, 'needs spec.externalIPPools: an Egress without a pool (manual mode) takes its one IP in spec.egressIP'));
  if (pools.length > 0 && new Set(pools).size !== pools.length) errors.push(bad('spec.externalIPPools', pools, 'names a pool twice'));
  if (spec.bandwidth !== undefined) {
    for (const f of ['rate', 'burst'] as const) {
      const v = spec.bandwidth[f];
      if (typeof v !== 'string' || !QUANTITY.test(v)) errors.push(bad(`spec.bandwidth.${f}`, v, 'must be a quantity such as 10M'));
    }
  }
  return errors;
}

/**
 * A dual-stack Egress takes one pool per family (`externalIPPools`, Antrea: one IPv4 and one IPv6
 * pool): a pool whose ranges are all of a family an earlier entry already gives is refused, naming
 * its field, its value and the earlier entry. A pool not stored (yet), or with ranges of both
 * families or none that parse, is not judged here (a missing pool has its own refusal).
 */
export function egressPoolFamilyErrors(eg: Egress, pools: Iterable<ExternalIPPool>): PolicyValidationError[] {
  const names = eg.spec?.externalIPPools ?? [];
  if (names.length < 2) return [];
  const byName = new Map<string, ExternalIPPool>();
  for (const p of pools) byName.set(p.metadata.name ?? '', p);
  const seen = new Map<4 | 6, number>();
  const errors: PolicyValidationError[] = [];
  names.forEach((name, i) => {
    const pool = byName.get(name);
    if (!pool) return;
    const families = new Set(poolRanges(pool.spec).ranges.map((r) => r.covers.first.family));
    if (families.size !== 1) return;
    const family = [...families][0]!;
    const first = seen.get(family);
    if (first === undefined) return void seen.set(family, i);
    errors.push(
      bad(
        `spec.externalIPPools[${i}]`,
        name,
        `ExternalIPPool ${name} is IPv${family}, as spec.externalIPPools[${first}] (${names[first] ?? ''}) is: a dual-stack Egress takes one IPv4 and one IPv6 pool`,
      ),
    );
  });
  return errors;
}

/** The IPs an Egress asks the allocator for: none when it names no pool (its IP, if any, is the user's to place). */
export function egressIPSlots(eg: Egress): EgressIPSlot[] {
  const name = eg.metadata.name ?? '';
  const spec = eg.spec ?? ({} as Egress['spec']);
  const single = (v: string | undefined): string | undefined => (v === undefined || v === '' ? undefined : v);
  const pool = single(spec.externalIPPool);
  if (pool !== undefined) {
    const ip = single(spec.egressIP);
    return [{ key: egressHolderKey(name), pool, ...(ip !== undefined ? { ip } : {}), poolField: 'spec.externalIPPool', ipField: 'spec.egressIP' }];
  }
  return (spec.externalIPPools ?? []).map((p, i) => {
    const ip = single(spec.egressIPs?.[i]);
    return { key: i === 0 ? egressHolderKey(name) : `${egressHolderKey(name)}#${i}`, pool: p, ...(ip !== undefined ? { ip } : {}), poolField: `spec.externalIPPools[${i}]`, ipField: `spec.egressIPs[${i}]` };
  });
}

const invalid = (field: string, value: unknown, why: string): string => `${field}: Invalid value: ${JSON.stringify(value)}: ${why}`;

/** The Warning (and the IPAllocated=False reason) for a refusal of one slot. */
export function egressRefusalNote(slot: EgressIPSlot, r: ExternalIPRefusal): EventNote {
  switch (r.reason) {
    case 'PoolNotFound':
      return { type: 'Warning', reason: 'ExternalIPPoolNotFound', message: invalid(slot.poolField, r.pool, `ExternalIPPool ${r.pool} not found; the Egress has no IP until it exists`) };
    case 'NotInPool':
      return {
        type: 'Warning',
        reason: 'EgressIPNotInPool',
        message: invalid(slot.ipField, r.ip.toString(), `not in ExternalIPPool ${r.pool} (${slot.poolField}); ${r.owner !== undefined ? `it belongs to ExternalIPPool ${r.owner}` : 'it is in no ExternalIPPool'}`),
      };
    case 'InUse':
      return { type: 'Warning', reason: 'EgressIPInUse', message: invalid(slot.ipField, r.ip.toString(), `already allocated to ${r.holders.map(holderName).join(', ')}; the Egress has no IP until it is released`) };
    case 'Exhausted':
      return { type: 'Warning', reason: 'ExternalIPPoolExhausted', message: invalid(slot.poolField, r.pool, `ExternalIPPool ${r.pool} has no free IP (${r.used} of ${r.total} in use); the Egress has no IP until one is released`) };
  }
}

/** The Warning of an Egress that fails {@link validateEgress}: every field error, in one Event. */
export function invalidEgressNote(errors: readonly PolicyValidationError[]): EventNote {
  return { type: 'Warning', reason: 'InvalidEgress', message: errors.map((e) => `${e.path}: Invalid value: ${JSON.stringify(e.value) ?? 'null'}: ${e.message.slice(e.path.length + 2)}`).join('; ') };
}

/**
 * What the controller says about an Egress without a pool (Antrea's manual mode: `spec.egressIP`
 * with no `externalIPPool`; the user puts the IP on one node's interface by hand and that node is
 * the egress node). Antrea's controller allocates nothing for it and sets no IPAllocated condition
 * (it removes one); so does this one, unless the IP cannot be used:
 * - `refusal`: the IP is held by a Service or an Egress of a pool (the allocator), or is the manual
 *   IP of an older Egress (creation time, then name): IPAllocated=False `EgressIPInUse` with the
 *   field and value, and the agents leave it out too.
 * - `note`: the IP lies in a pool's range. As in Antrea it stays a manual IP and is not taken from
 *   the pool (usage does not count it; the pool may still hand it to a Service or an Egress, which
 *   then wins): a Warning Event says so and names the pool to set.
 */
export interface ManualEgressDecision {
  ip: string;
  refusal?: EventNote;
  note?: EventNote;
}

/**
 * Decides every manual Egress at once, `egresses` oldest first (valid ones only). `holders`: the
 * allocator's holders of an IP (Service keys, `Egress/<name>`); `poolOf`: the pool whose range holds it.
 */
export function manualEgressDecisions(egresses: readonly Egress[], holders: (ip: Ip) => readonly string[], poolOf: (ip: Ip) => string | undefined): Map<string, ManualEgressDecision> {
  const out = new Map<string, ManualEgressDecision>();
  const firstOf = new Map<string, string>();
  for (const eg of egresses) {
    const spec = eg.spec ?? ({} as Egress['spec']);
    if ((spec.externalIPPool ?? '') !== '' || (spec.externalIPPools?.length ?? 0) > 0) continue;
    const ip = spec.egressIP;
    const parsedIP = parsedIp(ip);
    if (ip === undefined || parsedIP === undefined) continue;
    const name = eg.metadata.name ?? '';
    const key = parsedIP.toString();
    const held = holders(parsedIP);
    const older = firstOf.get(key);
    if (held.length > 0 || older !== undefined) {
      const who = held.length > 0 ? `already allocated to ${held.map(holderName).join(', ')}` : `already the IP of the older Egress ${older ?? ''} (also without a pool)`;
      out.set(name, { ip, refusal: { type: 'Warning', reason: 'EgressIPInUse', message: invalid('spec.egressIP', ip, `${who}; the Egress is not realized while it is`) } });
      continue;
    }
    firstOf.set(key, name);
    const pool = poolOf(parsedIP);
    out.set(name, {
      ip,
      ...(pool !== undefined
        ? { note: { type: 'Warning', reason: 'EgressIPInPoolRange', message: `spec.egressIP ${JSON.stringify(ip)} is in the range of ExternalIPPool ${pool} but spec.externalIPPool is not set: it is used as a manual IP (the node holding it as a local address is the egress node), not taken from the pool, which may still give it to a Service or another Egress; set spec.externalIPPool: ${pool} to have it allocated and placed` } }
        : {}),
    });
  }
  return out;
}

/** The Normal Event of an allocation. */
export function egressAllocatedNote(holdings: readonly ExternalIPHolding[]): EventNote {
  return { type: 'Normal', reason: 'EgressIPAllocated', message: holdings.map((h) => `egress IP ${h.ip.toString()} allocated from ExternalIPPool ${h.pool}`).join('; ') };
}
