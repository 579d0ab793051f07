#!/usr/bin/env node
// Lints every project of the workspace in one ESLint run, then checks each project's declared
// dependencies (scripts/check-dependencies.mjs): what each project's own `lint` script does, without
// starting ESLint and its plugins once per project (21 starts: 90 s on 2 cores, against about 27 s
// for one run). The module-boundaries rule reads nx's cached project graph, which `nx show projects`
// writes first. Usage: node scripts/lint-workspace.mjs. Exits 1 on any problem.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import { checkDependencies } from './check-dependencies.mjs';
import { workspaceFolders } from './dependency-scopes.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const t0 = Date.now();

/** Every project with a `lint` script: the projects nx would lint. */
const projects = workspaceFolders.flatMap((w) =>
  readdirSync(join(root, w), { withFileTypes: true })
    .filter((d) => d.isDirectory() && existsSync(join(root, w, d.name, 'package.json')))
    .map((d) => join(root, w, d.name))
    .filter((dir) => JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).scripts?.lint),
);

// The project graph for @nx/enforce-module-boundaries (eslint.config.mjs turns the rule on with this variable).
execFileSync(join(root, 'node_modules/.bin/nx'), ['show', 'projects'], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
process.env.SWITCHYARD_LINT_PROJECT_GRAPH = '1';

const eslint = new ESLint({ cwd: root });
const results = await eslint.lintFiles(projects.map((p) => relative(root, p)));
const formatter = await eslint.loadFormatter('stylish');
const text = await formatter.format(results);
if (text) process.stdout.write(text);
const lintErrors = results.reduce((n, r) => n + r.errorCount, 0);

let dependencyProblems = 0;
for (const dir of projects) {
  for (const p of checkDependencies(dir)) {
    console.error(`${relative(root, join(dir, 'package.json'))}: ${p}`);
    dependencyProblems++;
  }
}
if (dependencyProblems) console.error(`${dependencyProblems} dependency problem(s); scopes: scripts/dependency-scopes.mjs`);
console.log(`lint: ${projects.length} projects, ${results.length} files, ${lintErrors} error(s), ${dependencyProblems} dependency problem(s) in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
process.exit(lintErrors || dependencyProblems ? 1 : 0);
