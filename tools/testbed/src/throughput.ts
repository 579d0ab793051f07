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
 * under half of it, or one in which the sender retransmitted (`retransmits`, iperf3's per-interval
 * count on the sending side, when given); a lasting dip is two intervals in a row under half the
 * median. One short interval alone, with nothing retransmitted, is a loaded machine holding back
 * the paced sender (or its reader) for a moment, not the network: a CI run on a loaded 2-core
 * machine saw one interval of 100 ms near zero, the intervals around it at the pace and no drop.
 * Meant for intervals of 0.1 s or less on a stream paced well under what the path carries.
 */
export function throughputDisruptions(bitsPerSecond: readonly number[], retransmits?: readonly number[]): Disruptions {
  const sorted = [...bitsPerSecond].sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)] ?? 0;
  const low = (i: number): boolean => i >= 1 && i < bitsPerSecond.length && bitsPerSecond[i]! < median / 2;
  const stalls: number[] = [];
  const lastingDips: number[] = [];
  for (let i = 1; i < bitsPerSecond.length; i++) {
    const x = bitsPerSecond[i]!;
    if (x < median / 10 && (low(i - 1) || low(i + 1) || (retransmits?.[i] ?? 0) > 0)) stalls.push(i);
    if (i > 1 && low(i) && low(i - 1)) lastingDips.push(i);
  }
  return { stalls, lastingDips };
}
