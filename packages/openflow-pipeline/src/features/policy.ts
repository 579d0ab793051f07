/**
 * NetworkPolicy via conjunction (Antrea's scheme): each rule becomes up to three clauses
 * (1 = from, 2 = to, 3 = service) whose match flows are shared between rules with the same table,
 * priority and match; one action flow per conj_id; metric flows keyed by ct_label; K8s default
 * drop per applied-to member; Antrea-native priorities from tier/policy/rule with collision handling.
 */
import type { Action, Flow, Match } from '@switchyard/openflow/codec';
import { CookieCategory, makeCookie } from '../cookie';
import { PipelineError } from '../errors';
import { matchKey } from '../diff';
import { FlowIndex } from '../identity';
import type { Group } from '../format';
import {
  APConjIDField, APDenyRegMark, APDispositionField, CONTROLLER_ID, CT_ZONE, DISPOSITION_ALLOW, DISPOSITION_DROP,
  DISPOSITION_PASS, DISPOSITION_REJECT, EgressRuleCTLabel, IngressRuleCTLabel, OutputRegField, OutputToControllerRegMark,
  PACKETIN_CATEGORY,
  PACKETIN_METER_ID_NP, PACKETIN_NP_LOGGING_OPERATION, PACKETIN_NP_REJECT_OPERATION, PRIORITY, PROTO_ICMP, PROTO_SCTP,
  PROTO_TCP, PROTO_UDP, PacketInOperationField, PacketInTableField, TFEgressConjIDField, TFIngressConjIDField,
  TargetOFPortField, ToGatewayRegMark, ToTunnelRegMark, ToUplinkRegMark, HairpinCTMark, loadField, loadMarks,
  matchCtMarks, matchField, matchMarks,
} from '../fields';
import type { Pipeline, TableName } from '../tables';
import type { GroupMember, LocalPod, NetworkPolicy, NetworkPolicyPeer, NetworkPolicyRule, NodeConfig, PolicyService as Service } from '../state';
import { aggregateRanges, codeBase, codeLen, formatCidrCode, ipBlockCidrs, Ranges } from './addresses';
import { IP, flow, goto, ipv4Net, resubmit } from './common';
import { portRangeToMasks } from './ports';

/** Tier priority of Antrea's Baseline tier; BANP uses the tier below it. */
export const BASELINE_TIER_PRIORITY = 253;
export const BANP_TIER_PRIORITY = 254;
/** Priority of Antrea's default (application) tier. */
export const DEFAULT_TIER_PRIORITY = 250;

/** Tables the NetworkPolicy feature needs. */
export function networkPolicyTables(cfg: NodeConfig): TableName[] {
  const t: TableName[] = ['IngressSecurityClassifier', 'EgressRule', 'EgressDefaultRule', 'EgressMetric', 'IngressRule', 'IngressDefaultRule', 'IngressMetric'];
  if (cfg.enableAntreaPolicy) t.push('AntreaPolicyEgressRule', 'AntreaPolicyIngressRule');
  return t;
}

/** Stable key of a rule: policy uid and the rule's index in the policy. */
export function ruleKey(policyUid: string, index: number): string {
  return `${policyUid}/${index}`;
}

/**
 * Keeps the ids of rules still present and gives new rules the lowest free ids (from 1).
 * Pure: returns a new map; the caller stores it for the next call.
 */
export function assignConjunctionIds(previous: ReadonlyMap<string, number>, keys: Iterable<string>): Map<string, number> {
  const wanted = [...new Set(keys)];
  const out = new Map<string, number>();
  const used = new Set<number>();
  for (const k of wanted) {
    const id = previous.get(k);
    if (id !== undefined) {
      out.set(k, id);
      used.add(id);
    }
  }
  let next = 1;
  for (const k of wanted) {
    if (out.has(k)) continue;
    while (used.has(next)) next++;
    out.set(k, next);
    used.add(next++);
  }
  return out;
}

/** Antrea's Priority of a rule: tier, policy priority, rule index. */
export interface RulePriority {
  tierPriority: number;
  policyPriority: number;
  rulePriority: number;
}

const cmpPriority = (a: RulePriority, b: RulePriority): number =>
  a.tierPriority - b.tierPriority || a.policyPriority - b.policyPriority || a.rulePriority - b.rulePriority;

