/** The AntreaAgentInfo feature's options. */
import type { FeatureOptionsFragment } from '../node/options';

export interface AgentInfoOptions {
  /** AntreaAgentInfo heartbeat period. Default 60 s. */
  agentInfoIntervalMs?: number;
}

export const agentInfoOptions: FeatureOptionsFragment<AgentInfoOptions> = {
  resolve: (o) => ({ agentInfoIntervalMs: o.agentInfoIntervalMs ?? 60_000 }),
};
