// AdminNetworkPolicy / BaselineAdminNetworkPolicy cases after the network-policy-api conformance
// suite (rule order, Pass to NP, priority change, integration with NP and BANP), on the x/y/z model.
import type { AdminNetworkPolicy, AdminNetworkPolicyPort, BaselineAdminNetworkPolicy } from '@switchyard/apis';
import type { Case, Expect, Probe } from './model';

const NS = 'kubernetes.io/metadata.name';
const ns = (n: string) => ({ matchLabels: { [NS]: n } });
export function anp(name: string, priority: number, spec: Omit<AdminNetworkPolicy['spec'], 'priority'>): AdminNetworkPolicy {
  return { apiVersion: 'policy.networking.k8s.io/v1alpha1', kind: 'AdminNetworkPolicy', metadata: { name }, spec: { priority, ...spec } };
}
export function banp(spec: BaselineAdminNetworkPolicy['spec']): BaselineAdminNetworkPolicy {
  return { apiVersion: 'policy.networking.k8s.io/v1alpha1', kind: 'BaselineAdminNetworkPolicy', metadata: { name: 'default' }, spec };
}
const deny = (from: string, to: string): Expect => ({ from, to, allowed: false });
const allow = (from: string, to: string): Expect => ({ from, to, allowed: true });
const tcp = (port: number, expect: Expect[]) => ({ protocol: 'TCP' as const, port, expect });
const npAllow = (from: object[], podSelector: object = {}) => ({ apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name: 'np-x', namespace: 'x' }, spec: { podSelector, policyTypes: ['Ingress'], ingress: [{ from }] } });

/** The first cases: short scenarios after the upstream suite's themes. */
const themeCases: Case[] = [
  {
    name: 'ANP ingress rule order: Allow before Deny, then swapped',
    steps: [
      { apply: [anp('order', 50, { subject: { namespaces: ns('x') }, ingress: [{ name: 'allow-y', action: 'Allow', from: [{ namespaces: ns('y') }] }, { name: 'deny-all', action: 'Deny', from: [{ namespaces: {} }] }] })], probes: [tcp(80, [deny('*', 'x/*'), allow('y/*', 'x/*')])] },
      { apply: [anp('order', 50, { subject: { namespaces: ns('x') }, ingress: [{ name: 'deny-all', action: 'Deny', from: [{ namespaces: {} }] }, { name: 'allow-y', action: 'Allow', from: [{ namespaces: ns('y') }] }] })], probes: [tcp(80, [deny('*', 'x/*')])] },
    ],
  },
  {
    name: 'ANP Pass delegates to NetworkPolicy, skipping lower-priority ANPs',
    steps: [
      { apply: [anp('pass-y', 50, { subject: { namespaces: ns('x') }, ingress: [{ action: 'Pass', from: [{ namespaces: ns('y') }] }] }), anp('deny-y', 60, { subject: { namespaces: ns('x') }, ingress: [{ action: 'Deny', from: [{ namespaces: ns('y') }] }] })], probes: [tcp(80, [])] },
      { apply: [npAllow([{ namespaceSelector: ns('y'), podSelector: { matchLabels: { pod: 'a' } } }])], probes: [tcp(80, [deny('*', 'x/*'), allow('y/a', 'x/*')])] },
    ],
  },
  {
    name: 'ANP priority change 60 -> 40 flips the verdict',
    steps: [
      { apply: [anp('allow-z', 50, { subject: { namespaces: ns('x') }, ingress: [{ action: 'Allow', from: [{ namespaces: ns('z') }] }] }), anp('deny-z', 60, { subject: { namespaces: ns('x') }, ingress: [{ action: 'Deny', from: [{ namespaces: ns('z') }] }] })], probes: [tcp(80, [])] },
      { apply: [anp('deny-z', 40, { subject: { namespaces: ns('x') }, ingress: [{ action: 'Deny', from: [{ namespaces: ns('z') }] }] })], probes: [tcp(80, [deny('z/*', 'x/*')])] },
    ],
  },
  {
    name: 'integration: ANP over NP over BANP',
    steps: [
      { apply: [banp({ subject: { namespaces: ns('x') }, ingress: [{ action: 'Deny', from: [{ namespaces: {} }] }] })], probes: [tcp(80, [deny('*', 'x/*')])] },
      { apply: [npAllow([{ namespaceSelector: ns('y') }], { matchLabels: { pod: 'a' } })], probes: [tcp(80, [deny('*', 'x/*'), allow('y/*', 'x/a')])] },
      { apply: [anp('allow-z-to-x', 10, { subject: { namespaces: ns('x') }, ingress: [{ action: 'Allow', from: [{ namespaces: ns('z') }] }] })], probes: [tcp(80, [deny('*', 'x/*'), allow('y/*', 'x/a'), allow('z/*', 'x/*')])] },
    ],
  },
  {
    name: 'ANP egress Deny to networks and named port',
    steps: [
      { apply: [anp('deny-net', 20, { subject: { pods: { namespaceSelector: ns('x'), podSelector: { matchLabels: { pod: 'a' } } } }, egress: [{ action: 'Deny', to: [{ networks: ['10.0.3.0/24'] }] }] })], probes: [tcp(80, [deny('x/a', 'z/*')])] },
      { apply: [anp('deny-named', 21, { subject: { namespaces: ns('y') }, ingress: [{ action: 'Deny', from: [{ namespaces: ns('x') }], ports: [{ namedPort: 'serve-81-tcp' }] }] })], probes: [tcp(80, [deny('x/a', 'z/*')]), tcp(81, [deny('x/a', 'z/*'), deny('x/*', 'y/*')])] },
    ],
  },
  {
    name: 'BANP Allow is overridden by NetworkPolicy isolation',
    steps: [{ apply: [banp({ subject: { namespaces: ns('x') }, ingress: [{ action: 'Allow', from: [{ namespaces: {} }] }] }), npAllow([{ namespaceSelector: ns('z') }])], probes: [tcp(80, [deny('*', 'x/*'), allow('z/*', 'x/*')])] }],
  },
];

