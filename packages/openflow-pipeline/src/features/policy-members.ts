/**
 * What a policy rule reads of the node: the members of its groups, the local pods among them,
 * and the numbers its named ports resolve to. All reads go through a {@link PolicyReader} (a
 * FlowContext in the pipeline, so they count as the policy's dependencies).
 */
import type { FlowContext } from '../feature';
import type { GroupMember, LocalPod, NetworkPolicy, NetworkPolicyRule, PolicyService as Service, ServicePortSpec } from '../state';
import { ruleKey } from './policy-priorities';

/** The reads a policy's flows depend on. */
export type PolicyReader = Pick<FlowContext, 'podByIp' | 'addressGroup' | 'appliedToGroup' | 'fqdnAddresses' | 'servicePorts' | 'conjunctionId' | 'shared'>;

/** Members of the groups a rule applies to (the rule's own, else the policy's). */
export function appliedMembers(rd: PolicyReader, np: NetworkPolicy, r: NetworkPolicyRule): readonly GroupMember[] {
  const names = r.appliedToGroups && r.appliedToGroups.length ? r.appliedToGroups : np.appliedToGroups;
  // One group (the usual case): its own list, not a copy (members are read, never edited).
  if (names.length === 1) return rd.appliedToGroup(names[0]!) ?? [];
  return names.flatMap((n) => rd.appliedToGroup(n) ?? []);
}

/**
 * Where a rule's named ports are resolved: ingress on its applied-to members (the destination),
 * egress on the members of its `to` address groups (the destinations; the compiler gives a
 * peer-less egress rule with a named port an all-pods group for this, as Antrea does).
 */
export function namedPortMembers(rd: PolicyReader, np: NetworkPolicy, r: NetworkPolicyRule): readonly GroupMember[] {
  if (r.direction === 'In') return appliedMembers(rd, np, r);
  return r.to.addressGroups.flatMap((g) => rd.addressGroup(g) ?? []);
}

/** The port a member declares under a named service port (its own ports, else its local pod's). */
export function resolveNamedPort(m: GroupMember, s: Service, rd: PolicyReader): number | undefined {
  const named = [...(m.ports ?? []), ...m.ips.flatMap((ip) => rd.podByIp(ip)?.namedPorts ?? [])];
  return named.find((np) => np.name === s.port && np.protocol === s.protocol)?.port;
}

/** Distinct port numbers the named ports of a rule resolve to on its destination members. */
export function namedPortNumbers(rd: PolicyReader, r: NetworkPolicyRule, members: readonly GroupMember[]): number[] {
  const names = r.services.filter((s) => typeof s.port === 'string');
  if (!names.length) return [];
  const ports = new Set<number>();
  for (const m of members) for (const n of names) {
    const p = resolveNamedPort(m, n, rd);
    if (p !== undefined) ports.add(p);
  }
  return [...ports].sort((a, b) => a - b);
}

/** The local pods among members (each once, by ofport). */
export function localPodsOf(rd: PolicyReader, members: readonly GroupMember[]): LocalPod[] {
  // A node has few local pods: a list searched by ofport (a later pod of the same port takes the
  // earlier one's place, as a Map keyed by ofport would) instead of a Map and its copy per rule.
  const out: LocalPod[] = [];
  for (let i = 0; i < members.length; i++) {
    const ips = members[i]!.ips;
    for (let k = 0; k < ips.length; k++) {
      const pod = rd.podByIp(ips[k]!);
      if (!pod) continue;
      let j = 0;
      while (j < out.length && out[j]!.ofport !== pod.ofport) j++;
      out[j] = pod;
    }
  }
  return out;
}

/** Plain inputs of the NetworkPolicy computation (without conjunction ids). */
export interface PolicyInputs {
  policies: readonly NetworkPolicy[];
  addressGroups: readonly { name: string; groupMembers: readonly GroupMember[] }[];
  appliedToGroups: readonly { name: string; groupMembers: readonly GroupMember[] }[];
  pods: readonly LocalPod[];
  /** Addresses resolved for FQDN peers, by the FQDN as written in the rule. */
  fqdnAddresses?: Record<string, string[]>;
  /** The node's Service ports (their `service` names them for `toServices` peers). */
  services?: readonly ServicePortSpec[];
}

/** A reader over plain inputs; conjunction ids come from `conjIds`, shared values from `shared`. */
export function inputReader(input: PolicyInputs, conjIds: (key: string) => number, shared: ReadonlyMap<string, number> = new Map()): PolicyReader {
  const addr = new Map(input.addressGroups.map((g) => [g.name, g.groupMembers]));
  const applied = new Map(input.appliedToGroups.map((g) => [g.name, g.groupMembers]));
  const podsByIp = new Map<string, LocalPod>();
  for (const p of input.pods) for (const ip of p.ips) podsByIp.set(ip, p);
  const fqdn = input.fqdnAddresses ?? {};
  const servicePorts = new Map<string, ServicePortSpec[]>();
  for (const s of input.services ?? []) if (s.service !== undefined) servicePorts.set(s.service, [...(servicePorts.get(s.service) ?? []), s]);
  return {
    podByIp: (ip) => podsByIp.get(ip),
    addressGroup: (n) => addr.get(n),
    appliedToGroup: (n) => applied.get(n),
    fqdnAddresses: (f) => fqdn[f],
    servicePorts: (ref) => servicePorts.get(ref) ?? [],
    conjunctionId: conjIds,
    shared: (k) => shared.get(k),
  };
}

/** Every rule key (and named-port sub-rule key) the input needs a conj id for. */
export function policyRuleKeys(input: PolicyInputs): string[] {
  const rd = inputReader(input, () => 0);
  const keys: string[] = [];
  for (const np of input.policies) {
    np.rules.forEach((r, i) => {
      const k = ruleKey(np.uid, i);
      keys.push(k);
      for (const port of namedPortNumbers(rd, r, namedPortMembers(rd, np, r))) keys.push(`${k}:${port}`);
    });
  }
  return keys;
}
