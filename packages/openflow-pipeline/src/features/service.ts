/**
 * Service load balancing (AntreaProxy): ClusterIP and NodePort through select groups with
 * weighted buckets, endpoint DNAT with ct nat, ClientIP session affinity via learn, no-endpoint
 * reject to the controller, and hairpin (a pod reaching itself through its Service). IPv4, and
 * IPv6 on a dual-stack node: a Service port's family is its ClusterIP's.
 */
import type { Action, FieldRef, Flow, Match } from '@switchyard/openflow/codec';
import { Ip } from '@switchyard/ipam/cidr';
import { CookieCategory, makeCookie } from '../cookie';
import {
  CONTROLLER_ID, CT_ZONE, CT_ZONE_V6, ConnSNATCTMark, EndpointIP6Field, EndpointIPField, ETH_IP, ETH_IPV6, SNAT_CT_ZONE_V6, EndpointPortField, EpSelectedRegMark, EpToLearnRegMark,
  EpToSelectRegMark, EpUnionField, FromGatewayRegMark, FromPodRegMark, ToGatewayRegMark, ToTunnelRegMark, HairpinCTMark, PACKETIN_CATEGORY, PRIORITY, PROTO_SCTP, PROTO_TCP,
  PROTO_UDP, PktSourceField, RewriteMACRegMark, SNAT_CT_ZONE, ServiceCTMark, ServiceEPStateField, ServiceGroupIDCTLabel, ServiceGroupIDField,
  SvcNoEpRegMark, ToExternalAddressRegMark, ToNodePortAddressRegMark, type RegMark, loadCtMark, loadField, loadMarks, matchCtMarks,
  matchField, matchMarks,
} from '../fields';
import type { Pipeline, TableName } from '../tables';
import { VIRTUAL_NODEPORT_DNAT_IP, VIRTUAL_NODEPORT_DNAT_IPV6, VIRTUAL_SERVICE_IP, VIRTUAL_SERVICE_IPV6, type LocalPod, type NodeConfig, type ServicePortSpec } from '../state';
import type { Group } from '../format';
import type { Feature } from '../feature';
import { defineKind } from '../objects';
import { podKind } from './pod';
import { IP, IPV6, flow, goto, hasIpv6, ipv4ToInt, ipv6Addr, isIpv6, resubmit, setEthDst } from './common';
import { PipelineError } from '../errors';
import { podIpv4s, podIpv6s } from './pod-ipv6';

/** Service ports, by group id; found by their Service `<namespace>/<name>` (index `serviceRef`). */
export const serviceKind = defineKind({
  name: 'service',
  enumerate: (s) => (s.services ?? []).map((x) => [String(x.groupId), x] as const),
  index: { name: 'serviceRef', keys: (x) => (x.service === undefined ? [] : [x.service]) },
});

/** Tables Service LB needs. */
export function serviceTables(): TableName[] {
  return ['UnSNAT', 'PreRoutingClassifier', 'NodePortMark', 'SessionAffinity', 'ServiceLB', 'EndpointDNAT', 'L3Forwarding', 'L3DecTTL', 'SNATMark', 'SNAT'];
}

const proto = (s: ServicePortSpec): number => (s.protocol === 'TCP' ? PROTO_TCP : s.protocol === 'UDP' ? PROTO_UDP : PROTO_SCTP);
const dstKey = (s: ServicePortSpec): 'tcpDst' | 'udpDst' | 'sctpDst' => (s.protocol === 'TCP' ? 'tcpDst' : s.protocol === 'UDP' ? 'udpDst' : 'sctpDst');

/** What differs between the IPv4 and IPv6 Service flows: the match fields, zones, addresses and the endpoint register. */
interface ServiceFamily {
  v6: boolean;
  eth: Match;
  ethType: number;
  src: 'ipv4Src' | 'ipv6Src';
  dst: 'ipv4Dst' | 'ipv6Dst';
  zone: number;
  snatZone: number;
  /** The gateway's address of this family (SNAT source towards remote endpoints, hairpin). */
  /** The gateway's address of this family (IPv4: absent on an IPv6-only node). */
  gw: string | undefined;
  /** Source of SNATed external traffic to local endpoints. */
  virtualIP: string;
  /** Where the host DNATs node ports to. */
  nodePortDnatIP: string;
  /** The node's own address of this family, when it has one. */
  nodeIP: string | undefined;
  /** The endpoint address as the select group's bucket loads it, and as EndpointDNAT matches it. */
  loadEndpoint(ip: string): Action;
  matchEndpoint(ip: string): Partial<Match>;
  endpointRef: FieldRef;
}

