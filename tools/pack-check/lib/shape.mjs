// The package-shape checks of one package against a tarball project (lib/tarball-project.mjs):
// every export-map entry loaded with require() and with import() from the installed tarball,
// then publint --strict on the package and attw on its tarball.
import { execFile as execFileCb } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';

const execFile = promisify(execFileCb);
const run = async (cmd, args, cwd) => (await execFile(cmd, args, { cwd, encoding: 'utf8', maxBuffer: 16 << 20 })).stdout;

/** The import specifiers of a package's export-map entries (`./package.json` aside). */
export function exportSpecifiers(pkg) {
  return Object.keys(pkg.exports ?? { '.': null })
    .filter((k) => k !== './package.json')
    .map((k) => (k === '.' ? pkg.name : `${pkg.name}/${k.slice(2)}`));
}

/**
 * Loads every entry both ways in the project; returns report lines.
 * @throws Error naming the entry that exports nothing, or the failed node run (stderr attached)
 */
export async function loadEntries({ project, pkg }) {
  const lines = [];
  for (const spec of exportSpecifiers(pkg)) {
    const [cjs, esm] = await Promise.all([
      run('node', ['-e', `const m = require(${JSON.stringify(spec)}); console.log(Object.keys(m).length)`], project.dir),
      run('node', ['--input-type=module', '-e', `const m = await import(${JSON.stringify(spec)}); console.log(Object.keys(m).length)`], project.dir),
    ]);
    if (Number(cjs) === 0 || Number(esm) === 0) throw new Error(`${spec}: no exports (cjs ${cjs.trim()}, esm ${esm.trim()})`);
    lines.push(`${spec}: require() ${cjs.trim()} exports, import() ${esm.trim()} exports`);
  }
  return lines;
}

/** publint --strict on the package directory, attw (node16 profile) on its tarball; returns report lines. */
export async function lintPackage({ root, project, dir, pkg }) {
  await run(join(root, 'node_modules/.bin/publint'), ['--strict'], dir);
  await run(join(root, 'node_modules/.bin/attw'), [project.tarballs[pkg.name], '--profile', 'node16', '--format', 'ascii'], project.dir);
  return [`${pkg.name}: publint ok`, `${pkg.name}: attw ok`];
}

/**
 * Runs `part` ({ root, project, dir, pkg } -> report lines) for every package, two at a time (each
 * is a handful of node processes). Returns a result per package: { name, lines, error? }.
 */
export async function forEachPackage({ pkgs, part, ...ctx }) {
  const results = new Map();
  const queue = [...pkgs];
  await Promise.all(
    [0, 1].map(async () => {
      for (let p = queue.shift(); p; p = queue.shift()) {
        try {
          results.set(p.pkg.name, { name: p.pkg.name, lines: await part({ ...ctx, ...p }) });
        } catch (e) {
          results.set(p.pkg.name, { name: p.pkg.name, lines: [], error: `${e.stderr ?? ''}${e.stdout ?? ''}${e.message}` });
        }
      }
    }),
  );
  return pkgs.map((p) => results.get(p.pkg.name));
}

/**
 * The whole package-shape check of `pkgs` ({ dir, pkg }): loads, then publint and attw for the
 * packages whose entries loaded. `afterLoad` runs once every package's entries are loaded (the
 * consumer check installs more into the project then; it records its own failures and must not
 * reject). Prints a block per package, and a FAILED
 * line per failing package; returns the names of the packages that failed.
 */
export async function checkShapes({ root, project, pkgs, afterLoad = async () => {}, log = console.log }) {
  const loaded = await forEachPackage({ root, project, pkgs, part: loadEntries });
  const [linted] = await Promise.all([
    forEachPackage({ root, project, pkgs: pkgs.filter((p) => !loaded.find((r) => r.name === p.pkg.name).error), part: lintPackage }),
    afterLoad(),
  ]);
  const failed = [];
  for (const { pkg } of pkgs) {
    const results = [loaded, linted].map((rs) => rs.find((r) => r.name === pkg.name)).filter(Boolean);
    const lines = results.flatMap((r) => r.lines);
    if (lines.length) log(lines.join('\n'));
    const error = results.find((r) => r.error)?.error;
    if (error) {
      failed.push(pkg.name);
      log(`${pkg.name}: FAILED (package shape)\n${error}`);
    }
  }
  log(failed.length ? `package shape: FAILED: ${failed.length} of ${pkgs.length} packages (${failed.join(', ')})` : `package shape: ${pkgs.length} packages pass`);
  return failed;
}
