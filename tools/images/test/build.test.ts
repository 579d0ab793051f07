import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readlinkSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { COMPONENTS, imageReference } from '../src/components';
import { cpuSeconds, internalClosure, workspacePackages } from '../src/build';
import { copyRootfs, diffLayer, mmdebstrapBaseArgs, mmdebstrapPackagesArgs, mountOptions, TRIM_HOOK } from '../src/layers';
import { treeChanges } from '../src/diff';
import { compareBuilds, listingDifferences, sizeTable } from '../src/report';
import type { BuildResult } from '../src/build';
import type { ImageReport } from '../src/oci';

const image = (digests: string[], manifest: string): ImageReport => ({
  reference: 'r/switchyard-agent:1',
  archive: 'a.tar',
  manifestDigest: manifest,
  configDigest: 'sha256:c',
  layers: digests.map((d, i) => ({ description: `layer ${i}`, tar: `/w/layer-${i}.tar`, digest: d, compressedBytes: 1024 * 1024, uncompressedBytes: 3 * 1024 * 1024 })),
  compressedBytes: digests.length * 1024 * 1024,
  uncompressedBytes: digests.length * 3 * 1024 * 1024,
});
const result = (images: ImageReport[]): BuildResult => ({ revision: 'x', sourceDateEpoch: 1, images, seconds: 1, cpuSeconds: 1, steps: [], loadAverage: { start: [], end: [] } });

