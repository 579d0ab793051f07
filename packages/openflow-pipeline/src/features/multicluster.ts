/** Multi-cluster: other clusters' CIDRs leave through the tunnel to the (local or remote) gateway. */
import type { Flow } from '@switchyard/openflow/codec';
import { CookieCategory, makeCookie } from '../cookie';
import type { Feature } from '../feature';
import { GLOBAL_VIRTUAL_MAC, PRIORITY, ToTunnelRegMark, loadMarks } from '../fields';
import type { Pipeline } from '../tables';
import type { MulticlusterSpec, NodeConfig } from '../state';
import { IP, flow, goto, ipv4Net, setEthDst, setEthSrc, setTunDst } from './common';

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

/** Multi-cluster gateway routing: the flows of the node's multicluster spec. */
export const multiclusterFeature: Feature = {
  name: 'multicluster',
  tables: () => ['L3Forwarding', 'L3DecTTL'],
  perObject: { multicluster: (ctx, spec) => ({ flows: multiclusterFlows(ctx.pipeline, ctx.config, spec) }) },
};