function v4Family(cfg: NodeConfig): ServiceFamily {
  return {
    v6: false, eth: IP, ethType: ETH_IP, src: 'ipv4Src', dst: 'ipv4Dst', zone: CT_ZONE, snatZone: SNAT_CT_ZONE, gw: cfg.gateway.ip,
    virtualIP: cfg.virtualServiceIP ?? VIRTUAL_SERVICE_IP, nodePortDnatIP: cfg.nodePortDnatIP ?? VIRTUAL_NODEPORT_DNAT_IP, nodeIP: cfg.nodeIP,
    loadEndpoint: (ip) => loadField(EndpointIPField, ipv4ToInt(ip)), matchEndpoint: (ip) => matchField(EndpointIPField, ipv4ToInt(ip)), endpointRef: EndpointIPField.ref(),
  };
}

/** The IPv6 twin (a dual-stack node), with the node's IPv6 address when it has one (`nodeIPv6`). */
function v6Family(cfg: NodeConfig): ServiceFamily {
  return {
    v6: true, eth: IPV6, ethType: ETH_IPV6, src: 'ipv6Src', dst: 'ipv6Dst', zone: CT_ZONE_V6, snatZone: SNAT_CT_ZONE_V6, gw: ipv6Addr(cfg.gateway.ipv6!, 'config.gateway.ipv6'),
    virtualIP: VIRTUAL_SERVICE_IPV6, nodePortDnatIP: VIRTUAL_NODEPORT_DNAT_IPV6, nodeIP: cfg.nodeIPv6 === undefined ? undefined : ipv6Addr(cfg.nodeIPv6, 'config.nodeIPv6'),
    loadEndpoint: (ip) => EndpointIP6Field.load(Ip.parse(ip).value), matchEndpoint: (ip) => EndpointIP6Field.match(Ip.parse(ip).value), endpointRef: EndpointIP6Field.ref(),
  };
}

/** Flows present whenever the proxy is on: IPv4's, and on a dual-stack node their IPv6 twins after them. */
export function serviceBaseFlows(p: Pipeline, cfg: NodeConfig, controllerId = CONTROLLER_ID): Flow[] {
  if (cfg.nodeIPv6 !== undefined && !hasIpv6(cfg)) throw new PipelineError('INVALID_INPUT', `config.nodeIPv6 ${cfg.nodeIPv6} on a node without IPv6 (config.podCIDRv6)`, cfg.nodeIPv6, 'config.nodeIPv6');
  // An IPv6-only node (no gateway IPv4 address): IPv6's flows only, with the family-free ones.
  if (cfg.gateway.ip === undefined && hasIpv6(cfg)) return familyBaseFlows(p, cfg, v6Family(cfg), controllerId, true);
  const flows = familyBaseFlows(p, cfg, v4Family(cfg), controllerId);
  if (hasIpv6(cfg)) for (const f of familyBaseFlows(p, cfg, v6Family(cfg), controllerId)) flows.push(f);
  return flows;
}

