// ExternalIPPool ranges and their admission checks (pure): which addresses a pool hands out, and
// why a pool is refused (malformed or mixed-family ranges, start after end, overlaps in the pool or
// with another pool, changed ranges), each naming the field and the value.
import type { ExternalIPPool, IPRange, LabelSelector } from '@switchyard/apis/types';
import { Cidr, CidrError, Ip, IpRange, parseCidr, parseIp } from '@switchyard/ipam/cidr';
import { PolicyValidationError, validateSelector } from '@switchyard/policy-compiler';

/** One range of a pool as it is handed out, with where it came from. */
export interface PoolRange {
  /** `spec.ipRanges[i]`. */
  path: string;
  /** The range as written: the CIDR, or `start-end` (Antrea's key for "the same range"). */
  text: string;
  /** Every address the range covers (for overlap checks). */
  covers: IpRange;
  /** The addresses handed out: a CIDR's network address is not, nor an IPv4 CIDR's broadcast address (Antrea's CIDR allocator); undefined when none is left. */
  usable: IpRange | undefined;
}

/** A pool's ranges: those that parse, and a field error for each that does not. */
export interface PoolRanges {
  ranges: PoolRange[];
  errors: PolicyValidationError[];
}

const bad = (path: string, value: unknown, why: string): PolicyValidationError => new PolicyValidationError('INVALID_CIDR', path, value, why);

function ipAt(value: unknown, path: string, errors: PolicyValidationError[]): Ip | undefined {
  if (typeof value !== 'string') {
    errors.push(bad(path, value, 'must be an IP address'));
    return undefined;
  }
  try {
    return parseIp(value);
  } catch {
    errors.push(bad(path, value, `invalid IP address: ${value}`));
    return undefined;
  }
}

/** The addresses a CIDR hands out: from its second address on, without an IPv4 broadcast address. */
function usableOf(c: Cidr): IpRange | undefined {
  const first = c.base + 1n;
  const last = c.family === 4 ? c.lastValue - 1n : c.lastValue;
  return first <= last ? new IpRange(new Ip(c.family, first), new Ip(c.family, last)) : undefined;
}

/** The text Antrea compares ranges by: the CIDR, or `start-end`. */
export function rangeText(r: IPRange): string {
  return r.cidr !== undefined && r.cidr !== '' ? r.cidr : `${r.start ?? ''}-${r.end ?? ''}`;
}

/** Parses `spec.ipRanges`; a range that does not parse is left out and reported. */
export function poolRanges(spec: Partial<ExternalIPPool['spec']> | undefined): PoolRanges {
  const errors: PolicyValidationError[] = [];
  const ranges: PoolRange[] = [];
  const list = spec?.ipRanges;
  if (list !== undefined && !Array.isArray(list)) return { ranges, errors: [new PolicyValidationError('MALFORMED', 'spec.ipRanges', list, 'must be a list of ranges')] };
  (list ?? []).forEach((r, i) => {
    const path = `spec.ipRanges[${i}]`;
    const hasCidr = r?.cidr !== undefined && r.cidr !== '';
    const hasPair = (r?.start !== undefined && r.start !== '') || (r?.end !== undefined && r.end !== '');
    if (hasCidr && hasPair) return void errors.push(bad(path, r, 'set either cidr, or start and end, not both'));
    if (hasCidr) {
      try {
        const c = parseCidr(r.cidr as string, { path: `${path}.cidr` });
        ranges.push({ path, text: r.cidr as string, covers: c.toRange(), usable: usableOf(c) });
      } catch (e) {
        errors.push(bad(`${path}.cidr`, r.cidr, e instanceof CidrError ? `invalid CIDR: ${String(r.cidr)}` : String(e)));
      }
      return;
    }
    if (!hasPair) return void errors.push(new PolicyValidationError('MISSING_FIELD', path, r, 'must set cidr, or start and end'));
    const s = ipAt(r.start, `${path}.start`, errors);
    const e = ipAt(r.end, `${path}.end`, errors);
    if (!s || !e) return;
    if (s.family !== e.family) return void errors.push(bad(`${path}.end`, r.end, `must be of the family of start ${String(r.start)} (IPv${s.family})`));
    if (s.value > e.value) return void errors.push(bad(`${path}.end`, r.end, `must not be below start ${String(r.start)}`));
    const covers = new IpRange(s, e);
    ranges.push({ path, text: rangeText(r), covers, usable: covers });
  });
  return { ranges, errors };
}

const overlaps = (a: IpRange, b: IpRange): boolean => a.family === b.family && a.first.value <= b.last.value && b.first.value <= a.last.value;

