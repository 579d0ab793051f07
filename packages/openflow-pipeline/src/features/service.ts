/**
 * Service load balancing (AntreaProxy): ClusterIP and NodePort through select groups with
 * weighted buckets, endpoint DNAT with ct nat, ClientIP session affinity via learn, no-endpoint
 * reject to the controller, and hairpin (a pod reaching itself through its Service).
 */
import type { Action, Flow, Match } from '@switchyard/openflow/codec';
import { CookieCategory, makeCookie } from '../cookie';
import {
  CONTROLLER_ID, CT_ZONE, ConnSNATCTMark, EndpointIPField, EndpointPortField, EpSelectedRegMark, EpToLearnRegMark,
  EpToSelectRegMark, EpUnionField, FromPodRegMark, HairpinCTMark, PACKETIN_CATEGORY, PRIORITY, PROTO_SCTP, PROTO_TCP,
  PROTO_UDP, PktSourceField, RewriteMACRegMark, SNAT_CT_ZONE, ServiceCTMark, ServiceEPStateField, ServiceGroupIDField,
  SvcNoEpRegMark, ToExternalAddressRegMark, ToNodePortAddressRegMark, loadCtMark, loadField, loadMarks, matchCtMarks,
  matchField, matchMarks,
} from '../fields';
import type { Pipeline, TableName } from '../tables';
import type { LocalPod, NodeConfig, ServicePortSpec } from '../state';
import type { Group } from '../format';
import type { Feature } from '../feature';
import { defineKind } from '../objects';
import { podKind } from './pod';
import { IP, flow, goto, ipv4ToInt, resubmit } from './common';

/** Service ports, by group id; found by their Service `<namespace>/<name>` (index `serviceRef`). */
export const serviceKind = defineKind({
  name: 'service',
  enumerate: (s) => (s.services ?? []).map((x) => [String(x.groupId), x] as const),
  index: { name: 'serviceRef', keys: (x) => (x.service === undefined ? [] : [x.service]) },
});

/** Tables Service LB needs. */
export function serviceTables(): TableName[] {
  return ['UnSNAT', 'PreRoutingClassifier', 'NodePortMark', 'SessionAffinity', 'ServiceLB', 'EndpointDNAT', 'SNATMark', 'SNAT'];
}

const proto = (s: ServicePortSpec): number => (s.protocol === 'TCP' ? PROTO_TCP : s.protocol === 'UDP' ? PROTO_UDP : PROTO_SCTP);
const dstKey = (s: ServicePortSpec): 'tcpDst' | 'udpDst' | 'sctpDst' => (s.protocol === 'TCP' ? 'tcpDst' : s.protocol === 'UDP' ? 'udpDst' : 'sctpDst');

/** Flows present whenever the proxy is on. */
export function serviceBaseFlows(p: Pipeline, cfg: NodeConfig, controllerId = CONTROLLER_ID): Flow[] {
  const c = makeCookie(cfg.round, CookieCategory.Service);
  const gwIP = cfg.gateway.ip;
  return [
    flow(p.id('UnSNAT'), PRIORITY.normal, { ...IP, ipv4Dst: gwIP }, [{ type: 'ct', table: p.id('ConntrackZone'), zone: SNAT_CT_ZONE, nat: {} }], c),
    flow(p.id('PreRoutingClassifier'), PRIORITY.normal, IP, [resubmit(p.id('NodePortMark')), resubmit(p.id('SessionAffinity')), resubmit(p.id('ServiceLB'))], c),
    flow(p.id('NodePortMark'), PRIORITY.normal, { ...IP, ipv4Dst: cfg.nodeIP }, loadMarks(ToNodePortAddressRegMark), c),
    flow(p.id('SessionAffinity'), PRIORITY.miss, {}, loadMarks(EpToSelectRegMark), c),
    flow(p.id('EndpointDNAT'), PRIORITY.normal, matchMarks(SvcNoEpRegMark), [{ type: 'controller', reason: 'no_match', id: controllerId, userdata: Uint8Array.of(PACKETIN_CATEGORY.SvcReject) }], c),
    flow(p.id('EndpointDNAT'), PRIORITY.low, matchMarks(EpSelectedRegMark), [...loadMarks(EpToSelectRegMark), resubmit(p.id('ServiceLB'))], c),
    // Hairpin: SNAT to the gateway IP so the reply comes back through OVS.
    flow(p.id('SNAT'), PRIORITY.normal, { ctState: { new: true, trk: true }, ...matchCtMarks(HairpinCTMark), ...IP, ...matchMarks(FromPodRegMark) }, [
      { type: 'ct', commit: true, table: p.id('L2ForwardingCalc'), zone: SNAT_CT_ZONE, nat: { kind: 'src', ipMin: gwIP }, exec: [loadCtMark(ServiceCTMark), loadCtMark(ConnSNATCTMark), loadCtMark(HairpinCTMark)] },
    ], c),
    flow(p.id('SNAT'), PRIORITY.normal, { ctState: { new: false, rpl: false, trk: true }, ...matchCtMarks(ConnSNATCTMark), ...IP }, [{ type: 'ct', table: p.id('L2ForwardingCalc'), zone: SNAT_CT_ZONE, nat: {} }], c),
  ];
}

