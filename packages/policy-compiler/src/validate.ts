// Semantic validation of input objects with API-server-style field paths.
import type {
  AdminNetworkPolicy,
  AntreaIPBlock,
  AntreaNetworkPolicyPeer,
  AntreaNetworkPolicySpec,
  AppliedTo,
  BaselineAdminNetworkPolicy,
  GroupSpec,
  K8sNetworkPolicy,
  NetworkPolicyPeer,
  Tier,
  AdminNetworkPolicyPort,
  IntOrString,
} from '@switchyard/apis/types';
import { CidrError, parseCidr, type Cidr } from '@switchyard/ipam/cidr';
import { PolicyValidationError as E } from './errors';
import { validateSelector } from './selector';

/** Priorities of the static Antrea tiers. */
export const STATIC_TIERS: Readonly<Record<string, number>> = {
  emergency: 50,
  securityops: 100,
  networkops: 150,
  platform: 200,
  application: 250,
  baseline: 253,
};
/** Tier of Antrea-native policies that name none. */
export const DEFAULT_TIER = 'application';
/** Baseline tier priority: evaluated after K8s NetworkPolicy. */
export const BASELINE_TIER_PRIORITY = 253;
/** Pseudo tier of AdminNetworkPolicy (Antrea: after the application tier, before K8s NP). */
export const ANP_TIER_PRIORITY = 251;
/** Pseudo tier of BaselineAdminNetworkPolicy (Antrea: after the baseline tier). */
export const BANP_TIER_PRIORITY = 254;

/** What validation needs to know about the rest of the cluster. */
export interface ValidationContext {
  /** Priority of a tier by name, static or custom; undefined when unknown. */
  tierPriority(name: string): number | undefined;
  /** Name of another tier already using the priority, if any. */
  tierWithPriority(priority: number): string | undefined;
  /** Children of a ClusterGroup (or Group in `namespace`) currently known. */
  childGroups(namespace: string | undefined, name: string): readonly string[] | undefined;
}

/** Parses a CIDR, reporting a validation error at `path` instead of throwing. */
export function checkCidr(text: unknown, path: string, errs: E[]): Cidr | undefined {
  if (typeof text !== 'string') {
    errs.push(new E('INVALID_CIDR', path, text, 'must be a CIDR string'));
    return undefined;
  }
  try {
    return parseCidr(text, { path });
  } catch (e) {
    errs.push(new E('INVALID_CIDR', path, text, e instanceof CidrError ? `invalid CIDR address: ${text}` : String(e)));
    return undefined;
  }
}

/** `IPv4` / `IPv6`, as Kubernetes names families (`ipFamilies`). */
function familyName(c: Cidr): string {
  return `IPv${c.family}`;
}

function checkIpBlock(b: AntreaIPBlock, path: string, errs: E[]): void {
  const cidr = checkCidr(b.cidr, `${path}.cidr`, errs);
  (b.except ?? []).forEach((x, i) => {
    const ex = checkCidr(x, `${path}.except[${i}]`, errs);
    if (!cidr || !ex) return;
    // An except of the other family can never be inside the cidr: say so rather than "outside".
    if (ex.family !== cidr.family) {
      errs.push(new E('IP_FAMILY_MISMATCH', `${path}.except[${i}]`, x, `${x} is ${familyName(ex)} but cidr ${b.cidr} is ${familyName(cidr)}: an except must be of the cidr's family`));
    } else if (!cidr.contains(ex)) {
      errs.push(new E('EXCEPT_OUTSIDE_CIDR', `${path}.except[${i}]`, x, `must be a strict subset of ${b.cidr}`));
    }
  });
}

