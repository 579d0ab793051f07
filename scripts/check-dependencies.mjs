#!/usr/bin/env node
// Checks a workspace package's package.json against what its files import: every declared
// dependency is used (`dependencies` and `peerDependencies` by shipped code, `devDependencies` by
// any file), and every import is declared for the file's scope (scripts/dependency-scopes.mjs),
// generated code (src/gen, which lint skips) included. Run by each package's `lint` script after
// eslint. Usage: node scripts/check-dependencies.mjs [package dir]   (exit 1 on a problem)
import { readFileSync, readdirSync } from 'node:fs';
import { builtinModules, createRequire } from 'node:module';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { scopeOf } from './dependency-scopes.mjs';

// require(), not import: an ESM import of the 9 MB CommonJS compiler costs ~0.6 s of export scanning.
const ts = createRequire(import.meta.url)('typescript');

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/**
 * Dependencies used other than by an import, with the reason. They count as used by shipped code.
 * @type {Record<string, Record<string, string>>}
 */
const usedWithoutImport = {
  '@switchyard/lab': {
    '@switchyard/agent': 'the lab runs the built agent and CNI plugin (packages/agent/dist), so nx builds the agent first',
  },
  '@switchyard/workspace-checks': Object.fromEntries(
    ['@switchyard/agent', '@switchyard/cli', '@switchyard/controller', '@switchyard/kube-api', '@switchyard/lab'].map((n) => [
      n,
      'test-integration/bins.test.ts runs its programs, so nx builds it first',
    ]),
  ),
};

const sourceFile = /\.(?:[cm]?[jt]s)$/;
const skippedFolders = new Set(['node_modules', 'dist', 'coverage', '.nx']);
const builtins = new Set(builtinModules);

function* walk(dir) {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (e.isDirectory()) {
      if (!skippedFolders.has(e.name)) yield* walk(join(dir, e.name));
    } else if (sourceFile.test(e.name)) yield join(dir, e.name);
  }
}

/** The package a bare specifier names (`@scope/name/sub` -> `@scope/name`), or undefined. */
function packageOf(specifier) {
  if (/^[./]/.test(specifier) || specifier.startsWith('node:') || specifier.includes('${')) return undefined;
  const parts = specifier.split('/');
  const name = specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
  return builtins.has(name) ? undefined : name;
}

/**
 * Problems of one package, as sentences naming the dependency.
 * @param {string} pkgDir
 * @returns {string[]}
 */
export function checkDependencies(pkgDir) {
  const pkg = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8'));
  const rootDev = Object.keys(JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).devDependencies ?? {});
  const deps = Object.keys(pkg.dependencies ?? {});
  const peers = Object.keys(pkg.peerDependencies ?? {});
  const devs = Object.keys(pkg.devDependencies ?? {});
  const shipped = new Set([...deps, ...peers]);
  const allowed = {
    shipped,
    dev: new Set([...shipped, ...devs]),
    tooling: new Set([...shipped, ...devs, ...rootDev]),
  };
  /** package name -> files importing it, per scope */
  const used = { shipped: new Map(), dev: new Map(), tooling: new Map() };
  const problems = [];
  for (const file of walk(pkgDir)) {
    const rel = relative(pkgDir, file).split(sep).join('/');
    const scope = scopeOf(rel);
    const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
    for (const { fileName } of importedFiles) {
      const name = packageOf(fileName);
      if (name === undefined || name === pkg.name) continue;
      if (!used[scope].has(name)) used[scope].set(name, rel);
      if (!allowed[scope].has(name)) {
        const where = scope === 'shipped' ? 'dependencies or peerDependencies' : scope === 'dev' ? 'dependencies or devDependencies' : 'its or the root package.json';
        const hint = scope === 'shipped' && devs.includes(name) ? ' (only in devDependencies: shipped code needs it in dependencies)' : '';
        problems.push(`${rel} imports '${name}', which is not in ${where}${hint}`);
      }
    }
  }
  const excused = usedWithoutImport[pkg.name] ?? {};
  const usedBy = (name, ...scopes) => scopes.some((s) => used[s].has(name)) || name in excused;
  for (const [field, names] of [['dependencies', deps], ['peerDependencies', peers]]) {
    for (const name of names) {
      if (usedBy(name, 'shipped')) continue;
      const devUse = used.dev.get(name) ?? used.tooling.get(name);
      problems.push(
        devUse
          ? `'${name}' is in ${field} but only ${devUse} (not shipped) imports it: move it to devDependencies`
          : `'${name}' is in ${field} but nothing imports it: remove it`,
      );
    }
  }
  for (const name of devs) {
    if (!usedBy(name, 'shipped', 'dev', 'tooling')) problems.push(`'${name}' is in devDependencies but nothing imports it: remove it`);
  }
  return problems;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const pkgDir = resolve(process.argv[2] ?? '.');
  const problems = checkDependencies(pkgDir);
  for (const p of problems) console.error(`${relative(process.cwd(), join(pkgDir, 'package.json'))}: ${p}`);
  if (problems.length > 0) {
    console.error(`${problems.length} dependency problem(s); scopes: scripts/dependency-scopes.mjs`);
    process.exit(1);
  }
}