/** One family's node-level Service flows; the family-free ones (SessionAffinity's miss, EndpointDNAT's) come with IPv4's. */
function familyBaseFlows(p: Pipeline, cfg: NodeConfig, fam: ServiceFamily, controllerId: number, familyFree = !fam.v6): Flow[] {
  const c = makeCookie(cfg.round, CookieCategory.Service);
  const { eth, dst, gw: gwIP, virtualIP, zone, snatZone } = fam;
  if (gwIP === undefined) throw new PipelineError('INVALID_INPUT', 'config.gateway.ip is required without config.podCIDRv6 (an IPv4 node)', undefined, 'config.gateway.ip');
  const NEW = { ctState: { new: true, trk: true } };
  const once = (...f: Flow[]): Flow[] => (familyFree ? f : []);
  return [
    flow(p.id('UnSNAT'), PRIORITY.normal, { ...eth, [dst]: gwIP }, [{ type: 'ct', table: p.id('ConntrackZone'), zone: snatZone, nat: {} }], c),
    flow(p.id('UnSNAT'), PRIORITY.normal, { ...eth, [dst]: virtualIP }, [{ type: 'ct', table: p.id('ConntrackZone'), zone: snatZone, nat: {} }], c),
    flow(p.id('PreRoutingClassifier'), PRIORITY.normal, eth, [resubmit(p.id('NodePortMark')), resubmit(p.id('SessionAffinity')), resubmit(p.id('ServiceLB'))], c),
    ...(fam.nodeIP === undefined ? [] : [flow(p.id('NodePortMark'), PRIORITY.normal, { ...eth, [dst]: fam.nodeIP }, loadMarks(ToNodePortAddressRegMark), c)]),
    // What the host DNATs the node ports it receives to (nodeIP:nodePort -> this:nodePort).
    flow(p.id('NodePortMark'), PRIORITY.normal, { ...eth, [dst]: fam.nodePortDnatIP }, loadMarks(ToNodePortAddressRegMark), c),
    ...once(
      flow(p.id('SessionAffinity'), PRIORITY.miss, {}, loadMarks(EpToSelectRegMark), c),
      flow(p.id('EndpointDNAT'), PRIORITY.normal, matchMarks(SvcNoEpRegMark), [{ type: 'controller', reason: 'no_match', id: controllerId, userdata: Uint8Array.of(PACKETIN_CATEGORY.SvcReject) }], c),
      flow(p.id('EndpointDNAT'), PRIORITY.low, matchMarks(EpSelectedRegMark), [...loadMarks(EpToSelectRegMark), resubmit(p.id('ServiceLB'))], c),
    ),
    // External traffic (from the gateway, to a node port or an external address, Cluster policy):
    // SNAT so the reply comes back through this node. The source kind goes into ct_mark, so the
    // reply is sent back to the gateway.
    flow(p.id('SNATMark'), PRIORITY.normal, { ...NEW, ...eth, ...matchMarks(FromGatewayRegMark, ToExternalAddressRegMark) }, [
      { type: 'ct', commit: true, table: p.id('SNAT'), zone, exec: [loadCtMark(ConnSNATCTMark), { type: 'copyField', src: PktSourceField.ref(), dst: { field: 'ctMark', start: 0, end: 3 } }] },
    ], c),
    // From the host to an endpoint outside the pod network (through a ClusterIP or node port, e.g. the
    // API server behind `kubernetes`): back out by the gateway, with the gateway's MAC, and SNATed to
    // the virtual Service IP (the host would drop its own address coming in; it masquerades this one).
    flow(p.id('L3Forwarding'), PRIORITY.low, { ...eth, ...matchMarks(RewriteMACRegMark) }, [setEthDst(cfg.gateway.mac), ...loadMarks(ToGatewayRegMark), goto(p.id('L3DecTTL'))], c),
    // It leaves by the port it came in on: hairpin (Output sends those to IN_PORT), in both zones.
    flow(p.id('SNATMark'), PRIORITY.normal + 1, { ...NEW, ...eth, ...matchCtMarks(ServiceCTMark), ...matchMarks(FromGatewayRegMark, ToGatewayRegMark) }, [
      { type: 'ct', commit: true, table: p.id('SNAT'), zone, exec: [loadCtMark(ConnSNATCTMark), loadCtMark(HairpinCTMark), { type: 'copyField', src: PktSourceField.ref(), dst: { field: 'ctMark', start: 0, end: 3 } }] },
    ], c),
    flow(p.id('SNAT'), PRIORITY.normal + 1, { ...NEW, ...matchCtMarks(ConnSNATCTMark), ...eth, ...matchMarks(FromGatewayRegMark, ToGatewayRegMark) }, [
      { type: 'ct', commit: true, table: p.id('L2ForwardingCalc'), zone: snatZone, nat: { kind: 'src', ipMin: virtualIP }, exec: [loadCtMark(ServiceCTMark), loadCtMark(ConnSNATCTMark), loadCtMark(HairpinCTMark)] },
    ], c),
    // To a remote endpoint: the gateway IP (a pod CIDR address, routed back here by every node);
    // to a local one: the virtual Service IP (never a host connection's own address).
    flow(p.id('SNAT'), PRIORITY.normal + 1, { ...NEW, ...matchCtMarks(ConnSNATCTMark), ...eth, ...matchMarks(FromGatewayRegMark, ToTunnelRegMark) }, [
      { type: 'ct', commit: true, table: p.id('L2ForwardingCalc'), zone: snatZone, nat: { kind: 'src', ipMin: gwIP }, exec: [loadCtMark(ServiceCTMark), loadCtMark(ConnSNATCTMark)] },
    ], c),
    flow(p.id('SNAT'), PRIORITY.normal, { ...NEW, ...matchCtMarks(ConnSNATCTMark), ...eth, ...matchMarks(FromGatewayRegMark) }, [
      { type: 'ct', commit: true, table: p.id('L2ForwardingCalc'), zone: snatZone, nat: { kind: 'src', ipMin: virtualIP }, exec: [loadCtMark(ServiceCTMark), loadCtMark(ConnSNATCTMark)] },
    ], c),
    // Hairpin: SNAT to the gateway IP so the reply comes back through OVS.
    flow(p.id('SNAT'), PRIORITY.normal, { ...NEW, ...matchCtMarks(HairpinCTMark), ...eth, ...matchMarks(FromPodRegMark) }, [
      { type: 'ct', commit: true, table: p.id('L2ForwardingCalc'), zone: snatZone, nat: { kind: 'src', ipMin: gwIP }, exec: [loadCtMark(ServiceCTMark), loadCtMark(ConnSNATCTMark), loadCtMark(HairpinCTMark)] },
    ], c),
    flow(p.id('SNAT'), PRIORITY.normal, { ctState: { new: false, rpl: false, trk: true }, ...matchCtMarks(ConnSNATCTMark), ...eth }, [{ type: 'ct', table: p.id('L2ForwardingCalc'), zone: snatZone, nat: {} }], c),
  ];
}

