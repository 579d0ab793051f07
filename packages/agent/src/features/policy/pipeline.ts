/** The pipeline features the policies part contributes: NetworkPolicy (conjunctions, tiers, Reject and logging) and FQDN rules. */
import { fqdn, networkPolicy, type Feature } from '@switchyard/openflow-pipeline';

/** The options the policy features read (a subset of the agent's resolved options). */
export interface PolicyPipelineOptions {
  enableProxy: boolean;
  /** Packet-ins are metered when it is above 0. */
  packetInRate: number;
  datapathType: 'system' | 'netdev';
}

/** NetworkPolicy with Antrea-native policies, which are always on in the agent. */
export function networkPolicyFeatures(o: PolicyPipelineOptions): Feature[] {
  return [networkPolicy({ antreaPolicy: true, proxy: o.enableProxy, packetInMeters: o.packetInRate > 0, netdevDatapath: o.datapathType === 'netdev' })];
}

/** DNS interception for FQDN rules (after every other feature of the node, as in the pipeline's presets). */
export function fqdnFeatures(o: PolicyPipelineOptions): Feature[] {
  return [fqdn({ packetInMeters: o.packetInRate > 0 })];
}
