/**
 * ExternalNode mode (a VM or bare-metal host, no pods): IP between the uplink and its pair port
 * goes through the policy tables, everything else straight across; policy bypass rules. IPv6 is
 * policed too when the node config has IPv6 (`podCIDRv6`, which the ExternalNode agent sets when
 * a guarded interface has a global IPv6 address); neighbour discovery, router discovery and MLD
 * then still cross untouched, as ARP does.
 */
import type { Flow } from '@switchyard/openflow/codec';
import { CookieCategory, makeCookie } from '../cookie';
import type { Feature } from '../feature';
import { defineKind, nodeObject } from '../objects';
import type { Match } from '@switchyard/openflow/codec';
import {
  CT_ZONE, CT_ZONE_V6, FromLocalRegMark, FromUplinkRegMark, OutputToOFPortRegMark, PRIORITY, PROTO_ICMP, PROTO_ICMPV6, PROTO_TCP, PROTO_UDP, TargetOFPortField,
  loadMarks, matchMarks,
} from '../fields';
import type { Pipeline, TableName } from '../tables';
import type { ExternalNodeSpec, NodeConfig, PolicyBypass } from '../state';
import { ICMPV6, IP, IPV6, flow, goto, hasIpv6, ipv4Net, ipv6Net } from './common';

/** ICMPv6 that is the link's own business (MLD 130-132 and 143, RS/RA 133/134, NS/NA 135/136, redirect 137): never policed. */
const ICMPV6_LINK_TYPES = [130, 131, 132, 133, 134, 135, 136, 137, 143];

/** Tables of ExternalNode mode (no pod routing: uplink <-> pair port with policies between). */
export function externalNodeTables(): TableName[] {
  return ['PipelineRootClassifier', 'Classifier', 'ConntrackZone', 'ConntrackState', 'EgressSecurityClassifier', 'ConntrackCommit', 'Output', 'NonIP'];
}

