/**
 * The flows of NetworkPolicy rules (Antrea's conjunction scheme): each rule becomes up to three
 * clauses (1 = from, 2 = to, 3 = service) on shared match flows, one action flow per conj id,
 * metric flows keyed by ct_label or the deny mark, and the K8s default drop per applied-to member.
 */
import type { Action, Flow, Match } from '@switchyard/openflow/codec';
import { serviceReferenceKey } from '@switchyard/apis/types';
import { PipelineError } from '../errors';
import type { OwnerOutput } from '../feature';
import { FlowIndex } from '../identity';
import type { Group } from '../format';
import {
  APConjIDField, APDenyRegMark, APDispositionField, CT_ZONE, CT_ZONE_V6, DISPOSITION_ALLOW, DISPOSITION_DROP, DISPOSITION_REJECT, ETH_IP, ETH_IPV6,
  EgressRuleCTLabel, IngressRuleCTLabel, OutputToControllerRegMark, PACKETIN_NP_LOGGING_OPERATION, PACKETIN_NP_REJECT_OPERATION,
  PRIORITY, PROTO_ICMP, PROTO_ICMPV6, PROTO_SCTP, PROTO_TCP, PROTO_UDP, PacketInOperationField, PacketInTableField, ServiceGroupIDCTLabel, ServiceGroupIDField, TFEgressConjIDField,
  TFIngressConjIDField, TargetOFPortField, loadField, loadMarks, matchField, matchMarks,
} from '../fields';
import type { Pipeline } from '../tables';
import type { GroupMember, NetworkPolicy, NetworkPolicyPeer, NetworkPolicyRule, NodeConfig, PolicyService as Service } from '../state';
import { aggregateRanges, distinctV6, ipBlockCidrs } from './addresses';
import { IP, IPV6, flow, goto, isIpv6, resubmit } from './common';
import { portRangeToMasks } from './ports';
import type { ConjunctionBuilder } from './policy-conjunction';
import { appliedMembers, localPodsOf, namedPortMembers, namedPortNumbers, resolveNamedPort, type PolicyReader } from './policy-members';
import { isAntreaNative, isBaseline, ofPriorityKey, ruleKey } from './policy-priorities';

/** The state of one computation of policy flows (one policy, or all of them at once). */
export interface PolicyBuild {
  p: Pipeline;
  cfg: NodeConfig;
  cookie: bigint;
  rd: PolicyReader;
  conj: ConjunctionBuilder;
  out: Flow[];
  /**
   * Aggregated CIDR codes of a peer: by its address-group/ipBlock/FQDN signature when the build
   * covers many rules (peers of different rules that name the same groups), else by the peer object
   * (one rule's variants).
   */
  peerCache: Map<string | NetworkPolicyPeer, PeerCidrs> | undefined;
  /** Metric tables whose logging group a rule uses (ids: {@link loggingGroupId}). */
  loggingTables: Set<number> | undefined;
  /** First group id of the logging groups. */
  groupBase: number;
  /** Antrea-native policies are enforced (their tables exist). */
  antreaPolicy: boolean;
  /**
   * The node has IPv6 (dual-stack): IPv6 peers get address matches, and service clauses, allow
   * and metric flows get their IPv6 twins. Off, IPv6 addresses in groups are left out.
   */
  ipv6: boolean;
}

/** A peer's addresses: IPv4 as aggregated CIDR codes, IPv6 as distinct canonical text (empty on an IPv4-only node). */
export interface PeerCidrs {
  v4: number[];
  v6: string[];
}

/** Addresses of a list (IPv6 ones kept when the node has IPv6). */
function cidrsOf(b: PolicyBuild, items: Iterable<string>): PeerCidrs {
  const r = b.conj.ranges.reset();
  const v6: string[] = [];
  for (const x of items) if (!r.add(x) && b.ipv6 && isIpv6(x)) v6.push(x);
  return { v4: aggregateRanges(r), v6: v6.length ? distinctV6(v6) : v6 };
}

const protoNumber: Record<string, number> = { TCP: PROTO_TCP, UDP: PROTO_UDP, SCTP: PROTO_SCTP, ICMP: PROTO_ICMP, IGMP: 2 };

