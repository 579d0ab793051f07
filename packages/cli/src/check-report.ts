// The report of `yardctl check installation`: one result per check, its table and structured form, and the exit code.
import type { Table } from './output';

/** A check's verdict. Skip: the cluster cannot run it (one node: no inter-node path); it does not fail the run. */
export type CheckVerdict = 'Pass' | 'Fail' | 'Skip';

/** One check of the run. */
export interface CheckResult {
  /** Stable name (`pod-to-pod-inter-node`), as in the table and `-o json`. */
  name: string;
  result: CheckVerdict;
  /** Wall time of the check in ms. */
  durationMs: number;
  /** What was seen: on Pass what was reached, on Fail why, naming the pod, node or object. */
  message: string;
}

/** The whole run, as `-o json|yaml` prints it. */
export interface InstallationReport {
  kind: 'InstallationCheck';
  /** The test namespace the run created and deleted. */
  namespace: string;
  /** How connections were made (`pods/exec`, or the lab's pod network namespaces). */
  connectVia: string;
  startTime: string;
  durationMs: number;
  passed: number;
  failed: number;
  skipped: number;
  checks: CheckResult[];
  /** Set when the test namespace could not be deleted: what is left behind. */
  cleanupError?: string;
}

/** Counts of each verdict. */
export function tally(checks: readonly CheckResult[]): { passed: number; failed: number; skipped: number } {
  return {
    passed: checks.filter((c) => c.result === 'Pass').length,
    failed: checks.filter((c) => c.result === 'Fail').length,
    skipped: checks.filter((c) => c.result === 'Skip').length,
  };
}

/** 0 when no check failed and the run was complete, else 1 (an empty run has proved nothing). */
export function reportExitCode(report: Pick<InstallationReport, 'checks' | 'cleanupError'>): number {
  if (report.checks.length === 0) return 1;
  return report.checks.some((c) => c.result === 'Fail') || report.cleanupError !== undefined ? 1 : 0;
}

/** `1.234s`, `0.05s` as kubectl's durations read; under 10 s with 2 decimals, else 1. */
export function durationText(ms: number): string {
  const s = ms / 1000;
  return s < 10 ? `${s.toFixed(2)}s` : `${s.toFixed(1)}s`;
}

/** CHECK RESULT DURATION MESSAGE, one row per check, in run order. */
export function checkTable(checks: readonly CheckResult[]): Table {
  return { columns: ['CHECK', 'RESULT', 'DURATION', 'MESSAGE'], rows: checks.map((c) => [c.name, c.result, durationText(c.durationMs), c.message]) };
}

/** The last line of a table run: `7 passed, 0 failed, 0 skipped in 12.3s`. */
export function summaryLine(report: InstallationReport): string {
  return `${report.passed} passed, ${report.failed} failed, ${report.skipped} skipped in ${durationText(report.durationMs)} (namespace ${report.namespace}, connections via ${report.connectVia})`;
}
