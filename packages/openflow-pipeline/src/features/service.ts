/**
 * Service load balancing (AntreaProxy): ClusterIP and NodePort through select groups with
 * weighted buckets, endpoint DNAT with ct nat, ClientIP session affinity via learn, no-endpoint
 * reject to the controller, and hairpin (a pod reaching itself through its Service).
 */
import type { Action, Flow, Match } from '@switchyard/openflow/codec';
import { CookieCategory, makeCookie } from '../cookie';
import {
  CONTROLLER_ID, CT_ZONE, ConnSNATCTMark, EndpointIPField, EndpointPortField, EpSelectedRegMark, EpToLearnRegMark,
  EpToSelectRegMark, EpUnionField, FromGatewayRegMark, FromPodRegMark, ToGatewayRegMark, ToTunnelRegMark, HairpinCTMark, PACKETIN_CATEGORY, PRIORITY, PROTO_SCTP, PROTO_TCP,
  PROTO_UDP, PktSourceField, RewriteMACRegMark, SNAT_CT_ZONE, ServiceCTMark, ServiceEPStateField, ServiceGroupIDField,
  SvcNoEpRegMark, ToExternalAddressRegMark, ToNodePortAddressRegMark, type RegMark, loadCtMark, loadField, loadMarks, matchCtMarks,
  matchField, matchMarks,
} from '../fields';
import type { Pipeline, TableName } from '../tables';
import { VIRTUAL_NODEPORT_DNAT_IP, VIRTUAL_SERVICE_IP, type LocalPod, type NodeConfig, type ServicePortSpec } from '../state';
import type { Group } from '../format';
import type { Feature } from '../feature';
import { defineKind } from '../objects';
import { podKind } from './pod';
import { IP, IPV6, flow, goto, hasIpv6, ipv4ToInt, resubmit, setEthDst } from './common';
import { podIpv4s } from './pod-ipv6';

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

