/** What a feature's `uninstall` is given (features/uninstall.ts). */
import type { Logger } from '@switchyard/runtime';

/** Where the node's state is. */
export interface UninstallTarget {
  dataDir: string;
  /** The node's network namespace (the lab's nodes), else the agent's own. */
  nodeNetns?: string;
  /** The gateway interface's name (hostGateway). */
  hostGateway: string;
  logger: Logger;
}
