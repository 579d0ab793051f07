// What a bridge's flow table looked like at one moment, and what changed since: the check that a
// restarted agent adopted the flows it found instead of re-installing them.
import { run } from './exec';

/**
 * A bridge's flows read with `ovs-ofctl -O OpenFlow15 dump-flows`: each flow's age (its
 * `duration`, in seconds) by its identity, which is the dump line without its statistics (cookie,
 * table, priority, match, actions and flags), and when it was read.
 */
export interface FlowSnapshot {
  ages: Map<string, number>;
  /** performance.now() just before `ovs-ofctl` was started: OVS read the ages after this. */
  startedAt: number;
  /** performance.now() once the dump was read: OVS read the ages before this. */
  takenAt: number;
}

/** What differs between two snapshots of one bridge. */
export interface FlowChanges {
  /** Flows in the later snapshot only (new, or modified: other cookie or actions). */
  added: string[];
  /** Flows in the earlier snapshot only (deleted, or modified). */
  deleted: string[];
  /** Flows in both whose age did not grow by the time between the snapshots: re-sent since. */
  younger: string[];
}

// The counters and ages ovs-ofctl prints between the fields that make up a flow.
const STATS = /\b(?:duration|n_packets|n_bytes|idle_age|hard_age)=[^,\s]+,?\s*/g;

/** Each flow of a `dump-flows` output (with statistics) by its identity, with its age in seconds. */
export function parseFlowAges(dump: string): Map<string, number> {
  const ages = new Map<string, number>();
  for (const raw of dump.split('\n')) {
    const line = raw.trim();
    const duration = /\bduration=([\d.]+)s/.exec(line);
    if (!duration) continue;
    ages.set(line.replace(STATS, '').replace(/,\s*(?=actions=)/, ' ').trim(), Number(duration[1]));
  }
  return ages;
}

/** Reads the flows of the bridge whose OpenFlow management socket is `mgmtSocket` (`<rundir>/<bridge>.mgmt`). */
export async function flowSnapshot(mgmtSocket: string): Promise<FlowSnapshot> {
  const startedAt = performance.now();
  const dump = (await run(['ovs-ofctl', '-O', 'OpenFlow15', 'dump-flows', mgmtSocket])).stdout;
  return { ages: parseFlowAges(dump), startedAt, takenAt: performance.now() };
}

/**
 * Flows added, deleted or re-sent between `before` and `after`. An untouched flow aged by at least
 * the least time that can have passed between the two readings inside OVS: from the end of the
 * first dump to the start of the second (a dump's process can take any time to start and exit on
 * a loaded machine, so neither end alone bounds when OVS read the ages), less `marginS` for OVS's
 * millisecond durations. A flow that was replaced restarts its age. OVS keeps a flow's age through a modify
 * flow-mod, which is why identity includes the actions and cookie: a modified flow shows up as
 * one deleted and one added.
 */
export function flowChanges(before: FlowSnapshot, after: FlowSnapshot, marginS = 0.01): FlowChanges {
  const gap = (after.startedAt - before.takenAt) / 1000 - marginS;
  const added = [...after.ages.keys()].filter((f) => !before.ages.has(f));
  const deleted = [...before.ages.keys()].filter((f) => !after.ages.has(f));
  const younger: string[] = [];
  for (const [f, age] of after.ages) {
    const was = before.ages.get(f);
    if (was !== undefined && age < was + gap) younger.push(`${f} (age ${age} s, was ${was} s ${(gap + marginS).toFixed(3)} s before)`);
  }
  return { added, deleted, younger };
}
