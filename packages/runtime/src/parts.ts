/**
 * Parts: the one lifecycle every long-running piece of the agent and the controller has, how a
 * process composes its parts from one list, and the order it drives them in.
 */
import type { Logger } from './logger';

/** A part's own view of how it is doing. */
export interface PartHealth {
  ok: boolean;
  /** One line for a person: what the part holds, or what is wrong. */
  detail: string;
}

/** Health of a whole process: ok when every part is. */
export interface PartsHealth {
  ok: boolean;
  /** Each part's health under its name, in start order. */
  parts: (PartHealth & { name: string })[];
}

/**
 * One part of a running process (node bring-up, pods, policies, the IPsec signer, ...). Parts are
 * started in list order, then synced in the same order, and stopped in reverse.
 *
 * The two phases exist for state that must be complete before anything is published: every part
 * first puts its share in place (`start`), and only once all have does any part begin to publish
 * and follow changes (`sync`). In the agent that is the cookie round: a part that followed changes
 * earlier would install flows of a half-built round.
 */
export interface Part {
  /** Short and stable: it names the part in logs and health answers, and {@link PartSet.get} finds it by it. */
  readonly name: string;
  /** Opens what the part owns and primes its share of the first round; watches and serves nothing yet. */
  start(): Promise<void>;
  /** Once every part has started: publishes or serves, and begins to follow changes. */
  sync?(): Promise<void>;
  /**
   * Releases what the part opened. Also called after a `start` or `sync` that threw, and on a part
   * whose `start` was never reached, so it releases only what was opened.
   */
  stop(): Promise<void>;
  /** Cheap and synchronous: read on every health request. */
  health(): PartHealth;
}

/**
 * One entry of a process's part list: when the part is on, what it starts after, and how it is
 * made. A process is its list; adding a part is one entry.
 */
export interface PartEntry<C> {
  /** The part's name ({@link Part.name} of what `make` returns must equal it). */
  readonly name: string;
  /** Whether the part runs under this context (default: always). */
  enabled?(ctx: C): boolean;
  /**
   * Parts this one starts after (and is made after, so `make` can reach them). A name that is in
   * the list but not enabled is passed over; a name that is not in the list is an error.
   */
  readonly after?: readonly string[];
  /** Builds the part; `parts` holds every enabled part made so far (those of `after` included). */
  make(ctx: C, parts: PartSet): Part;
}

/** What is wrong with a part list or a lookup. */
export class PartError extends Error {
  constructor(
    readonly code: 'DUPLICATE_PART' | 'UNKNOWN_PART' | 'PART_CYCLE' | 'PART_NAME_MISMATCH' | 'PART_MISSING',
    message: string,
    /** The part the error is about. */
    readonly part: string,
  ) {
    super(message);
    this.name = 'PartError';
  }
}

/**
 * The enabled entries of `entries` in start order: list order, except that an entry moves after
 * the entries it names in `after`. Stable: entries that do not need to move keep their order.
 */
export function partOrder<C>(entries: readonly PartEntry<C>[], ctx: C): PartEntry<C>[] {
  const byName = new Map<string, PartEntry<C>>();
  for (const e of entries) {
    if (byName.has(e.name)) throw new PartError('DUPLICATE_PART', `two parts are named ${e.name}`, e.name);
    byName.set(e.name, e);
  }
  for (const e of entries) {
    for (const a of e.after ?? []) if (!byName.has(a)) throw new PartError('UNKNOWN_PART', `part ${e.name} starts after ${a}, which is not in the list`, e.name);
  }
  const enabled = entries.filter((e) => e.enabled?.(ctx) ?? true);
  const on = new Set(enabled.map((e) => e.name));
  const placed = new Set<string>();
  const order: PartEntry<C>[] = [];
  const visiting: string[] = [];
  const place = (e: PartEntry<C>): void => {
    if (placed.has(e.name)) return;
    if (visiting.includes(e.name)) throw new PartError('PART_CYCLE', `parts start after each other: ${[...visiting.slice(visiting.indexOf(e.name)), e.name].join(' -> ')}`, e.name);
    visiting.push(e.name);
    for (const a of e.after ?? []) if (on.has(a)) place(byName.get(a) as PartEntry<C>);
    visiting.pop();
    placed.add(e.name);
    order.push(e);
  };
  for (const e of enabled) place(e);
  return order;
}

