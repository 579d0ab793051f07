#!/usr/bin/env node
// Builds workspace projects through nx (their dependencies first, cached): every project with no
// argument, else the named ones (`node scripts/build.mjs @switchyard/agent`). Prints a line per
// package nx builds (not for those it takes from its cache) and a summary; nx's full output only when the build fails. Used by
// `npm ci` (the root `prepare` script), `switchyard-lab up` and the demo, so nothing a user runs
// first meets an unbuilt package.
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const projects = process.argv.slice(2);
const t0 = Date.now();
const secs = () => ((Date.now() - t0) / 1000).toFixed(1);
const args = ['run-many', '-t', 'build', '--outputStyle=static', ...(projects.length ? [`--projects=${projects.join(',')}`] : [])];
const child = spawn(join(root, 'node_modules/.bin/nx'), args, {
  cwd: root,
  stdio: ['ignore', 'pipe', 'pipe'],
  env: { ...process.env, NX_DAEMON: 'false', NX_NO_CLOUD: 'true', NX_TUI: 'false', FORCE_COLOR: '0' },
});
let out = '';
let pending = '';
const onData = (chunk) => {
  out += chunk;
  pending += chunk;
  const lines = pending.split('\n');
  pending = lines.pop() ?? '';
  for (const line of lines) {
    // nx prints `> nx run <project>:build` as each task's output is shown (when the task ends).
    const m = /^> nx run (\S+):build(.*)$/.exec(line.trim());
    // Packages taken from the cache are only counted in the summary.
    if (m && !/cache/.test(m[2] ?? '')) process.stdout.write(`build: [${secs().padStart(5)} s] ${m[1]} built\n`);
  }
};
child.stdout.setEncoding('utf8').on('data', onData);
child.stderr.setEncoding('utf8').on('data', (c) => (out += c));
child.on('error', (e) => {
  process.stderr.write(`build: cannot run nx (${e.message}); run \`npm ci\` at ${root} first\n`);
  process.exit(1);
});
child.on('close', (code) => {
  if (code !== 0) {
    process.stderr.write(out);
    process.stderr.write(`build: failed after ${secs()} s (nx ${args.join(' ')})\n`);
    process.exit(code ?? 1);
  }
  const ran = /Successfully ran target build for (\d+) projects?(?: and (\d+) tasks? they depend on)?/.exec(out);
  const tasks = ran ? Number(ran[1]) + Number(ran[2] ?? 0) : '?';
  const cached = /from the cache instead of running the command for (\d+) out of (\d+) tasks/.exec(out);
  process.stdout.write(`build: ${tasks} packages up to date in ${secs()} s${cached ? ` (${cached[1]} from the nx cache)` : ''}\n`);
});
