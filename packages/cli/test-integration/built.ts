// The built programs these tests run, as a user's install holds them (dist/, not the sources through
// tsx: a tsx start of yardctl costs about 2 s more on a loaded 2-core machine, and tests run it tens
// of times; the agent and the controller under tsx take seconds longer to be ready, and load tsx's
// transpiler for their whole run). buildPackages makes dist/ match the sources through nx (scripts/build.mjs): from its
// cache when CI's build stage or `switchyard-lab up` built them already, so a few seconds.
import { execFile } from 'node:child_process';
import { join } from 'node:path';

const ROOT = join(__dirname, '../../..');

/** yardctl's built binary. */
export const YARDCTL_BIN = join(ROOT, 'packages/cli/dist/bin.js');
/** switchyard-agent's built program (what packages/agent/bin/switchyard-agent.js and the lab start); build '@switchyard/agent'. */
export const AGENT_BIN = join(ROOT, 'packages/agent/dist/agent-cli.js');
/** switchyard-controller's built program (packages/controller/bin/switchyard-controller.js); build '@switchyard/controller'. */
export const CONTROLLER_BIN = join(ROOT, 'packages/controller/dist/cli.js');

/** Brings these workspace packages' dist/ up to date (and their dependencies'); throws with nx's output when the build fails. */
export function buildPackages(...projects: string[]): Promise<void> {
  // npm test's build stage built every package from this tree just before.
  if (process.env.SWITCHYARD_PREBUILT === '1') return Promise.resolve();
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [join(ROOT, 'scripts/build.mjs'), ...projects], { cwd: ROOT, maxBuffer: 32 << 20, env: { ...process.env, NODE_OPTIONS: '' } }, (err, stdout, stderr) =>
      err ? reject(new Error(`building ${projects.join(', ')} failed: ${stdout}${stderr}`)) : resolve(),
    );
  });
}