/** Hairpin mark for a local pod (a Service may send a pod to itself), per address of the pod. */
export function serviceHairpinPodFlows(p: Pipeline, cfg: NodeConfig, pod: LocalPod): Flow[] {
  const c = makeCookie(cfg.round, CookieCategory.Service);
  const mark = (fam: ServiceFamily, ip: string): Flow =>
    flow(p.id('SNATMark'), PRIORITY.low, { ctState: { new: true, trk: true }, ...fam.eth, [fam.src]: ip, [fam.dst]: ip }, [
      { type: 'ct', commit: true, table: p.id('SNAT'), zone: fam.zone, exec: [loadCtMark(ConnSNATCTMark), loadCtMark(HairpinCTMark), { type: 'copyField', src: PktSourceField.ref(), dst: { field: 'ctMark', start: 0, end: 3 } }] },
    ], c);
  const v4 = v4Family(cfg);
  const flows = podIpv4s(pod).map((ip) => mark(v4, ip));
  const v6s = podIpv6s(cfg, pod);
  if (v6s.length > 0) {
    const v6 = v6Family(cfg);
    for (const ip of v6s) flows.push(mark(v6, ip));
  }
  return flows;
}

/** Where a Service port is reached: its match (with the register marks it needs), the group it selects from, and whether the traffic is external. */
interface Frontend {
  match: Match;
  marks: RegMark[];
  groupId: number;
  external: boolean;
  priority: number;
}

/**
 * The frontends of a Service port: the ClusterIP; the node port and the external addresses. With
 * `externalTrafficPolicy: Local`, external traffic from the gateway (the host handed it in) goes
 * to the local group without the external mark (no SNAT); from pods it may use every endpoint.
 */
function frontendsOf(s: ServicePortSpec, fam: ServiceFamily): Frontend[] {
  const pr = proto(s);
  const dk = dstKey(s);
  const { eth, dst } = fam;
  const local = s.localGroupId ?? s.groupId;
  const out: Frontend[] = [{ match: { ...eth, ipProto: pr, [dst]: s.clusterIP, [dk]: s.port } as Match, marks: [], groupId: s.internalLocal ? local : s.groupId, external: false, priority: PRIORITY.normal }];
  const external: { match: Match; marks: RegMark[] }[] = [];
  if (s.nodePort !== undefined) external.push({ match: { ...eth, ipProto: pr, [dk]: s.nodePort } as Match, marks: [ToNodePortAddressRegMark] });
  for (const a of s.externalAddresses ?? []) external.push({ match: { ...eth, ipProto: pr, [dst]: a, [dk]: s.port } as Match, marks: [] });
  for (const e of external) {
    out.push({ ...e, groupId: s.groupId, external: !s.externalLocal, priority: PRIORITY.normal });
    if (s.externalLocal) out.push({ match: e.match, marks: [...e.marks, FromGatewayRegMark], groupId: local, external: false, priority: PRIORITY.normal + 1 });
  }
  return out;
}

