#!/usr/bin/env node
// The npm consumer check (issue 17): packs every publishable package, installs the tarballs into a
// scratch project outside the workspace, and uses them as a new user would.
// With only the tarballs and the toolchain installed:
// - every entry's declarations type-check under tsc --strict --exactOptionalPropertyTypes,
//   module/moduleResolution nodenext and skipLibCheck false, as ESM and as CommonJS;
// - every entry's types resolve under moduleResolution node10 (typesVersions);
// - an export shared by two entries of a package is one object, in CJS and in ESM;
// - each tarball has LICENSE, package.json has repository.directory, README links work on the
//   registry page, and the .d.ts files import only declared dependencies;
// - pure entries bundle for a neutral (browser-like) platform with no Node built-in, and the pure
//   packages' bundles and declarations reach none of apis' ajv/protobufjs/long (only pure entries).
// Then, with what the README examples import also installed (e.g. yaml, @kubernetes/client-node):
// - every ```ts block of every README is a program, type-checked as ESM (.mts) and CommonJS (.cts)
//   with the same settings, then run with node (two at a time; those that reach the same server
//   one after another); OVS and Kubernetes examples run against a real isolated
//   ovsdb-server/ovs-vswitchd and the embedded API server, found through the variables their
//   READMEs document (OVS_RUNDIR, KUBECONFIG).
// The steps are lib/consumer-check.mjs; npm test runs them beside check.mjs's on one pack and
// install (package-shape.mjs).
// Usage: node tools/pack-check/consumers.mjs [--keep] [--reuse <scratch dir>] [--only pkg,...] [--print]
//   --keep: leave the scratch project; --reuse: skip pack+install and use a kept one (for README
//   edits; its node_modules already has the example dependencies); --only: check these packages
//   (all are packed); --print: show each program's output.
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { ConsumerCheck } from './lib/consumer-check.mjs';
import { createTarballProject, openTarballProject, workspacePackages } from './lib/tarball-project.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const { values: opts } = parseArgs({
  options: {
    keep: { type: 'boolean', default: false },
    reuse: { type: 'string' },
    only: { type: 'string' },
    print: { type: 'boolean', default: false },
  },
});
const only = opts.only ? new Set(opts.only.split(',').map((s) => (s.startsWith('@') ? s : `@switchyard/${s}`))) : undefined;

const check = new ConsumerCheck({ root, workspaces: await workspacePackages(root), only, print: opts.print });
let project;
try {
  if (opts.reuse) {
    project = openTarballProject(resolve(opts.reuse));
  } else {
    project = await createTarballProject({ root, packages: check.packages, ...check.toolchain(), prefix: 'switchyard-consumers-', log: (l) => check.step(l) });
  }
  await check.checkInstalled(project);
  await check.checkReadmePrograms(project, { installExamples: !opts.reuse });
} catch (e) {
  check.fail('*', e.stack ?? String(e));
} finally {
  if (!opts.keep && !opts.reuse) project?.remove();
}
const failed = check.report();
if (opts.keep && project) console.log(`\nscratch project kept: ${project.dir}`);
process.exitCode = failed.length > 0 ? 1 : 0;
