/** The ExternalNode agent's own settings (antrea-agent.conf `externalNode`), and the policy bypass rules from that file. */
import type { AgentConfig } from '@switchyard/apis';
import type { PolicyBypass } from '@switchyard/openflow-pipeline';
import { AgentError } from '../../errors';

/** The ExternalNode settings of the agent (antrea-agent.conf `externalNode`). */
export interface ExternalNodeOptions {
  /** Namespace of this host's ExternalNode (`externalNodeNamespace`). */
  namespace: string;
  /** `policyBypassRules`, with protocols as the pipeline spells them. */
  policyBypassRules?: readonly PolicyBypass[];
}

/**
 * antrea-agent.conf `externalNode.policyBypassRules` as the pipeline takes them. The port is the
 * destination port and is required for tcp and udp (as Antrea's guide says); icmp and ip take none.
 * Throws `AgentError` `INVALID_CONFIG` naming the rule's field.
 */
export function policyBypassFromConfig(rules: AgentConfig['externalNode']['policyBypassRules']): PolicyBypass[] {
  return rules.map((r, i) => {
    const at = `externalNode.policyBypassRules[${i}]`;
    const protocol = r.protocol.toUpperCase() as PolicyBypass['protocol'];
    if (protocol === 'TCP' || protocol === 'UDP') {
      if (r.port === undefined) throw new AgentError('INVALID_CONFIG', `${r.protocol} bypass rules need a destination port`, r, `${at}.port`);
      return { direction: r.direction, protocol, cidr: r.cidr, port: r.port };
    }
    if (r.port !== undefined) throw new AgentError('INVALID_CONFIG', `${r.protocol} bypass rules take no port`, r.port, `${at}.port`);
    return { direction: r.direction, protocol, cidr: r.cidr };
  });
}