// ---------------------------------------------------------------------------------------------
// One case per upstream network-policy-api conformance test (conformance/tests/*.go at the last
// v1alpha1 revision), on x/y/z. The upstream suite has four "house" namespaces; ours has three, so
// the roles of the rule-order tests map as follows (subject: namespace x, all its pods):
//   - "everything" peer (ravenclaw upstream): namespace z, rules Allow / Deny / Pass with no ports;
//   - "at a port" peer (slytherin): namespace y, Deny then Pass at port 80 of the case's protocol;
//   - "allow a port, deny the rest" peer (hufflepuff): namespace x itself, Allow at port 81 of the
//     case's protocol, then Deny with no ports.
// Each step is one upstream t.Run mutation (rule swaps, a named port, priority, action, inserts).
// Node peers (the *EgressNodePeers tests) are not covered: the model and the lab probe pod IPs only
// (no hostNetwork pods to be the node endpoints).

type Proto = 'TCP' | 'UDP' | 'SCTP';
type Dir = 'ingress' | 'egress';
type Action = 'Allow' | 'Deny' | 'Pass';

const num = (protocol: Proto, port: number): AdminNetworkPolicyPort => ({ portNumber: { protocol, port } });
const probe = (protocol: Proto, port: number, expect: Expect[]): Probe => ({ protocol, port, expect });

/** A rule of the rule-order policies: an action towards one namespace, optionally on ports. */
interface OrderedRule {
  name: string;
  action: Action;
  peer: string;
  ports?: AdminNetworkPolicyPort[];
}

