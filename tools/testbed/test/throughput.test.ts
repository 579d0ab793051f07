import { throughputDisruptions } from '@switchyard/testbed';

const paced = (n: number): number[] => Array.from({ length: n }, () => 50e6);

test('a steady stream has no disruption, and one short dip alone is not one', () => {
  expect(throughputDisruptions(paced(60))).toEqual({ stalls: [], lastingDips: [] });
  const hiccup = paced(60);
  hiccup[30] = 20e6;
  expect(throughputDisruptions(hiccup)).toEqual({ stalls: [], lastingDips: [] });
});

test('an outage that makes TCP back off shows as stalls and a lasting dip', () => {
  const outage = paced(60);
  outage[30] = 12e6; // the packets before the drops
  outage[31] = 0;
  outage[32] = 0;
  outage[33] = 30e6;
  expect(throughputDisruptions(outage)).toEqual({ stalls: [31, 32], lastingDips: [31, 32] });
});

test('the first interval (the handshake) is not judged', () => {
  const slowStart = paced(60);
  slowStart[0] = 1e6;
  expect(throughputDisruptions(slowStart)).toEqual({ stalls: [], lastingDips: [] });
});

test('one interval near zero alone is the machine, not the network; with retransmits in it, a stall', () => {
  const held = paced(60);
  held[12] = 1e6; // the sender not scheduled for 100 ms, nothing lost
  expect(throughputDisruptions(held)).toEqual({ stalls: [], lastingDips: [] });
  expect(throughputDisruptions(held, paced(60).map(() => 0))).toEqual({ stalls: [], lastingDips: [] });
  const retransmits = paced(60).map(() => 0);
  retransmits[12] = 3;
  expect(throughputDisruptions(held, retransmits)).toEqual({ stalls: [12], lastingDips: [] });
});

test('a stall at the end of the series, next to a low interval before it, counts', () => {
  const tail = paced(40);
  tail[38] = 10e6;
  tail[39] = 0;
  expect(throughputDisruptions(tail)).toEqual({ stalls: [39], lastingDips: [39] });
});

test('with retransmits given, a low run counts only when the sender retransmitted in it or beside it', () => {
  const held = paced(60);
  held[20] = 20e6; // the sender starved for two intervals, nothing lost
  held[21] = 15e6;
  const none = paced(60).map(() => 0);
  expect(throughputDisruptions(held)).toEqual({ stalls: [], lastingDips: [21] });
  expect(throughputDisruptions(held, none)).toEqual({ stalls: [], lastingDips: [] });
  const outage = paced(60);
  outage[30] = 12e6;
  outage[31] = 0;
  outage[32] = 0;
  outage[33] = 30e6;
  const lost = paced(60).map(() => 0);
  lost[33] = 5; // the retransmission after the timeout, in the interval after the run
  expect(throughputDisruptions(outage, lost)).toEqual({ stalls: [31, 32], lastingDips: [31, 32] });
  const far = paced(60).map(() => 0);
  far[40] = 5; // a retransmit elsewhere does not make this run the network's
  expect(throughputDisruptions(outage, far)).toEqual({ stalls: [], lastingDips: [] });
});