/** The pool's ranges against its subnet: one family, inside `gateway/prefixLength`. */
function checkSubnet(pool: ExternalIPPool, ranges: readonly PoolRange[], errors: PolicyValidationError[]): void {
  const info = pool.spec?.subnetInfo;
  if (info === undefined) return;
  const gateway = ipAt(info.gateway, 'spec.subnetInfo.gateway', errors);
  if (!gateway) return;
  // Antrea: 1..31 for IPv4, 1..127 for IPv6 (the subnet must hold more than the gateway).
  const max = gateway.family === 4 ? 31 : 127;
  const prefix = info.prefixLength;
  if (typeof prefix !== 'number' || !Number.isInteger(prefix) || prefix < 1 || prefix > max) return void errors.push(bad('spec.subnetInfo.prefixLength', prefix, `must be an integer in 1..${max} for an IPv${gateway.family} gateway`));
  const subnet = Cidr.of(gateway, prefix);
  const vlan = info.vlan;
  if (vlan !== undefined && (typeof vlan !== 'number' || !Number.isInteger(vlan) || vlan < 0 || vlan > 4094)) errors.push(bad('spec.subnetInfo.vlan', vlan, 'must be an integer in 0..4094 (0: untagged)'));
  // The gateway is a host of the subnet: neither its network address nor (IPv4) its broadcast address.
  const hostRange = usableOf(subnet);
  if (!hostRange || gateway.value < hostRange.first.value || gateway.value > hostRange.last.value) errors.push(bad('spec.subnetInfo.gateway', info.gateway, `must be a host address of the subnet ${subnet.toString()}, not its network${gateway.family === 4 ? ' or broadcast' : ''} address`));
  for (const r of ranges) {
    if (r.covers.family !== gateway.family) errors.push(bad(r.path, r.text, `is IPv${r.covers.family}, the subnet's gateway ${info.gateway} is IPv${gateway.family}`));
    else if (!subnet.contains(r.covers.first) || !subnet.contains(r.covers.last)) errors.push(bad(r.path, r.text, `must lie inside the subnet ${subnet.toString()} (spec.subnetInfo)`));
    // The pool would hand the gateway out as an Egress IP.
    else if (r.usable && gateway.value >= r.usable.first.value && gateway.value <= r.usable.last.value) errors.push(bad(r.path, r.text, `holds the subnet's gateway ${info.gateway} (spec.subnetInfo.gateway), which would be handed out as an Egress IP`));
  }
}

/** The `spec.subnetInfo` checks of {@link validateExternalIPPool} alone (what the Egress part reports on the Egresses of a pool stored without admission). */
export function subnetInfoErrors(pool: ExternalIPPool): PolicyValidationError[] {
  const errors: PolicyValidationError[] = [];
  checkSubnet(pool, poolRanges(pool.spec).ranges, errors);
  return errors;
}

/**
 * Admission checks of an ExternalIPPool (Antrea's `ValidateExternalIPPool`): every range a CIDR
 * or a start/end pair of one family with start <= end, inside `subnetInfo` when set (whose gateway is a
 * host of the subnet and in no range, whose `vlan` is 0..4094, and which never changes); no two ranges
 * of the pool overlapping, none overlapping a range of another pool (`others`, the pools stored
 * now); `nodeSelector` a valid label selector; on update (`old`), existing ranges kept as they were.
 * IPv4 and IPv6 ranges may sit in one pool (a dual-stack pool), as in Antrea.
 */
export function validateExternalIPPool(pool: ExternalIPPool, others: Iterable<ExternalIPPool>, old?: ExternalIPPool): PolicyValidationError[] {
  const { ranges, errors } = poolRanges(pool.spec);
  if (pool.spec?.ipRanges === undefined) errors.push(new PolicyValidationError('MISSING_FIELD', 'spec.ipRanges', undefined, 'required'));
  checkSubnet(pool, ranges, errors);
  errors.push(...validateSelector(pool.spec?.nodeSelector as LabelSelector | undefined, 'spec.nodeSelector'));
  ranges.forEach((r, i) => {
    const prev = ranges.slice(0, i).find((o) => overlaps(o.covers, r.covers));
    if (prev) errors.push(bad(r.path, r.text, `overlaps ${prev.path} (${prev.text}) of this pool`));
  });
  const name = pool.metadata.name ?? '';
  for (const other of others) {
    if ((other.metadata.name ?? '') === name) continue;
    const theirs = poolRanges(other.spec).ranges;
    for (const r of ranges) {
      const hit = theirs.find((o) => overlaps(o.covers, r.covers));
      if (hit) errors.push(bad(r.path, r.text, `overlaps range ${hit.text} of ExternalIPPool ${other.metadata.name ?? ''}`));
    }
  }
  if (old) {
    // The nodes route the pool's IPs through its subnet: another subnet would strand the IPs in use.
    if (JSON.stringify(old.spec?.subnetInfo ?? null) !== JSON.stringify(pool.spec?.subnetInfo ?? null)) errors.push(bad('spec.subnetInfo', pool.spec?.subnetInfo ?? null, `cannot be changed (was ${JSON.stringify(old.spec?.subnetInfo ?? null)})`));
    const kept = new Set((Array.isArray(pool.spec?.ipRanges) ? pool.spec.ipRanges : []).map(rangeText));
    (Array.isArray(old.spec?.ipRanges) ? old.spec.ipRanges : []).forEach((r, i) => {
      if (!kept.has(rangeText(r))) errors.push(bad(`spec.ipRanges[${i}]`, rangeText(r), 'existing ranges cannot be updated or deleted'));
    });
  }
  return errors;
}