/** The 7 rules of the upstream ANP rule-order policies (Allow/Deny/Pass everything, Deny/Pass at a port, Allow a port + Deny the rest). */
function anpOrderedRules(dir: Dir, atPort: AdminNetworkPolicyPort[], allowPort: AdminNetworkPolicyPort[]): OrderedRule[] {
  const w = dir === 'ingress' ? 'from' : 'to';
  return [
    { name: `allow-${w}-z-everything`, action: 'Allow', peer: 'z' },
    { name: `deny-${w}-z-everything`, action: 'Deny', peer: 'z' },
    { name: `pass-${w}-z-everything`, action: 'Pass', peer: 'z' },
    { name: `deny-${w}-y-at-port`, action: 'Deny', peer: 'y', ports: atPort },
    { name: `pass-${w}-y-at-port`, action: 'Pass', peer: 'y', ports: atPort },
    { name: `allow-${w}-x-at-port`, action: 'Allow', peer: 'x', ports: allowPort },
    { name: `deny-${w}-x-everything-else`, action: 'Deny', peer: 'x' },
  ];
}

/** The 5 rules of the upstream BANP rule-order policies (no Pass in a baseline). */
function banpOrderedRules(dir: Dir, atPort: AdminNetworkPolicyPort[], allowPort: AdminNetworkPolicyPort[]): OrderedRule[] {
  return anpOrderedRules(dir, atPort, allowPort).filter((r) => r.action !== 'Pass');
}

function swap<T>(a: T[], i: number, j: number): T[] {
  const out = [...a];
  [out[i], out[j]] = [out[j] as T, out[i] as T];
  return out;
}

function gress(rules: OrderedRule[], dir: Dir): object[] {
  return rules.map((r) => ({ name: r.name, action: r.action, [dir === 'ingress' ? 'from' : 'to']: [{ namespaces: ns(r.peer) }], ...(r.ports ? { ports: r.ports } : {}) }));
}

function orderedAnp(name: string, priority: number, parts: Partial<Record<Dir, OrderedRule[]>>): AdminNetworkPolicy {
  return anp(name, priority, { subject: { namespaces: ns('x') }, ...(parts.ingress ? { ingress: gress(parts.ingress, 'ingress') } : {}), ...(parts.egress ? { egress: gress(parts.egress, 'egress') } : {}) } as Omit<AdminNetworkPolicy['spec'], 'priority'>);
}

function orderedBanp(parts: Partial<Record<Dir, OrderedRule[]>>): BaselineAdminNetworkPolicy {
  return banp({ subject: { namespaces: ns('x') }, ...(parts.ingress ? { ingress: gress(parts.ingress, 'ingress') } : {}), ...(parts.egress ? { egress: gress(parts.egress, 'egress') } : {}) } as BaselineAdminNetworkPolicy['spec']);
}

/** Does a rule's port list match a probe? (no list = every port; named ports resolve on the model's `serve-<port>-<proto>`). */
function portsMatch(ports: AdminNetworkPolicyPort[] | undefined, protocol: Proto, port: number): boolean {
  if (!ports) return true;
  return ports.some((p) => (p.portNumber ? p.portNumber.protocol === protocol && p.portNumber.port === port : p.namedPort === `serve-${port}-${protocol.toLowerCase()}`));
}

/**
 * The expected matrix of the rule-order policies, from the ANP semantics written out on their own
 * (not via the compiler): for every peer namespace, the first rule of the list that matches the
 * peer and the probed port decides; Allow and Pass (nothing else applies in these cases) allow,
 * Deny denies; no match allows. Ingress rules decide `peer -> x`, egress rules `x -> peer`.
 */
function orderedExpect(dir: Dir, rules: OrderedRule[], protocol: Proto, port: number): Expect[] {
  const out: Expect[] = [];
  for (const peer of ['x', 'y', 'z']) {
    const first = rules.find((r) => r.peer === peer && portsMatch(r.ports, protocol, port));
    if (first?.action === 'Deny') out.push(dir === 'ingress' ? deny(`${peer}/*`, 'x/*') : deny('x/*', `${peer}/*`));
  }
  return out;
}

