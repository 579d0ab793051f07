// Fuzzing the CNI door: whatever environment and stdin a runtime hands the plugin, it prints one CNI
// error JSON (or the VERSION answer) and exits; the parsers the agent runs on forwarded requests
// fail only with CniError. Runs: FUZZ_RUNS (default 2,000); seed: FUZZ_SEED (fixed, see jest.fuzz-setup.cjs).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { runPlugin } from '../src/cni/plugin/run';
import { CniError, CniErrorCode, SUPPORTED_CNI_VERSIONS, parseCniArgs, parseNetConf, parsePrevResult } from '../src/cni/spec';

const runs = Number(process.env.FUZZ_RUNS ?? 2000);
// Time grows with the runs; the work is CPU-bound and bounded per run.
jest.setTimeout(runs * 100 + 60_000);
const codes = new Set<number>(Object.values(CniErrorCode));
let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'cni-fuzz-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Network configurations: mostly almost-valid ones (a field missing, of the wrong type, odd values), some raw text. */
const netConf = fc.oneof(
  fc.string(),
  fc.json(),
  fc
    .record(
      {
        cniVersion: fc.oneof(fc.constantFrom(...SUPPORTED_CNI_VERSIONS, '0.2.0', '2.0.0', ''), fc.jsonValue()),
        name: fc.oneof(fc.string(), fc.jsonValue()),
        type: fc.oneof(fc.constant('switchyard'), fc.jsonValue()),
        prevResult: fc.jsonValue(),
        ipam: fc.oneof(fc.record({ type: fc.string(), cniSocket: fc.jsonValue() }, { requiredKeys: [] }), fc.jsonValue()),
      },
      { requiredKeys: [] },
    )
    .map((o) => JSON.stringify(o)),
  // Valid JSON cut anywhere.
  fc.tuple(fc.json(), fc.nat()).map(([j, n]) => j.slice(0, n % (j.length + 1))),
);

const cniEnv = fc.record(
  {
    CNI_COMMAND: fc.oneof(fc.constantFrom('ADD', 'DEL', 'CHECK', 'VERSION', '', 'add'), fc.string()),
    CNI_CONTAINERID: fc.string(),
    CNI_NETNS: fc.oneof(fc.constant('/proc/self/ns/net'), fc.string()),
    CNI_IFNAME: fc.oneof(fc.constant('eth0'), fc.string()),
    CNI_ARGS: fc.string(),
    CNI_PATH: fc.string(),
  },
  { requiredKeys: [] },
);

describe('the CNI plugin under arbitrary environment and stdin', () => {
  test('prints exactly one JSON answer: the VERSION answer, or an error with a spec code, a message and the exit code 1', async () => {
    await fc.assert(
      fc.asyncProperty(cniEnv, netConf, async (env, stdin) => {
        const printed: string[] = [];
        // No agent listens here: a request that gets as far as the socket answers "try again later".
        const code = await runPlugin({ ...env, SWITCHYARD_CNI_SOCKET: join(dir, 'absent.sock') }, stdin, (s) => printed.push(s));
        expect(printed).toHaveLength(1);
        const answer = JSON.parse(printed[0]!) as Record<string, unknown>;
        if (env.CNI_COMMAND === 'VERSION') {
          expect(code).toBe(0);
          expect(answer.supportedVersions).toEqual(SUPPORTED_CNI_VERSIONS);
          return;
        }
        expect(code).toBe(1);
        expect(codes.has(answer.code as number)).toBe(true);
        expect(typeof answer.msg).toBe('string');
        expect(typeof answer.cniVersion).toBe('string');
      }),
      { numRuns: runs },
    );
  });
});

describe('the parsers the agent runs on a forwarded request', () => {
  const onlyCniErrors = (f: () => unknown): void => {
    try {
      f();
    } catch (e) {
      expect(e).toBeInstanceOf(CniError);
    }
  };
  test('parseNetConf', () => {
    fc.assert(fc.property(netConf, (s) => onlyCniErrors(() => parseNetConf(s))), { numRuns: runs });
  });
  test('parseCniArgs', () => {
    fc.assert(fc.property(fc.string(), (s) => onlyCniErrors(() => parseCniArgs(s))), { numRuns: runs });
  });
  test('parsePrevResult', () => {
    const prev = fc.oneof(
      fc.jsonValue(),
      fc.record(
        {
          cniVersion: fc.jsonValue(),
          interfaces: fc.oneof(fc.array(fc.record({ name: fc.jsonValue(), mac: fc.jsonValue(), sandbox: fc.jsonValue() }, { requiredKeys: [] })), fc.jsonValue()),
          ips: fc.oneof(fc.array(fc.record({ address: fc.oneof(fc.constant('10.0.0.2/24'), fc.jsonValue()), gateway: fc.jsonValue(), interface: fc.jsonValue() }, { requiredKeys: [] })), fc.jsonValue()),
          routes: fc.jsonValue(),
        },
        { requiredKeys: [] },
      ),
    );
    fc.assert(fc.property(prev, (p) => onlyCniErrors(() => parsePrevResult(p))), { numRuns: runs });
  });
});