/**
 * Maps rule priorities to OpenFlow priorities: Antrea's initial guess (top - tier*offsetT -
 * policy*offsetP - rule), then collisions resolved so that precedence order is strict (each
 * next priority is at most the previous minus one). Baseline tables use their own band.
 */
export function assignOFPriorities(priorities: readonly RulePriority[], baseline: boolean): Map<string, number> {
  const top = baseline ? 180 : 65000;
  const bottom = baseline ? 10 : 100;
  const key = (p: RulePriority): string => `${p.tierPriority}/${p.policyPriority}/${p.rulePriority}`;
  const uniq = new Map<string, RulePriority>();
  for (const p of priorities) uniq.set(key(p), p);
  const sorted = [...uniq.values()].sort(cmpPriority);
  const out = new Map<string, number>();
  let prev = top + 1;
  for (const p of sorted) {
    const tierOff = (baseline ? 0 : 200) * p.tierPriority;
    const polOff = Math.floor(p.policyPriority * (baseline ? 10 : p.tierPriority === DEFAULT_TIER_PRIORITY ? 100 : 20));
    const off = tierOff + polOff + p.rulePriority;
    let of = off > top - bottom ? bottom : top - off;
    if (of >= prev) of = prev - 1;
    if (of < bottom) throw new PipelineError('PRIORITY_EXHAUSTED', 'no OpenFlow priority left for rule', p, baseline ? 'baseline tables' : 'Antrea policy tables');
    out.set(key(p), of);
    prev = of;
  }
  return out;
}

interface Ctx {
  p: Pipeline;
  cfg: NodeConfig;
  cookie: bigint;
  groups: Map<string, GroupMember[]>;
  podsByName: Map<string, LocalPod>;
  podsByIp: Map<string, LocalPod>;
  /** Shared conjunctive match flows (other than address matches) by (table, priority), then match key. */
  shared: Map<string, Map<string, SharedFlow>>;
  /** Address match flows by (table, priority, src|dst), then prefix length, then base address `| 0`. */
  addrShared: Map<string, (Map<number, SharedFlow> | undefined)[]>;
  sharedOrder: SharedFlow[];
  /** Number of clauses of each conj id. */
  nClauses: Map<number, number>;
  /** (shared flow slot, conjunction code) pairs of all shared flows (see SharedFlow). */
  pairs: PairBuffer;
  /** Scratch buffer for a peer's address ranges. */
  ranges: Ranges;
  /** Conjunction action objects by `id * 4 + clause`. */
  conjActions: Map<number, Action>;
  /** Aggregated CIDR codes of a peer, by its address-group/ipBlock/FQDN signature. */
  peerCache: Map<string, number[]>;
  out: Flow[];
  loggingGroups: Map<number, number>;
  controllerId: number;
  fqdn: Record<string, string[]>;
}

/** Options of the NetworkPolicy feature. */
export interface NetworkPolicyInput {
  policies: readonly NetworkPolicy[];
  addressGroups: readonly { name: string; groupMembers: GroupMember[] }[];
  appliedToGroups: readonly { name: string; groupMembers: GroupMember[] }[];
  pods: readonly LocalPod[];
  conjIds: ReadonlyMap<string, number>;
  /** Controller connection id for packet-ins (Antrea: 62373). */
  controllerId?: number;
  /** First group id for the logging/reject groups. */
  groupIdBase?: number;
  /** Addresses resolved for FQDN peers, by the FQDN as written in the rule. */
  fqdnAddresses?: Record<string, string[]>;
}

/** Output of the feature. */
export interface NetworkPolicyFlows {
  flows: Flow[];
  groups: Group[];
  /** conj ids used, by rule key (sub-rules of named ports have `key:port`). */
  conjIds: Map<string, number>;
}

const isAntreaNative = (np: NetworkPolicy): boolean => np.sourceRef.type !== 'K8sNetworkPolicy' && np.tierPriority !== undefined;
const isBaseline = (np: NetworkPolicy): boolean => np.tierPriority === BASELINE_TIER_PRIORITY || np.tierPriority === BANP_TIER_PRIORITY;

/** Every rule key (and named-port sub-rule key) the input needs a conj id for. */
export function policyRuleKeys(input: Omit<NetworkPolicyInput, 'conjIds'>): string[] {
  const keys: string[] = [];
  const ctx = membersIndex(input);
  for (const np of input.policies) {
    np.rules.forEach((r, i) => {
      const k = ruleKey(np.uid, i);
      keys.push(k);
      for (const port of namedPortNumbers(r, namedPortMembers(ctx, np, r), ctx.podsByIp)) keys.push(`${k}:${port}`);
    });
  }
  return keys;
}

