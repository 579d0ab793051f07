/** Typed errors of the agent. */

/** Stable codes of {@link AgentError}. */
export type AgentErrorCode =
  | 'INVALID_CONFIG'
  | 'UNSUPPORTED_TUNNEL'
  | 'EXEC_FAILED'
  | 'NETNS_NOT_FOUND'
  | 'POD_SETUP_FAILED'
  | 'POD_CHECK_FAILED'
  | 'NOT_STARTED'
  | 'EXTERNAL_NODE_INTERFACE'
  | 'EXTERNAL_NODE_SWAP_FAILED'
  | 'EXTERNAL_NODE_UPLINK_HELD'
  | 'WIREGUARD'
  | 'IPSEC_CERTIFICATE'
  | 'SERVICE_HOST_NETWORK';

/** An agent failure, with the offending value and where it came from (config key, pod, command). */
export class AgentError extends Error {
  constructor(
    readonly code: AgentErrorCode,
    message: string,
    /** The offending value (a config value, an argv, a netns path). */
    readonly value?: unknown,
    /** Where the value came from: a config key path, `pod <ns>/<name>`, a command. */
    readonly path?: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'AgentError';
  }
}
