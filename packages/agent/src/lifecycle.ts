/** The one lifecycle every part of the agent has, and the order the agent drives it in. */
import type { Logger } from '@switchyard/runtime';

/** A part's own view of how it is doing. */
export interface ControllerHealth {
  ok: boolean;
  /** One line for a person: what the part holds, or what is wrong. */
  detail: string;
}

/** Health of the whole agent: ok when every part is. */
export interface AgentHealth {
  ok: boolean;
  /** Each part's health under its name, in start order. */
  controllers: (ControllerHealth & { name: string })[];
}

/**
 * One part of a running agent (node bring-up, pods, policies, ...). The agent starts its parts in
 * list order, then syncs them in the same order, and stops them in reverse.
 *
 * The two phases exist because of the cookie round: every part first puts its share of the node's
 * state in place (`start`), the first round is installed with all of it at once, and only then
 * do parts begin to follow changes (`sync`). A part that followed changes earlier would install
 * flows of a half-built round.
 */
export interface AgentController {
  /** Short and stable: it names the part in logs and health answers. */
  readonly name: string;
  /** Opens what the part owns and primes its share of the first round; watches and serves nothing yet. */
  start(): Promise<void>;
  /** Once every part has started: installs or serves, and begins to follow changes. */
  sync?(): Promise<void>;
  /**
   * Releases what the part opened. Also called after a `start` or `sync` that threw, so it releases
   * only what was opened. The datapath (ports, flows) stays for the next start.
   */
  stop(): Promise<void>;
  /** Cheap and synchronous: read on every health request. */
  health(): ControllerHealth;
}

/**
 * Starts then syncs `parts` in order. On a failure, stops every part whose `start` was called
 * (the failing one included), in reverse, and rethrows.
 */
export async function startControllers(parts: readonly AgentController[], log: Logger): Promise<void> {
  const reached: AgentController[] = [];
  try {
    for (const p of parts) {
      reached.push(p);
      await p.start();
    }
    for (const p of parts) await p.sync?.();
  } catch (e) {
    log.warn({ err: e instanceof Error ? e.message : String(e) }, 'agent start failed: stopping the parts started so far');
    await stopControllers(reached, log).catch(() => undefined); // already logged; the start failure is the one to report
    throw e;
  }
}

/** Stops `parts` in reverse order. Every part is stopped even when one fails; the first failure is rethrown after. */
export async function stopControllers(parts: readonly AgentController[], log: Logger): Promise<void> {
  let failure: { error: unknown } | undefined;
  for (const p of [...parts].reverse()) {
    try {
      await p.stop();
    } catch (e) {
      log.warn({ err: e instanceof Error ? e.message : String(e), controller: p.name }, 'stopping an agent part failed');
      failure ??= { error: e };
    }
  }
  if (failure) throw failure.error;
}

/** Health of each part; a `health()` that throws counts as not ok. */
export function healthOf(parts: readonly AgentController[]): AgentHealth {
  const controllers = parts.map((p): ControllerHealth & { name: string } => {
    try {
      return { name: p.name, ...p.health() };
    } catch (e) {
      return { name: p.name, ok: false, detail: `health check failed: ${e instanceof Error ? e.message : String(e)}` };
    }
  });
  return { ok: controllers.every((c) => c.ok), controllers };
}