/** Probes of one step of a rule-order case (one direction). */
function orderedProbes(dir: Dir, rules: OrderedRule[], probes: [Proto, number][]): Probe[] {
  return probes.map(([protocol, port]) => probe(protocol, port, orderedExpect(dir, rules, protocol, port)));
}

/**
 * The other protocol probed in step 1 to show port rules are per protocol, and in the named-port
 * steps to show a name is per protocol too (TCP 80 is not opened by `namedPort: serve-80-udp`;
 * the pipeline once opened every protocol on the number a name resolved to).
 */
const otherProto = (p: Proto): Proto => (p === 'TCP' ? 'UDP' : 'TCP');

/**
 * AdminNetworkPolicy{Ingress,Egress}{TCP,UDP,SCTP}: the rule list as created, then the three
 * upstream swaps (0<->1: Deny before Allow; 0<->2: Pass first; 3<->4: Pass before the port Deny),
 * each applied to the previous step's list as upstream patches the live object.
 */
function anpRuleOrderCase(upstream: string, dir: Dir, proto: Proto, priority: number, namedPortStep?: string): Case {
  const r1 = anpOrderedRules(dir, [num(proto, 80)], [num(proto, 81)]);
  const r2 = swap(r1, 0, 1);
  const r3 = swap(r2, 0, 2);
  const r4 = swap(r3, 3, 4);
  const name = dir === 'ingress' ? 'ingress-' : 'egress-';
  const pol = (rules: OrderedRule[]) => orderedAnp(`${name}${proto.toLowerCase()}`, priority, { [dir]: rules });
  const steps: Case['steps'] = [
    { apply: [pol(r1)], probes: orderedProbes(dir, r1, [[proto, 80], [proto, 81], [otherProto(proto), 80]]) },
    { apply: [pol(r2)], probes: orderedProbes(dir, r2, [[proto, 80]]) },
    { apply: [pol(r3)], probes: orderedProbes(dir, r3, [[proto, 80]]) },
    { apply: [pol(r4)], probes: orderedProbes(dir, r4, [[proto, 80], [proto, 81]]) },
  ];
  if (namedPortStep) {
    // The experimental named-port test rewrites the "allow a port" rule (index 5) to a named port;
    // here the name points at port 80, so the allowed port moves from 81 to 80.
    const r5 = r4.map((r, i) => (i === 5 ? { ...r, ports: [{ namedPort: namedPortStep }] } : r));
    steps.push({ apply: [pol(r5)], probes: orderedProbes(dir, r5, [[proto, 80], [proto, 81], [otherProto(proto), 80]]) });
  }
  return { name: `${upstream}: rule order of Allow, Deny and Pass, per-port rules${namedPortStep ? ', then a named port' : ''} (${proto}, ${dir})`, steps };
}

/** BaselineAdminNetworkPolicy{Ingress,Egress}{TCP,UDP,SCTP}: created, then rules 0<->1 swapped. */
function banpRuleOrderCase(upstream: string, dir: Dir, proto: Proto, namedPortStep?: string): Case {
  const r1 = banpOrderedRules(dir, [num(proto, 80)], [num(proto, 81)]);
  const r2 = swap(r1, 0, 1);
  const steps: Case['steps'] = [
    { apply: [orderedBanp({ [dir]: r1 })], probes: orderedProbes(dir, r1, [[proto, 80], [proto, 81], [otherProto(proto), 80]]) },
    { apply: [orderedBanp({ [dir]: r2 })], probes: orderedProbes(dir, r2, [[proto, 80]]) },
  ];
  if (namedPortStep) {
    // The "allow a port" rule is index 3 in the baseline list (upstream rewrites the same rule).
    const r3 = r2.map((r, i) => (i === 3 ? { ...r, ports: [{ namedPort: namedPortStep }] } : r));
    steps.push({ apply: [orderedBanp({ [dir]: r3 })], probes: orderedProbes(dir, r3, [[proto, 80], [proto, 81], [otherProto(proto), 80]]) });
  }
  return { name: `${upstream}: rule order of Allow and Deny, per-port rules${namedPortStep ? ', then a named port' : ''} (${proto}, ${dir})`, steps };
}

