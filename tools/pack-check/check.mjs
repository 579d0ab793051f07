#!/usr/bin/env node
// Package-shape check for workspace packages, as a user would meet them: `npm pack` them (and the
// workspace packages they depend on), install the tarballs into one scratch project, then for each
// package import every export-map entry with require() and import(), and run publint and attw on it.
// Usage: node tools/pack-check/check.mjs <package dir> [<package dir> ...]
// One package is its `test:pack` script. npm test runs this check and the consumer check on one
// pack and install (package-shape.mjs); the checks themselves are lib/shape.mjs.
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { checkShapes } from './lib/shape.mjs';
import { createTarballProject, workspaceClosure, workspacePackages } from './lib/tarball-project.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const pkgDirs = (process.argv.length > 2 ? process.argv.slice(2) : ['.']).map((d) => resolve(d));
const pkgs = pkgDirs.map((dir) => ({ dir, pkg: JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) }));

let failed = [];
let project;
try {
  const workspaces = await workspacePackages(root);
  const packed = workspaceClosure(
    workspaces,
    pkgs.map((p) => p.pkg.name),
  );
  project = await createTarballProject({ root, packages: packed, prefix: 'pack-check-' });
  console.log(`packed and installed ${packed.length} packages into ${project.dir}`);
  failed = await checkShapes({ root, project, pkgs });
} catch (e) {
  console.error(`package shape: FAILED before the checks: ${e.stack ?? e}`);
  failed = ['*'];
} finally {
  project?.remove();
}
process.exitCode = failed.length > 0 ? 1 : 0;
