import { mkdtempSync, readlinkSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { COMPONENTS, imageReference } from '../src/components';
import { internalClosure, workspacePackages } from '../src/build';
import { copyRootfs, mmdebstrapArgs } from '../src/layers';
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
const result = (images: ImageReport[]): BuildResult => ({ revision: 'x', sourceDateEpoch: 1, images, seconds: 1, steps: [], loadAverage: { start: [], end: [] } });

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

  it('runs the controller as a non-root account it creates, the agent as root', () => {
    const controller = COMPONENTS.find((c) => c.name === 'switchyard-controller')!;
    const args = mmdebstrapArgs(controller, '/out.tar');
    expect(controller.user).toBe('65532:65532');
    expect(args.filter((a) => a.startsWith('--customize-hook='))).toEqual([expect.stringContaining("switchyard:x:65532:65532:"), expect.stringContaining("switchyard:x:65532:")]);
    expect(COMPONENTS.find((c) => c.name === 'switchyard-agent')!.user).toBe('0:0');
  });

  it('adds the packages the agent execs to the agent base layer only', () => {
    const agent = mmdebstrapArgs(COMPONENTS.find((c) => c.name === 'switchyard-agent')!, '/out.tar');
    const include = agent.find((a) => a.startsWith('--include='))!;
    for (const p of ['openvswitch-switch', 'iptables', 'iproute2', 'ethtool', 'conntrack', 'wireguard-go']) expect(include).toContain(p);
    expect(mmdebstrapArgs(COMPONENTS.find((c) => c.name === 'switchyard-controller')!, '/out.tar').some((a) => a.startsWith('--include='))).toBe(false);
    expect(agent).toEqual(expect.arrayContaining(['--variant=minbase', 'bookworm', '/out.tar']));
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
});