function checkPort(p: { port?: IntOrString; endPort?: number; sourcePort?: number; sourceEndPort?: number; protocol?: string }, path: string, errs: E[], protocols: readonly string[]): void {
  if (p.protocol !== undefined && !protocols.includes(p.protocol)) {
    errs.push(new E('INVALID_PORT', `${path}.protocol`, p.protocol, `must be one of ${protocols.join(', ')}`));
  }
  if (typeof p.port === 'number') {
    if (!Number.isInteger(p.port) || p.port < 1 || p.port > 65535) errs.push(new E('INVALID_PORT', `${path}.port`, p.port, 'must be between 1 and 65535, inclusive'));
  } else if (typeof p.port === 'string') {
    if (!/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(p.port) || p.port.length > 15 || !/[a-z]/.test(p.port)) {
      errs.push(new E('INVALID_PORT', `${path}.port`, p.port, 'must be a valid port name (IANA_SVC_NAME)'));
    }
  }
  if (p.endPort !== undefined) {
    if (p.port === undefined) errs.push(new E('END_PORT_WITHOUT_PORT', `${path}.endPort`, p.endPort, 'may not be specified when `port` is not specified'));
    else if (typeof p.port === 'string') errs.push(new E('NAMED_PORT_WITH_END_PORT', `${path}.endPort`, p.endPort, 'may not be specified when `port` is a named port'));
    else if (p.endPort < p.port) errs.push(new E('END_PORT_BELOW_PORT', `${path}.endPort`, p.endPort, 'must be greater than or equal to `port`'));
    if (!Number.isInteger(p.endPort) || p.endPort < 1 || p.endPort > 65535) errs.push(new E('INVALID_PORT', `${path}.endPort`, p.endPort, 'must be between 1 and 65535, inclusive'));
  }
  if (p.sourceEndPort !== undefined) {
    if (p.sourcePort === undefined) errs.push(new E('END_PORT_WITHOUT_PORT', `${path}.sourceEndPort`, p.sourceEndPort, 'may not be specified when `sourcePort` is not specified'));
    else if (p.sourceEndPort < p.sourcePort) errs.push(new E('END_PORT_BELOW_PORT', `${path}.sourceEndPort`, p.sourceEndPort, 'must be greater than or equal to `sourcePort`'));
  }
  if (p.sourcePort !== undefined && (!Number.isInteger(p.sourcePort) || p.sourcePort < 1 || p.sourcePort > 65535)) {
    errs.push(new E('INVALID_PORT', `${path}.sourcePort`, p.sourcePort, 'must be between 1 and 65535, inclusive'));
  }
}

function checkK8sPeer(peer: NetworkPolicyPeer, path: string, errs: E[]): void {
  const n = (peer.podSelector ? 1 : 0) + (peer.namespaceSelector ? 1 : 0);
  if (peer.ipBlock && n > 0) errs.push(new E('INVALID_PEER', path, peer, 'may not specify both ipBlock and another peer'));
  if (!peer.ipBlock && n === 0) errs.push(new E('INVALID_PEER', path, peer, 'must specify a peer'));
  errs.push(...validateSelector(peer.podSelector, `${path}.podSelector`));
  errs.push(...validateSelector(peer.namespaceSelector, `${path}.namespaceSelector`));
  if (peer.ipBlock) checkIpBlock(peer.ipBlock, `${path}.ipBlock`, errs);
}

/** Validates a networking.k8s.io/v1 NetworkPolicy. */
export function validateK8sNetworkPolicy(np: K8sNetworkPolicy): E[] {
  const errs: E[] = [];
  if (!np.spec || typeof np.spec !== 'object') return [new E('MISSING_FIELD', 'spec', np.spec, 'Required value')];
  errs.push(...validateSelector(np.spec.podSelector, 'spec.podSelector'));
  (np.spec.policyTypes ?? []).forEach((t, i) => {
    if (t !== 'Ingress' && t !== 'Egress') errs.push(new E('MISSING_FIELD', `spec.policyTypes[${i}]`, t, 'must be Ingress or Egress'));
  });
  const protos = ['TCP', 'UDP', 'SCTP'];
  (np.spec.ingress ?? []).forEach((r, i) => {
    (r.from ?? []).forEach((p, j) => checkK8sPeer(p, `spec.ingress[${i}].from[${j}]`, errs));
    (r.ports ?? []).forEach((p, j) => checkPort(p, `spec.ingress[${i}].ports[${j}]`, errs, protos));
  });
  (np.spec.egress ?? []).forEach((r, i) => {
    (r.to ?? []).forEach((p, j) => checkK8sPeer(p, `spec.egress[${i}].to[${j}]`, errs));
    (r.ports ?? []).forEach((p, j) => checkPort(p, `spec.egress[${i}].ports[${j}]`, errs, protos));
  });
  return errs;
}

function checkAppliedTo(a: AppliedTo, path: string, errs: E[], clusterScoped: boolean): void {
  const families = [a.podSelector || a.namespaceSelector ? 1 : 0, a.externalEntitySelector ? 1 : 0, a.nodeSelector ? 1 : 0, a.group ? 1 : 0, a.serviceAccount ? 1 : 0, a.service ? 1 : 0].reduce((x, y) => x + y, 0);
  if (families !== 1 && !(a.externalEntitySelector && a.namespaceSelector && !a.podSelector && families === 2)) {
    errs.push(new E('INVALID_APPLIED_TO', path, a, 'must set exactly one of podSelector/namespaceSelector, externalEntitySelector, nodeSelector, group, serviceAccount, service'));
  }
  if (!clusterScoped && a.namespaceSelector) errs.push(new E('INVALID_APPLIED_TO', `${path}.namespaceSelector`, a.namespaceSelector, 'not allowed in a namespaced policy'));
  for (const k of ['podSelector', 'namespaceSelector', 'externalEntitySelector', 'nodeSelector'] as const) errs.push(...validateSelector(a[k], `${path}.${k}`));
}