/** The parts of one process, in start order, with the lifecycle that drives them. */
export class PartSet {
  private readonly byName = new Map<string, Part>();
  private readonly ordered: Part[] = [];

  /** The parts in start order. */
  get list(): readonly Part[] {
    return this.ordered;
  }

  /** @internal Used while composing. */
  add(part: Part): void {
    this.byName.set(part.name, part);
    this.ordered.push(part);
  }

  /** The part of this name, when it is enabled. */
  get<T extends Part = Part>(name: string): T | undefined {
    return this.byName.get(name) as T | undefined;
  }

  /** The part of this name; `PartError` `PART_MISSING` when it is not enabled. */
  require<T extends Part = Part>(name: string): T {
    const p = this.byName.get(name);
    if (!p) throw new PartError('PART_MISSING', `part ${name} is not enabled here`, name);
    return p as T;
  }

  /** Names of the enabled parts, in start order. */
  names(): string[] {
    return this.ordered.map((p) => p.name);
  }

  /** {@link startParts} over this set. */
  start(log: Logger): Promise<void> {
    return startParts(this.ordered, log);
  }

  /** {@link stopParts} over this set. */
  stop(log: Logger): Promise<void> {
    return stopParts(this.ordered, log);
  }

  /** {@link healthOf} this set. */
  health(): PartsHealth {
    return healthOf(this.ordered);
  }
}

/**
 * Makes the enabled parts of `entries` in start order ({@link partOrder}). Nothing is started.
 * Throws `PartError` for a list that cannot be ordered or a part whose name differs from its entry's.
 */
export function composeParts<C>(entries: readonly PartEntry<C>[], ctx: C): PartSet {
  const set = new PartSet();
  for (const e of partOrder(entries, ctx)) {
    const part = e.make(ctx, set);
    if (part.name !== e.name) throw new PartError('PART_NAME_MISMATCH', `entry ${e.name} made a part named ${part.name}`, e.name);
    set.add(part);
  }
  return set;
}

const message = (e: unknown): string => (e instanceof Error ? e.message : String(e));

/**
 * Starts then syncs `parts` in order. On a failure, stops every part whose `start` was called
 * (the failing one included), in reverse, and rethrows the failure.
 */
export async function startParts(parts: readonly Part[], log: Logger): Promise<void> {
  const reached: Part[] = [];
  try {
    for (const p of parts) {
      reached.push(p);
      await p.start();
    }
    for (const p of parts) await p.sync?.();
  } catch (e) {
    log.warn({ err: message(e) }, 'start failed: stopping the parts started so far');
    await stopParts(reached, log).catch(() => undefined); // already logged; the start failure is the one to report
    throw e;
  }
}

/** Stops `parts` in reverse order. Every part is stopped even when one fails; the first failure is rethrown after. */
export async function stopParts(parts: readonly Part[], log: Logger): Promise<void> {
  let failure: { error: unknown } | undefined;
  for (const p of [...parts].reverse()) {
    try {
      await p.stop();
    } catch (e) {
      log.warn({ err: message(e), part: p.name }, 'stopping a part failed');
      failure ??= { error: e };
    }
  }
  if (failure) throw failure.error;
}

/** Health of each part; a `health()` that throws counts as not ok. */
export function healthOf(parts: readonly Part[]): PartsHealth {
  const each = parts.map((p): PartHealth & { name: string } => {
    try {
      return { name: p.name, ...p.health() };
    } catch (e) {
      return { name: p.name, ok: false, detail: `health check failed: ${message(e)}` };
    }
  });
  return { ok: each.every((c) => c.ok), parts: each };
}
