/**
 * The shape of one feature's share of the agent's options: its fields' defaults, its checks, its
 * antrea-agent.conf keys, what it costs the pods' MTU, and devices it keeps out of the
 * masquerade. options.ts merges the fragments.
 */
import type { AgentConfig } from '@switchyard/apis';

/** Options `O` with every default applied; the fields named in `U` have no default (absent means off). */
export type Resolved<O, U extends keyof O = never> = Required<Omit<O, U>> & Pick<O, U>;

/**
 * One feature's options fragment. `Base` is what it may read of the node's options (given and
 * resolved), besides its own fields.
 */
export interface OptionsFragment<O extends object, U extends keyof O = never, Base extends object = object, ResolvedBase extends object = object> {
  /** Its own fields with their defaults applied. */
  resolve(o: O & Base): Resolved<O, U>;
  /**
   * Refuses what no node can run (`AgentError` naming the field), once every fragment resolved;
   * returns what it fills in only then (the IPsec key, read from the environment once the mode is known to need it).
   */
  check?(r: Resolved<O, U> & ResolvedBase, given: O & Base, env: NodeJS.ProcessEnv): Partial<Resolved<O, U>> | void;
  /** Its fields from an antrea-agent.conf. */
  fromConfig?(cfg: AgentConfig, env: NodeJS.ProcessEnv): Partial<O>;
  /** The pods' MTU once this feature's overhead is paid; `mtu` is what the fragments before it left. */
  podMtu?(r: Resolved<O, U> & ResolvedBase, mtu: number): number;
  /** Devices whose traffic keeps its pod source address (never masqueraded: the far end SNATs it). */
  unmasqueraded?(r: Resolved<O, U> & ResolvedBase): readonly string[];
}
