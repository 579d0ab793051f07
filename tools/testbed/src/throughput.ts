/**
 * Reading an iperf3 stream's intervals for disruption: what counts as the network failing a
 * stream, as opposed to a shared machine starving the sender for a moment.
 */

/** Intervals of a throughput series that show the network failing the stream (indexes into the series). */
export interface Disruptions {
  /**
   * Intervals under a tenth of the median (nearly nothing got through) that the network caused:
   * next to another interval under half the median, or with segments retransmitted in it.
   */
  stalls: number[];
  /** Intervals under half the median right after another such interval: a dip that lasts. */
  lastingDips: number[];
}

/**
 * A disrupted datapath drops packets: TCP retransmits, and waits out a retransmission timeout (200
 * ms at least), which shows as two or more short intervals in a row near zero. So, after the first
 * interval (the handshake): a stall is an interval under a tenth of the median next to another
 * under half of it, or one in which the sender retransmitted; a lasting dip is two intervals in a
 * row under half the median. One short interval alone, with nothing retransmitted, is a loaded
 * machine holding back the paced sender (or its reader) for a moment, not the network: a CI run on
 * a loaded 2-core machine saw one interval of 100 ms near zero, the intervals around it at the pace
 * and no drop.
 *
 * When `retransmits` (iperf3's per-interval count on the sending side) is given, what was lost
 * decides: a low run (consecutive intervals under half the median) counts only when the sender
 * retransmitted in it or in the interval on either side. A run with nothing retransmitted is the
 * stream held up, not failed: another CI run, at load 11 on 2 cores, saw two intervals in a row
 * at half the pace with no retransmit while nothing was wrong with the path. Without
 * `retransmits`, the shape alone decides.
 * Meant for intervals of 0.1 s or less on a stream paced well under what the path carries.
 */
export function throughputDisruptions(bitsPerSecond: readonly number[], retransmits?: readonly number[]): Disruptions {
  const sorted = [...bitsPerSecond].sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)] ?? 0;
  const low = (i: number): boolean => i >= 1 && i < bitsPerSecond.length && bitsPerSecond[i]! < median / 2;
  const retransmitted = (i: number): boolean => (retransmits?.[i] ?? 0) > 0;
  // Whether the low run holding interval i (or i alone) has a retransmit in it or beside it.
  const lossNear = (i: number): boolean => {
    if (retransmits === undefined) return true;
    let a = i;
    let b = i;
    while (low(a - 1)) a--;
    while (low(b + 1)) b++;
    for (let k = a - 1; k <= b + 1; k++) if (retransmitted(k)) return true;
    return false;
  };
  const stalls: number[] = [];
  const lastingDips: number[] = [];
  for (let i = 1; i < bitsPerSecond.length; i++) {
    const x = bitsPerSecond[i]!;
    if (x < median / 10 && (low(i - 1) || low(i + 1) || retransmitted(i)) && lossNear(i)) stalls.push(i);
    if (i > 1 && low(i) && low(i - 1) && lossNear(i)) lastingDips.push(i);
  }
  return { stalls, lastingDips };
}