/** The learn action remembering a client's endpoint (ClientIP affinity) for one frontend. */
function affinityLearn(p: Pipeline, s: ServicePortSpec, f: Frontend, fam: ServiceFamily, cookie: bigint): Action {
  const pr = proto(s);
  const portField = dstKey(s);
  return {
    type: 'learn', table: p.id('SessionAffinity'), hardTimeout: s.affinityTimeout!, priority: PRIORITY.normal, deleteLearned: true, cookie,
    specs: [
      { kind: 'match', dst: { field: 'ethType' }, src: { value: fam.ethType } },
      { kind: 'match', dst: { field: 'ipProto' }, src: { value: pr } },
      { kind: 'match', dst: { field: portField }, src: { field: portField } },
      { kind: 'match', dst: { field: fam.dst }, src: { field: fam.dst } },
      { kind: 'match', dst: { field: fam.src }, src: { field: fam.src } },
      { kind: 'load', dst: EndpointPortField.ref(), src: EndpointPortField.ref() },
      // The Service's group id, so an affinity hit is seen by toServices rules as a first pick is.
      { kind: 'load', dst: ServiceGroupIDField.ref(), src: ServiceGroupIDField.ref() },
      { kind: 'load', dst: fam.endpointRef, src: fam.endpointRef },
      // Learn immediates sit at the field's bit position in the codec model (the text shows them shifted down).
      { kind: 'load', dst: ServiceEPStateField.ref(), src: { value: ServiceEPStateField.shift(EpSelectedRegMark.value) } },
      { kind: 'load', dst: RewriteMACRegMark.field.ref(), src: { value: RewriteMACRegMark.field.shift(RewriteMACRegMark.value) } },
      ...(f.external ? [{ kind: 'load' as const, dst: ToExternalAddressRegMark.field.ref(), src: { value: ToExternalAddressRegMark.field.shift(ToExternalAddressRegMark.value) } }] : []),
    ],
  };
}

/** Buckets of a select group: one per endpoint, or the no-endpoint reject (`drop`: none, the packet is dropped). */
function bucketsOf(p: Pipeline, fam: ServiceFamily, endpoints: ServicePortSpec['endpoints'], afterSelect: number, onEmpty: 'reject' | 'drop'): Group['buckets'] {
  if (endpoints.length > 0) return endpoints.map((e) => ({ weight: e.weight ?? 100, actions: [fam.loadEndpoint(e.ip), loadField(EndpointPortField, e.port), resubmit(afterSelect)] }));
  return onEmpty === 'reject' ? [{ weight: 100, actions: [...loadMarks(SvcNoEpRegMark), resubmit(p.id('EndpointDNAT'))] }] : [];
}

/**
 * A Service port's family (its ClusterIP's) and the spec with its IPv6 addresses in canonical
 * text. An IPv6 port needs a dual-stack node; every address of a port is of its family.
 */
function checkedSpec(cfg: NodeConfig, s: ServicePortSpec): { s: ServicePortSpec; fam: ServiceFamily } {
  const where = `services[${s.groupId}]`;
  const v6 = isIpv6(s.clusterIP);
  const same = (ip: string, path: string): string => {
    if (isIpv6(ip) !== v6) throw new PipelineError('INVALID_INPUT', `${ip} is not of the family of clusterIP ${s.clusterIP}`, ip, path);
    return v6 ? ipv6Addr(ip, path) : ip;
  };
  if (!v6) {
    s.endpoints.forEach((e, i) => same(e.ip, `${where}.endpoints[${i}].ip`));
    (s.externalAddresses ?? []).forEach((a, i) => same(a, `${where}.externalAddresses[${i}]`));
    return { s, fam: v4Family(cfg) };
  }
  if (!hasIpv6(cfg)) throw new PipelineError('INVALID_INPUT', `IPv6 Service ${s.clusterIP} on a node without IPv6 (config.podCIDRv6)`, s.clusterIP, `${where}.clusterIP`);
  const out: ServicePortSpec = {
    ...s,
    clusterIP: ipv6Addr(s.clusterIP, `${where}.clusterIP`),
    endpoints: s.endpoints.map((e, i) => ({ ...e, ip: same(e.ip, `${where}.endpoints[${i}].ip`) })),
  };
  if (s.externalAddresses) out.externalAddresses = s.externalAddresses.map((a, i) => same(a, `${where}.externalAddresses[${i}]`));
  return { s: out, fam: v6Family(cfg) };
}

