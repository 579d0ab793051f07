// The reference evaluator: which rule decides a flow, in the order the dataplane must follow.
import type { controlplane, Service as K8sService } from '@switchyard/apis/types';
import { serviceReferenceKey } from '@switchyard/apis/types';
import { parseCidr, parseIp, type Cidr, type Ip } from '@switchyard/ipam/cidr';
import type { CompiledPolicy } from './compile';
import { PolicyEngine } from './engine';
import { PolicyCompilerError } from './errors';
import { entityIps, ipText, podIps } from './ip-text';
import type { ClusterObject } from './types';
import { BASELINE_TIER_PRIORITY } from './validate';

/** A flow endpoint: a Pod as `namespace/name` (or `{pod}`), or an IP address (`{ip}`). */
export type Endpoint = string | { pod: string } | { ip: string };

/** The flow to explain. */
export interface FlowQuery {
  src: Endpoint;
  dst: Endpoint;
  protocol: controlplane.ServiceProtocol;
  /** Destination port (TCP/UDP/SCTP). */
  port?: number;
  /** Source port, for rules with sourcePort ranges. */
  srcPort?: number;
  icmpType?: number;
  icmpCode?: number;
  /** Destination FQDN, for fqdn rules (the evaluator does no DNS). */
  fqdn?: string;
  /**
   * The flow's IP family. Default: the family of an IP endpoint; between two pods (or other
   * members), the source's primary family (its first address) when the destination has it,
   * else the first family both have. A dual-stack pod is then matched by its address of that
   * family only: an IPv4 ipBlock does not match the pod's IPv6 flows.
   */
  ipFamily?: IpFamilyName;
}

/** An IP family as Kubernetes names it (`spec.ipFamilies`). */
export type IpFamilyName = 'IPv4' | 'IPv6';

/** Why a direction was decided the way it was. */
export type VerdictReason = 'rule' | 'k8s-isolation' | 'default-allow' | 'not-applicable';

/** Decision for one direction (egress at the source, ingress at the destination). */
export interface DirectionVerdict {
  direction: 'Egress' | 'Ingress';
  allowed: boolean;
  /** Action of the deciding rule; `Drop` for K8s isolation; `Allow` by default. */
  action: 'Allow' | 'Drop' | 'Reject';
  reason: VerdictReason;
  policy?: controlplane.NetworkPolicyReference;
  /** Index of the deciding rule among the policy's rules of that direction, and its name. */
  rule?: { index: number; name?: string };
  /** Tier priority of the deciding policy (Antrea tiers, 251 ANP, 254 BANP). */
  tierPriority?: number;
  /** Policies that passed the flow (action Pass) before the decision. */
  passedBy?: controlplane.NetworkPolicyReference[];
}

/** Result of {@link explain}. */
export interface Explanation {
  allowed: boolean;
  /** `Reject` when the deciding rule rejects (the dataplane sends a RST / ICMP unreachable). */
  action: 'Allow' | 'Drop' | 'Reject';
  egress: DirectionVerdict;
  ingress: DirectionVerdict;
  /**
   * The family the flow was evaluated in; present when it could be IPv6 (an endpoint has an
   * IPv6 address, or the query named a family). IPv4-only answers are as they always were.
   */
  ipFamily?: IpFamilyName;
}

interface EndpointFacts {
  memberKey?: string;
  /** The address the query named (undefined for a pod reference). */
  queried?: Ip;
  /** What the endpoint is, for errors (`pod x/a`, `10.0.0.9`). */
  label: string;
  ips: Ip[];
  ipTexts: string[];
  groups: ReadonlySet<string>;
  ports: controlplane.NamedPort[];
  namespace?: string;
  labels?: Record<string, string>;
}

const EMPTY: ReadonlySet<string> = new Set();
const cidrCache = new Map<string, Cidr>();
function cidrOf(text: string): Cidr {
  let c = cidrCache.get(text);
  if (!c) {
    c = parseCidr(text);
    if (cidrCache.size > 100_000) cidrCache.clear();
    cidrCache.set(text, c);
  }
  return c;
}

/**
 * Parsed member addresses per engine: a member's addresses are parsed once, not on every explain()
 * (an IPv6 parse is tens of microseconds; the lab's conformance suite explains 80,000 cells).
 */
const parsedIps = new WeakMap<PolicyEngine, Map<string, Ip>>();

