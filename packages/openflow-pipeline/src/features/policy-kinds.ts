/**
 * The object kinds of the NetworkPolicy feature: policies, their rules (each with its policy),
 * address and applied-to groups (compared member by member) and the addresses learned per FQDN
 * pattern.
 */
import { sameValue } from '../identity';
import { defineKind, type MemberGroup, type PolicyRule } from '../objects';
import type { GroupMember, NetworkPolicy } from '../state';

/** Policies, by uid (their K8s default drops). */
export const policyKind = defineKind({ name: 'policy', enumerate: (s) => s.policies.map((p) => [p.uid, p] as const) });

/** A policy's fields other than its rules (and its generation, which no flow depends on). */
function samePolicyHeader(a: NetworkPolicy, b: NetworkPolicy): boolean {
  if (a === b) return true;
  for (const k of new Set([...Object.keys(a), ...Object.keys(b)])) {
    if (k === 'rules' || k === 'generation') continue;
    if (!sameValue((a as unknown as Record<string, unknown>)[k], (b as unknown as Record<string, unknown>)[k])) return false;
  }
  return true;
}

/**
 * The last header comparison per new policy object: every rule of a policy compares the same
 * two policy objects, so the header is compared once per pair (a policy of 1,000 rules, once).
 */
const HEADERS = new WeakMap<NetworkPolicy, { before: NetworkPolicy; same: boolean }>();

function sameHeaderCached(a: NetworkPolicy, b: NetworkPolicy): boolean {
  if (a === b) return true;
  const hit = HEADERS.get(b);
  if (hit && hit.before === a) return hit.same;
  const same = samePolicyHeader(a, b);
  HEADERS.set(b, { before: a, same });
  return same;
}

/** Rules, by `<uid>/<index>`: a rule is unchanged when it and its policy's other fields are. */
export const policyRuleKind = defineKind({
  name: 'policyRule',
  enumerate: (s) => s.policies.flatMap((policy) => policy.rules.map((rule, index) => [`${policy.uid}/${index}`, { policy, index, rule }] as const)),
  same: (a: PolicyRule, b: PolicyRule) => (a.rule === b.rule || sameValue(a.rule, b.rule)) && sameHeaderCached(a.policy, b.policy),
});

/** Elementwise: the same member objects (or equal ones) in the same order. */
function sameMembers(a: MemberGroup, b: MemberGroup): boolean {
  const x: readonly GroupMember[] = a.groupMembers;
  const y: readonly GroupMember[] = b.groupMembers;
  if (x === y) return true;
  if (x.length !== y.length) return false;
  for (let i = 0; i < x.length; i++) if (x[i] !== y[i] && !sameValue(x[i], y[i])) return false;
  return true;
}

/** Address groups, by name, compared member by member. */
export const addressGroupKind = defineKind({ name: 'addressGroup', enumerate: (s) => s.addressGroups.map((g) => [g.name, g] as const), same: sameMembers });

/** Applied-to groups, by name, compared member by member. */
export const appliedToGroupKind = defineKind({ name: 'appliedToGroup', enumerate: (s) => s.appliedToGroups.map((g) => [g.name, g] as const), same: sameMembers });

/** Addresses learned for each FQDN pattern, by the pattern. */
export const fqdnAddressesKind = defineKind({ name: 'fqdnAddresses', enumerate: (s) => Object.entries(s.fqdn?.addresses ?? {}) });