/** Ports of the combined-protocol ("gress") rules: TCP, UDP and SCTP in one rule, as upstream. */
const GRESS_AT: AdminNetworkPolicyPort[] = [num('TCP', 80), num('UDP', 81), num('SCTP', 80)];
const GRESS_ALLOW: AdminNetworkPolicyPort[] = [num('TCP', 81), num('UDP', 80), num('SCTP', 81)];
const GRESS_PROBES: [Proto, number][] = [['TCP', 80], ['TCP', 81], ['UDP', 80], ['UDP', 81], ['SCTP', 80]];

/** Expectations when the same rule list is used for ingress to x and egress from x. */
function gressProbes(rules: { ingress: OrderedRule[]; egress: OrderedRule[] }, probes: [Proto, number][]): Probe[] {
  return probes.map(([protocol, port]) => probe(protocol, port, [...orderedExpect('ingress', rules.ingress, protocol, port), ...orderedExpect('egress', rules.egress, protocol, port)]));
}

function anpGressCase(): Case {
  const list = (swaps: [number, number][]) => (['ingress', 'egress'] as const).map((d) => swaps.reduce((rs, [i, j]) => swap(rs, i, j), anpOrderedRules(d, GRESS_AT, GRESS_ALLOW)));
  const step = (swaps: [number, number][], probes: [Proto, number][]) => {
    const [ingress, egress] = list(swaps) as [OrderedRule[], OrderedRule[]];
    return { apply: [orderedAnp('gress-rules', 15, { ingress, egress })], probes: gressProbes({ ingress, egress }, probes) };
  };
  return {
    name: 'AdminNetworkPolicyGress: ingress and egress rules across TCP, UDP and SCTP, rule order and per-port rules',
    steps: [
      step([], GRESS_PROBES),
      step([[0, 1]], [['TCP', 80], ['UDP', 81]]),
      step([[0, 1], [0, 2]], [['TCP', 80], ['UDP', 81]]),
      step([[0, 1], [0, 2], [3, 4]], GRESS_PROBES),
    ],
  };
}

function banpGressCase(): Case {
  const step = (swapped: boolean, probes: [Proto, number][]) => {
    const [ingress, egress] = (['ingress', 'egress'] as const).map((d) => {
      const rs = banpOrderedRules(d, GRESS_AT, GRESS_ALLOW);
      return swapped ? swap(rs, 0, 1) : rs;
    }) as [OrderedRule[], OrderedRule[]];
    return { apply: [orderedBanp({ ingress, egress })], probes: gressProbes({ ingress, egress }, probes) };
  };
  return {
    name: 'BaselineAdminNetworkPolicyGress: ingress and egress rules across TCP, UDP and SCTP, rule order and per-port rules',
    steps: [step(false, GRESS_PROBES), step(true, [['TCP', 80], ['UDP', 81]])],
  };
}

/** Every pod of a namespace, selected by label as upstream's `pods` subjects and peers do. */
const podsOf = (n: string) => ({ namespaceSelector: ns(n), podSelector: { matchExpressions: [{ key: 'pod', operator: 'Exists' as const }] } });