function memberIp(engine: PolicyEngine, text: string): Ip {
  let m = parsedIps.get(engine);
  if (!m) parsedIps.set(engine, (m = new Map()));
  let ip = m.get(text);
  if (!ip) {
    // A long-lived engine sees addresses come and go: the memo starts over rather than grow.
    if (m.size >= 65_536) m.clear();
    m.set(text, (ip = parseIp(text)));
  }
  return ip;
}

function resolve(engine: PolicyEngine, ep: Endpoint, path: string): EndpointFacts {
  let podRef: string | undefined;
  let ip: string | undefined;
  if (typeof ep === 'string') {
    if (ep.includes('/') && !ep.includes(':') && !/^\d+\.\d+\.\d+\.\d+/.test(ep)) podRef = ep;
    else ip = ep;
  } else if ('pod' in ep) podRef = ep.pod;
  else ip = ep.ip;
  let mk: string | undefined;
  let queried: Ip | undefined;
  if (podRef !== undefined) {
    if (!engine.pods.has(`Pod/${podRef}`)) throw new PolicyCompilerError('INVALID_ENDPOINT', path, podRef, `no pod ${podRef}`);
    mk = `p:${podRef}`;
  } else {
    try {
      queried = parseIp(ip as string);
    } catch {
      throw new PolicyCompilerError('INVALID_ENDPOINT', path, ip, `not a pod reference or IP: ${String(ip)}`);
    }
    // Members carry one spelling per address (ip-text.ts): `FD00::5` finds the pod of fd00::5.
    ip = ipText(ip as string);
    mk = engine.ipOwners.get(ip);
  }
  if (!mk) return { queried: queried as Ip, label: ip as string, ips: [queried as Ip], ipTexts: [ip as string], groups: EMPTY, ports: [] };
  const rest = mk.slice(2);
  let ipTexts: string[] = [];
  let ports: controlplane.NamedPort[] = [];
  let namespace: string | undefined;
  let labels: Record<string, string> | undefined;
  if (mk[0] === 'p') {
    const pod = engine.pods.get(`Pod/${rest}`);
    ipTexts = podIps(pod);
    for (const c of pod?.spec?.containers ?? []) for (const p of c.ports ?? []) if (p.name) ports.push({ name: p.name, port: p.containerPort, protocol: p.protocol ?? 'TCP' });
    namespace = pod?.metadata.namespace ?? 'default';
    labels = pod?.metadata.labels;
  } else if (mk[0] === 'e') {
    const ee = engine.externalEntities.get(`ExternalEntity/${rest}`);
    ipTexts = entityIps(ee);
    ports = (ee?.spec.ports ?? []).filter((p) => p.name && p.port).map((p) => ({ name: p.name as string, port: p.port as number, protocol: p.protocol ?? 'TCP' }));
  } else ipTexts = ip !== undefined ? [ip] : [];
  if (ip !== undefined && !ipTexts.includes(ip)) ipTexts = [ip, ...ipTexts];
  const label = podRef !== undefined ? `pod ${podRef}` : (ip as string);
  const facts: EndpointFacts = { memberKey: mk, label, ips: ipTexts.map((t) => memberIp(engine, t)), ipTexts, groups: engine.memberGroups.get(mk) ?? EMPTY, ports };
  if (queried !== undefined) facts.queried = queried;
  if (namespace !== undefined) facts.namespace = namespace;
  if (labels !== undefined) facts.labels = labels;
  return facts;
}

function inBlocks(blocks: readonly controlplane.IPBlock[], ips: readonly Ip[]): boolean {
  for (const b of blocks) {
    const c = cidrOf(b.cidr);
    for (const ip of ips) {
      if (ip.family !== c.family || !c.contains(ip)) continue;
      if (b.except.some((x) => { const e = cidrOf(x); return e.family === ip.family && e.contains(ip); })) continue;
      return true;
    }
  }
  return false;
}

function fqdnMatches(pattern: string, fqdn: string | undefined): boolean {
  if (fqdn === undefined) return false;
  const p = pattern.toLowerCase();
  const f = fqdn.toLowerCase();
  if (p.startsWith('*')) return f.endsWith(p.slice(1));
  return p === f;
}