function membersIndex(input: Omit<NetworkPolicyInput, 'conjIds'>): { groups: Map<string, GroupMember[]>; podsByIp: Map<string, LocalPod> } {
  const groups = new Map<string, GroupMember[]>();
  for (const g of input.addressGroups) groups.set(`a/${g.name}`, g.groupMembers);
  for (const g of input.appliedToGroups) groups.set(`t/${g.name}`, g.groupMembers);
  const podsByIp = new Map<string, LocalPod>();
  for (const p of input.pods) for (const ip of p.ips) podsByIp.set(ip, p);
  return { groups, podsByIp };
}

function appliedMembers(ctx: { groups: Map<string, GroupMember[]> }, np: NetworkPolicy, r: NetworkPolicyRule): GroupMember[] {
  const names = r.appliedToGroups && r.appliedToGroups.length ? r.appliedToGroups : np.appliedToGroups;
  return names.flatMap((n) => ctx.groups.get(`t/${n}`) ?? []);
}

/**
 * Where a rule's named ports are resolved: ingress on its applied-to members (the destination),
 * egress on the members of its `to` address groups (the destinations; the compiler gives a
 * peer-less egress rule with a named port an all-pods group for this, as Antrea does).
 */
function namedPortMembers(ctx: { groups: Map<string, GroupMember[]> }, np: NetworkPolicy, r: NetworkPolicyRule): GroupMember[] {
  if (r.direction === 'In') return appliedMembers(ctx, np, r);
  return r.to.addressGroups.flatMap((g) => ctx.groups.get(`a/${g}`) ?? []);
}

/** Distinct port numbers the named ports of a rule resolve to on its destination members. */
function namedPortNumbers(r: NetworkPolicyRule, members: GroupMember[], podsByIp: Map<string, LocalPod>): number[] {
  const names = r.services.filter((s) => typeof s.port === 'string');
  if (!names.length) return [];
  const ports = new Set<number>();
  for (const m of members) for (const n of names) {
    const p = resolveNamedPort(m, n, podsByIp);
    if (p !== undefined) ports.add(p);
  }
  return [...ports].sort((a, b) => a - b);
}

function resolveNamedPort(m: GroupMember, s: Service, podsByIp: Map<string, LocalPod>): number | undefined {
  const named = [...(m.ports ?? []), ...m.ips.flatMap((ip) => podsByIp.get(ip)?.namedPorts ?? [])];
  return named.find((np) => np.name === s.port && np.protocol === s.protocol)?.port;
}

const protoNumber: Record<string, number> = { TCP: PROTO_TCP, UDP: PROTO_UDP, SCTP: PROTO_SCTP, ICMP: PROTO_ICMP, IGMP: 2 };

/** Match flows of a service clause (port ranges split into bitmasks). */
function serviceMatches(s: Service, port: number | undefined): Match[] {
  const proto = protoNumber[s.protocol];
  if (proto === undefined) return [];
  const base: Match = { ...IP, ipProto: proto };
  if (s.protocol === 'ICMP') {
    const m: Match = { ...base };
    if (s.icmpType !== undefined) m.icmpType = s.icmpType;
    if (s.icmpCode !== undefined) m.icmpCode = s.icmpCode;
    return [m];
  }
  const dstKey = s.protocol === 'TCP' ? 'tcpDst' : s.protocol === 'UDP' ? 'udpDst' : 'sctpDst';
  const srcKey = s.protocol === 'TCP' ? 'tcpSrc' : s.protocol === 'UDP' ? 'udpSrc' : 'sctpSrc';
  const dst = port === undefined ? [undefined] : s.endPort !== undefined ? portRangeToMasks(port, s.endPort) : [{ value: port, mask: 0xffff }];
  const src = s.srcPort === undefined ? [undefined] : portRangeToMasks(s.srcPort, s.srcEndPort ?? s.srcPort);
  const out: Match[] = [];
  for (const d of dst) for (const sp of src) {
    const m: Match = { ...base };
    if (d) m[dstKey] = d.mask === 0xffff ? d.value : d;
    if (sp) m[srcKey] = sp.mask === 0xffff ? sp.value : sp;
    out.push(m);
  }
  return out;
}

