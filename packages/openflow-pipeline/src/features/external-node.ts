/**
 * ExternalNode mode (a VM or bare-metal host, no pods): IP between the uplink and its pair port
 * goes through the policy tables, everything else straight across; policy bypass rules.
 */
import type { Flow } from '@switchyard/openflow/codec';
import { CookieCategory, makeCookie } from '../cookie';
import type { Feature } from '../feature';
import { defineKind, nodeObject } from '../objects';
import type { Match } from '@switchyard/openflow/codec';
import {
  CT_ZONE, FromLocalRegMark, FromUplinkRegMark, OutputToOFPortRegMark, PRIORITY, PROTO_ICMP, PROTO_TCP, PROTO_UDP, TargetOFPortField,
  loadMarks, matchMarks,
} from '../fields';
import type { Pipeline, TableName } from '../tables';
import type { ExternalNodeSpec, NodeConfig, PolicyBypass } from '../state';
import { IP, flow, goto, ipv4Net } from './common';

/** Tables of ExternalNode mode (no pod routing: uplink <-> pair port with policies between). */
export function externalNodeTables(): TableName[] {
  return ['PipelineRootClassifier', 'Classifier', 'ConntrackZone', 'ConntrackState', 'EgressSecurityClassifier', 'ConntrackCommit', 'Output', 'NonIP'];
}

/** ExternalNode flows: IP via the policy pipeline, everything else straight across the pair. */
export function externalNodeFlows(p: Pipeline, cfg: NodeConfig, spec: ExternalNodeSpec): Flow[] {
  const c = makeCookie(cfg.round, CookieCategory.ExternalNodeConnectivity);
  const flows: Flow[] = [
    flow(p.id('PipelineRootClassifier'), PRIORITY.normal, IP, [goto(p.id('Classifier'))], c),
    flow(p.id('PipelineRootClassifier'), PRIORITY.low, {}, [goto(p.id('NonIP'))], c),
  ];
  for (const i of spec.interfaces) {
    flows.push(
      flow(p.id('NonIP'), PRIORITY.normal, { inPort: i.uplinkOfport }, [{ type: 'output', port: i.pairOfport }], c),
      flow(p.id('NonIP'), PRIORITY.normal, { inPort: i.pairOfport }, [{ type: 'output', port: i.uplinkOfport }], c),
      flow(p.id('Classifier'), PRIORITY.normal, { ...IP, inPort: i.uplinkOfport }, [...loadMarks(FromUplinkRegMark, TargetOFPortField.mark(i.pairOfport), OutputToOFPortRegMark), goto(p.stageId('conntrackState'))], c),
      flow(p.id('Classifier'), PRIORITY.normal, { ...IP, inPort: i.pairOfport }, [...loadMarks(FromLocalRegMark, TargetOFPortField.mark(i.uplinkOfport), OutputToOFPortRegMark), goto(p.stageId('conntrackState'))], c),
    );
  }
  // Connection tracking around the policy tables (the pod pipeline's own flows are not in this
  // list): invalid packets drop, non-new ones skip to the security stage, new ones are committed
  // after the policies let them through, then out to the port the classifier chose.
  flows.push(
    flow(p.id('ConntrackZone'), PRIORITY.normal, IP, [{ type: 'ct', table: p.id('ConntrackState'), zone: CT_ZONE }], c),
    flow(p.id('ConntrackState'), PRIORITY.normal, { ctState: { inv: true, trk: true }, ...IP }, [], c),
    flow(p.id('ConntrackCommit'), PRIORITY.normal, { ctState: { new: true, trk: true }, ...IP }, [{ type: 'ct', commit: true, table: p.id('Output'), zone: CT_ZONE }], c),
    flow(p.id('Output'), PRIORITY.normal, matchMarks(OutputToOFPortRegMark), [{ type: 'output', port: TargetOFPortField.ref() }], c),
  );
  // Policy bypass rules (agent config policyBypassRules): straight to the metric table.
  for (const b of spec.bypass ?? []) {
    const ingress = b.direction === 'ingress';
    const table = p.id(ingress ? 'AntreaPolicyIngressRule' : 'AntreaPolicyEgressRule');
    const addr = ingress ? { ipv4Src: ipv4Net(b.cidr) } : { ipv4Dst: ipv4Net(b.cidr) };
    flows.push(flow(table, PRIORITY.topAntreaPolicy, { ...IP, ...bypassProtocolMatch(b), ...addr }, [goto(p.id(ingress ? 'IngressMetric' : 'EgressMetric'))], c));
  }
  return flows;
}

/** The protocol part of a bypass rule's match: IP alone, ICMP, or TCP/UDP with an optional destination port. */
export function bypassProtocolMatch(b: PolicyBypass): Match {
  switch (b.protocol) {
    case 'IP':
      return {};
    case 'ICMP':
      return { ipProto: PROTO_ICMP };
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