function peerMatches(engine: PolicyEngine, peer: controlplane.NetworkPolicyPeer, ep: EndpointFacts, q: FlowQuery): boolean {
  for (const g of peer.addressGroups) if (ep.groups.has(g)) return true;
  if (peer.ipBlocks.length > 0 && inBlocks(peer.ipBlocks, ep.ips)) return true;
  for (const f of peer.fqdns ?? []) if (fqdnMatches(f, q.fqdn)) return true;
  for (const s of peer.toServices ?? []) {
    // scope ClusterSet: the multi-cluster Service imported into this cluster (antrea-mc-<name>).
    const svc = engine.services.get(`Service/${serviceReferenceKey(s)}`);
    if (svc && addressesService(svc, ep, q)) return true;
  }
  return false;
}

/**
 * True when the flow is addressed to the Service itself: one of its ClusterIPs and one of its
 * ports. As in Antrea, a toServices peer matches traffic before the Service's DNAT (the agent
 * matches the Service's load-balancing group), so traffic sent straight to a backend pod's IP
 * does not match, even though that pod is one of the Service's endpoints.
 */
function addressesService(svc: K8sService, ep: EndpointFacts, q: FlowQuery): boolean {
  const vips = [...(svc.spec?.clusterIPs ?? []), ...(svc.spec?.clusterIP ? [svc.spec.clusterIP] : [])].map(ipText);
  if (!ep.ipTexts.some((ip) => vips.includes(ip))) return false;
  const ports = svc.spec?.ports ?? [];
  // A Service without ports (headless, or not yet complete) is matched on its address alone.
  if (ports.length === 0) return true;
  return ports.some((p) => (p.protocol ?? 'TCP') === q.protocol && p.port === q.port);
}

function servicesMatch(services: readonly controlplane.Service[], q: FlowQuery, dst: EndpointFacts): boolean {
  if (services.length === 0) return true;
  for (const s of services) {
    if (s.protocol !== q.protocol) continue;
    if (s.protocol === 'ICMP') {
      if (s.icmpType !== undefined && s.icmpType !== q.icmpType) continue;
      if (s.icmpCode !== undefined && s.icmpCode !== q.icmpCode) continue;
      return true;
    }
    if (s.protocol === 'IGMP') return true;
    if (s.port !== undefined) {
      if (q.port === undefined) continue;
      if (typeof s.port === 'string') {
        // Named ports resolve against the destination's container ports of the same protocol.
        const np = dst.ports.find((p) => p.name === s.port && p.protocol === s.protocol);
        if (!np || np.port !== q.port) continue;
      } else if (q.port < s.port || q.port > (s.endPort ?? s.port)) continue;
    }
    if (s.srcPort !== undefined) {
      if (q.srcPort === undefined || q.srcPort < s.srcPort || q.srcPort > (s.srcEndPort ?? s.srcPort)) continue;
    }
    return true;
  }
  return false;
}

interface Candidate {
  c: CompiledPolicy;
  rule: controlplane.NetworkPolicyRule;
  index: number;
}

function kindOfPolicy(p: controlplane.NetworkPolicy): 'k8s' | 'tiered' | 'baseline' {
  if (p.sourceRef.type === 'K8sNetworkPolicy') return 'k8s';
  const tp = p.tierPriority ?? 250;
  return tp >= BASELINE_TIER_PRIORITY ? 'baseline' : 'tiered';
}

/** Rules of policies applied to `ep` in `direction`, and the K8s NetworkPolicies isolating it. */
function rulesFor(engine: PolicyEngine, ep: EndpointFacts, direction: 'In' | 'Out'): { ordered: Candidate[]; k8s: CompiledPolicy[] } {
  const keys = new Set<string>();
  for (const g of ep.groups) for (const k of engine.groupUsers(g, 'applied')) keys.add(k);
  const ordered: Candidate[] = [];
  const k8s: CompiledPolicy[] = [];
  for (const key of keys) {
    const c = engine.policyByKey(key);
    if (!c) continue;
    const p = c.policy;
    const applied = (groups: readonly string[]): boolean => groups.some((g) => ep.groups.has(g));
    if (kindOfPolicy(p) === 'k8s') {
      if (applied(p.appliedToGroups) && (p.policyTypes ?? ['Ingress']).includes(direction === 'In' ? 'Ingress' : 'Egress')) k8s.push(c);
      continue;
    }
    p.rules.forEach((rule, index) => {
      if (rule.direction !== direction) return;
      const groups = p.appliedToPerRule ? (rule.appliedToGroups ?? []) : p.appliedToGroups;
      if (applied(groups)) ordered.push({ c, rule, index });
    });
  }
  ordered.sort((a, b) => {
    const pa = a.c.policy;
    const pb = b.c.policy;
    return (pa.tierPriority ?? 250) - (pb.tierPriority ?? 250) || (pa.priority ?? 0) - (pb.priority ?? 0) || a.rule.priority - b.rule.priority || (pa.uid < pb.uid ? -1 : pa.uid > pb.uid ? 1 : 0) || a.index - b.index;
  });
  return { ordered, k8s };
}

