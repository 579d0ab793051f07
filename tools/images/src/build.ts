/** `npm run images`: builds every component image as an OCI archive, reproducibly from one commit, with a size report. */
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { COMPONENTS, imageReference, imageVersion, REPO_ROOT, type ImageComponent } from './components';
import { appLayer, baseLayer, chrootTmpdir, nodeLayer, packagesLayer, run, type Account, type Layer, type Run } from './layers';
import { archive, assemble, type ImageReport } from './oci';

export interface BuildOptions {
  out: string;
  repository?: string;
  /** The commit to label and date the images by; read from git when absent (`--verify` reads it once for both builds). */
  source?: GitSource;
  /** Skip `nx build` of the packages (they are built already). */
  skipPackageBuild?: boolean;
  log?: (line: string) => void;
  runner?: Run;
}

export interface BuildResult {
  revision: string;
  sourceDateEpoch: number;
  images: ImageReport[];
  seconds: number;
  /** CPU seconds of the build and the programs it ran (user + system). */
  cpuSeconds: number;
  steps: Array<{ step: string; seconds: number; cpuSeconds: number }>;
  loadAverage: { start: number[]; end: number[] };
}

interface WorkspacePackage {
  name: string;
  dir: string;
  dependencies: Record<string, string>;
}

/** Every workspace package by name (packages/* and tools/*). */
export function workspacePackages(root = REPO_ROOT): Map<string, WorkspacePackage> {
  const out = new Map<string, WorkspacePackage>();
  for (const group of ['packages', 'tools']) {
    for (const d of readdirSync(join(root, group))) {
      let pkg: { name?: string; dependencies?: Record<string, string> };
      try {
        pkg = JSON.parse(readFileSync(join(root, group, d, 'package.json'), 'utf8')) as typeof pkg;
      } catch {
        continue;
      }
      if (pkg.name) out.set(pkg.name, { name: pkg.name, dir: join(group, d), dependencies: pkg.dependencies ?? {} });
    }
  }
  return out;
}

/** The component's workspace packages and their workspace runtime dependencies, transitively, sorted. */
export function internalClosure(roots: readonly string[], pkgs: ReadonlyMap<string, WorkspacePackage>): string[] {
  const seen = new Set<string>();
  const visit = (name: string): void => {
    if (seen.has(name)) return;
    const p = pkgs.get(name);
    if (!p) throw new Error(`image package ${name} is not a workspace package`);
    seen.add(name);
    for (const dep of Object.keys(p.dependencies)) if (pkgs.has(dep)) visit(dep);
  };
  roots.forEach(visit);
  return [...seen].sort();
}

export interface GitSource {
  revision: string;
  sourceDateEpoch: number;
  dirty: boolean;
}

/** The commit the images are built from: revision label, SOURCE_DATE_EPOCH (commit time), and whether the tree has uncommitted changes. */
export function gitSource(runner: Run = run): GitSource {
  const revision = runner('git', ['rev-parse', 'HEAD'], { cwd: REPO_ROOT }).trim();
  const sourceDateEpoch = Number(runner('git', ['log', '-1', '--format=%ct'], { cwd: REPO_ROOT }).trim());
  const dirty = runner('git', ['status', '--porcelain', '--untracked-files=no'], { cwd: REPO_ROOT }).trim() !== '';
  return { revision, sourceDateEpoch, dirty };
}

/** The repository URL of the root package.json, as the source label wants it (https, no .git). */
export function sourceUrl(root = REPO_ROOT): string {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { repository?: { url?: string } };
  const url = pkg.repository?.url;
  if (!url) throw new Error('package.json repository.url is missing: the images need it for org.opencontainers.image.source');
  return url.replace(/^git\+/, '').replace(/\.git$/, '');
}

const round = (x: number): number => Math.round(x * 10) / 10;

/**
 * CPU seconds (user + system) of this process and of the children it has waited for (every step
 * runs its programs synchronously, so a step's children are counted when it returns).
 */
export function cpuSeconds(stat = readFileSync('/proc/self/stat', 'utf8')): number {
  // Fields after the command name, which is in parentheses and may contain spaces.
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // utime, stime, cutime, cstime are fields 14-17 of the whole line: 12-15 after the name.
  const ticks = [11, 12, 13, 14].reduce((s, i) => s + Number(f[i]), 0);
  return ticks / CLOCK_TICKS;
}

/** sysconf(_SC_CLK_TCK): 100 on Linux x86-64. */
const CLOCK_TICKS = 100;

function environment(c: ImageComponent): string[] {
  const env = ['PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin', 'NODE_ENV=production'];
  if (c.account) env.push('HOME=/nonexistent');
  return env;
}

