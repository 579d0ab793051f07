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