function decideDirection(engine: PolicyEngine, self: EndpointFacts, peer: EndpointFacts, dst: EndpointFacts, q: FlowQuery, direction: 'In' | 'Out'): DirectionVerdict {
  const dirName = direction === 'In' ? 'Ingress' : 'Egress';
  if (!self.memberKey) return { direction: dirName, allowed: true, action: 'Allow', reason: 'not-applicable' };
  const { ordered, k8s } = rulesFor(engine, self, direction);
  const matches = (rule: controlplane.NetworkPolicyRule): boolean => peerMatches(engine, direction === 'In' ? rule.from : rule.to, peer, q) && servicesMatch(rule.services, q, dst);
  const passedBy: controlplane.NetworkPolicyReference[] = [];
  const verdict = (cand: Candidate, action: controlplane.RuleAction): DirectionVerdict => {
    const v: DirectionVerdict = { direction: dirName, allowed: action === 'Allow', action: action === 'Pass' ? 'Allow' : action, reason: 'rule', policy: cand.c.policy.sourceRef, rule: { index: cand.rule.priority, ...(cand.rule.name !== undefined ? { name: cand.rule.name } : {}) } };
    if (cand.c.policy.tierPriority !== undefined) v.tierPriority = cand.c.policy.tierPriority;
    if (passedBy.length > 0) v.passedBy = passedBy;
    return v;
  };
  // 1. Antrea tiers (emergency .. application) and AdminNetworkPolicy (tier 251); Pass skips to K8s NP.

  for (const cand of ordered) {
    if (kindOfPolicy(cand.c.policy) !== 'tiered') break;
    if (!matches(cand.rule)) continue;
    const action = cand.rule.action ?? 'Allow';
    if (action === 'Pass') {
      passedBy.push(cand.c.policy.sourceRef);

      break;
    }
    return verdict(cand, action);
  }

  // 2. K8s NetworkPolicy: any matching rule allows; isolation without a match drops.
  if (k8s.length > 0) {
    k8s.sort((a, b) => (a.policy.uid < b.policy.uid ? -1 : 1));
    for (const c of k8s) {
      const idx = c.policy.rules.findIndex((r) => r.direction === direction && matches(r));
      if (idx >= 0) {
        const rule = c.policy.rules[idx] as controlplane.NetworkPolicyRule;
        const v: DirectionVerdict = { direction: dirName, allowed: true, action: 'Allow', reason: 'rule', policy: c.policy.sourceRef, rule: { index: rule.priority } };
        if (passedBy.length > 0) v.passedBy = passedBy;
        return v;
      }
    }
    const v: DirectionVerdict = { direction: dirName, allowed: false, action: 'Drop', reason: 'k8s-isolation', policy: (k8s[0] as CompiledPolicy).policy.sourceRef };
    if (passedBy.length > 0) v.passedBy = passedBy;
    return v;
  }
  // 3. Baseline tier, then BaselineAdminNetworkPolicy (tier 254).
  for (const cand of ordered) {
    if (kindOfPolicy(cand.c.policy) !== 'baseline') continue;
    if (!matches(cand.rule)) continue;
    return verdict(cand, cand.rule.action ?? 'Allow');
  }
  const v: DirectionVerdict = { direction: dirName, allowed: true, action: 'Allow', reason: 'default-allow' };
  if (passedBy.length > 0) v.passedBy = passedBy;
  return v;
}

const familyOf = (name: IpFamilyName): 4 | 6 => (name === 'IPv6' ? 6 : 4);
const nameOf = (family: 4 | 6): IpFamilyName => (family === 6 ? 'IPv6' : 'IPv4');