/** Match flows of a service clause (port ranges split into bitmasks); IPv6 ones with `v6` (ICMP is ICMPv6 there). */
function serviceMatches(s: Service, port: number | undefined, v6 = false): Match[] {
  let proto = protoNumber[s.protocol];
  if (proto === undefined) return [];
  if (v6 && s.protocol === 'IGMP') return [];
  if (v6 && s.protocol === 'ICMP') proto = PROTO_ICMPV6;
  const base: Match = { ...(v6 ? IPV6 : IP), ipProto: proto };
  if (s.protocol === 'ICMP') {
    const m: Match = { ...base };
    if (s.icmpType !== undefined) m[v6 ? 'icmpv6Type' : 'icmpType'] = s.icmpType;
    if (s.icmpCode !== undefined) m[v6 ? 'icmpv6Code' : 'icmpCode'] = s.icmpCode;
    return [m];
  }
  const dstKey = s.protocol === 'TCP' ? 'tcpDst' : s.protocol === 'UDP' ? 'udpDst' : 'sctpDst';
  const srcKey = s.protocol === 'TCP' ? 'tcpSrc' : s.protocol === 'UDP' ? 'udpSrc' : 'sctpSrc';
  const dst = port === undefined ? [undefined] : s.endPort !== undefined ? portRangeToMasks(port, s.endPort) : [{ value: port, mask: 0xffff }];
  const src = s.srcPort === undefined ? [undefined] : portRangeToMasks(s.srcPort, s.srcEndPort ?? s.srcPort);
  const out: Match[] = [];
  // Indexed loops here and in the other per-rule paths: a policy's first realization runs them
  // interpreted, where for-of allocates an iterator result per element.
  for (let i = 0; i < dst.length; i++) {
    for (let j = 0; j < src.length; j++) {
      const d = dst[i];
      const sp = src[j];
      const m: Match = { ...base };
      if (d) m[dstKey] = d.mask === 0xffff ? d.value : d;
      if (sp) m[srcKey] = sp.mask === 0xffff ? sp.value : sp;
      out.push(m);
    }
  }
  return out;
}

/** The peer's addresses as the fewest CIDRs of each family; computed once per distinct peer. */
function peerAddresses(b: PolicyBuild, peer: NetworkPolicyPeer): PeerCidrs {
  const sig = b.conj.sharesMatches
    ? `${peer.addressGroups.join('\0')}|${peer.ipBlocks.map((x) => `${x.cidr}-${x.except.join('-')}`).join('\0')}|${(peer.fqdns ?? []).join('\0')}`
    : peer;
  const hit = b.peerCache?.get(sig);
  if (hit) return hit;
  const r = b.conj.ranges.reset();
  const v6: string[] = [];
  // IPv4 text goes into the range buffer; what it refuses is kept when it is IPv6 (dual-stack).
  const keep6 = b.ipv6;
  for (let gi = 0; gi < peer.addressGroups.length; gi++) {
    const members = b.rd.addressGroup(peer.addressGroups[gi]!) ?? [];
    for (let i = 0; i < members.length; i++) {
      const ips = members[i]!.ips;
      for (let k = 0; k < ips.length; k++) if (!r.add(ips[k]!) && keep6 && isIpv6(ips[k]!)) v6.push(ips[k]!);
    }
  }
  for (let bi = 0; bi < peer.ipBlocks.length; bi++) {
    const cidrs = ipBlockCidrs(peer.ipBlocks[bi]!);
    for (let k = 0; k < cidrs.length; k++) if (!r.add(cidrs[k]!) && keep6 && isIpv6(cidrs[k]!)) v6.push(cidrs[k]!);
  }
  for (const f of peer.fqdns ?? []) for (const a of b.rd.fqdnAddresses(f) ?? []) if (!r.add(a) && keep6 && isIpv6(a)) v6.push(a);
  const cidrs: PeerCidrs = { v4: aggregateRanges(r), v6: v6.length ? distinctV6(v6) : v6 };
  (b.peerCache ??= new Map()).set(sig, cidrs);
  return cidrs;
}

