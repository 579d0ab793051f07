// The chaos run's CI version: `switchyard-lab chaos --duration 2m` on its own 2-node lab (it
// brings the lab up and down itself), with a fixed seed so a red run replays. Every fault kind is
// injected at least once and recovers, no probed verdict stays wrong, the clean run after the
// faults agrees with every scenario, and nothing is left over on the nodes.
import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FAULT_KINDS, type ChaosReport } from '../src/index';

const BIN = join(__dirname, '../bin/switchyard-lab');
const labDir = mkdtempSync(join(tmpdir(), 'switchyard-lab-chaos-'));
const SEED = process.env.CHAOS_SEED ?? '20261125';

it('a 2-minute chaos run: every fault recovers, every verdict settles to the scenario, nothing is left over', async () => {
  const { code, stdout, stderr } = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(BIN, ['--lab-dir', labDir, 'chaos', '--duration', '2m', '--seed', SEED, '-o', 'json'], { maxBuffer: 64 << 20, timeout: 540_000 }, (err, out, errOut) =>
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout: out, stderr: errOut }),
    );
  });
  const report = JSON.parse(stdout || '{}') as ChaosReport;
  process.stdout.write(`${stderr.split('\n').filter((l) => l.startsWith('fault ')).join('\n')}\nrecovery: ${JSON.stringify(report.recovery)}\nscenarios: ${JSON.stringify(report.scenarios)}\n`);
  expect({ code, leftovers: report.leftovers, disagreements: report.disagreements, final: report.final.disagreements }).toEqual({ code: 0, leftovers: [], disagreements: [], final: [] });
  expect(report.faults.filter((f) => f.error)).toEqual([]);
  for (const kind of FAULT_KINDS) expect({ kind, injected: report.faults.some((f) => f.kind === kind && f.recoveryMs !== undefined) }).toEqual({ kind, injected: true });
  expect(report.final.cells).toBeGreaterThan(0);
  expect(report.scenarios.completed).toBeGreaterThan(0);
  expect(report.ok).toBe(true);
}, 600_000);