/**
 * The family of the flow (see {@link FlowQuery.ipFamily}), or undefined when an endpoint has no
 * address at all (a pod not yet running): then nothing is narrowed, as before families existed.
 * @throws PolicyCompilerError INVALID_QUERY when the endpoints or the query disagree on it.
 */
function flowFamily(src: EndpointFacts, dst: EndpointFacts, q: FlowQuery): 4 | 6 | undefined {
  if (q.ipFamily !== undefined && q.ipFamily !== 'IPv4' && q.ipFamily !== 'IPv6') {
    throw new PolicyCompilerError('INVALID_QUERY', 'query.ipFamily', q.ipFamily, `must be IPv4 or IPv6, not ${String(q.ipFamily)}`);
  }
  const named = q.ipFamily !== undefined ? familyOf(q.ipFamily) : undefined;
  let family = named;
  for (const [ep, path] of [[src, 'query.src'], [dst, 'query.dst']] as const) {
    if (ep.queried === undefined) continue;
    if (family !== undefined && ep.queried.family !== family) {
      const other = named !== undefined ? `query.ipFamily is ${nameOf(named)}` : `query.src ${src.label} is IPv${family}`;
      throw new PolicyCompilerError('INVALID_QUERY', path, ep.label, `${ep.label} is IPv${ep.queried.family} but ${other}: a flow has one IP family`);
    }
    family = ep.queried.family;
  }
  if (family === undefined) {
    if (src.ips.length === 0 || dst.ips.length === 0) return undefined;
    const has = (ep: EndpointFacts, f: number): boolean => ep.ips.some((x) => x.family === f);
    family = src.ips.find((x) => has(dst, x.family))?.family;
    if (family === undefined) {
      throw new PolicyCompilerError('INVALID_QUERY', 'query.dst', dst.label, `${src.label} has only IPv${src.ips[0]?.family} addresses (${src.ipTexts.join(', ')}) and ${dst.label} only IPv${dst.ips[0]?.family} (${dst.ipTexts.join(', ')}): no flow between them`);
    }
  }
  for (const [ep, path] of [[src, 'query.src'], [dst, 'query.dst']] as const) {
    if (ep.ips.length > 0 && !ep.ips.some((x) => x.family === family)) {
      throw new PolicyCompilerError('INVALID_QUERY', path, ep.label, `${ep.label} has no IPv${family} address (it has ${ep.ipTexts.join(', ')})`);
    }
  }
  return family;
}

/** The endpoint as the flow sees it: its addresses of the flow's family only. */
function inFamily(ep: EndpointFacts, family: 4 | 6 | undefined): EndpointFacts {
  if (family === undefined || ep.ips.every((x) => x.family === family)) return ep;
  const keep = ep.ips.map((x) => x.family === family);
  return { ...ep, ips: ep.ips.filter((_, i) => keep[i]), ipTexts: ep.ipTexts.filter((_, i) => keep[i]) };
}

/**
 * Explains whether a flow is allowed: egress policies at the source, then ingress policies at
 * the destination, each in dataplane order (Antrea tiers by priority, policy priority, rule
 * order; AdminNetworkPolicy as tier 251; Pass to K8s NetworkPolicy; K8s isolation; baseline
 * tier; BaselineAdminNetworkPolicy; allow).
 *
 * `cluster` is a {@link PolicyEngine} (reused, fast) or the input objects (compiled here).
 */
export function explain(cluster: PolicyEngine | Iterable<ClusterObject>, query: FlowQuery): Explanation {
  const engine = cluster instanceof PolicyEngine ? cluster : engineOf(cluster);
  const bothSrc = resolve(engine, query.src, 'query.src');
  const bothDst = resolve(engine, query.dst, 'query.dst');
  const family = flowFamily(bothSrc, bothDst, query);
  const src = inFamily(bothSrc, family);
  const dst = inFamily(bothDst, family);
  const egress = decideDirection(engine, src, dst, dst, query, 'Out');
  const ingress = decideDirection(engine, dst, src, dst, query, 'In');
  const denied = !egress.allowed ? egress : !ingress.allowed ? ingress : undefined;
  const out: Explanation = { allowed: !denied, action: denied ? denied.action : 'Allow', egress, ingress };
  const v6 = (ep: EndpointFacts): boolean => ep.ips.some((x) => x.family === 6);
  if (family !== undefined && (query.ipFamily !== undefined || v6(bothSrc) || v6(bothDst))) out.ipFamily = nameOf(family);
  return out;
}

