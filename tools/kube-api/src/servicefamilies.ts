// A Service's IP families as kube-apiserver settles them: ipFamilyPolicy, ipFamilies and clusterIPs
// defaulted and checked against the families the cluster's service CIDRs have (pure: no allocation).

import type { FieldError } from './errors';
import { ipFamilyOf, type IPFamilyName } from './serviceips';

const POLICIES = ['PreferDualStack', 'RequireDualStack', 'SingleStack'] as const;
export type IPFamilyPolicy = (typeof POLICIES)[number];

/** The fields of a Service spec this file reads and writes. */
export interface FamilyFields {
  clusterIP?: string;
  clusterIPs?: string[];
  ipFamilies?: string[];
  ipFamilyPolicy?: string;
  selector?: Record<string, string>;
}

/** What the create or update settles on: families in order, the policy and the IPs asked for. */
export interface SettledFamilies {
  policy: IPFamilyPolicy;
  families: IPFamilyName[];
  /** The addresses the request names, by index of `families` (`None` for headless). */
  requested: string[];
}

const goList = (xs: readonly string[]): string => `[]string{${xs.map((x) => JSON.stringify(x)).join(', ')}}`;

function bad(field: string, value: string, why: string): FieldError {
  return { field, reason: 'FieldValueInvalid', detail: `Invalid value: ${value}: ${why}` };
}

/**
 * Settles a Service's families. `cluster` is the cluster's families, primary first; `old` the stored
 * spec on update. Returns the field errors kube-apiserver would answer with (422), or the result.
 * Leaves `input` alone: the caller writes the result into the object in the order it keeps.
 */