/** Flows present whenever the proxy is on. */
export function serviceBaseFlows(p: Pipeline, cfg: NodeConfig, controllerId = CONTROLLER_ID): Flow[] {
  const c = makeCookie(cfg.round, CookieCategory.Service);
  const gwIP = cfg.gateway.ip;
  const virtualIP = cfg.virtualServiceIP ?? VIRTUAL_SERVICE_IP;
  const NEW = { ctState: { new: true, trk: true } };
  return [
    flow(p.id('UnSNAT'), PRIORITY.normal, { ...IP, ipv4Dst: gwIP }, [{ type: 'ct', table: p.id('ConntrackZone'), zone: SNAT_CT_ZONE, nat: {} }], c),
    flow(p.id('UnSNAT'), PRIORITY.normal, { ...IP, ipv4Dst: virtualIP }, [{ type: 'ct', table: p.id('ConntrackZone'), zone: SNAT_CT_ZONE, nat: {} }], c),
    flow(p.id('PreRoutingClassifier'), PRIORITY.normal, IP, [resubmit(p.id('NodePortMark')), resubmit(p.id('SessionAffinity')), resubmit(p.id('ServiceLB'))], c),
    // Services are IPv4 here; IPv6 on a dual-stack node passes the Service tables as IPv4 that is
    // not for a Service does (SessionAffinity's miss ends a pass, so it must be resubmitted too).
    ...(hasIpv6(cfg) ? [flow(p.id('PreRoutingClassifier'), PRIORITY.normal, IPV6, [resubmit(p.id('NodePortMark')), resubmit(p.id('SessionAffinity')), resubmit(p.id('ServiceLB'))], c)] : []),
    flow(p.id('NodePortMark'), PRIORITY.normal, { ...IP, ipv4Dst: cfg.nodeIP }, loadMarks(ToNodePortAddressRegMark), c),
    // What the host DNATs the node ports it receives to (nodeIP:nodePort -> this:nodePort).
    flow(p.id('NodePortMark'), PRIORITY.normal, { ...IP, ipv4Dst: cfg.nodePortDnatIP ?? VIRTUAL_NODEPORT_DNAT_IP }, loadMarks(ToNodePortAddressRegMark), c),
    flow(p.id('SessionAffinity'), PRIORITY.miss, {}, loadMarks(EpToSelectRegMark), c),
    flow(p.id('EndpointDNAT'), PRIORITY.normal, matchMarks(SvcNoEpRegMark), [{ type: 'controller', reason: 'no_match', id: controllerId, userdata: Uint8Array.of(PACKETIN_CATEGORY.SvcReject) }], c),
    flow(p.id('EndpointDNAT'), PRIORITY.low, matchMarks(EpSelectedRegMark), [...loadMarks(EpToSelectRegMark), resubmit(p.id('ServiceLB'))], c),
    // External traffic (from the gateway, to a node port or an external address, Cluster policy):
    // SNAT so the reply comes back through this node. The source kind goes into ct_mark, so the
    // reply is sent back to the gateway.
    flow(p.id('SNATMark'), PRIORITY.normal, { ...NEW, ...IP, ...matchMarks(FromGatewayRegMark, ToExternalAddressRegMark) }, [
      { type: 'ct', commit: true, table: p.id('SNAT'), zone: CT_ZONE, exec: [loadCtMark(ConnSNATCTMark), { type: 'copyField', src: PktSourceField.ref(), dst: { field: 'ctMark', start: 0, end: 3 } }] },
    ], c),
    // From the host to an endpoint outside the pod network (through a ClusterIP or node port, e.g. the
    // API server behind `kubernetes`): back out by the gateway, with the gateway's MAC, and SNATed to
    // the virtual Service IP (the host would drop its own address coming in; it masquerades this one).
    flow(p.id('L3Forwarding'), PRIORITY.low, { ...IP, ...matchMarks(RewriteMACRegMark) }, [setEthDst(cfg.gateway.mac), ...loadMarks(ToGatewayRegMark), goto(p.id('L3DecTTL'))], c),
    // It leaves by the port it came in on: hairpin (Output sends those to IN_PORT), in both zones.
    flow(p.id('SNATMark'), PRIORITY.normal + 1, { ...NEW, ...IP, ...matchCtMarks(ServiceCTMark), ...matchMarks(FromGatewayRegMark, ToGatewayRegMark) }, [
      { type: 'ct', commit: true, table: p.id('SNAT'), zone: CT_ZONE, exec: [loadCtMark(ConnSNATCTMark), loadCtMark(HairpinCTMark), { type: 'copyField', src: PktSourceField.ref(), dst: { field: 'ctMark', start: 0, end: 3 } }] },
    ], c),
    flow(p.id('SNAT'), PRIORITY.normal + 1, { ...NEW, ...matchCtMarks(ConnSNATCTMark), ...IP, ...matchMarks(FromGatewayRegMark, ToGatewayRegMark) }, [
      { type: 'ct', commit: true, table: p.id('L2ForwardingCalc'), zone: SNAT_CT_ZONE, nat: { kind: 'src', ipMin: virtualIP }, exec: [loadCtMark(ServiceCTMark), loadCtMark(ConnSNATCTMark), loadCtMark(HairpinCTMark)] },
    ], c),
    // To a remote endpoint: the gateway IP (a pod CIDR address, routed back here by every node);
    // to a local one: the virtual Service IP (never a host connection's own address).
    flow(p.id('SNAT'), PRIORITY.normal + 1, { ...NEW, ...matchCtMarks(ConnSNATCTMark), ...IP, ...matchMarks(FromGatewayRegMark, ToTunnelRegMark) }, [
      { type: 'ct', commit: true, table: p.id('L2ForwardingCalc'), zone: SNAT_CT_ZONE, nat: { kind: 'src', ipMin: gwIP }, exec: [loadCtMark(ServiceCTMark), loadCtMark(ConnSNATCTMark)] },
    ], c),
    flow(p.id('SNAT'), PRIORITY.normal, { ...NEW, ...matchCtMarks(ConnSNATCTMark), ...IP, ...matchMarks(FromGatewayRegMark) }, [
      { type: 'ct', commit: true, table: p.id('L2ForwardingCalc'), zone: SNAT_CT_ZONE, nat: { kind: 'src', ipMin: virtualIP }, exec: [loadCtMark(ServiceCTMark), loadCtMark(ConnSNATCTMark)] },
    ], c),
    // Hairpin: SNAT to the gateway IP so the reply comes back through OVS.
    flow(p.id('SNAT'), PRIORITY.normal, { ...NEW, ...matchCtMarks(HairpinCTMark), ...IP, ...matchMarks(FromPodRegMark) }, [
      { type: 'ct', commit: true, table: p.id('L2ForwardingCalc'), zone: SNAT_CT_ZONE, nat: { kind: 'src', ipMin: gwIP }, exec: [loadCtMark(ServiceCTMark), loadCtMark(ConnSNATCTMark), loadCtMark(HairpinCTMark)] },
    ], c),
    flow(p.id('SNAT'), PRIORITY.normal, { ctState: { new: false, rpl: false, trk: true }, ...matchCtMarks(ConnSNATCTMark), ...IP }, [{ type: 'ct', table: p.id('L2ForwardingCalc'), zone: SNAT_CT_ZONE, nat: {} }], c),
  ];
}