/** Builds an engine from input objects (policies after the objects they reference). */
export function engineOf(objects: Iterable<ClusterObject>): PolicyEngine {
  const engine = new PolicyEngine();
  const list = [...objects];
  const rank = (o: ClusterObject): number => (o.kind === 'Tier' ? 0 : o.kind === 'ClusterGroup' || o.kind === 'Group' ? 1 : /Policy$/.test(o.kind ?? '') ? 3 : 2);
  list.sort((a, b) => rank(a) - rank(b));
  for (const o of list) engine.apply({ type: 'ADDED', object: o });
  return engine;
}

/** Rule reference returned by {@link queryEndpoint}. */
export interface RuleRef {
  policy: controlplane.NetworkPolicyReference;
  direction: controlplane.Direction;
  index: number;
  name?: string;
}

/** Result of {@link queryEndpoint}. */
export interface EndpointQueryResult {
  /** Policies applied to the endpoint (policy-level or by some rule). */
  appliedPolicies: controlplane.NetworkPolicyReference[];
  /** Rules selecting the endpoint as a peer. */
  ingressSrcRules: RuleRef[];
  egressDstRules: RuleRef[];
}

/** What one shared group contributes to {@link queryEndpoint}, memoized per group by the engine. */
interface GroupQueryPart {
  applied: { key: string; ref: controlplane.NetworkPolicyReference }[];
  peerRules: { key: string; index: number; ref: RuleRef }[];
}

function groupQueryPart(engine: PolicyEngine, group: string): GroupQueryPart {
  return engine.groupMemo(group, 'queryEndpoint', () => {
    const part: GroupQueryPart = { applied: [], peerRules: [] };
    for (const key of engine.groupUsers(group, 'applied')) {
      const c = engine.policyByKey(key);
      if (c) part.applied.push({ key, ref: c.policy.sourceRef });
    }
    for (const key of engine.groupUsers(group, 'address')) {
      const c = engine.policyByKey(key);
      if (!c) continue;
      c.policy.rules.forEach((r, index) => {
        const peer = r.direction === 'In' ? r.from : r.to;
        if (!peer.addressGroups.includes(group)) return;
        const ref: RuleRef = { policy: c.policy.sourceRef, direction: r.direction, index };
        if (r.name !== undefined) ref.name = r.name;
        part.peerRules.push({ key, index, ref });
      });
    }
    return part;
  });
}

/**
 * Policies applied to a pod and the rules that select it as a peer (like `antctl query endpoint`).
 * Walks member -> groups -> policies: each group's contribution is computed once and reused
 * until the group or a policy using it changes, so a query costs what it returns.
 */
export function queryEndpoint(cluster: PolicyEngine | Iterable<ClusterObject>, pod: string): EndpointQueryResult {
  const engine = cluster instanceof PolicyEngine ? cluster : engineOf(cluster);
  const ep = resolve(engine, { pod }, 'pod');
  const parts = [...ep.groups].map((g) => groupQueryPart(engine, g));
  const appliedParts = parts.filter((p) => p.applied.length > 0);
  const ruleParts = parts.filter((p) => p.peerRules.length > 0);
  let appliedPolicies: controlplane.NetworkPolicyReference[];
  if (appliedParts.length <= 1) appliedPolicies = (appliedParts[0]?.applied ?? []).map((x) => x.ref);
  else {
    // Several groups of the pod may be used by one policy: report it once.
    const seen = new Set<string>();
    appliedPolicies = [];
    for (const part of appliedParts) for (const x of part.applied) if (!seen.has(x.key)) {
      seen.add(x.key);
      appliedPolicies.push(x.ref);
    }
  }
  let rules: RuleRef[];
  if (ruleParts.length <= 1) rules = (ruleParts[0]?.peerRules ?? []).map((x) => x.ref);
  else {
    const seen = new Set<string>();
    rules = [];
    for (const part of ruleParts) for (const x of part.peerRules) {
      const k = `${x.key}#${x.index}`;
      if (seen.has(k)) continue;
      seen.add(k);
      rules.push(x.ref);
    }
  }
  const ingressSrcRules: RuleRef[] = [];
  const egressDstRules: RuleRef[] = [];
  for (const r of rules) (r.direction === 'In' ? ingressSrcRules : egressDstRules).push(r);
  return { appliedPolicies, ingressSrcRules, egressDstRules };
}
