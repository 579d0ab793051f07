/**
 * Progress lines of the lab and the demo: `[  12.3 s] phase: detail`, timed from the user's
 * command (`SWITCHYARD_T0`, epoch ms, set by `npm run demo` / `switchyard-lab up`), so every
 * process of one run prints on the same clock.
 */
export type Phase = 'install' | 'build' | 'images' | 'api' | 'controller' | 'OVS' | 'nodes' | 'kubelet' | 'lab' | 'steps' | 'down';

/** The start of the user's command: `SWITCHYARD_T0` when a parent set it, else now (and exported to children). */
export function runStart(): number {
  const t = Number(process.env.SWITCHYARD_T0);
  if (Number.isFinite(t) && t > 0) return t;
  const now = Date.now();
  process.env.SWITCHYARD_T0 = String(now);
  return now;
}

/** `[  12.3 s]`: the time since the run started. */
export function elapsed(now = Date.now(), t0 = runStart()): string {
  return `[${((now - t0) / 1000).toFixed(1).padStart(6)} s]`;
}

/** One progress line, `[elapsed] phase: detail`. */
export function progressLine(phase: Phase, detail: string, now = Date.now(), t0 = runStart()): string {
  return `${elapsed(now, t0)} ${phase}: ${detail}\n`;
}
