/**
 * Reading an iperf3 stream's intervals for disruption: what counts as the network failing a
 * stream, as opposed to a shared machine starving the sender for a moment.
 */

/** Intervals of a throughput series that show the network failing the stream (indexes into the series). */
export interface Disruptions {
  /** Intervals under a tenth of the median: nearly nothing got through. */
  stalls: number[];
  /** Intervals under half the median right after another such interval: a dip that lasts. */
  lastingDips: number[];
}

/**
 * A disrupted datapath drops packets and TCP waits out a retransmission timeout (200 ms at least),
 * which shows as two or more short intervals in a row near zero. So, after the first interval
 * (the handshake): a stall is an interval under a tenth of the median, and a lasting dip two
 * intervals in a row under half of it. One interval under half the median alone is a loaded
 * machine holding back the paced sender for a moment, not the network. Meant for intervals of
 * 0.1 s or less on a stream paced well under what the path carries.
 */
export function throughputDisruptions(bitsPerSecond: readonly number[]): Disruptions {
  const sorted = [...bitsPerSecond].sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)] ?? 0;
  const stalls: number[] = [];
  const lastingDips: number[] = [];
  for (let i = 1; i < bitsPerSecond.length; i++) {
    const x = bitsPerSecond[i]!;
    if (x < median / 10) stalls.push(i);
    if (i > 1 && x < median / 2 && bitsPerSecond[i - 1]! < median / 2) lastingDips.push(i);
  }
  return { stalls, lastingDips };
}