const isEmptyPeer = (peer: NetworkPolicyPeer): boolean =>
  peer.addressGroups.length === 0 && peer.ipBlocks.length === 0 && !(peer.fqdns?.length) && !(peer.toServices?.length) && !(peer.labelIdentities?.length);

/** A rule, or one of its named-port sub-rules, with what its clauses match. */
interface Variant {
  key: string;
  members: readonly GroupMember[];
  /** Egress named ports: the destination addresses narrowed to the peers that declare the port. */
  peerIps?: string[];
  services: { s: Service; port: number | undefined }[];
}

/**
 * A variant per resolved named port: ingress narrows the applied-to members to those with the
 * port, egress narrows the destination addresses to the peers with it. Only the named services
 * that resolve to the number go into it (a name is per protocol: `serve-80-udp` must not open TCP
 * 80 because the rule also lists it for TCP, where no pod declares it).
 */
function variantsOf(b: PolicyBuild, np: NetworkPolicy, r: NetworkPolicyRule, key: string, members: readonly GroupMember[]): Variant[] {
  // No named port (the usual rule): one variant with the rule's services, no filtering closures.
  let named = false;
  for (let i = 0; i < r.services.length && !named; i++) named = typeof r.services[i]!.port === 'string';
  if (!named) {
    const services = new Array<{ s: Service; port: number | undefined }>(r.services.length);
    for (let i = 0; i < r.services.length; i++) services[i] = { s: r.services[i]!, port: r.services[i]!.port as number | undefined };
    return [{ key, members, services }];
  }
  const ingress = r.direction === 'In';
  const portMembers = ingress ? members : namedPortMembers(b.rd, np, r);
  const plain = r.services.filter((s) => typeof s.port !== 'string');
  const out: Variant[] = [];
  if (plain.length || !r.services.length) out.push({ key, members, services: plain.map((s) => ({ s, port: s.port as number | undefined })) });
  for (const port of namedPortNumbers(b.rd, r, portMembers)) {
    const named = r.services.filter((s) => typeof s.port === 'string');
    const ms = portMembers.filter((m) => named.some((s) => resolveNamedPort(m, s, b.rd) === port));
    const svc = named.filter((s) => portMembers.some((m) => resolveNamedPort(m, s, b.rd) === port)).map((s) => ({ s, port }));
    out.push(ingress ? { key: `${key}:${port}`, members: ms, services: svc } : { key: `${key}:${port}`, members, peerIps: ms.flatMap((m) => m.ips), services: svc });
  }
  return out;
}

/** Table and OpenFlow priorities (match flows, action flow) of a rule. */
function placement(b: PolicyBuild, np: NetworkPolicy, r: NetworkPolicyRule, native: boolean): { table: number; matchPrio: number; actionPrio: number } {
  const ingress = r.direction === 'In';
  if (!native) return { table: b.p.id(ingress ? 'IngressRule' : 'EgressRule'), matchPrio: PRIORITY.normal, actionPrio: PRIORITY.low };
  const baseline = isBaseline(np);
  const table = b.p.id(baseline ? (ingress ? 'IngressDefaultRule' : 'EgressDefaultRule') : ingress ? 'AntreaPolicyIngressRule' : 'AntreaPolicyEgressRule');
  const prio = b.rd.shared(ofPriorityKey(np, r));
  if (prio === undefined) throw new PipelineError('INVALID_INPUT', 'no OpenFlow priority for rule', ofPriorityKey(np, r), np.uid);
  return { table, matchPrio: prio, actionPrio: prio };
}