/** Hairpin mark for a local pod (a Service may send a pod to itself). */
export function serviceHairpinPodFlows(p: Pipeline, cfg: NodeConfig, pod: LocalPod): Flow[] {
  const c = makeCookie(cfg.round, CookieCategory.Service);
  return pod.ips.map((ip) =>
    flow(p.id('SNATMark'), PRIORITY.low, { ctState: { new: true, trk: true }, ...IP, ipv4Src: ip, ipv4Dst: ip }, [
      { type: 'ct', commit: true, table: p.id('SNAT'), zone: CT_ZONE, exec: [loadCtMark(ConnSNATCTMark), loadCtMark(HairpinCTMark), { type: 'copyField', src: PktSourceField.ref(), dst: { field: 'ctMark', start: 0, end: 3 } }] },
    ], c),
  );
}

/** Flows and the select group of one Service port. */
export function servicePortFlows(p: Pipeline, cfg: NodeConfig, s: ServicePortSpec): { flows: Flow[]; groups: Group[] } {
  const c = makeCookie(cfg.round, CookieCategory.Service, s.groupId);
  const pr = proto(s);
  const dk = dstKey(s);
  const affinity = s.affinityTimeout !== undefined && s.endpoints.length > 0;
  const stateMark = affinity ? EpToLearnRegMark : EpSelectedRegMark;
  const lbActions = (...extra: Action[]): Action[] => [...loadMarks(RewriteMACRegMark, stateMark), ...extra, loadField(ServiceGroupIDField, s.groupId), { type: 'group', id: s.groupId }];
  const flows: Flow[] = [
    flow(p.id('ServiceLB'), PRIORITY.normal, { ...IP, ipProto: pr, ...matchMarks(EpToSelectRegMark), ipv4Dst: s.clusterIP, [dk]: s.port } as Match, lbActions(), c),
  ];
  if (s.nodePort !== undefined) {
    flows.push(flow(p.id('ServiceLB'), PRIORITY.normal, { ...IP, ipProto: pr, ...matchMarks(EpToSelectRegMark, ToNodePortAddressRegMark), [dk]: s.nodePort } as Match, lbActions(...loadMarks(ToExternalAddressRegMark)), c));
  }
  if (affinity) {
    const portField = s.protocol === 'TCP' ? 'tcpDst' : s.protocol === 'UDP' ? 'udpDst' : 'sctpDst';
    flows.push(flow(p.id('ServiceLB'), PRIORITY.low, { ...IP, ipProto: pr, ...matchMarks(EpToLearnRegMark), ipv4Dst: s.clusterIP, [dk]: s.port } as Match, [
      {
        type: 'learn', table: p.id('SessionAffinity'), hardTimeout: s.affinityTimeout!, priority: PRIORITY.normal, deleteLearned: true, cookie: c,
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
        ],
      },
      ...loadMarks(EpSelectedRegMark), goto(p.id('EndpointDNAT')),
    ], c));
  }
  const afterSelect = affinity ? p.id('ServiceLB') : p.id('EndpointDNAT');
  const buckets = s.endpoints.length
    ? s.endpoints.map((e) => ({ weight: e.weight ?? 100, actions: [loadField(EndpointIPField, ipv4ToInt(e.ip)), loadField(EndpointPortField, e.port), resubmit(afterSelect)] }))
    : [{ weight: 100, actions: [...loadMarks(SvcNoEpRegMark), resubmit(p.id('EndpointDNAT'))] }];
  for (const e of s.endpoints) {
    flows.push(flow(p.id('EndpointDNAT'), PRIORITY.normal, { ...IP, ipProto: pr, ...matchField(EndpointIPField, ipv4ToInt(e.ip)), ...matchField(EpUnionField, (EpSelectedRegMark.value << 16) | e.port) }, [
      { type: 'ct', commit: true, table: p.stageId('egressSecurity'), zone: CT_ZONE, nat: { kind: 'dst', ipMin: e.ip, portMin: e.port }, exec: [loadCtMark(ServiceCTMark)] },
    ], c));
  }
  return { flows, groups: [{ groupId: s.groupId, groupType: 'select', buckets }] };
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
