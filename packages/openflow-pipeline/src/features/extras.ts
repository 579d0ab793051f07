/** ExternalNode connectivity, multicluster gateway routing and the FQDN DNS-intercept flow. */
import type { Flow } from '@switchyard/openflow/codec';
import { CookieCategory, makeCookie } from '../cookie';
import {
  CONTROLLER_ID, FromLocalRegMark, FromUplinkRegMark, GLOBAL_VIRTUAL_MAC, OutputToOFPortRegMark, PACKETIN_CATEGORY, PACKETIN_METER_ID_DNS,
  PRIORITY, PROTO_TCP, PROTO_UDP, TargetOFPortField, ToTunnelRegMark, loadMarks, matchField,
} from '../fields';
import type { Pipeline, TableName } from '../tables';
import type { ExternalNodeSpec, FqdnSpec, MulticlusterSpec, NodeConfig } from '../state';
import { ARP, IP, flow, goto, ipv4Net, setEthDst, setEthSrc, setTunDst } from './common';

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
  // Policy bypass rules (agent config policyBypassRules): straight to the metric table.
  for (const b of spec.bypass ?? []) {
    const ingress = b.direction === 'ingress';
    const table = p.id(ingress ? 'AntreaPolicyIngressRule' : 'AntreaPolicyEgressRule');
    const proto = b.protocol === 'TCP' ? PROTO_TCP : PROTO_UDP;
    const portKey = b.protocol === 'TCP' ? 'tcpDst' : 'udpDst';
    const addr = ingress ? { ipv4Src: ipv4Net(b.cidr) } : { ipv4Dst: ipv4Net(b.cidr) };
    flows.push(flow(table, PRIORITY.topAntreaPolicy, { ...IP, ipProto: proto, ...addr, [portKey]: b.port }, [goto(p.id(ingress ? 'IngressMetric' : 'EgressMetric'))], c));
  }
  void ARP;
  return flows;
}

/** Multicluster: other clusters' CIDRs go through the tunnel to the gateway (or remote gateway). */
export function multiclusterFlows(p: Pipeline, cfg: NodeConfig, spec: MulticlusterSpec): Flow[] {
  const c = makeCookie(cfg.round, CookieCategory.Multicluster);
  const flows: Flow[] = [];
  for (const rc of spec.remoteClusters) {
    const tunDst = spec.isGateway ? rc.gatewayIP : spec.localGatewayIP;
    if (!tunDst) continue;
    for (const cidr of rc.cidrs) {
      const acts = [setEthSrc(cfg.gateway.mac), setEthDst(GLOBAL_VIRTUAL_MAC), setTunDst(tunDst), ...loadMarks(ToTunnelRegMark), goto(p.id('L3DecTTL'))];
      flows.push(flow(p.id('L3Forwarding'), PRIORITY.normal, { ...IP, ipv4Dst: ipv4Net(cidr) }, acts, c));
      // Label identity of the source pod travels in tun_id (stretched NetworkPolicy).
      for (const li of spec.labelIdentities ?? []) {
        flows.push(flow(p.id('L3Forwarding'), PRIORITY.normal + 1, { ...IP, inPort: li.ofport, ipv4Dst: ipv4Net(cidr) }, [{ type: 'setField', field: 'tunId', value: BigInt(li.id) }, ...acts], c));
      }
    }
  }
  return flows;
}

/** FQDN: DNS responses to selected pods are paused and sent to the agent before delivery. */
export function fqdnFlows(p: Pipeline, cfg: NodeConfig, spec: FqdnSpec, controllerId = CONTROLLER_ID): Flow[] {
  const c = makeCookie(cfg.round, CookieCategory.NetworkPolicy);
  const t = p.id('AntreaPolicyIngressRule');
  const id = spec.conjId;
  const flows: Flow[] = [
    flow(t, PRIORITY.dnsIntercept, { conjId: id }, [
      ...(cfg.packetInMeters ? [{ type: 'meter' as const, id: PACKETIN_METER_ID_DNS }] : []),
      { type: 'controller', reason: 'no_match', id: controllerId, userdata: Uint8Array.of(PACKETIN_CATEGORY.DNS), pause: true },
      goto(p.id('IngressMetric')),
    ], c),
    flow(t, PRIORITY.dnsIntercept, { ...IP, ipProto: PROTO_UDP, udpSrc: 53 }, [{ type: 'conjunction', id, clause: 1, nClauses: 2 }], c),
    flow(t, PRIORITY.dnsIntercept, { ...IP, ipProto: PROTO_TCP, tcpSrc: 53 }, [{ type: 'conjunction', id, clause: 1, nClauses: 2 }], c),
  ];
  for (const port of spec.podOfports) flows.push(flow(t, PRIORITY.dnsIntercept, matchField(TargetOFPortField, port), [{ type: 'conjunction', id, clause: 2, nClauses: 2 }], c));
  return flows;
}