/** The flows of one rule. */
function ruleFlows(b: PolicyBuild, np: NetworkPolicy, r: NetworkPolicyRule, ri: number, native: boolean): void {
  const { table, matchPrio, actionPrio } = placement(b, np, r, native);
  const ingress = r.direction === 'In';
  const peer = ingress ? r.from : r.to;
  // An empty peer matches nothing; a K8s rule then only isolates.
  if (isEmptyPeer(peer)) return;
  const variants = variantsOf(b, np, r, ruleKey(np.uid, ri), appliedMembers(b.rd, np, r));
  for (let vi = 0; vi < variants.length; vi++) {
    const v = variants[vi]!;
    const id = b.rd.conjunctionId(v.key);
    b.conj.setClauses(id, v.services.length ? 3 : 2);
    const peerCidrs = v.peerIps ? cidrsOf(b, v.peerIps) : peerAddresses(b, peer);
    // Clause 1 (from) and 2 (to): the peer side uses addresses, the applied-to side local ports/IPs.
    const localPods = localPodsOf(b.rd, v.members);
    if (!localPods.length) continue;
    if (ingress) {
      b.conj.addAddresses(table, matchPrio, peerCidrs.v4, 'src', id, 1);
      if (peerCidrs.v6.length) b.conj.addIpv6Addresses(table, matchPrio, peerCidrs.v6, 'src', id, 1);
      // Stretched policies: peers in other clusters carry their label identity in tun_id.
      for (const label of peer.labelIdentities ?? []) b.conj.add(table, matchPrio, { tunId: BigInt(label) }, id, 1);
      for (let k = 0; k < localPods.length; k++) b.conj.add(table, matchPrio, matchField(TargetOFPortField, localPods[k]!.ofport), id, 2);
    } else {
      for (const pod of localPods) {
        const own = cidrsOf(b, pod.ips);
        b.conj.addAddresses(table, matchPrio, own.v4, 'src', id, 1);
        if (own.v6.length) b.conj.addIpv6Addresses(table, matchPrio, own.v6, 'src', id, 1);
      }
      b.conj.addAddresses(table, matchPrio, peerCidrs.v4, 'dst', id, 2);
      if (peerCidrs.v6.length) b.conj.addIpv6Addresses(table, matchPrio, peerCidrs.v6, 'dst', id, 2);
      // toServices: connections the Service load-balancing chose an endpoint for (its group id is
      // in the register), so a backend reached by its own address does not match, as in Antrea.
      // A later packet of a connection not yet established (a retransmitted SYN) skips ServiceLB,
      // so the group id EndpointDNAT committed into ct_label matches too.
      for (const ref of peer.toServices ?? []) {
        for (const sp of b.rd.servicePorts(serviceReferenceKey(ref))) {
          b.conj.add(table, matchPrio, matchField(ServiceGroupIDField, sp.groupId), id, 2);
          b.conj.add(table, matchPrio, ServiceGroupIDCTLabel.match(sp.groupId), id, 2);
        }
      }
    }
    for (let k = 0; k < v.services.length; k++) {
      const ms = serviceMatches(v.services[k]!.s, v.services[k]!.port);
      for (let j = 0; j < ms.length; j++) b.conj.add(table, matchPrio, ms[j]!, id, 3);
    }
    if (b.ipv6) {
      for (let k = 0; k < v.services.length; k++) {
        const ms = serviceMatches(v.services[k]!.s, v.services[k]!.port, true);
        for (let j = 0; j < ms.length; j++) b.conj.add(table, matchPrio, ms[j]!, id, 3);
      }
    }
    actionFlows(b, table, actionPrio, id, r, native);
  }
}

/** Adds the flows of one policy: its rules', then its own. */
export function addPolicyFlows(b: PolicyBuild, np: NetworkPolicy): void {
  checkedKind(b, np);
  np.rules.forEach((r, ri) => addRuleFlows(b, np, r, ri));
  addPolicyLevelFlows(b, np);
}

/** True for an Antrea-native policy; an input error when the configuration has no tiers for it. */
function checkedKind(b: PolicyBuild, np: NetworkPolicy): boolean {
  const native = isAntreaNative(np);
  if (native && !b.antreaPolicy) throw new PipelineError('INVALID_INPUT', 'Antrea-native policy while enableAntreaPolicy is off', np.uid, `policy ${np.uid}`);
  return native;
}

/**
 * Adds the flows of one rule of a policy. Of its policy it reads the uid, kind, tier and
 * priority, applied-to groups and `policyTypes` (a K8s rule of an unlisted direction does not apply).
 */