/**
 * A conjunctive match flow. The (conj id, clause) pairs it carries, coded `id * 4 + clause`, are
 * appended to `ctx.pairs` with the flow's slot (two flat arrays for all flows instead of an array
 * each) and grouped per flow by a counting sort at the end.
 */
interface SharedFlow {
  flow: Flow;
  slot: number;
}

/** Growable typed buffers of (slot, code) pairs: off the JS heap, so a million pairs cost the GC little. */
class PairBuffer {
  slot = new Uint32Array(1024);
  code = new Float64Array(1024);
  n = 0;
  push(slot: number, code: number): void {
    if (this.n === this.slot.length) {
      const s = new Uint32Array(this.n * 2);
      const c = new Float64Array(this.n * 2);
      s.set(this.slot);
      c.set(this.code);
      this.slot = s;
      this.code = c;
    }
    this.slot[this.n] = slot;
    this.code[this.n++] = code;
  }
}

function pushConj(ctx: Ctx, e: SharedFlow, code: number): void {
  ctx.pairs.push(e.slot, code);
}

/** The peer's addresses as the fewest CIDR codes; computed once per distinct peer. */
function peerAddresses(ctx: Ctx, peer: NetworkPolicyPeer): number[] {
  const sig = `${peer.addressGroups.join('\0')}|${peer.ipBlocks.map((b) => `${b.cidr}-${b.except.join('-')}`).join('\0')}|${(peer.fqdns ?? []).join('\0')}`;
  const hit = ctx.peerCache.get(sig);
  if (hit) return hit;
  const r = ctx.ranges.reset();
  for (const g of peer.addressGroups) {
    const members = ctx.groups.get(`a/${g}`) ?? [];
    for (let i = 0; i < members.length; i++) {
      const ips = members[i]!.ips;
      for (let k = 0; k < ips.length; k++) r.add(ips[k]!);
    }
  }
  for (const b of peer.ipBlocks) r.addAll(ipBlockCidrs(b));
  for (const f of peer.fqdns ?? []) r.addAll(ctx.fqdn[f] ?? []);
  const codes = aggregateRanges(r);
  ctx.peerCache.set(sig, codes);
  return codes;
}

const isEmptyPeer = (peer: NetworkPolicyPeer): boolean =>
  peer.addressGroups.length === 0 && peer.ipBlocks.length === 0 && !(peer.fqdns?.length) && !(peer.toServices?.length) && !(peer.labelIdentities?.length);

function sharedBucket(ctx: Ctx, table: number, priority: number): Map<string, SharedFlow> {
  const k = `${table}/${priority}`;
  let b = ctx.shared.get(k);
  if (!b) {
    b = new Map();
    ctx.shared.set(k, b);
  }
  return b;
}

/** Adds (id, clause) to the shared flow of a match; `key` identifies the match within its bucket. */
function addSharedKeyed(ctx: Ctx, bucket: Map<string, SharedFlow>, key: string, make: () => Flow, id: number, clause: number): void {
  let e = bucket.get(key);
  if (!e) {
    e = { flow: make(), slot: ctx.sharedOrder.length };
    bucket.set(key, e);
    ctx.sharedOrder.push(e);
  }
  pushConj(ctx, e, id * 4 + clause);
}

function addShared(ctx: Ctx, table: number, priority: number, match: Match, id: number, clause: number): void {
  addSharedKeyed(ctx, sharedBucket(ctx, table, priority), matchKey(match), () => flow(table, priority, match, [], ctx.cookie), id, clause);
}

/** Adds (id, clause) to the address match flows of CIDR codes (a /0 is the plain `ip` match). */
function addSharedAddrs(ctx: Ctx, table: number, priority: number, codes: readonly number[], dir: 'src' | 'dst', id: number, clause: number): void {
  const bk = `${table}/${priority}/${dir}`;
  let bucket = ctx.addrShared.get(bk);
  if (!bucket) {
    bucket = [];
    ctx.addrShared.set(bk, bucket);
  }
  const conj = id * 4 + clause;
  // Hot loop (one pass per peer address of every rule): no closures, no strings unless the flow
  // is new, and small-integer map keys (`base | 0` in a map per prefix length) so that looking a
  // code up allocates nothing.
  for (let k = 0; k < codes.length; k++) {
    const code = codes[k]!;
    const len = codeLen(code);
    if (len === 0) {
      addShared(ctx, table, priority, { ...IP }, id, clause);
      continue;
    }
    let byBase = bucket[len];
    if (!byBase) {
      byBase = new Map();
      bucket[len] = byBase;
    }
    const base = codeBase(code) | 0;
    let e = byBase.get(base);
    if (!e) {
      const net = ipv4Net(formatCidrCode(code));
      e = { flow: flow(table, priority, dir === 'src' ? { ...IP, ipv4Src: net } : { ...IP, ipv4Dst: net }, [], ctx.cookie), slot: ctx.sharedOrder.length };
      byBase.set(base, e);
      ctx.sharedOrder.push(e);
    }
    pushConj(ctx, e, conj);
  }
}