/** AdminNetworkPolicyPriorityField: Deny at 50 wins over Pass at 60 (BANP allows); 60 -> 40 lets the Pass reach the BANP Allow. */
function priorityFieldCase(): Case {
  const subject = { pods: podsOf('x') };
  const rules = (action: 'Deny' | 'Pass') => ({ ingress: [{ name: `${action.toLowerCase()}-all-ingress-from-y`, action, from: [{ pods: podsOf('y') }] }], egress: [{ name: `${action.toLowerCase()}-all-egress-to-y`, action, to: [{ pods: podsOf('y') }] }] });
  const baseline = banp({ subject, ingress: [{ name: 'allow-all-ingress-from-y', action: 'Allow', from: [{ pods: podsOf('y') }] }], egress: [{ name: 'allow-all-egress-to-y', action: 'Allow', to: [{ pods: podsOf('y') }] }] });
  const denied = [deny('y/*', 'x/*'), deny('x/*', 'y/*')];
  return {
    name: 'AdminNetworkPolicyPriorityField: Deny at 50 over Pass at 60, then 60 -> 40 passes both directions to the BANP Allow',
    steps: [
      { apply: [anp('priority-50-example', 50, { subject, ...rules('Deny') }), anp('old-priority-60-new-priority-40-example', 60, { subject, ...rules('Pass') }), baseline], probes: [probe('TCP', 80, denied), probe('UDP', 81, denied)] },
      { apply: [anp('old-priority-60-new-priority-40-example', 40, { subject, ...rules('Pass') })], probes: [probe('TCP', 80, []), probe('UDP', 81, [])] },
    ],
  };
}

/**
 * AdminNetworkPolicyIntegration: ANP Deny y<->x over a NetworkPolicy that allows only y<->x (x is
 * isolated both ways) and a BANP Deny y<->x; ingress Deny -> Pass (the NP allows y -> x), egress
 * Deny -> Pass (x -> y), then the NP is deleted and the BANP Deny decides the passed traffic.
 */
function integrationCase(): Case {
  const pass = (ingress: Action, egress: Action) => anp('pass-example', 10, { subject: { namespaces: ns('x') }, ingress: [{ name: 'ingress-from-y', action: ingress, from: [{ namespaces: ns('y') }] }], egress: [{ name: 'egress-to-y', action: egress, to: [{ namespaces: ns('y') }] }] });
  const np = { apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name: 'allow-gress-from-to-y', namespace: 'x' }, spec: { podSelector: {}, policyTypes: ['Ingress', 'Egress'], ingress: [{ from: [{ namespaceSelector: ns('y') }] }], egress: [{ to: [{ namespaceSelector: ns('y') }] }] } };
  const baseline = banp({ subject: { namespaces: ns('x') }, ingress: [{ name: 'deny-all-ingress-from-y', action: 'Deny', from: [{ namespaces: ns('y') }] }], egress: [{ name: 'deny-all-egress-to-y', action: 'Deny', to: [{ namespaces: ns('y') }] }] });
  // The NP isolates x both ways: only y may reach x and x may reach only y.
  const npIsolation = [deny('*', 'x/*'), deny('x/*', '*')];
  return {
    name: 'AdminNetworkPolicyIntegration: ANP Deny, then Pass to the NetworkPolicy Allow, then (NP deleted) to the BANP Deny',
    steps: [
      { apply: [pass('Deny', 'Deny'), np, baseline], probes: [probe('TCP', 80, npIsolation), probe('UDP', 81, npIsolation)] },
      { apply: [pass('Pass', 'Deny')], probes: [probe('TCP', 80, [...npIsolation, allow('y/*', 'x/*')])] },
      { apply: [pass('Pass', 'Pass')], probes: [probe('TCP', 80, [...npIsolation, allow('y/*', 'x/*'), allow('x/*', 'y/*')])] },
      { delete: [np], probes: [probe('TCP', 80, [deny('y/*', 'x/*'), deny('x/*', 'y/*')]), probe('UDP', 81, [deny('y/*', 'x/*'), deny('x/*', 'y/*')])] },
    ],
  };
}

/**
 * {Baseline,}AdminNetworkPolicyEgressInlineCIDRPeers: Allow to y's pods, then Deny to 0.0.0.0/0 and
 * ::/0; then an Allow to two pod IPs (/32 networks: z/a and x/b) inserted first.
 */