/** Hairpin mark for a local pod (a Service may send a pod to itself). */
export function serviceHairpinPodFlows(p: Pipeline, cfg: NodeConfig, pod: LocalPod): Flow[] {
  const c = makeCookie(cfg.round, CookieCategory.Service);
  // IPv4 only: Services are IPv4 here (an IPv6 address of a dual-stack pod has no Service flows yet).
  return podIpv4s(pod).map((ip) =>
    flow(p.id('SNATMark'), PRIORITY.low, { ctState: { new: true, trk: true }, ...IP, ipv4Src: ip, ipv4Dst: ip }, [
      { type: 'ct', commit: true, table: p.id('SNAT'), zone: CT_ZONE, exec: [loadCtMark(ConnSNATCTMark), loadCtMark(HairpinCTMark), { type: 'copyField', src: PktSourceField.ref(), dst: { field: 'ctMark', start: 0, end: 3 } }] },
    ], c),
  );
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
function frontendsOf(s: ServicePortSpec): Frontend[] {
  const pr = proto(s);
  const dk = dstKey(s);
  const local = s.localGroupId ?? s.groupId;
  const out: Frontend[] = [{ match: { ...IP, ipProto: pr, ipv4Dst: s.clusterIP, [dk]: s.port } as Match, marks: [], groupId: s.internalLocal ? local : s.groupId, external: false, priority: PRIORITY.normal }];
  const external: { match: Match; marks: RegMark[] }[] = [];
  if (s.nodePort !== undefined) external.push({ match: { ...IP, ipProto: pr, [dk]: s.nodePort } as Match, marks: [ToNodePortAddressRegMark] });
  for (const a of s.externalAddresses ?? []) external.push({ match: { ...IP, ipProto: pr, ipv4Dst: a, [dk]: s.port } as Match, marks: [] });
  for (const e of external) {
    out.push({ ...e, groupId: s.groupId, external: !s.externalLocal, priority: PRIORITY.normal });
    if (s.externalLocal) out.push({ match: e.match, marks: [...e.marks, FromGatewayRegMark], groupId: local, external: false, priority: PRIORITY.normal + 1 });
  }
  return out;
}

/** The learn action remembering a client's endpoint (ClientIP affinity) for one frontend. */
function affinityLearn(p: Pipeline, s: ServicePortSpec, f: Frontend, cookie: bigint): Action {
  const pr = proto(s);
  const portField = dstKey(s);
  return {
    type: 'learn', table: p.id('SessionAffinity'), hardTimeout: s.affinityTimeout!, priority: PRIORITY.normal, deleteLearned: true, cookie,
    specs: [
      { kind: 'match', dst: { field: 'ethType' }, src: { value: 0x800 } },
      { kind: 'match', dst: { field: 'ipProto' }, src: { value: pr } },
      { kind: 'match', dst: { field: portField }, src: { field: portField } },
      { kind: 'match', dst: { field: 'ipv4Dst' }, src: { field: 'ipv4Dst' } },
      { kind: 'match', dst: { field: 'ipv4Src' }, src: { field: 'ipv4Src' } },
      { kind: 'load', dst: EndpointPortField.ref(), src: EndpointPortField.ref() },
      { kind: 'load', dst: EndpointIPField.ref(), src: EndpointIPField.ref() },
      // Learn immediates sit at the field's bit position in the codec model (the text shows them shifted down).
      { kind: 'load', dst: ServiceEPStateField.ref(), src: { value: ServiceEPStateField.shift(EpSelectedRegMark.value) } },
      { kind: 'load', dst: RewriteMACRegMark.field.ref(), src: { value: RewriteMACRegMark.field.shift(RewriteMACRegMark.value) } },
      ...(f.external ? [{ kind: 'load' as const, dst: ToExternalAddressRegMark.field.ref(), src: { value: ToExternalAddressRegMark.field.shift(ToExternalAddressRegMark.value) } }] : []),
    ],
  };
}

/** Buckets of a select group: one per endpoint, or the no-endpoint reject (`drop`: none, the packet is dropped). */
function bucketsOf(p: Pipeline, endpoints: ServicePortSpec['endpoints'], afterSelect: number, onEmpty: 'reject' | 'drop'): Group['buckets'] {
  if (endpoints.length > 0) return endpoints.map((e) => ({ weight: e.weight ?? 100, actions: [loadField(EndpointIPField, ipv4ToInt(e.ip)), loadField(EndpointPortField, e.port), resubmit(afterSelect)] }));
  return onEmpty === 'reject' ? [{ weight: 100, actions: [...loadMarks(SvcNoEpRegMark), resubmit(p.id('EndpointDNAT'))] }] : [];
}

/** Flows and the select group(s) of one Service port. */
export function servicePortFlows(p: Pipeline, cfg: NodeConfig, s: ServicePortSpec): { flows: Flow[]; groups: Group[] } {
  const c = makeCookie(cfg.round, CookieCategory.Service, s.groupId);
  const pr = proto(s);
  const affinity = s.affinityTimeout !== undefined && s.endpoints.length > 0;
  const stateMark = affinity ? EpToLearnRegMark : EpSelectedRegMark;
  const flows: Flow[] = [];
  for (const f of frontendsOf(s)) {
    const marks = f.external ? [RewriteMACRegMark, stateMark, ToExternalAddressRegMark] : [RewriteMACRegMark, stateMark];
    flows.push(flow(p.id('ServiceLB'), f.priority, { ...f.match, ...matchMarks(EpToSelectRegMark, ...f.marks) } as Match, [...loadMarks(...marks), loadField(ServiceGroupIDField, f.groupId), { type: 'group', id: f.groupId }], c));
    if (affinity) {
      flows.push(flow(p.id('ServiceLB'), f.priority === PRIORITY.normal ? PRIORITY.low : PRIORITY.low + 1, { ...f.match, ...matchMarks(EpToLearnRegMark, ...f.marks) } as Match, [
        affinityLearn(p, s, f, c), ...loadMarks(EpSelectedRegMark), goto(p.id('EndpointDNAT')),
      ], c));
    }
  }
  const afterSelect = affinity ? p.id('ServiceLB') : p.id('EndpointDNAT');
  for (const e of s.endpoints) {
    flows.push(flow(p.id('EndpointDNAT'), PRIORITY.normal, { ...IP, ipProto: pr, ...matchField(EndpointIPField, ipv4ToInt(e.ip)), ...matchField(EpUnionField, (EpSelectedRegMark.value << 16) | e.port) }, [
      { type: 'ct', commit: true, table: p.stageId('egressSecurity'), zone: CT_ZONE, nat: { kind: 'dst', ipMin: e.ip, portMin: e.port }, exec: [loadCtMark(ServiceCTMark)] },
    ], c));
  }
  const groups: Group[] = [{ groupId: s.groupId, groupType: 'select', buckets: bucketsOf(p, s.endpoints, afterSelect, 'reject') }];
  if ((s.externalLocal || s.internalLocal) && s.localGroupId !== undefined) {
    // kube-proxy drops what a Local policy cannot send to a local endpoint.
    groups.push({ groupId: s.localGroupId, groupType: 'select', buckets: bucketsOf(p, s.endpoints.filter((e) => e.local), afterSelect, 'drop') });
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