/** Builds every image into `o.out` (<name>.oci.tar, report.json); the work directories stay under out/work for inspection. */
export function buildImages(o: BuildOptions): BuildResult {
  const runner = o.runner ?? run;
  const log = o.log ?? ((l: string) => process.stderr.write(`${l}\n`));
  const started = Date.now();
  const loadStart = loadavg();
  const steps: BuildResult['steps'] = [];
  const cpuStart = cpuSeconds();
  const step = <T>(name: string, f: () => T): T => {
    const t = Date.now();
    const c = cpuSeconds();
    log(`images: ${name}`);
    const r = f();
    steps.push({ step: name, seconds: (Date.now() - t) / 1000, cpuSeconds: round(cpuSeconds() - c) });
    return r;
  };

  const git = o.source ?? gitSource(runner);
  const revision = git.dirty ? `${git.revision}-dirty` : git.revision;
  if (git.dirty) log(`images: the working tree has uncommitted changes; the images contain them and are labelled ${revision}`);
  const created = new Date(git.sourceDateEpoch * 1000).toISOString().replace(/\.000Z$/, 'Z');
  const version = imageVersion();
  const pkgs = workspacePackages();
  const closures = new Map(COMPONENTS.map((c) => [c.name, internalClosure(c.npmPackages, pkgs)]));
  const all = [...new Set([...closures.values()].flat())].sort();

  mkdirSync(o.out, { recursive: true });
  const work = join(o.out, 'work');
  const cache = join(o.out, 'cache');
  if (!o.skipPackageBuild) step(`nx build ${all.length} packages`, () => runner('npx', ['nx', 'run-many', '-t', 'build', '-p', all.join(','), '--outputStyle=static'], { cwd: REPO_ROOT }));
  const tarballDir = join(work, 'tarballs');
  rmSync(tarballDir, { recursive: true, force: true });
  mkdirSync(tarballDir, { recursive: true });
  const tarballs = step(`npm pack ${all.length} packages`, () => {
    const packed = JSON.parse(runner('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', tarballDir, ...all.flatMap((n) => ['-w', n])], { cwd: REPO_ROOT })) as Array<{ name: string; filename: string }>;
    return new Map(packed.map((p) => [p.name, join(tarballDir, p.filename.replace(/^@/, '').replace(/\//g, '-'))]));
  });

  const tmpdir = chrootTmpdir();
  if (tmpdir) log(`images: mmdebstrap builds its chroots in ${tmpdir}`);
  const chroot = { sourceDateEpoch: git.sourceDateEpoch, ...(tmpdir ? { tmpdir } : {}), runner };
  // One Debian base and one Node.js layer for every image: the same tars, so the same blobs in
  // each (pulled and stored once on a node running both), and one mmdebstrap minbase per build.
  const accounts: Account[] = COMPONENTS.flatMap((c) => (c.account ? [c.account] : []));
  const base = step('debian base layer (mmdebstrap minbase)', () => baseLayer(accounts, { work, ...chroot }));
  const node = step('node layer', () => nodeLayer({ work, cache, sourceDateEpoch: git.sourceDateEpoch, runner }));
  const images: ImageReport[] = [];
  for (const c of COMPONENTS) {
    const dir = join(work, c.name);
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    const reference = imageReference(c.name, { ...(o.repository ? { repository: o.repository } : {}), tag: version });
    const layers: Layer[] = [
      base,
      ...(c.debianPackages.length > 0 ? [step(`${c.name}: debian packages layer (mmdebstrap on the base, then the difference)`, () => packagesLayer(c, base, { work: dir, ...chroot }))] : []),
      node,
      step(`${c.name}: switchyard layer (npm install --omit=dev)`, () => appLayer(c, { work: dir, tarballs, closure: closures.get(c.name)!, sourceDateEpoch: git.sourceDateEpoch, runner })),
    ];
    const image = step(`${c.name}: assemble (umoci)`, () =>
      assemble({
        layout: join(dir, 'layout'),
        reference,
        layers,
        labels: { version, revision, source: sourceUrl(), title: c.name, description: c.description, created },
        user: c.user,
        env: environment(c),
        cmd: [c.name, '--help'],
        runner,
      }),
    );
    const out = join(o.out, `${c.name}.oci.tar`);
    step(`${c.name}: oci archive`, () => archive({ layout: image.layout, reference, out, sourceDateEpoch: git.sourceDateEpoch, runner }));
    // The layer tars stay (report.json names them; --verify lists their entries); the trees and the layout are in the archive.
    for (const d of ['app-root', 'layout']) rmSync(join(dir, d), { recursive: true, force: true });
    const { layout: _layout, ...report } = image;
    images.push({ ...report, archive: out });
  }
  for (const d of ['node-root', 'node-x']) rmSync(join(work, d), { recursive: true, force: true });
  const result: BuildResult = { revision, sourceDateEpoch: git.sourceDateEpoch, images, seconds: (Date.now() - started) / 1000, cpuSeconds: round(cpuSeconds() - cpuStart), steps, loadAverage: { start: loadStart, end: loadavg() } };
  writeFileSync(join(o.out, 'report.json'), `${JSON.stringify(result, null, 2)}\n`);
  return result;
}
