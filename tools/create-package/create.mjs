#!/usr/bin/env node
// Scaffolds packages/<name> as an @switchyard package: tsup (ESM+CJS+d.ts), jest unit and
// integration configs, README (a `bench` script comes with the first bench/run.ts). Usage: create.mjs <name> --kind lib|composer [--pure] [--description "..."]
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    kind: { type: 'string', default: 'lib' },
    pure: { type: 'boolean', default: false },
    description: { type: 'string', default: '' },
    dir: { type: 'string', default: 'packages' },
    force: { type: 'boolean', default: false },
    help: { type: 'boolean', short: 'h', default: false },
  },
});
const usage = 'Usage: switchyard-create-package <name> --kind lib|composer|tool [--pure] [--description "..."] [--dir packages] [--force]';
if (values.help) {
  console.log(usage);
  process.exit(0);
}
const name = positionals[0];
if (!name || !/^[a-z][a-z0-9-]*$/.test(name)) {
  console.error(usage);
  process.exit(2);
}
if (!['lib', 'composer', 'tool'].includes(values.kind)) {
  console.error(`--kind: expected lib, composer or tool, got ${JSON.stringify(values.kind)}`);
  process.exit(2);
}
const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const pkgDir = join(root, values.dir, name);
const depth = values.dir.split('/').length + 1;
const up = '../'.repeat(depth);

/** The repository every package.json `repository` field names (tools/pack-check/consumers.mjs checks it). */
const REPO_URL = 'https://github.com/switchyard-net/switchyard';
const tags = [`type:${values.kind}`, ...(values.pure ? ['purity:pure'] : [])];
const isPrivate = values.kind === 'tool';
const files = {
  'package.json': JSON.stringify(
    {
      name: `@switchyard/${name}`,
      version: '0.1.0',
      ...(isPrivate ? { private: true } : {}),
      description: values.description,
      license: 'Apache-2.0',
      // Published packages link their README's docs/ references through these on the registry page.
      ...(isPrivate
        ? {}
        : {
            repository: { type: 'git', url: `git+${REPO_URL}.git`, directory: `${values.dir}/${name}` },
            homepage: `${REPO_URL}/tree/main/${values.dir}/${name}#readme`,
            bugs: { url: `${REPO_URL}/issues` },
          }),
      type: 'module',
      main: './dist/index.cjs',
      module: './dist/index.js',
      types: './dist/index.d.cts',
      exports: {
        '.': {
          import: { types: './dist/index.d.ts', default: './dist/index.js' },
          require: { types: './dist/index.d.cts', default: './dist/index.cjs' },
        },
        './package.json': './package.json',
      },
      files: ['dist', 'README.md'],
      sideEffects: false,
      engines: { node: '>=20.19.0' },
      scripts: {
        build: 'tsup',
        typecheck: 'tsc -p tsconfig.json',
        lint: `eslint . && node ${up}scripts/check-dependencies.mjs .`,
        test: 'jest -c jest.config.cjs',
        'test:integration': 'jest -c jest.integration.config.cjs --runInBand',
        ...(isPrivate ? {} : { 'test:pack': `node ${up}tools/pack-check/check.mjs .` }),
      },
      ...(isPrivate ? {} : { publishConfig: { access: 'public' } }),
      nx: { tags },
    },
    null,
    2,
  ),
  'tsconfig.json': JSON.stringify(
    { extends: `${up}tsconfig.paths.json`, include: ['src', 'test', 'test-integration', 'bench'] },
    null,
    2,
  ),
  'tsconfig.build.json': JSON.stringify(
    { extends: `${up}tsconfig.base.json`, compilerOptions: { types: ['node'] }, include: ['src'] },
    null,
    2,
  ),
  'tsup.config.ts': `import { defineConfig } from 'tsup';
import { library } from '${up}tsup.shared';

export default defineConfig(library({ index: 'src/index.ts' }));
`,
  'jest.config.cjs': `// Unit tests: pure, fast, no root.
module.exports = { ...require('${up}jest.preset.cjs'), displayName: '${name}', roots: ['<rootDir>/test'] };
`,
  'jest.integration.config.cjs': `// Integration tests: real OVS / netns / iptables; need root (see tools/testbed).
module.exports = {
  ...require('${up}jest.preset.cjs'),
  displayName: '${name}:integration',
  roots: ['<rootDir>/test-integration'],
  testTimeout: 120000,
  globalSetup: '${up}tools/testbed/jest/global-setup.cjs',
};
`,
  'src/index.ts': `/**
 * @switchyard/${name}: ${values.description}
 * @packageDocumentation
 */
export {};
`,
  'README.md': `# @switchyard/${name}

${values.description}

## Install

\`\`\`sh
npm install @switchyard/${name}
\`\`\`

## API

(Documented as it lands.)
`,
};
if (existsSync(join(pkgDir, 'package.json')) && !values.force) {
  console.error(`${pkgDir} exists; pass --force to overwrite`);
  process.exit(1);
}
for (const [file, text] of Object.entries(files)) {
  const path = join(pkgDir, file);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text.endsWith('\n') ? text : `${text}\n`);
}
// npm pack includes LICENSE whatever `files` says: every published tarball carries the full text.
if (!isPrivate) writeFileSync(join(pkgDir, 'LICENSE'), readFileSync(join(root, 'LICENSE')));
for (const d of ['test', 'test-integration']) mkdirSync(join(pkgDir, d), { recursive: true });
console.log(`created ${pkgDir}`);
