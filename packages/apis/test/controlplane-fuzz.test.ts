// Fuzzing the controlplane decoder with what a broken or hostile peer could send: every watch-event
// encoding cut short, and random bytes. Only ControlplaneCodecError comes out, never another throw.
// Runs: FUZZ_RUNS (default 2,000); seed: FUZZ_SEED (fixed, see jest.fuzz-setup.cjs).
import fc from 'fast-check';
import { ControlplaneCodecError, decodeWatchEvent, encodeWatchEvent } from '../src/index';
import * as arb from './support/arbitraries';

const runs = Number(process.env.FUZZ_RUNS ?? 2000);
// Time grows with the runs; the work is CPU-bound and bounded per run.
jest.setTimeout(runs * 100 + 60_000);

describe('decodeWatchEvent under arbitrary input', () => {
  test('truncated messages fail with a typed error, never a crash', () => {
    fc.assert(
      fc.property(arb.watchEvent, fc.nat(), (ev, cut) => {
        const bytes = encodeWatchEvent(ev);
        if (bytes.length < 2) return;
        const truncated = bytes.subarray(0, cut % (bytes.length - 1) + 1);
        try {
          decodeWatchEvent(truncated);
        } catch (e) {
          expect(e).toBeInstanceOf(ControlplaneCodecError);
        }
      }),
      { numRuns: runs },
    );
  });

  test('random garbage either decodes to a valid event or fails with a typed error', () => {
    fc.assert(
      fc.property(fc.oneof(fc.uint8Array({ maxLength: 64 }), fc.uint8Array({ maxLength: 4096 })), (bytes) => {
        try {
          const ev = decodeWatchEvent(bytes);
          expect(decodeWatchEvent(encodeWatchEvent(ev))).toEqual(ev);
        } catch (e) {
          expect(e).toBeInstanceOf(ControlplaneCodecError);
        }
      }),
      { numRuns: runs },
    );
  });
});