export function settleFamilies(input: FamilyFields, old: FamilyFields | undefined, cluster: readonly IPFamilyName[]): SettledFamilies | FieldError[] {
  const spec: FamilyFields = { ...input };
  const errs: FieldError[] = [];
  // v1 defaulting: clusterIP and clusterIPs[0] name the same address; two of either ask for dual-stack.
  if (spec.clusterIP && (!spec.clusterIPs || spec.clusterIPs.length === 0)) spec.clusterIPs = [spec.clusterIP];
  const ips = spec.clusterIPs ?? [];
  const fams = spec.ipFamilies ?? [];
  if (spec.ipFamilyPolicy === undefined) {
    if (ips.length === 2 || fams.length === 2) spec.ipFamilyPolicy = 'RequireDualStack';
    else if (old?.ipFamilyPolicy !== undefined) spec.ipFamilyPolicy = old.ipFamilyPolicy;
    else if (spec.clusterIP === 'None' && Object.keys(spec.selector ?? {}).length === 0) spec.ipFamilyPolicy = 'RequireDualStack';
    else spec.ipFamilyPolicy = 'SingleStack';
  }
  if (!(POLICIES as readonly string[]).includes(spec.ipFamilyPolicy)) {
    const policy = spec.ipFamilyPolicy;
    return [{ field: 'spec.ipFamilyPolicy', reason: 'FieldValueNotSupported', detail: `Unsupported value: ${JSON.stringify(policy)}: supported values: ${POLICIES.map((p) => `"${p}"`).join(', ')}` }];
  }
  const policy = spec.ipFamilyPolicy as IPFamilyPolicy;

  // Loose validation of the fields themselves (ValidateServiceClusterIPsRelatedFields).
  if (fams.length > 2) errs.push({ field: 'spec.ipFamilies', reason: 'FieldValueTooMany', detail: `Too many: ${fams.length}: must have at most 2 items` });
  fams.forEach((f, i) => {
    if (f !== 'IPv4' && f !== 'IPv6') errs.push({ field: `spec.ipFamilies[${i}]`, reason: 'FieldValueNotSupported', detail: `Unsupported value: ${JSON.stringify(f)}: supported values: "IPv4", "IPv6"` });
    else if (fams.indexOf(f) !== i) errs.push({ field: `spec.ipFamilies[${i}]`, reason: 'FieldValueDuplicate', detail: `Duplicate value: ${JSON.stringify(f)}` });
  });
  if (ips.length > 2) errs.push({ field: 'spec.clusterIPs', reason: 'FieldValueTooMany', detail: `Too many: ${ips.length}: must have at most 2 items` });
  if (spec.clusterIP && ips[0] !== spec.clusterIP) errs.push(bad('spec.clusterIPs[0]', goList(ips), 'must match `clusterIP`'));
  const headless = ips[0] === 'None';
  ips.forEach((ip, i) => {
    if (headless) {
      if (i > 0) errs.push(bad(`spec.clusterIPs[${i}]`, goList(ips), 'must not have more than one value when the first is "None"'));
      return;
    }
    const fam = ipFamilyOf(ip);
    if (fam === undefined) errs.push(bad(`spec.clusterIPs[${i}]`, JSON.stringify(ip), 'must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)'));
    else if (fams[i] !== undefined && fams[i] !== fam) errs.push(bad(`spec.clusterIPs[${i}]`, goList(ips), `expected an ${fams[i]} value as indicated by \`ipFamilies[${i}]\``));
    else if (i === 1 && ipFamilyOf(ips[0] ?? '') === fam) errs.push(bad('spec.clusterIPs[1]', goList(ips), 'may specify no more than one IP for each IP family'));
  });
  if (errs.length > 0) return errs;

  if (old) {
    const oldIps = old.clusterIPs ?? [];
    const oldFams = old.ipFamilies ?? [];
    const same = (a: readonly string[], b: readonly string[]): boolean => a.length === b.length && a.every((x, i) => x === b[i]);
    if (policy === 'SingleStack') {
      // Unchanged fields with a single-stack policy: the secondary is let go.
      if (same(ips, oldIps) && ips.length > 1) spec.clusterIPs = ips.slice(0, 1);
      if (same(fams, oldFams) && fams.length > 1) spec.ipFamilies = fams.slice(0, 1);
    } else {
      if (ips.length < oldIps.length && ips.length > 0) errs.push(bad('spec.ipFamilyPolicy', JSON.stringify(policy), "must be 'SingleStack' to release the secondary cluster IP"));
      if (fams.length < oldFams.length && fams.length > 0) errs.push(bad('spec.ipFamilyPolicy', JSON.stringify(policy), "must be 'SingleStack' to release the secondary IP family"));
    }
  }
  const ips2 = spec.clusterIPs ?? [];
  const fams2 = [...(spec.ipFamilies ?? [])] as IPFamilyName[];
  if (policy === 'SingleStack') {
    if (ips2.length === 2) errs.push(bad('spec.ipFamilyPolicy', JSON.stringify(policy), "must be 'RequireDualStack' or 'PreferDualStack' when multiple cluster IPs are specified"));
    if (fams2.length === 2) errs.push(bad('spec.ipFamilyPolicy', JSON.stringify(policy), "must be 'RequireDualStack' or 'PreferDualStack' when multiple IP families are specified"));
  }
  // Families inferred from the addresses asked for.
  ips2.forEach((ip, i) => {
    if (ip === 'None' || i < fams2.length) return;
    const fam = ipFamilyOf(ip) as IPFamilyName;
    if (!cluster.includes(fam)) errs.push(bad(`spec.clusterIPs[${i}]`, goList(ips2), `${fam} is not configured on this cluster`));
    else fams2.push(fam);
  });
  if (errs.length > 0) return errs;

  const other = (f: IPFamilyName): IPFamilyName => (f === 'IPv4' ? 'IPv6' : 'IPv4');
  if (headless && Object.keys(spec.selector ?? {}).length === 0) {
    // Headless without a selector may name families the cluster lacks (its endpoints are the user's).
    if (fams2.length === 0) fams2.push(cluster[0]!);
    if (fams2.length < 2 && policy !== 'SingleStack') fams2.push(other(fams2[0]!));
    return { policy, families: fams2, requested: ['None'] };
  }
  if (policy === 'RequireDualStack' && cluster.length < 2) errs.push(bad('spec.ipFamilyPolicy', JSON.stringify(policy), 'this cluster is not configured for dual-stack services'));
  fams2.forEach((f, i) => {
    if (!cluster.includes(f)) errs.push(bad(`spec.ipFamilies[${i}]`, JSON.stringify(f), 'not configured on this cluster'));
  });
  if (errs.length > 0) return errs;
  if (fams2.length === 0) fams2.push(cluster[0]!);
  if (policy !== 'SingleStack' && fams2.length === 1 && cluster.length === 2) fams2.push(other(fams2[0]!));
  if (old?.ipFamilies?.[0] !== undefined && old.ipFamilies[0] !== fams2[0] && (old.clusterIPs ?? []).length > 0) {
    return [bad('spec.ipFamilies[0]', JSON.stringify(fams2[0]), 'may not change once set')];
  }
  return { policy, families: fams2, requested: headless ? ['None'] : ips2 };
}