describe('image contents', () => {
  it("copies the agent's own files with their links as written: the iptables names point at iptables-wrapper beside them", () => {
    const root = mkdtempSync(join(tmpdir(), 'images-rootfs-'));
    try {
      copyRootfs(join(__dirname, '../rootfs/agent'), root);
      const sbin = join(root, 'usr/local/sbin');
      for (const name of ['iptables', 'iptables-save', 'iptables-restore', 'ip6tables', 'ip6tables-save', 'ip6tables-restore']) {
        expect([name, readlinkSync(join(sbin, name))]).toEqual([name, 'iptables-wrapper']);
      }
      expect(statSync(join(sbin, 'iptables-wrapper')).mode & 0o111).toBe(0o111);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('installs each component with the workspace packages it depends on at runtime, not dev dependencies', () => {
    const pkgs = workspacePackages();
    const agent = internalClosure(['@switchyard/agent'], pkgs);
    expect(agent).toEqual(expect.arrayContaining(['@switchyard/agent', '@switchyard/openflow', '@switchyard/ovsdb', '@switchyard/runtime']));
    expect(agent).not.toContain('@switchyard/controller'); // a devDependency of the agent
    expect(agent).not.toContain('@switchyard/testbed');
    expect(internalClosure(['@switchyard/controller', '@switchyard/multicluster'], pkgs)).not.toContain('@switchyard/agent');
  });

  it('names a package that is not in the workspace', () => {
    expect(() => internalClosure(['@switchyard/nope'], workspacePackages())).toThrow('@switchyard/nope');
  });

  it('runs the controller as a non-root account the shared base layer creates, the agent as root', () => {
    const controller = COMPONENTS.find((c) => c.name === 'switchyard-controller')!;
    const args = mmdebstrapBaseArgs([controller.account!], '/out.tar');
    expect(controller.user).toBe('65532:65532');
    expect(args.filter((a) => a.startsWith('--customize-hook='))).toEqual([TRIM_HOOK, expect.stringContaining("switchyard:x:65532:65532:"), expect.stringContaining("switchyard:x:65532:")]);
    expect(args).toEqual(expect.arrayContaining(['--variant=minbase', 'bookworm', '/out.tar']));
    expect(args.some((a) => a.startsWith('--include='))).toBe(false);
    expect(COMPONENTS.find((c) => c.name === 'switchyard-agent')!.user).toBe('0:0');
  });

  it('installs the packages the agent execs on top of the base layer, in a layer of their own', () => {
    const agent = mmdebstrapPackagesArgs(COMPONENTS.find((c) => c.name === 'switchyard-agent')!, '/w/base.tar', '/out.tar');
    const include = agent.find((a) => a.startsWith('--include='))!;
    for (const p of ['openvswitch-switch', 'iptables', 'iproute2', 'ethtool', 'conntrack', 'wireguard-go']) expect(include).toContain(p);
    expect(agent).toEqual(expect.arrayContaining(['--variant=custom', '--setup-hook=tar-in /w/base.tar /', TRIM_HOOK, 'bookworm', '/out.tar']));
    expect(() => mmdebstrapPackagesArgs(COMPONENTS.find((c) => c.name === 'switchyard-controller')!, '/w/base.tar', '/out.tar')).toThrow('switchyard-controller adds no Debian packages');
  });

  it('tags each image repository/name:version, overridable', () => {
    expect(imageReference('switchyard-agent', { tag: '1.2.3' })).toBe('ghcr.io/switchyard-net/switchyard-agent:1.2.3');
    expect(imageReference('switchyard-controller', { repository: 'registry.local:5000/sy/', tag: 'dev' })).toBe('registry.local:5000/sy/switchyard-controller:dev');
  });
});

describe('report', () => {
  it('prints one row per layer and a total per image in MiB', () => {
    const t = sizeTable([image(['sha256:aaaa', 'sha256:bbbb'], 'sha256:m')]);
    expect(t.split('\n')).toHaveLength(2 + 3);
    expect(t).toMatch(/\| +total +\| +2\.0 \| +6\.0 \|/);
  });

  it('finds no difference between builds with equal manifest digests, and names the layer that differs otherwise', () => {
    expect(compareBuilds(result([image(['sha256:a'], 'sha256:m')]), result([image(['sha256:a'], 'sha256:m')]))).toEqual([]);
    const diffs = compareBuilds(result([image(['sha256:a', 'sha256:b'], 'sha256:m')]), result([image(['sha256:a', 'sha256:c'], 'sha256:n')]));
    expect(diffs).toEqual([{ image: 'r/switchyard-agent:1', what: 'layer 2 (layer 1): sha256:b vs sha256:c', tars: ['/w/layer-1.tar', '/w/layer-1.tar'] }]);
  });

  it('lists the tar entries only one build has', () => {
    const a = ['-rw-r--r-- 0/0 10 2026-11-29 10:36 opt/a', '-rw-r--r-- 0/0 5 2026-11-29 10:36 opt/b'];
    const b = ['-rw-r--r-- 0/0 10 2026-11-29 10:36 opt/a', '-rw-r--r-- 0/0 6 2026-11-29 10:36 opt/b'];
    expect(listingDifferences(a, b)).toEqual(['- -rw-r--r-- 0/0 5 2026-11-29 10:36 opt/b', '+ -rw-r--r-- 0/0 6 2026-11-29 10:36 opt/b']);
    expect(listingDifferences(a, a)).toEqual([]);
  });

  it('trims docs, man pages, info and locales from a rootfs, keeping the copyright files', () => {
    const root = mkdtempSync(join(tmpdir(), 'images-trim-'));
    try {
      const files = ['usr/share/doc/libc6/copyright', 'usr/share/doc/libc6/changelog.Debian.gz', 'usr/share/doc/python3/README', 'usr/share/man/man1/ls.1.gz', 'usr/share/info/dir', 'usr/share/locale/de/LC_MESSAGES/apt.mo', 'usr/share/zoneinfo/UTC'];
      for (const f of files) {
        mkdirSync(join(root, f, '..'), { recursive: true });
        writeFileSync(join(root, f), 'x');
      }
      // mmdebstrap runs a hook with shell metacharacters as `sh -c <hook> exec <chroot>`.
      execFileSync('sh', ['-c', TRIM_HOOK.slice('--customize-hook='.length), 'exec', root]);
      expect(files.filter((f) => existsSync(join(root, f)))).toEqual(['usr/share/doc/libc6/copyright', 'usr/share/zoneinfo/UTC']);
      expect(existsSync(join(root, 'usr/share/doc/python3'))).toBe(false);
      expect(existsSync(join(root, 'usr/share/man'))).toBe(false);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('reads the options of the last mount at a path from mountinfo', () => {
    const info = [
      '24 23 0:22 / /dev/shm rw,nosuid,nodev - tmpfs tmpfs rw,size=100k',
      '29 24 0:26 / /dev/shm rw,relatime - tmpfs tmpfs rw,size=200k',
      '30 24 0:27 / /dev/shm/x rw,noexec - tmpfs tmpfs rw',
    ].join('\n');
    expect(mountOptions('/dev/shm', info)).toEqual(['rw', 'relatime']);
    expect(mountOptions('/tmp', info)).toBeUndefined();
  });

  it('counts its own and its waited-for children\'s CPU ticks from /proc/self/stat', () => {
    // pid (comm with ) and spaces) state ppid ... utime=14 stime=15 cutime=16 cstime=17
    const stat = `42 (a b) c) S ${Array.from({ length: 10 }, () => '0').join(' ')} 150 50 300 100 20 0`;
    expect(cpuSeconds(stat)).toBe(6);
    expect(cpuSeconds()).toBeGreaterThan(0);
  });

  describe('the layer of changes between two root filesystems', () => {
    let root: string;
    const base = (): string => join(root, 'base');
    const full = (): string => join(root, 'full');
    const put = (tree: string, rel: string, content = 'x', mtime = 1_000): void => {
      mkdirSync(join(tree, rel, '..'), { recursive: true });
      writeFileSync(join(tree, rel), content);
      utimesSync(join(tree, rel), mtime, mtime);
    };
    beforeEach(() => {
      root = mkdtempSync(join(tmpdir(), 'images-diff-test-'));
      for (const t of [base(), full()]) {
        put(t, 'etc/passwd', 'root\n');
        put(t, 'usr/bin/ls', 'ls');
        put(t, 'var/lib/dpkg/status', 'a\n');
        put(t, 'var/lib/old/file', 'o');
        put(t, 'etc/gone', 'g');
        symlinkSync('ls', join(t, 'usr/bin/dir'));
      }
      // full: a new package's files, dpkg's status rewritten with its mtime clamped to the same
      // second, a link retargeted, a file and a whole directory removed, a mode changed.
      put(full(), 'usr/sbin/ovs-vswitchd', 'ovs');
      put(full(), 'var/lib/dpkg/status', 'b\n');
      rmSync(join(full(), 'usr/bin/dir'));
      symlinkSync('ovs-vswitchd', join(full(), 'usr/bin/dir'));
      rmSync(join(full(), 'etc/gone'));
      rmSync(join(full(), 'var/lib/old'), { recursive: true });
      chmodSync(join(full(), 'usr/bin/ls'), 0o700);
      utimesSync(join(full(), 'usr/bin/ls'), 1_000, 1_000);
      // every directory as old in both trees, so only content decides
      for (const t of [base(), full()]) for (const d of ['etc', 'usr', 'usr/bin', 'usr/sbin', 'var', 'var/lib', 'var/lib/dpkg']) if (existsSync(join(t, d))) utimesSync(join(t, d), 500, 500);
    });
    afterEach(() => rmSync(root, { recursive: true, force: true }));

    it('lists new and changed entries with their parents, and a whiteout per topmost removed path', () => {
      expect(treeChanges(base(), full())).toEqual({
        entries: ['etc', 'etc/.wh.gone', 'usr', 'usr/bin', 'usr/bin/dir', 'usr/bin/ls', 'usr/sbin', 'usr/sbin/ovs-vswitchd', 'var', 'var/lib', 'var/lib/dpkg', 'var/lib/dpkg/status', 'var/lib/.wh.old'],
        removed: ['etc/gone', 'var/lib/old'],
      });
      expect(treeChanges(base(), base())).toEqual({ entries: [], removed: [] });
    });

    it('writes them as a tar: whiteouts as empty files, owners and modes kept, nothing unchanged', () => {
      const tars = { base: join(root, 'base.tar'), full: join(root, 'full.tar'), out: join(root, 'layer.tar') };
      execFileSync('tar', ['-cf', tars.base, '-C', base(), '.']);
      execFileSync('tar', ['-cf', tars.full, '-C', full(), '.']);
      expect(diffLayer({ base: tars.base, full: tars.full, out: tars.out, scratch: root, sourceDateEpoch: 2_000 })).toEqual({ changed: 11, removed: 2 });
      const listing = execFileSync('tar', ['-tvf', tars.out, '--numeric-owner'], { encoding: 'utf8' }).trim().split('\n');
      expect(listing.map((l) => l.split(/\s+/).slice(5).join(' '))).toEqual([
        './etc/', './etc/.wh.gone', './usr/', './usr/bin/', './usr/bin/dir -> ovs-vswitchd', './usr/bin/ls', './usr/sbin/', './usr/sbin/ovs-vswitchd',
        './var/', './var/lib/', './var/lib/dpkg/', './var/lib/dpkg/status', './var/lib/.wh.old',
      ]);
      expect(listing.find((l) => l.endsWith('./usr/bin/ls'))).toMatch(/^-rwx------ 0\/0 /);
      expect(listing.find((l) => l.endsWith('./etc/.wh.gone'))).toMatch(/^-rw-r--r-- 0\/0 +0 /);
      expect(existsSync(join(root, 'images-diff-'))).toBe(false);
    });
  });
});
