// The chaos run's CI version: `switchyard-lab chaos --duration 2m` on its own 2-node lab (it
// brings the lab up and down itself), with a fixed seed so a red run replays. Every fault kind is
// injected at least once, and every fault recovers in the strong sense: every cell of the
// scenario step in place matched its expected verdict again within the limit. Every scenario a
// fault interrupted was run again to completion, every probed cell of the run settled to its
// verdict, the clean run after the faults agrees with every scenario, and nothing is left over.
import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FAULT_KINDS, type ChaosReport } from '../src/index';

const BIN = join(__dirname, '../bin/switchyard-lab');
const labDir = mkdtempSync(join(tmpdir(), 'switchyard-lab-chaos-'));
const SEED = process.env.CHAOS_SEED ?? '20261125';
/** runChaos's default recoveryLimitMs. */
const RECOVERY_LIMIT_MS = 60_000;

it('a 2-minute chaos run: every fault recovers with every cell right again, interrupted scenarios complete, every verdict settles, nothing is left over', async () => {
  const { code, stdout, stderr } = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(BIN, ['--lab-dir', labDir, 'chaos', '--duration', '2m', '--seed', SEED, '-o', 'json'], { maxBuffer: 64 << 20, timeout: 540_000 }, (err, out, errOut) =>
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout: out, stderr: errOut }),
    );
  });
  const report = JSON.parse(stdout || '{}') as ChaosReport;
  process.stdout.write(
    `${stderr.split('\n').filter((l) => l.startsWith('fault ')).join('\n')}\nrecovery (every cell right again): ${JSON.stringify(report.recovery)}\nhealthy (processes back): ${JSON.stringify(report.healthy)}\nscenarios: ${JSON.stringify(report.scenarios)}\n`,
  );
  // The reasons first: a red run's assertion names its cause (CI keeps only the assertion's text).
  expect({ code, failures: report.failures, leftovers: report.leftovers, disagreements: report.disagreements, final: report.final.disagreements }).toEqual({ code: 0, failures: [], leftovers: [], disagreements: [], final: [] });
  // Every fault: processes back, then every cell of a probed step matched again within the limit.
  expect(report.faults.filter((f) => f.error || f.recoveryMs === undefined || f.recoveryMs > RECOVERY_LIMIT_MS || !f.checked || f.checked.cells === 0 || (f.unsettled ?? []).length > 0)).toEqual([]);
  for (const kind of FAULT_KINDS) expect({ kind, recovered: report.faults.some((f) => f.kind === kind && f.recoveryMs !== undefined) }).toEqual({ kind, recovered: true });
  // Interrupted scenarios were run again until they completed; the completed ones' cells all matched.
  const sc = report.scenarios;
  expect(sc.abandoned).toEqual([]);
  expect(sc.completed).toBeGreaterThan(0);
  expect(sc.cells).toBeGreaterThan(0);
  expect(report.final.cells).toBeGreaterThan(0);
  expect(report.ok).toBe(true);
}, 600_000);