/** ExternalNode flows: IP via the policy pipeline, everything else straight across the pair. */
export function externalNodeFlows(p: Pipeline, cfg: NodeConfig, spec: ExternalNodeSpec): Flow[] {
  const c = makeCookie(cfg.round, CookieCategory.ExternalNodeConnectivity);
  // The policed families, each with its conntrack zone (IPv4's flows come first, as before IPv6).
  const families: [Match, number][] = hasIpv6(cfg) ? [[IP, CT_ZONE], [IPV6, CT_ZONE_V6]] : [[IP, CT_ZONE]];
  const flows: Flow[] = families.map(([fam]) => flow(p.id('PipelineRootClassifier'), PRIORITY.normal, fam, [goto(p.id('Classifier'))], c));
  if (hasIpv6(cfg)) for (const t of ICMPV6_LINK_TYPES) flows.push(flow(p.id('PipelineRootClassifier'), PRIORITY.high, { ...ICMPV6, icmpv6Type: t }, [goto(p.id('NonIP'))], c));
  flows.push(flow(p.id('PipelineRootClassifier'), PRIORITY.low, {}, [goto(p.id('NonIP'))], c));
  for (const i of spec.interfaces) {
    flows.push(
      flow(p.id('NonIP'), PRIORITY.normal, { inPort: i.uplinkOfport }, [{ type: 'output', port: i.pairOfport }], c),
      flow(p.id('NonIP'), PRIORITY.normal, { inPort: i.pairOfport }, [{ type: 'output', port: i.uplinkOfport }], c),
    );
    for (const [fam] of families)
      flows.push(
        flow(p.id('Classifier'), PRIORITY.normal, { ...fam, inPort: i.uplinkOfport }, [...loadMarks(FromUplinkRegMark, TargetOFPortField.mark(i.pairOfport), OutputToOFPortRegMark), goto(p.stageId('conntrackState'))], c),
        flow(p.id('Classifier'), PRIORITY.normal, { ...fam, inPort: i.pairOfport }, [...loadMarks(FromLocalRegMark, TargetOFPortField.mark(i.uplinkOfport), OutputToOFPortRegMark), goto(p.stageId('conntrackState'))], c),
      );
  }
  // Connection tracking around the policy tables (the pod pipeline's own flows are not in this
  // list): invalid packets drop, non-new ones skip to the security stage, new ones are committed
  // after the policies let them through, then out to the port the classifier chose.
  for (const [fam, zone] of families)
    flows.push(
      flow(p.id('ConntrackZone'), PRIORITY.normal, fam, [{ type: 'ct', table: p.id('ConntrackState'), zone }], c),
      flow(p.id('ConntrackState'), PRIORITY.normal, { ctState: { inv: true, trk: true }, ...fam }, [], c),
      flow(p.id('ConntrackCommit'), PRIORITY.normal, { ctState: { new: true, trk: true }, ...fam }, [{ type: 'ct', commit: true, table: p.id('Output'), zone }], c),
    );
  flows.push(flow(p.id('Output'), PRIORITY.normal, matchMarks(OutputToOFPortRegMark), [{ type: 'output', port: TargetOFPortField.ref() }], c));
  // Policy bypass rules (agent config policyBypassRules): straight to the metric table.
  for (const [k, b] of (spec.bypass ?? []).entries()) {
    const ingress = b.direction === 'ingress';
    const table = p.id(ingress ? 'AntreaPolicyIngressRule' : 'AntreaPolicyEgressRule');
    const v6 = b.cidr.includes(':');
    // An IPv6 bypass rule where IPv6 is not policed has nothing to bypass: IPv6 crosses as non-IP.
    if (v6 && !hasIpv6(cfg)) continue;
    const net = v6 ? ipv6Net(b.cidr, `externalNode.bypass[${k}].cidr`) : ipv4Net(b.cidr);
    const addr = v6 ? (ingress ? { ipv6Src: net } : { ipv6Dst: net }) : ingress ? { ipv4Src: net } : { ipv4Dst: net };
    const proto = bypassProtocolMatch(b, v6);
    flows.push(flow(table, PRIORITY.topAntreaPolicy, { ...(v6 ? IPV6 : IP), ...proto, ...addr } as Match, [goto(p.id(ingress ? 'IngressMetric' : 'EgressMetric'))], c));
  }
  return flows;
}

/** The protocol part of a bypass rule's match: IP alone, ICMP (ICMPv6 for an IPv6 rule), or TCP/UDP with an optional destination port. */
export function bypassProtocolMatch(b: PolicyBypass, ipv6 = false): Match {
  switch (b.protocol) {
    case 'IP':
      return {};
    case 'ICMP':
      return { ipProto: ipv6 ? PROTO_ICMPV6 : PROTO_ICMP };
    case 'TCP':
      return { ipProto: PROTO_TCP, ...(b.port !== undefined ? { tcpDst: b.port } : {}) };
    case 'UDP':
      return { ipProto: PROTO_UDP, ...(b.port !== undefined ? { udpDst: b.port } : {}) };
  }
}

/** The node's ExternalNode spec (key `node`). */
export const externalNodeKind = defineKind({ name: 'externalNode', enumerate: (s) => nodeObject(s.externalNode) });

/** ExternalNode connectivity: the flows of the node's ExternalNode spec. */
export function externalNode(): Feature {
  return {
    name: 'externalNode',
    config: {},
    // The bypass rules sit in the Antrea-native policy tables, whatever the policy configuration.
    tables: () => [...externalNodeTables(), 'AntreaPolicyEgressRule', 'AntreaPolicyIngressRule'],
    kinds: [externalNodeKind],
    perObject: { externalNode: (ctx, spec) => ({ flows: externalNodeFlows(ctx.pipeline, ctx.config, spec) }) },
  };
}

const { config: _none, ...externalNodeParts } = externalNode();

/** @deprecated The same feature as {@link externalNode}() (kept for the constant lists). */
export const externalNodeFeature: Feature = externalNodeParts;