/**
 * The conjunction actions of a shared flow: sorted by (id, clause), duplicates dropped. One
 * action object per (id, clause) is shared by every flow carrying it (a rule with 100 peer
 * addresses would otherwise allocate 100 identical objects); actions are never mutated.
 */
function conjActions(ctx: Ctx, codes: Float64Array): Action[] {
  let sorted = true;
  for (let i = 1; i < codes.length && sorted; i++) sorted = codes[i - 1]! <= codes[i]!;
  // Rules are usually visited in conj-id order, so most lists are already sorted.
  if (!sorted) codes.sort();
  const out: Action[] = [];
  let prev = -1;
  for (const c of codes) {
    if (c === prev) continue;
    prev = c;
    let a = ctx.conjActions.get(c);
    if (!a) {
      const id = Math.floor(c / 4);
      a = { type: 'conjunction', id, clause: c % 4, nClauses: ctx.nClauses.get(id)! };
      ctx.conjActions.set(c, a);
    }
    out.push(a);
  }
  return out;
}

/** Sets every shared flow's conjunction actions: pairs grouped per flow by a counting sort. */
function materializeShared(ctx: Ctx): void {
  const nFlows = ctx.sharedOrder.length;
  const { slot, code, n } = ctx.pairs;
  const start = new Uint32Array(nFlows + 1);
  for (let i = 0; i < n; i++) start[slot[i]! + 1]!++;
  for (let f = 0; f < nFlows; f++) start[f + 1]! += start[f]!;
  const fill = start.slice(0, nFlows);
  const grouped = new Float64Array(n);
  for (let i = 0; i < n; i++) grouped[fill[slot[i]!]!++] = code[i]!;
  for (let f = 0; f < nFlows; f++) ctx.sharedOrder[f]!.flow.actions = conjActions(ctx, grouped.subarray(start[f]!, start[f + 1]!));
}

function loggingGroup(ctx: Ctx, nextTable: number): number {
  let id = ctx.loggingGroups.get(nextTable);
  if (id === undefined) {
    id = ctx.loggingGroups.size;
    ctx.loggingGroups.set(nextTable, id);
  }
  return id;
}

