// What a tarball must carry: each check finds the problem it names and passes a correct package.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkDeclarationDeps, checkLicense, checkReadmeLinks, checkRepository } from '../lib/manifest-checks.mjs';

const repoUrl = 'https://github.com/switchyard-net/switchyard';
let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'pack-check-manifest-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('checkLicense', () => {
  it('wants the repository LICENSE text in the tarball', () => {
    expect(checkLicense({ files: ['package.json'], unpackedDir: dir, rootLicense: 'Apache' })).toEqual(['tarball has no LICENSE file']);
    writeFileSync(join(dir, 'LICENSE'), 'MIT');
    expect(checkLicense({ files: ['LICENSE'], unpackedDir: dir, rootLicense: 'Apache' })).toEqual(['LICENSE differs from the repository LICENSE']);
    writeFileSync(join(dir, 'LICENSE'), 'Apache');
    expect(checkLicense({ files: ['LICENSE'], unpackedDir: dir, rootLicense: 'Apache' })).toEqual([]);
  });
});

describe('checkRepository', () => {
  it('wants the repository URL and the package directory', () => {
    expect(checkRepository({ pkg: { license: 'Apache-2.0' }, dir: 'packages/ipam', repoUrl })).toEqual([
      'package.json has no repository object ({ type, url, directory })',
    ]);
    const pkg = { license: 'Apache-2.0', repository: { type: 'git', url: `git+${repoUrl}.git`, directory: 'packages/kube' } };
    expect(checkRepository({ pkg, dir: 'packages/ipam', repoUrl })).toEqual(['repository.directory is "packages/kube", expected "packages/ipam"']);
    expect(checkRepository({ pkg, dir: 'packages/kube', repoUrl })).toEqual([]);
  });
});

describe('checkReadmeLinks', () => {
  it('refuses links that leave the package or name files the tarball lacks, and accepts the rest', () => {
    const readme = [
      'See [docs](../../docs/ipam.md), [bench](bench/README.md), [license](./LICENSE),',
      '[the site](https://example.org/x), [below](#api) and [code](src/index.ts "title").',
    ].join('\n');
    expect(checkReadmeLinks({ readme, files: ['LICENSE', 'package.json', 'dist/index.js'] })).toEqual([
      'README link ../../docs/ipam.md points outside the package (broken on the registry page; use the repository URL)',
      'README link bench/README.md names a file the tarball does not contain',
      'README link src/index.ts names a file the tarball does not contain',
    ]);
  });
});

describe('checkDeclarationDeps', () => {
  it('reports a package a .d.ts imports without declaring it, and accepts declared ones and built-ins', () => {
    mkdirSync(join(dir, 'dist'));
    writeFileSync(
      join(dir, 'dist/index.d.ts'),
      [
        "import * as $protobuf from 'protobufjs';",
        "import Long from 'long';",
        "import { Duplex } from 'node:stream';",
        "import type { EventEmitter } from 'events';",
        "export { A } from './chunk.js';",
        "export type X = import('@scope/other/sub').Y;",
      ].join('\n'),
    );
    const pkg = { name: '@scope/me', dependencies: { protobufjs: '8.8.1' } };
    expect(checkDeclarationDeps({ pkg, unpackedDir: dir })).toEqual([
      'dist/index.d.ts imports long, but long is not in dependencies or peerDependencies',
      'dist/index.d.ts imports @scope/other/sub, but @scope/other is not in dependencies or peerDependencies',
    ]);
    expect(checkDeclarationDeps({ pkg: { ...pkg, dependencies: { protobufjs: '8', long: '5' }, peerDependencies: { '@scope/other': '1' } }, unpackedDir: dir })).toEqual([]);
  });
});
