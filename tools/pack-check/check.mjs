#!/usr/bin/env node
// Package-shape check for workspace packages, as a user would meet them: `npm pack` them (and the
// workspace packages they depend on), install the tarballs into one scratch project, then for each
// package import every export-map entry with require() and import(), and run publint and attw on it.
// Usage: node tools/pack-check/check.mjs <package dir> [<package dir> ...]
// One package is its `test:pack` script; npm test gives every package at once, so each tarball is
// packed and installed once instead of once per package that depends on it.
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const readPkg = (dir) => JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
const pkgDirs = (process.argv.length > 2 ? process.argv.slice(2) : ['.']).map((d) => resolve(d));
const pkgs = pkgDirs.map((dir) => ({ dir, pkg: readPkg(dir) }));

/** Workspace directories by package name. */
const workspaces = new Map();
for (const dir of JSON.parse(execFileSync('npm', ['query', '.workspace'], { cwd: root, encoding: 'utf8' }))) {
  workspaces.set(dir.name, join(root, dir.location));
}

/** The packages and every workspace package they depend on, transitively. */
function closure(name, seen = new Set()) {
  if (seen.has(name)) return seen;
  seen.add(name);
  for (const dep of Object.keys(readPkg(workspaces.get(name)).dependencies ?? {})) {
    if (workspaces.has(dep)) closure(dep, seen);
  }
  return seen;
}

const scratch = mkdtempSync(join(tmpdir(), 'pack-check-'));
const sh = (cmd, args, cwd = scratch) => execFileSync(cmd, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
const run = promisify(execFile);
const shAsync = async (cmd, args, cwd = scratch) => (await run(cmd, args, { cwd, encoding: 'utf8', maxBuffer: 16 << 20 })).stdout;

/** One package's checks in the scratch project: every entry both ways, publint, attw. Returns its report lines. */
async function check({ dir, pkg }, tarballs) {
  const lines = [];
  const entries = Object.keys(pkg.exports ?? { '.': null }).filter((k) => k !== './package.json');
  for (const entry of entries) {
    const spec = entry === '.' ? pkg.name : `${pkg.name}/${entry.slice(2)}`;
    const [cjs, esm] = await Promise.all([
      shAsync('node', ['-e', `const m = require(${JSON.stringify(spec)}); console.log(Object.keys(m).length)`]),
      shAsync('node', ['--input-type=module', '-e', `const m = await import(${JSON.stringify(spec)}); console.log(Object.keys(m).length)`]),
    ]);
    if (Number(cjs) === 0 || Number(esm) === 0) throw new Error(`${spec}: no exports (cjs ${cjs.trim()}, esm ${esm.trim()})`);
    lines.push(`${spec}: require() ${cjs.trim()} exports, import() ${esm.trim()} exports`);
  }
  await shAsync(join(root, 'node_modules/.bin/publint'), ['--strict'], dir);
  lines.push(`${pkg.name}: publint ok`);
  await shAsync(join(root, 'node_modules/.bin/attw'), [join(scratch, tarballs[pkg.name]), '--profile', 'node16', '--format', 'ascii']);
  lines.push(`${pkg.name}: attw ok`);
  return lines;
}

let failed = 0;
try {
  const tarballs = {};
  const names = new Set();
  for (const { pkg } of pkgs) closure(pkg.name, names);
  for (const name of names) tarballs[name] = JSON.parse(sh('npm', ['pack', '--json', '--pack-destination', scratch], workspaces.get(name)))[0].filename;
  const deps = Object.fromEntries(Object.entries(tarballs).map(([name, file]) => [name, `file:./${file}`]));
  writeFileSync(join(scratch, 'package.json'), JSON.stringify({ name: 'scratch', private: true, version: '0.0.0', dependencies: deps }, null, 2));
  sh('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts', '--loglevel=error']);
  console.log(`packed and installed ${names.size} packages into ${scratch}`);
  // Two packages checked at a time (each check is a handful of node processes).
  const queue = [...pkgs];
  await Promise.all(
    [0, 1].map(async () => {
      for (let p = queue.shift(); p; p = queue.shift()) {
        try {
          console.log((await check(p, tarballs)).join('\n'));
        } catch (e) {
          failed++;
          console.error(`${p.pkg.name}: FAILED\n${e.stderr ?? ''}${e.stdout ?? ''}${e.message}`);
        }
      }
    }),
  );
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
if (failed > 0) {
  console.error(`${failed} of ${pkgs.length} packages failed the package-shape check`);
  process.exit(1);
}
console.log(`${pkgs.length} packages pass the package-shape check`);
