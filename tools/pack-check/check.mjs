#!/usr/bin/env node
// Package-shape check for one workspace package, as a user would meet it: `npm pack` it (and the
// workspace packages it depends on), install the tarballs into a scratch project, then import every
// export-map entry with require() and import(), and run publint and attw on it.
// Usage: node tools/pack-check/check.mjs <package dir>
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const pkgDir = resolve(process.argv[2] ?? '.');
const readPkg = (dir) => JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
const pkg = readPkg(pkgDir);

/** Workspace directories by package name. */
const workspaces = new Map();
for (const dir of JSON.parse(execFileSync("npm", ["query", ".workspace"], { cwd: root, encoding: "utf8" }))) {
  workspaces.set(dir.name, join(root, dir.location));
}

/** This package and every workspace package it depends on, transitively. */
function closure(name, seen = new Set()) {
  if (seen.has(name)) return seen;
  seen.add(name);
  for (const dep of Object.keys(readPkg(workspaces.get(name)).dependencies ?? {})) {
    if (workspaces.has(dep)) closure(dep, seen);
  }
  return seen;
}

const scratch = mkdtempSync(join(tmpdir(), `pack-check-${pkg.name.replace(/\W/g, '_')}-`));
const sh = (cmd, args, cwd = scratch) =>
  execFileSync(cmd, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
try {
  const deps = {};
  for (const name of closure(pkg.name)) {
    const dir = workspaces.get(name);
    const out = JSON.parse(sh('npm', ['pack', '--json', '--pack-destination', scratch], dir));
    deps[name] = `file:./${out[0].filename}`;
  }
  writeFileSync(
    join(scratch, 'package.json'),
    JSON.stringify({ name: 'scratch', private: true, version: '0.0.0', dependencies: deps }, null, 2),
  );
  sh('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts', '--loglevel=error']);

  const entries = Object.keys(pkg.exports ?? { '.': null }).filter((k) => k !== './package.json');
  for (const entry of entries) {
    const spec = entry === '.' ? pkg.name : `${pkg.name}/${entry.slice(2)}`;
    const cjs = sh('node', ['-e', `const m = require(${JSON.stringify(spec)}); console.log(Object.keys(m).length)`]);
    const esm = sh('node', [
      '--input-type=module',
      '-e',
      `const m = await import(${JSON.stringify(spec)}); console.log(Object.keys(m).length)`,
    ]);
    if (Number(cjs) === 0 || Number(esm) === 0) throw new Error(`${spec}: no exports (cjs ${cjs.trim()}, esm ${esm.trim()})`);
    console.log(`${spec}: require() ${cjs.trim()} exports, import() ${esm.trim()} exports`);
  }
  sh(join(root, 'node_modules/.bin/publint'), ['--strict'], pkgDir);
  console.log(`${pkg.name}: publint ok`);
  const tarball = join(scratch, deps[pkg.name].slice('file:./'.length));
  sh(join(root, 'node_modules/.bin/attw'), [tarball, '--profile', 'node16', '--format', 'ascii']);
  console.log(`${pkg.name}: attw ok`);
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