function inlineCidrCase(baseline: boolean): Case {
  const allowPods = { name: 'allow-egress-to-y', action: 'Allow' as const, to: [{ pods: podsOf('y') }] };
  const denyAll = { name: 'deny-egress-to-internet', action: 'Deny' as const, to: [{ networks: ['0.0.0.0/0', '::/0'] }] };
  const allowIps = { name: 'allow-egress-to-specific-pod-ips', action: 'Allow' as const, to: [{ networks: ['10.0.3.1/32', '10.0.1.2/32'] }] };
  const policy = (egress: (typeof allowPods | typeof denyAll | typeof allowIps)[]) =>
    baseline ? banp({ subject: { namespaces: ns('x') }, egress }) : anp('inline-cidr-as-peers-example', 85, { subject: { pods: podsOf('x') }, egress });
  const step1 = [deny('x/*', '*'), allow('x/*', 'y/*')];
  const step2 = [...step1, allow('x/*', 'z/a'), allow('x/*', 'x/b')];
  const upstream = baseline ? 'BaselineAdminNetworkPolicyEgressInlineCIDRPeers' : 'AdminNetworkPolicyEgressInlineCIDRPeers';
  return {
    name: `${upstream}: Deny to 0.0.0.0/0 after an Allow to pods, then an Allow to two pod /32s inserted first`,
    steps: [
      { apply: [policy([allowPods, denyAll])], probes: [probe('TCP', 80, step1), probe('UDP', 81, step1), probe('SCTP', 80, step1)] },
      { apply: [policy([allowIps, allowPods, denyAll])], probes: [probe('TCP', 80, step2), probe('UDP', 81, step2), probe('SCTP', 80, step2)] },
    ],
  };
}

/** Cases mirroring the upstream conformance tests one by one (see the block comment above). */
export const upstreamConformanceCases: Case[] = [
  anpRuleOrderCase('AdminNetworkPolicyIngressTCP', 'ingress', 'TCP', 3),
  anpRuleOrderCase('AdminNetworkPolicyIngressUDP + AdminNetworkPolicyIngressNamedPort', 'ingress', 'UDP', 4, 'serve-80-udp'),
  anpRuleOrderCase('AdminNetworkPolicyIngressSCTP', 'ingress', 'SCTP', 5),
  anpRuleOrderCase('AdminNetworkPolicyEgressTCP + AdminNetworkPolicyEgressNamedPort', 'egress', 'TCP', 6, 'serve-80-tcp'),
  anpRuleOrderCase('AdminNetworkPolicyEgressUDP', 'egress', 'UDP', 7),
  anpRuleOrderCase('AdminNetworkPolicyEgressSCTP', 'egress', 'SCTP', 8),
  anpGressCase(),
  priorityFieldCase(),
  integrationCase(),
  inlineCidrCase(false),
  banpRuleOrderCase('BaselineAdminNetworkPolicyIngressTCP', 'ingress', 'TCP'),
  banpRuleOrderCase('BaselineAdminNetworkPolicyIngressUDP + BaselineAdminNetworkPolicyIngressNamedPort', 'ingress', 'UDP', 'serve-80-udp'),
  banpRuleOrderCase('BaselineAdminNetworkPolicyIngressSCTP', 'ingress', 'SCTP'),
  banpRuleOrderCase('BaselineAdminNetworkPolicyEgressTCP + BaselineAdminNetworkPolicyEgressNamedPort', 'egress', 'TCP', 'serve-80-tcp'),
  banpRuleOrderCase('BaselineAdminNetworkPolicyEgressUDP', 'egress', 'UDP'),
  banpRuleOrderCase('BaselineAdminNetworkPolicyEgressSCTP', 'egress', 'SCTP'),
  banpGressCase(),
  inlineCidrCase(true),
];

/** Every ANP/BANP case, in file order (the lab's conformance files are numbered by this order). */
export const adminNetworkPolicyCases: Case[] = [...themeCases, ...upstreamConformanceCases];