function checkAntreaPeer(p: AntreaNetworkPolicyPeer, path: string, errs: E[], egress: boolean): void {
  for (const k of ['podSelector', 'namespaceSelector', 'externalEntitySelector', 'nodeSelector'] as const) errs.push(...validateSelector(p[k], `${path}.${k}`));
  if (p.ipBlock) {
    checkIpBlock(p.ipBlock, `${path}.ipBlock`, errs);
    if (p.podSelector || p.namespaceSelector || p.group || p.namespaces || p.externalEntitySelector || p.nodeSelector || p.serviceAccount || p.fqdn) {
      errs.push(new E('INVALID_PEER', path, p, 'ipBlock may not be combined with other peer fields'));
    }
  }
  if (p.group && (p.podSelector || p.namespaceSelector || p.namespaces || p.externalEntitySelector || p.nodeSelector || p.serviceAccount)) {
    errs.push(new E('INVALID_PEER', `${path}.group`, p.group, 'group may not be combined with selectors'));
  }
  if (p.namespaces && p.namespaceSelector) errs.push(new E('INVALID_PEER', `${path}.namespaces`, p.namespaces, 'namespaces and namespaceSelector are mutually exclusive'));
  if (p.namespaces && p.namespaces.match !== undefined && p.namespaces.match !== 'Self') errs.push(new E('INVALID_PEER', `${path}.namespaces.match`, p.namespaces.match, 'must be Self'));
  if (p.namespaces?.match && p.namespaces.sameLabels) errs.push(new E('INVALID_PEER', `${path}.namespaces`, p.namespaces, 'match and sameLabels are mutually exclusive'));
  if (p.fqdn !== undefined && !egress) errs.push(new E('INVALID_PEER', `${path}.fqdn`, p.fqdn, 'fqdn is only allowed in egress rules'));
}

/** Validates an Antrea ClusterNetworkPolicy (`clusterScoped`) or NetworkPolicy. */
export function validateAntreaPolicy(spec: AntreaNetworkPolicySpec, clusterScoped: boolean, ctx: ValidationContext): E[] {
  const errs: E[] = [];
  if (!spec || typeof spec !== 'object') return [new E('MISSING_FIELD', 'spec', spec, 'Required value')];
  if (typeof spec.priority !== 'number' || !(spec.priority >= 1 && spec.priority <= 10000)) {
    errs.push(new E('INVALID_PRIORITY', 'spec.priority', spec.priority, 'must be between 1 and 10000'));
  }
  const tier = (spec.tier ?? DEFAULT_TIER).toLowerCase();
  const tierPriority = ctx.tierPriority(tier);
  if (tierPriority === undefined) errs.push(new E('UNKNOWN_TIER', 'spec.tier', spec.tier, `tier ${spec.tier} does not exist`));
  const policyAppliedTo = (spec.appliedTo ?? []).length > 0;
  (spec.appliedTo ?? []).forEach((a, i) => checkAppliedTo(a, `spec.appliedTo[${i}]`, errs, clusterScoped));
  const names = new Map<string, string>();
  for (const dir of ['ingress', 'egress'] as const) {
    (spec[dir] ?? []).forEach((r, i) => {
      const path = `spec.${dir}[${i}]`;
      const action = r.action ?? 'Allow';
      if (!['Allow', 'Drop', 'Reject', 'Pass'].includes(action)) errs.push(new E('INVALID_ACTION', `${path}.action`, r.action, 'must be Allow, Drop, Reject or Pass'));
      if (action === 'Pass' && tierPriority === BASELINE_TIER_PRIORITY) errs.push(new E('PASS_IN_BASELINE', `${path}.action`, r.action, 'Pass is not allowed in the baseline tier'));
      if (r.name !== undefined) {
        const prev = names.get(r.name);
        if (prev !== undefined) errs.push(new E('DUPLICATE_RULE_NAME', `${path}.name`, r.name, `duplicate rule name (also ${prev})`));
        else names.set(r.name, path);
      }
      const ruleAppliedTo = (r.appliedTo ?? []).length > 0;
      if (ruleAppliedTo && policyAppliedTo) errs.push(new E('INVALID_APPLIED_TO', `${path}.appliedTo`, r.appliedTo, 'appliedTo may be set in spec or in rules, not both'));
      if (!ruleAppliedTo && !policyAppliedTo) errs.push(new E('INVALID_APPLIED_TO', `${path}.appliedTo`, undefined, 'appliedTo must be set in spec or in every rule'));
      (r.appliedTo ?? []).forEach((a, j) => checkAppliedTo(a, `${path}.appliedTo[${j}]`, errs, clusterScoped));
      const peers = dir === 'ingress' ? r.from : r.to;
      (peers ?? []).forEach((p, j) => checkAntreaPeer(p, `${path}.${dir === 'ingress' ? 'from' : 'to'}[${j}]`, errs, dir === 'egress'));
      (r.ports ?? []).forEach((p, j) => checkPort(p, `${path}.ports[${j}]`, errs, ['TCP', 'UDP', 'SCTP']));
      if (r.toServices && dir === 'ingress') errs.push(new E('INVALID_PEER', `${path}.toServices`, r.toServices, 'toServices is only allowed in egress rules'));
    });
  }
  return errs;
}