/** Flows and the select group(s) of one Service port. */
export function servicePortFlows(p: Pipeline, cfg: NodeConfig, spec: ServicePortSpec): { flows: Flow[]; groups: Group[] } {
  const { s, fam } = checkedSpec(cfg, spec);
  const c = makeCookie(cfg.round, CookieCategory.Service, s.groupId);
  const pr = proto(s);
  const affinity = s.affinityTimeout !== undefined && s.endpoints.length > 0;
  const stateMark = affinity ? EpToLearnRegMark : EpSelectedRegMark;
  const flows: Flow[] = [];
  for (const f of frontendsOf(s, fam)) {
    const marks = f.external ? [RewriteMACRegMark, stateMark, ToExternalAddressRegMark] : [RewriteMACRegMark, stateMark];
    flows.push(flow(p.id('ServiceLB'), f.priority, { ...f.match, ...matchMarks(EpToSelectRegMark, ...f.marks) } as Match, [...loadMarks(...marks), loadField(ServiceGroupIDField, f.groupId), { type: 'group', id: f.groupId }], c));
    if (affinity) {
      flows.push(flow(p.id('ServiceLB'), f.priority === PRIORITY.normal ? PRIORITY.low : PRIORITY.low + 1, { ...f.match, ...matchMarks(EpToLearnRegMark, ...f.marks) } as Match, [
        affinityLearn(p, s, f, fam, c), ...loadMarks(EpSelectedRegMark), goto(p.id('EndpointDNAT')),
      ], c));
    }
  }
  const afterSelect = affinity ? p.id('ServiceLB') : p.id('EndpointDNAT');
  for (const e of s.endpoints) {
    flows.push(flow(p.id('EndpointDNAT'), PRIORITY.normal, { ...fam.eth, ipProto: pr, ...fam.matchEndpoint(e.ip), ...matchField(EpUnionField, (EpSelectedRegMark.value << 16) | e.port) }, [
      { type: 'ct', commit: true, table: p.stageId('egressSecurity'), zone: fam.zone, nat: { kind: 'dst', ipMin: e.ip, portMin: e.port },
        // The group id goes with the connection: its retransmitted SYN skips ServiceLB (ct(nat) has
        // rewritten it) and toServices rules match the label instead of the register.
        exec: [loadCtMark(ServiceCTMark), { type: 'copyField', src: ServiceGroupIDField.ref(), dst: ServiceGroupIDCTLabel.ref() }] },
    ], c));
  }
  const groups: Group[] = [{ groupId: s.groupId, groupType: 'select', buckets: bucketsOf(p, fam, s.endpoints, afterSelect, 'reject') }];
  if ((s.externalLocal || s.internalLocal) && s.localGroupId !== undefined) {
    // kube-proxy drops what a Local policy cannot send to a local endpoint.
    groups.push({ groupId: s.localGroupId, groupType: 'select', buckets: bucketsOf(p, fam, s.endpoints.filter((e) => e.local), afterSelect, 'drop') });
  }
  return { flows, groups };
}

/** AntreaProxy: node-level Service flows, the hairpin mark of each local pod, each Service port. */
export function service(): Feature {
  return {
    name: 'service',
    config: {},
    tables: serviceTables,
    kinds: [podKind, serviceKind],
    ownsMiss: ['SessionAffinity'],
    nodeFlows: (ctx) => ({ flows: serviceBaseFlows(ctx.pipeline, ctx.config, ctx.controllerId) }),
    perObject: {
      pod: (ctx, pod) => ({ flows: serviceHairpinPodFlows(ctx.pipeline, ctx.config, pod) }),
      service: (ctx, s) => servicePortFlows(ctx.pipeline, ctx.config, s),
    },
  };
}

const { config: _none, ...serviceParts } = service();

/** @deprecated On when NodeConfig's `enableProxy` is; use {@link service} (in a list only where the proxy is on). */
export const serviceFeature: Feature = { ...serviceParts, enabled: (cfg) => cfg.enableProxy ?? false };
