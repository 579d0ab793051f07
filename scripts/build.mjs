#!/usr/bin/env node
// Builds workspace projects through nx (their dependencies first, cached): every project with no
// argument, else the named ones (`node scripts/build.mjs @switchyard/agent`). Prints one progress
// line and nx's output only when the build fails. Used by `npm ci` (the root `prepare` script),
// `switchyard-lab up` and the demo, so nothing a user runs first meets an unbuilt package.
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const projects = process.argv.slice(2);
const t0 = Date.now();
const nx = join(root, 'node_modules/.bin/nx');
const args = ['run-many', '-t', 'build', '--outputStyle=static', ...(projects.length ? [`--projects=${projects.join(',')}`] : [])];
const r = spawnSync(nx, args, {
  cwd: root,
  encoding: 'utf8',
  maxBuffer: 64 * 1024 * 1024,
  env: { ...process.env, NX_DAEMON: 'false', NX_NO_CLOUD: 'true', NX_TUI: 'false', FORCE_COLOR: '0' },
});
const out = `${r.stdout ?? ''}${r.stderr ?? ''}`;
const secs = ((Date.now() - t0) / 1000).toFixed(1);
if (r.status !== 0) {
  process.stderr.write(out);
  process.stderr.write(`build: failed after ${secs} s (nx ${args.join(' ')}${r.error ? `: ${r.error.message}` : ''})\n`);
  process.exit(r.status ?? 1);
}
const ran = /Successfully ran target build for (\d+) projects?(?: and (\d+) tasks? they depend on)?/.exec(out);
const tasks = ran ? Number(ran[1]) + Number(ran[2] ?? 0) : '?';
const cached = /from the cache instead of running the command for (\d+) out of (\d+) tasks/.exec(out);
process.stdout.write(`build: ${tasks} packages up to date in ${secs} s${cached ? ` (${cached[1]} from the nx cache)` : ''}\n`);