/** Validates a Tier against the others (priority range, collisions). Static tier names are reserved. */
export function validateTier(t: Tier, ctx: ValidationContext): E[] {
  const errs: E[] = [];
  const name = t.metadata.name ?? '';
  const p = t.spec?.priority;
  if (STATIC_TIERS[name] !== undefined && STATIC_TIERS[name] !== p) errs.push(new E('INVALID_TIER_PRIORITY', 'spec.priority', p, `static tier ${name} has priority ${STATIC_TIERS[name]}`));
  else if (STATIC_TIERS[name] === undefined) {
    if (typeof p !== 'number' || !Number.isInteger(p) || p < 0 || p >= DEFAULT_TIER_PRIORITY_LIMIT) {
      errs.push(new E('INVALID_TIER_PRIORITY', 'spec.priority', p, 'custom tier priority must be an integer in 0..249 (250 and above are reserved for the application and baseline tiers)'));
    } else {
      const other = ctx.tierWithPriority(p);
      if (other !== undefined && other !== name) errs.push(new E('DUPLICATE_TIER_PRIORITY', 'spec.priority', p, `priority ${p} is already used by tier ${other}`));
    }
  }
  return errs;
}
const DEFAULT_TIER_PRIORITY_LIMIT = 250;

/** Validates a ClusterGroup / Group spec, including cycles through childGroups. */
export function validateGroup(spec: GroupSpec, namespace: string | undefined, name: string, ctx: ValidationContext): E[] {
  const errs: E[] = [];
  if (!spec || typeof spec !== 'object') return [new E('MISSING_FIELD', 'spec', spec, 'Required value')];
  for (const k of ['podSelector', 'namespaceSelector', 'externalEntitySelector', 'nodeSelector'] as const) errs.push(...validateSelector(spec[k], `spec.${k}`));
  (spec.ipBlocks ?? []).forEach((b, i) => checkIpBlock(b, `spec.ipBlocks[${i}]`, errs));
  const kinds = [spec.podSelector || spec.namespaceSelector || spec.externalEntitySelector || spec.nodeSelector ? 1 : 0, spec.ipBlocks?.length ? 1 : 0, spec.serviceReference ? 1 : 0, spec.childGroups?.length ? 1 : 0];
  if (kinds.reduce((a, b) => a + b, 0) > 1) errs.push(new E('INVALID_PEER', 'spec', spec, 'only one of selectors, ipBlocks, serviceReference, childGroups may be set'));
  (spec.childGroups ?? []).forEach((child, i) => {
    // Walk the children graph from the child: reaching `name` again means a cycle.
    const seen = new Set<string>();
    const stack = [child];
    while (stack.length > 0) {
      const g = stack.pop() as string;
      if (g === name) {
        errs.push(new E('CYCLIC_GROUP', `spec.childGroups[${i}]`, child, `childGroups form a cycle through ${name}`));
        return;
      }
      if (seen.has(g)) continue;
      seen.add(g);
      stack.push(...(ctx.childGroups(namespace, g) ?? []));
    }
  });
  return errs;
}