/** Computes the NetworkPolicy flows and groups. Pure. */
export function networkPolicyFlows(p: Pipeline, cfg: NodeConfig, input: NetworkPolicyInput): NetworkPolicyFlows {
  const idx = membersIndex(input);
  const podsByName = new Map(input.pods.map((x) => [`${x.namespace}/${x.name}`, x]));
  const ctx: Ctx = {
    p, cfg, cookie: makeCookie(cfg.round, CookieCategory.NetworkPolicy), groups: idx.groups, podsByName, podsByIp: idx.podsByIp,
    shared: new Map(), addrShared: new Map(), sharedOrder: [], nClauses: new Map(), peerCache: new Map(), conjActions: new Map(), pairs: new PairBuffer(), ranges: new Ranges(), out: [], loggingGroups: new Map(), controllerId: input.controllerId ?? CONTROLLER_ID, fqdn: input.fqdnAddresses ?? {},
  };
  const groupBase = input.groupIdBase ?? 1;
  const antrea = cfg.enableAntreaPolicy ?? false;
  const c = ctx.cookie;

  // Established/related bypass: reply traffic never meets a rule.
  const bypassPrio = antrea ? PRIORITY.topAntreaPolicy : PRIORITY.high;
  const inTable = p.id(antrea ? 'AntreaPolicyIngressRule' : 'IngressRule');
  const egTable = p.id(antrea ? 'AntreaPolicyEgressRule' : 'EgressRule');
  for (const [t, metric] of [[egTable, p.id('EgressMetric')], [inTable, p.id('IngressMetric')]] as const) {
    ctx.out.push(flow(t, bypassPrio, { ctState: { new: false, est: true }, ...IP }, [goto(metric)], c));
    ctx.out.push(flow(t, bypassPrio, { ctState: { new: false, rel: true }, ...IP }, [goto(metric)], c));
  }
  // Ingress classifier: traffic to the gateway, tunnel or uplink skips ingress rules.
  const isc = p.id('IngressSecurityClassifier');
  for (const mark of [ToGatewayRegMark, ToTunnelRegMark, ToUplinkRegMark]) ctx.out.push(flow(isc, PRIORITY.normal, matchMarks(mark), [goto(p.id('IngressMetric'))], c));
  if (cfg.enableProxy) ctx.out.push(flow(isc, PRIORITY.normal, matchCtMarks(HairpinCTMark), [goto(p.id('ConntrackCommit'))], c));
  // Kubelet probes from the gateway bypass ingress rules (netdev datapath has no pkt_mark from the host).
  if (cfg.netdevDatapath ?? true) {
    ctx.out.push(flow(isc, PRIORITY.high, { ctState: { rpl: false, trk: true }, ...IP, ipv4Src: cfg.gateway.ip }, [goto(p.id('ConntrackCommit'))], c));
  } else {
    ctx.out.push(flow(isc, PRIORITY.high, { pktMark: { value: 0x80000000, mask: 0x80000000 }, ctState: { rpl: false, trk: true }, ...IP }, [goto(p.id('ConntrackCommit'))], c));
  }
  // Packet-in flows in Output, one per operation combination.
  for (let op = 1; op <= PACKETIN_NP_LOGGING_OPERATION + 2 + PACKETIN_NP_REJECT_OPERATION; op++) {
    ctx.out.push(flow(p.id('Output'), PRIORITY.normal, matchMarks(OutputToControllerRegMark, PacketInOperationField.mark(op)), [
      ...(cfg.packetInMeters ? [{ type: 'meter' as const, id: PACKETIN_METER_ID_NP }] : []),
      { type: 'controller', reason: 'no_match', id: ctx.controllerId, userdata: Uint8Array.of(PACKETIN_CATEGORY.NP, op) },
    ], c));
  }

  // Antrea-native priorities, per band.
  const multi: RulePriority[] = [];
  const base: RulePriority[] = [];
  const prioOf = (np: NetworkPolicy, r: NetworkPolicyRule): RulePriority => ({ tierPriority: np.tierPriority ?? DEFAULT_TIER_PRIORITY, policyPriority: np.priority ?? 0, rulePriority: r.priority });
  for (const np of input.policies) if (isAntreaNative(np)) for (const r of np.rules) (isBaseline(np) ? base : multi).push(prioOf(np, r));
  const multiOF = assignOFPriorities(multi, false);
  const baseOF = assignOFPriorities(base, true);
  const conjIds = new Map<string, number>();
  const idOf = (k: string): number => {
    const id = input.conjIds.get(k);
    if (id === undefined) throw new PipelineError('INVALID_INPUT', 'no conjunction id for rule (use assignConjunctionIds)', k, k);
    conjIds.set(k, id);
    return id;
  };

  for (const [pi, np] of input.policies.entries()) {
    const native = isAntreaNative(np);
    if (native && !antrea) throw new PipelineError('INVALID_INPUT', 'Antrea-native policy while enableAntreaPolicy is off', np.uid, `policies[${pi}]`);
    // K8s isolation: `policyTypes` when given (a listed direction with no rule denies all that
    // way; rules of an unlisted direction do not apply, as in K8s), else the rules' directions.
    const types = native ? undefined : np.policyTypes;
    const isolated = { In: types?.includes('Ingress') ?? false, Out: types?.includes('Egress') ?? false };
    np.rules.forEach((r, ri) => {
      if (types && !isolated[r.direction]) return;
      const members = appliedMembers(ctx, np, r);
      const key = ruleKey(np.uid, ri);
      if (!native && !types) isolated[r.direction] = true;
      const ingress = r.direction === 'In';
      let table: number;
      let matchPrio: number;
      let actionPrio: number;
      if (!native) {
        table = p.id(ingress ? 'IngressRule' : 'EgressRule');
        matchPrio = PRIORITY.normal;
        actionPrio = PRIORITY.low;
      } else {
        const baseline = isBaseline(np);
        table = p.id(baseline ? (ingress ? 'IngressDefaultRule' : 'EgressDefaultRule') : ingress ? 'AntreaPolicyIngressRule' : 'AntreaPolicyEgressRule');
        const pr = prioOf(np, r);
        matchPrio = actionPrio = (baseline ? baseOF : multiOF).get(`${pr.tierPriority}/${pr.policyPriority}/${pr.rulePriority}`)!;
      }
      const peer = ingress ? r.from : r.to;
      // An empty peer matches nothing; a K8s rule then only isolates.
      if (isEmptyPeer(peer)) return;
      const portMembers = ingress ? members : namedPortMembers(ctx, np, r);
      const named = namedPortNumbers(r, portMembers, ctx.podsByIp);
      const plain = r.services.filter((s) => typeof s.port !== 'string');
      // A variant per resolved named port: ingress narrows the applied-to members to those with the
      // port, egress narrows the destination addresses to the peers with it.
      const variants: { key: string; members: GroupMember[]; peerIps?: string[]; services: { s: Service; port: number | undefined }[] }[] = [];
      if (plain.length || !r.services.length) variants.push({ key, members, services: plain.map((s) => ({ s, port: s.port as number | undefined })) });
      for (const port of named) {
        const ms = portMembers.filter((m) => r.services.some((s) => typeof s.port === 'string' && resolveNamedPort(m, s, ctx.podsByIp) === port));
        // Only the named services that resolve to this number (a name is per protocol: `serve-80-udp`
        // must not open TCP 80 because the rule also lists it for TCP, where no pod declares it).
        const svc = r.services
          .filter((s) => typeof s.port === 'string' && portMembers.some((m) => resolveNamedPort(m, s, ctx.podsByIp) === port))
          .map((s) => ({ s, port }));
        variants.push(ingress ? { key: `${key}:${port}`, members: ms, services: svc } : { key: `${key}:${port}`, members, peerIps: ms.flatMap((m) => m.ips), services: svc });
      }
      for (const v of variants) {
        const id = idOf(v.key);
        const nClauses = v.services.length ? 3 : 2;
        ctx.nClauses.set(id, nClauses);
        const peerCidrs = v.peerIps ? aggregateRanges(ctx.ranges.reset().addAll(v.peerIps)) : peerAddresses(ctx, peer);
        // Clause 1 (from) and 2 (to): the peer side uses addresses, the applied-to side local ports/IPs.
        const local = v.members.flatMap((m) => m.ips.map((ip) => ctx.podsByIp.get(ip)).filter((x): x is LocalPod => x !== undefined));
        const localPods = [...new Map(local.map((x) => [x.ofport, x])).values()];
        if (!localPods.length) continue;
        if (ingress) {
          addSharedAddrs(ctx, table, matchPrio, peerCidrs, 'src', id, 1);
          // Stretched policies: peers in other clusters carry their label identity in tun_id.
          for (const label of peer.labelIdentities ?? []) addShared(ctx, table, matchPrio, { tunId: BigInt(label) }, id, 1);
          for (const pod of localPods) addShared(ctx, table, matchPrio, matchField(TargetOFPortField, pod.ofport), id, 2);
        } else {
          for (const pod of localPods) addSharedAddrs(ctx, table, matchPrio, aggregateRanges(ctx.ranges.reset().addAll(pod.ips)), 'src', id, 1);
          addSharedAddrs(ctx, table, matchPrio, peerCidrs, 'dst', id, 2);
        }
        for (const { s, port } of v.services) for (const m of serviceMatches(s, port)) addShared(ctx, table, matchPrio, m, id, 3);
        actionFlows(ctx, table, actionPrio, id, r, native, ingress, groupBase);
      }
    });
    // K8s default drop per applied-to member.
    if (!native) {
      const all = np.appliedToGroups.flatMap((n) => ctx.groups.get(`t/${n}`) ?? []);
      const locals = [...new Map(all.flatMap((m) => m.ips.map((ip) => ctx.podsByIp.get(ip))).filter((x): x is LocalPod => !!x).map((x) => [x.ofport, x])).values()];
      for (const pod of locals) {
        if (isolated.In) ctx.out.push(flow(p.id('IngressDefaultRule'), PRIORITY.normal, matchField(TargetOFPortField, pod.ofport), [], c));
        if (isolated.Out) for (const ip of pod.ips) ctx.out.push(flow(p.id('EgressDefaultRule'), PRIORITY.normal, { ...IP, ipv4Src: ip }, [], c));
      }
    }
  }

  // Dedupe identical flows (a K8s default drop can come from two policies on the same pod).
  const seen = new FlowIndex();
  for (const f of ctx.out) seen.put(f);
  // Materialize shared match flows with their conjunction actions sorted (deterministic output).
  materializeShared(ctx);
  for (const e of ctx.sharedOrder) seen.put(e.flow);

  const groups: Group[] = [...ctx.loggingGroups].map(([nextTable, i]) => ({
    groupId: groupBase + i,
    groupType: 'all' as const,
    buckets: [{ actions: [resubmit(nextTable)] }, { actions: [...loadMarks(OutputToControllerRegMark), resubmit(p.id('Output'))] }],
  }));
  return { flows: seen.flows, groups, conjIds };
}