export function addRuleFlows(b: PolicyBuild, np: NetworkPolicy, r: NetworkPolicyRule, ri: number): void {
  const native = checkedKind(b, np);
  const types = native ? undefined : np.policyTypes;
  if (types && !types.includes(r.direction === 'In' ? 'Ingress' : 'Egress')) return;
  ruleFlows(b, np, r, ri, native);
}

/**
 * Adds what a policy has besides its rules: the K8s default drop per applied-to member, in the
 * isolated directions (`policyTypes` when given: a listed direction with no rule denies all that
 * way; else the directions of its rules).
 */
export function addPolicyLevelFlows(b: PolicyBuild, np: NetworkPolicy): void {
  if (checkedKind(b, np)) return;
  const types = np.policyTypes;
  const isolated = {
    In: types ? types.includes('Ingress') : np.rules.some((r) => r.direction === 'In'),
    Out: types ? types.includes('Egress') : np.rules.some((r) => r.direction === 'Out'),
  };
  const locals = localPodsOf(b.rd, np.appliedToGroups.flatMap((n) => b.rd.appliedToGroup(n) ?? []));
  for (const pod of locals) {
    if (isolated.In) b.out.push(flow(b.p.id('IngressDefaultRule'), PRIORITY.normal, matchField(TargetOFPortField, pod.ofport), [], b.cookie));
    if (isolated.Out) {
      for (const ip of pod.ips) {
        if (!isIpv6(ip)) b.out.push(flow(b.p.id('EgressDefaultRule'), PRIORITY.normal, { ...IP, ipv4Src: ip }, [], b.cookie));
      }
      if (b.ipv6) for (const ip of cidrsOf(b, pod.ips.filter(isIpv6)).v6) b.out.push(flow(b.p.id('EgressDefaultRule'), PRIORITY.normal, { ...IPV6, ipv6Src: ip }, [], b.cookie));
    }
  }
}

/**
 * Id of the logging group of a metric table: fixed per table (ingress first), so a rule's action
 * flow does not depend on which other rules log.
 */
function loggingGroupId(b: PolicyBuild, metric: number): number {
  (b.loggingTables ??= new Set()).add(metric);
  return b.groupBase + (metric === b.p.id('IngressMetric') ? 0 : 1);
}

function actionFlows(b: PolicyBuild, table: number, prio: number, id: number, r: NetworkPolicyRule, native: boolean): void {
  const ingress = r.direction === 'In';
  const metric = b.p.id(ingress ? 'IngressMetric' : 'EgressMetric');
  const action = r.action ?? 'Allow';
  if (action === 'Allow') return allowFlows(b, table, prio, id, r, metric);
  if (action === 'Pass') {
    if (!native) throw new PipelineError('INVALID_INPUT', 'Pass is only valid in Antrea-native policies', action, 'rule.action');
    b.out.push(flow(table, prio, { conjId: id }, [loadField(ingress ? TFIngressConjIDField : TFEgressConjIDField, id), goto(b.p.id(ingress ? 'IngressRule' : 'EgressRule'))], b.cookie));
    return;
  }
  // Drop / Reject: mark denied, count in the metric table, drop there; Reject/logging also go to the controller.
  const disposition = action === 'Reject' ? DISPOSITION_REJECT : DISPOSITION_DROP;
  const acts: Action[] = [loadField(APConjIDField, id), ...loadMarks(APDenyRegMark)];
  let ops = 0;
  if (r.enableLogging) ops += PACKETIN_NP_LOGGING_OPERATION;
  if (action === 'Reject') ops += PACKETIN_NP_REJECT_OPERATION;
  if (ops) {
    acts.push(loadField(APDispositionField, disposition), loadField(PacketInOperationField, ops), loadField(PacketInTableField, table), { type: 'group', id: loggingGroupId(b, metric) });
  } else {
    acts.push(goto(metric));
  }
  b.out.push(flow(table, prio, { conjId: id }, acts, b.cookie));
  b.out.push(flow(metric, PRIORITY.normal, { ...matchMarks(APDenyRegMark), ...matchField(APConjIDField, id) }, [], b.cookie));
}