function checkAnpPort(p: AdminNetworkPolicyPort, path: string, errs: E[]): void {
  const n = (p.portNumber ? 1 : 0) + (p.namedPort !== undefined ? 1 : 0) + (p.portRange ? 1 : 0);
  if (n !== 1) errs.push(new E('INVALID_PORT', path, p, 'exactly one of portNumber, namedPort, portRange must be set'));
  if (p.portNumber) checkPort({ port: p.portNumber.port, protocol: p.portNumber.protocol }, `${path}.portNumber`, errs, ['TCP', 'UDP', 'SCTP']);
  if (p.portRange) {
    const r = p.portRange;
    if (r.end < r.start) errs.push(new E('END_PORT_BELOW_PORT', `${path}.portRange.end`, r.end, 'must be greater than or equal to start'));
    checkPort({ port: r.start, endPort: r.end, ...(r.protocol ? { protocol: r.protocol } : {}) }, `${path}.portRange`, errs, ['TCP', 'UDP', 'SCTP']);
  }
}

/** Validates an AdminNetworkPolicy or BaselineAdminNetworkPolicy. */
export function validateAdminPolicy(p: AdminNetworkPolicy | BaselineAdminNetworkPolicy, baseline: boolean): E[] {
  const errs: E[] = [];
  if (!p.spec || typeof p.spec !== 'object') return [new E('MISSING_FIELD', 'spec', p.spec, 'Required value')];
  if (baseline && p.metadata.name !== 'default') errs.push(new E('INVALID_NAME', 'metadata.name', p.metadata.name, 'BaselineAdminNetworkPolicy must be named default'));
  if (!baseline) {
    const pr = (p as AdminNetworkPolicy).spec.priority;
    if (typeof pr !== 'number' || !Number.isInteger(pr) || pr < 0 || pr > 1000) errs.push(new E('INVALID_PRIORITY', 'spec.priority', pr, 'must be an integer between 0 and 1000'));
  }
  const s = p.spec.subject;
  if (!s || (s.namespaces ? 1 : 0) + (s.pods ? 1 : 0) !== 1) errs.push(new E('MISSING_FIELD', 'spec.subject', s, 'exactly one of namespaces or pods must be set'));
  errs.push(...validateSelector(s?.namespaces, 'spec.subject.namespaces'));
  errs.push(...validateSelector(s?.pods?.namespaceSelector, 'spec.subject.pods.namespaceSelector'));
  errs.push(...validateSelector(s?.pods?.podSelector, 'spec.subject.pods.podSelector'));
  const actions = baseline ? ['Allow', 'Deny'] : ['Allow', 'Deny', 'Pass'];
  const names = new Map<string, string>();
  for (const dir of ['ingress', 'egress'] as const) {
    const rules = (p.spec[dir] ?? []) as { name?: string; action: string; from?: unknown[]; to?: unknown[]; ports?: AdminNetworkPolicyPort[] }[];
    if (rules.length > 100) errs.push(new E('INVALID_PEER', `spec.${dir}`, rules.length, 'at most 100 rules'));
    rules.forEach((r, i) => {
      const path = `spec.${dir}[${i}]`;
      if (!actions.includes(r.action)) errs.push(new E(r.action === 'Pass' ? 'PASS_IN_BASELINE' : 'INVALID_ACTION', `${path}.action`, r.action, `must be one of ${actions.join(', ')}`));
      if (r.name !== undefined) {
        const prev = names.get(r.name);
        if (prev) errs.push(new E('DUPLICATE_RULE_NAME', `${path}.name`, r.name, `duplicate rule name (also ${prev})`));
        else names.set(r.name, path);
      }
      const peers = (dir === 'ingress' ? r.from : r.to) as Record<string, unknown>[] | undefined;
      (peers ?? []).forEach((peer, j) => {
        const pp = `${path}.${dir === 'ingress' ? 'from' : 'to'}[${j}]`;
        const pods = peer['pods'] as { namespaceSelector?: object; podSelector?: object } | undefined;
        errs.push(...validateSelector(peer['namespaces'] as never, `${pp}.namespaces`));
        errs.push(...validateSelector(pods?.namespaceSelector as never, `${pp}.pods.namespaceSelector`));
        errs.push(...validateSelector(pods?.podSelector as never, `${pp}.pods.podSelector`));
        errs.push(...validateSelector(peer['nodes'] as never, `${pp}.nodes`));
        ((peer['networks'] as string[] | undefined) ?? []).forEach((n, k) => checkCidr(n, `${pp}.networks[${k}]`, errs));
      });
      (r.ports ?? []).forEach((port, j) => checkAnpPort(port, `${path}.ports[${j}]`, errs));
    });
  }
  return errs;
}