function actionFlows(ctx: Ctx, table: number, prio: number, id: number, r: NetworkPolicyRule, native: boolean, ingress: boolean, groupBase: number): void {
  const { p, cookie: c } = ctx;
  const metric = p.id(ingress ? 'IngressMetric' : 'EgressMetric');
  const action = r.action ?? 'Allow';
  if (action === 'Allow') {
    const conjReg = ingress ? TFIngressConjIDField : TFEgressConjIDField;
    const label = ingress ? IngressRuleCTLabel : EgressRuleCTLabel;
    const acts: Action[] = [loadField(conjReg, id), { type: 'ct', commit: true, table: metric, zone: CT_ZONE, exec: [label.load(id)] }];
    ctx.out.push(flow(table, prio, { conjId: id, ...IP }, acts, c));
    ctx.out.push(flow(metric, PRIORITY.normal, { ctState: { new: true }, ...label.match(id), ...IP }, [goto(p.nextId(ingress ? 'IngressMetric' : 'EgressMetric'))], c));
    ctx.out.push(flow(metric, PRIORITY.normal, { ctState: { new: false }, ...label.match(id), ...IP }, [goto(p.nextId(ingress ? 'IngressMetric' : 'EgressMetric'))], c));
    if (r.enableLogging) {
      // Logging of allowed packets: fan out to the metric table and to the controller.
      const g = loggingGroup(ctx, metric);
      ctx.out[ctx.out.length - 3] = flow(table, prio, { conjId: id, ...IP }, [
        loadField(conjReg, id), loadField(APDispositionField, DISPOSITION_ALLOW), loadField(PacketInOperationField, PACKETIN_NP_LOGGING_OPERATION),
        loadField(PacketInTableField, table), { type: 'ct', commit: true, zone: CT_ZONE, exec: [label.load(id)] }, { type: 'group', id: groupBase + g },
      ], c);
    }
    return;
  }
  if (action === 'Pass') {
    if (!native) throw new PipelineError('INVALID_INPUT', 'Pass is only valid in Antrea-native policies', action, 'rule.action');
    const next = p.id(ingress ? 'IngressRule' : 'EgressRule');
    ctx.out.push(flow(table, prio, { conjId: id }, [loadField(ingress ? TFIngressConjIDField : TFEgressConjIDField, id), goto(next)], c));
    void DISPOSITION_PASS;
    return;
  }
  // Drop / Reject: mark denied, count in the metric table, drop there; Reject/logging also go to the controller.
  const disposition = action === 'Reject' ? DISPOSITION_REJECT : DISPOSITION_DROP;
  const acts: Action[] = [loadField(APConjIDField, id), ...loadMarks(APDenyRegMark)];
  let ops = 0;
  if (r.enableLogging) ops += PACKETIN_NP_LOGGING_OPERATION;
  if (action === 'Reject') ops += PACKETIN_NP_REJECT_OPERATION;
  if (ops) {
    acts.push(loadField(APDispositionField, disposition), loadField(PacketInOperationField, ops), loadField(PacketInTableField, table), { type: 'group', id: groupBase + loggingGroup(ctx, metric) });
  } else {
    acts.push(goto(metric));
  }
  ctx.out.push(flow(table, prio, { conjId: id }, acts, c));
  ctx.out.push(flow(metric, PRIORITY.normal, { ...matchMarks(APDenyRegMark), ...matchField(APConjIDField, id) }, [], c));
  void OutputRegField;
}
