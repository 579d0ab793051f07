/**
 * The detached supervisor `switchyard-lab up` starts: runs the lab until SIGTERM/SIGINT, then
 * removes everything. Writes `<labDir>/state.json` when ready, or `<labDir>/failed` with the error,
 * and a progress line per phase to `<labDir>/progress`.
 */
import { appendFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { lineLogger, onShutdown } from '@switchyard/runtime/process';
import { Lab, progressFile } from './lab';
import { parseEncryption, parseIpFamily, parseMode } from './plan';
import { parseRuntime } from './podman';
import { progressLine } from './progress';

async function main(): Promise<void> {
  const labDir = process.argv[2] ?? '/tmp/switchyard-lab';
  const nodes = Number(process.argv[3] ?? '2');
  const mode = parseMode(process.argv[4] ?? 'encap');
  const controller = process.argv[5] !== 'no-controller';
  const encryption = parseEncryption(process.argv[6] ?? 'none');
  const featureGates = JSON.parse(process.argv[7] ?? '{}') as Record<string, boolean>;
  const proxyAll = process.argv[8] === 'proxy-all';
  const ipFamily = parseIpFamily(process.argv[9] ?? 'ipv4');
  const runtime = parseRuntime(process.argv[10] ?? 'process');
  let lab: Lab;
  try {
    // `up` prints these lines as they land (progressFile).
    lab = await Lab.start({ nodes, labDir, mode, encryption, controller, ...(Object.keys(featureGates).length ? { featureGates } : {}), ...(proxyAll ? { proxyAll } : {}), ...(ipFamily !== 'ipv4' ? { ipFamily } : {}), ...(runtime !== 'process' ? { runtime } : {}), progress: (phase, detail) => appendFileSync(progressFile(labDir), progressLine(phase, detail)) });
  } catch (e) {
    writeFileSync(join(labDir, 'failed'), `${(e as Error).message}\n`);
    process.exit(1);
  }
  // No timeout: `down` waits for the removal, and SIGKILLs the supervisor after a minute.
  // Its stderr is <labDir>/supervisor.log.
  onShutdown(() => lab.stop(labDir), { log: lineLogger() });
  process.stdout.write(`lab ready (${nodes} nodes)\n`);
}

void main();
