#!/usr/bin/env node
// npm test's package-shape stage: check.mjs's checks for the given packages and the npm consumer
// check (consumers.mjs) on one scratch project, so every tarball is packed once and installed once.
// Order: one pack and one install of every publishable package with the consumers' toolchain; then
// check.mjs's require()/import() of every entry beside the consumer checks that need only the
// tarballs; then the README programs' own dependencies are installed (after every entry has been
// loaded, so nothing they add can stand in for a missing dependency), and the README programs
// compile and run beside publint and attw.
// Usage: node tools/pack-check/package-shape.mjs <package dir> [<package dir> ...]
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ConsumerCheck } from './lib/consumer-check.mjs';
import { checkShapes } from './lib/shape.mjs';
import { createTarballProject, workspaceClosure, workspacePackages } from './lib/tarball-project.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const pkgs = process.argv.slice(2).map((d) => resolve(d)).map((dir) => ({ dir, pkg: JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) }));

const workspaces = await workspacePackages(root);
const consumers = new ConsumerCheck({ root, workspaces });
// Every publishable package (the consumer check's) and whatever else the shape check's need.
const packed = workspaceClosure(workspaces, [...consumers.packages, ...pkgs.map((p) => p.pkg)].map((p) => p.name));
let shapeFailed = [];
let project;
try {
  project = await createTarballProject({ root, packages: packed, ...consumers.toolchain(), prefix: 'switchyard-package-shape-', log: (l) => consumers.step(l) });
  consumers.step(`packed and installed ${packed.length} packages into ${project.dir}`);
  // Shape lines are printed when the shape check ends, a block per package.
  const shapeLines = [];
  const installed = consumers.checkInstalled(project);
  const readmePrograms = async () => {
    await installed; // its checks are of the tarballs and the toolchain alone
    await consumers.checkReadmePrograms(project);
  };
  const [failed] = await Promise.all([checkShapes({ root, project, pkgs, afterLoad: readmePrograms, log: (l) => shapeLines.push(l) }), installed]);
  shapeFailed = failed;
  console.log(`\n${shapeLines.join('\n')}`);
} catch (e) {
  consumers.fail('*', e.stack ?? String(e));
} finally {
  project?.remove();
}
const consumersFailed = consumers.report();
process.exitCode = shapeFailed.length + consumersFailed.length > 0 ? 1 : 0;
