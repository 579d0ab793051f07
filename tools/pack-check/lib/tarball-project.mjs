// A scratch project of packed workspace packages, as a user installs them: one `npm pack` of the
// packages into it, the tarballs as file: dependencies (beside any toolchain asked for), one
// `npm install`. check.mjs, consumers.mjs and package-shape.mjs (both checks on one project) use it.
import { execFile as execFileCb } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const execFile = promisify(execFileCb);
const readJson = (p) => JSON.parse(readFileSync(p, 'utf8'));
const NPM_INSTALL = ['install', '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts', '--loglevel=error'];

/** The workspace's packages: name, location (relative to root), dir, pkg (package.json), private. */
export async function workspacePackages(root) {
  const { stdout } = await execFile('npm', ['query', '.workspace'], { cwd: root, encoding: 'utf8', maxBuffer: 64 << 20 });
  return JSON.parse(stdout).map((w) => {
    const dir = join(root, w.location);
    return { name: w.name, location: w.location, dir, pkg: readJson(join(dir, 'package.json')), private: Boolean(w.private) };
  });
}

/** The named packages and every workspace package they depend on, transitively. */
export function workspaceClosure(workspaces, names) {
  const byName = new Map(workspaces.map((w) => [w.name, w]));
  const seen = new Set();
  const visit = (name) => {
    if (seen.has(name) || !byName.has(name)) return;
    seen.add(name);
    for (const dep of Object.keys(byName.get(name).pkg.dependencies ?? {})) visit(dep);
  };
  for (const name of names) visit(name);
  return workspaces.filter((w) => seen.has(w.name));
}

/**
 * Packs `packages` (workspace entries) into a new directory under the OS temp directory and
 * installs them there with `dependencies` (name -> version, e.g. a toolchain) and `overrides`.
 * The project's `remove()` deletes it; on a failure here it is deleted before the error is thrown.
 * @returns {Promise<TarballProject>}
 */
export async function createTarballProject({ root, packages, dependencies = {}, overrides, prefix, log = console.log }) {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  try {
    const tarDir = join(dir, 'tarballs');
    mkdirSync(tarDir);
    log(`npm pack ${packages.length} packages into ${dir}`);
    // One npm run packs them all (--ignore-scripts: the check is of what the build left in dist/).
    const { stdout } = await execFile('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', tarDir, ...packages.flatMap((p) => ['-w', p.location])], {
      cwd: root,
      encoding: 'utf8',
      maxBuffer: 64 << 20,
    });
    const tarballs = {};
    const files = {};
    for (const out of JSON.parse(stdout)) {
      tarballs[out.name] = join('tarballs', out.filename);
      files[out.name] = out.files.map((f) => f.path);
    }
    const deps = { ...Object.fromEntries(Object.entries(tarballs).map(([name, file]) => [name, `file:./${file}`])), ...dependencies };
    const manifest = { name: 'switchyard-consumer', private: true, version: '0.0.0', dependencies: deps, ...(overrides ? { overrides } : {}) };
    writeFileSync(join(dir, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
    writeFileSync(join(dir, 'files.json'), JSON.stringify({ tarballs, files }));
    const extra = Object.keys(dependencies);
    log(`npm install ${packages.length} tarballs${extra.length ? ` with ${extra.join(', ')}` : ''}`);
    const project = openTarballProject(dir);
    await project.install();
    return project;
  } catch (e) {
    rmSync(dir, { recursive: true, force: true });
    throw e;
  }
}

/**
 * A project made by createTarballProject (possibly kept by an earlier run).
 * @typedef {{ dir: string, tarballs: Record<string, string>, files: Record<string, string[]>,
 *   install: (...specs: string[]) => Promise<void>, remove: () => void }} TarballProject
 */
export function openTarballProject(dir) {
  const { tarballs, files } = readJson(join(dir, 'files.json'));
  return {
    dir,
    /** Tarball paths by package name, absolute. */
    tarballs: Object.fromEntries(Object.entries(tarballs).map(([name, file]) => [name, join(dir, file)])),
    /** The files of each tarball (paths inside the package). */
    files,
    /** `npm install` in the project, with `specs` saved exactly when given. */
    install: async (...specs) => {
      try {
        await execFile('npm', [...NPM_INSTALL, ...(specs.length ? ['--save-exact', ...specs] : [])], { cwd: dir, encoding: 'utf8', maxBuffer: 64 << 20 });
      } catch (e) {
        throw new Error(`npm install ${specs.join(' ')} in ${dir} failed:\n${e.stderr ?? e.message}`);
      }
    },
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
