// Where a part is in its lifecycle, for the parts that follow events between start and stop.
import type { PartHealth } from '@switchyard/runtime';

export type PartState = 'new' | 'running' | 'stopped';

/** The health of a part that is not running, or undefined while it runs. */
export function notRunning(state: PartState): PartHealth | undefined {
  if (state === 'running') return undefined;
  return { ok: false, detail: state === 'new' ? 'not started' : 'stopped' };
}