function allowFlows(b: PolicyBuild, table: number, prio: number, id: number, r: NetworkPolicyRule, metric: number): void {
  const ingress = r.direction === 'In';
  const conjReg = ingress ? TFIngressConjIDField : TFEgressConjIDField;
  const label = ingress ? IngressRuleCTLabel : EgressRuleCTLabel;
  const c = b.cookie;
  const next = b.p.nextId(ingress ? 'IngressMetric' : 'EgressMetric');
  // The rule's ct_label value once (a BigInt shift each), shared by its flows: flows are not
  // mutated once made. So is the metric flows' one action list.
  const labelMatch = label.match(id).ctLabel!;
  const toNext = [goto(next)];
  // The IPv6 twins commit in the IPv6 zone (the zone the connection was tracked in).
  for (let fi = 0; fi < (b.ipv6 ? 2 : 1); fi++) {
    const fam = fi === 0 ? IP : IPV6;
    const zone = fi === 0 ? CT_ZONE : CT_ZONE_V6;
    if (r.enableLogging) {
      // Logging of allowed packets: fan out to the metric table and to the controller.
      b.out.push(flow(table, prio, { conjId: id, ...fam }, [
        loadField(conjReg, id), loadField(APDispositionField, DISPOSITION_ALLOW), loadField(PacketInOperationField, PACKETIN_NP_LOGGING_OPERATION),
        loadField(PacketInTableField, table), { type: 'ct', commit: true, zone, exec: [label.load(id)] }, { type: 'group', id: loggingGroupId(b, metric) },
      ], c));
    } else {
      b.out.push(flow(table, prio, { conjId: id, ethType: fi === 0 ? ETH_IP : ETH_IPV6 }, [loadField(conjReg, id), { type: 'ct', commit: true, table: metric, zone, exec: [{ type: 'setField', field: 'ctLabel', value: labelMatch }] }], c));
    }
  }
  b.out.push(flow(metric, PRIORITY.normal, { ctState: { new: true }, ctLabel: labelMatch, ethType: ETH_IP }, toNext, c));
  b.out.push(flow(metric, PRIORITY.normal, { ctState: { new: false }, ctLabel: labelMatch, ethType: ETH_IP }, toNext, c));
  if (b.ipv6) {
    b.out.push(flow(metric, PRIORITY.normal, { ctState: { new: true }, ctLabel: labelMatch, ethType: ETH_IPV6 }, toNext, c));
    b.out.push(flow(metric, PRIORITY.normal, { ctState: { new: false }, ctLabel: labelMatch, ethType: ETH_IPV6 }, toNext, c));
  }
}

/** The logging groups the rules used: bucket 0 back to the metric table, bucket 1 to the controller. */
function loggingGroups(b: PolicyBuild): Group[] {
  return [...(b.loggingTables ?? [])]
    .map((metric) => ({
      groupId: b.groupBase + (metric === b.p.id('IngressMetric') ? 0 : 1),
      groupType: 'all' as const,
      buckets: [{ actions: [resubmit(metric)] }, { actions: [...loadMarks(OutputToControllerRegMark), resubmit(b.p.id('Output'))] }],
    }))
    .sort((x, y) => x.groupId - y.groupId);
}

/**
 * The flows (each identity once) and groups collected so far. Conjunctive match flows are unique
 * by construction and never share an identity with an action, metric or default-drop flow (those
 * match conj_id, a metric mark or sit at another priority), so only the latter are deduplicated,
 * and only when `dedupe` (one rule's action and metric flows are unique by conj id).
 */
export function finishPolicyBuild(b: PolicyBuild, head: readonly Flow[] = [], dedupe = true): OwnerOutput & { groups: Group[] } {
  let flows: Flow[];
  if (dedupe) {
    const seen = new FlowIndex();
    for (let i = 0; i < head.length; i++) seen.put(head[i]!);
    for (let i = 0; i < b.out.length; i++) seen.put(b.out[i]!);
    flows = seen.flows;
  } else if (head.length === 0) flows = b.out;
  else flows = [...head, ...b.out];
  const conj = b.conj.flows();
  for (let i = 0; i < conj.length; i++) flows.push(conj[i]!);
  return { flows, groups: b.loggingTables === undefined ? [] : loggingGroups(b) };
}
