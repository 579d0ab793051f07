// Lint for every package: typescript-eslint, plus the architecture as rules (module boundaries,
// declared dependencies, no import cycles inside a package).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import js from '@eslint/js';
import nx from '@nx/eslint-plugin';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import { importX } from 'eslint-plugin-import-x';
import prettier from 'eslint-config-prettier';
import tseslint from 'typescript-eslint';
import { devFolders, toolingFileGlobs, toolingFolders, workspaceFolders } from './scripts/dependency-scopes.mjs';

const root = dirname(fileURLToPath(import.meta.url));
const rootDevDependencies = Object.keys(JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).devDependencies ?? {});

/** Imports that do I/O: a pure package (tag purity:pure) may use none of them in src/. */
const ioModules = [
  'net', 'fs', 'fs/promises', 'child_process', 'dgram', 'http', 'http2', 'https', 'tls', 'dns', 'cluster', 'worker_threads',
].flatMap((m) => [m, `node:${m}`]);
const ioPackages = ['netlink', '@kubernetes/client-node', '@grpc/grpc-js', 'pino'];

/** Whole-package imports that carry I/O; pure packages use their pure subpaths instead. */
const ioWorkspacePackages = [
  { name: '@switchyard/ipam', message: 'pure packages use @switchyard/ipam/cidr' },
  { name: '@switchyard/openflow', message: 'pure packages use @switchyard/openflow/codec' },
  { name: '@switchyard/ovsdb', message: 'ovsdb does I/O' },
  { name: '@switchyard/multicluster', message: 'multicluster takes injected clients' },
  { name: '@switchyard/durable-file', message: 'durable-file writes files' },
];
const composers = ['@switchyard/agent', '@switchyard/controller', '@switchyard/cli'];

/**
 * The tag rule needs nx's project graph, which exists when nx runs the lint target, or when
 * scripts/lint-workspace.mjs (CI, `npm run lint`) has had nx write it.
 */
const underNx = Boolean(process.env.NX_TASK_TARGET_PROJECT || process.env.SWITCHYARD_LINT_PROJECT_GRAPH);

/** Globs of the files of every workspace package below `paths` (package-relative globs). */
const inPackages = (paths) => workspaceFolders.flatMap((w) => paths.map((p) => `${w}/*/${p}`));
/** Shared options of the dependency rule; the scope of a file decides the rest (scripts/dependency-scopes.mjs). */
const dependencyRule = { optionalDependencies: false, peerDependencies: true, includeTypes: true };

/** The published packages by their nx tags (package.json `nx.tags`), so a new package is covered by its tags alone. */
const taggedPackages = readdirSync(join(root, 'packages'), { withFileTypes: true })
  .filter((d) => d.isDirectory() && existsSync(join(root, 'packages', d.name, 'package.json')))
  .map((d) => ({ dir: d.name, tags: JSON.parse(readFileSync(join(root, 'packages', d.name, 'package.json'), 'utf8')).nx?.tags ?? [] }));
export const purePackages = taggedPackages.filter((p) => p.tags.includes('purity:pure')).map((p) => p.dir);
export const libraryPackages = taggedPackages.filter((p) => p.tags.includes('type:lib')).map((p) => p.dir);

export default tseslint.config(
  { ignores: ['**/dist/**', '**/node_modules/**', '**/src/gen/**', '**/bench/gen/**', '**/coverage/**', '.nx/**', '.cache/**', '**/tsup.config.bundled_*.mjs'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  prettier,
  {
    files: ['**/*.ts', '**/*.mts', '**/*.cts'],
    rules: {
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    // Dependencies: every package imported is declared in the package.json nearest to the importing
    // file. Shipped code (src/, bin/, anything not in a dev or tooling scope) may use `dependencies`
    // and `peerDependencies` only; type-only imports count (a published .d.ts needs them too).
    // Declared but unused dependencies: scripts/check-dependencies.mjs, run after eslint by `lint`.
    files: ['**/*.{ts,mts,cts,js,mjs,cjs}'],
    plugins: { 'import-x': importX },
    settings: {
      // Files no-cycle follows, and the parser it reads them with.
      'import-x/extensions': ['.ts', '.mts', '.cts', '.js', '.mjs', '.cjs'],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts', '.mts', '.cts'] },
      // tsconfig paths resolve @switchyard/* to sources, so the rule works before anything is built.
      'import-x/resolver-next': [createTypeScriptImportResolver({ project: join(root, 'tsconfig.paths.json'), alwaysTryTypes: true })],
    },
    rules: {
      'import-x/no-extraneous-dependencies': ['error', { ...dependencyRule, devDependencies: false }],
    },
  },
  {
    files: inPackages(devFolders.map((d) => `${d}/**`)),
    rules: { 'import-x/no-extraneous-dependencies': ['error', { ...dependencyRule, devDependencies: true }] },
  },
  {
    // Build/test configuration and generators of a package, and the root's own files.
    files: [...inPackages([...toolingFolders.map((d) => `${d}/**`), ...toolingFileGlobs]), '*.{ts,mts,cts,js,mjs,cjs}', 'scripts/**'],
    rules: {
      'import-x/no-extraneous-dependencies': ['error', { ...dependencyRule, devDependencies: true, whitelist: rootDevDependencies }],
    },
  },
  {
    // No import cycles inside a package (between packages, nx's module-boundary rule and the
    // layering forbid them). Type-only imports are erased at build (verbatimModuleSyntax), so the
    // rule follows the imports that run.
    files: inPackages(['src/**/*.ts']),
    rules: { 'import-x/no-cycle': ['error', { ignoreExternal: true }] },
  },
  {
    // The architecture as a rule, on the sources of every package (tests may import their own
    // package by name, as a user would).
    files: ['packages/*/src/**/*.ts', 'tools/*/src/**/*.ts'],
    plugins: { '@nx': nx },
    rules: {
      '@nx/enforce-module-boundaries': [
        underNx ? 'error' : 'off',
        {
          allow: [],
          depConstraints: [
            { sourceTag: 'type:lib', onlyDependOnLibsWithTags: ['type:lib'] },
            { sourceTag: 'type:composer', onlyDependOnLibsWithTags: ['type:lib'] },
            { sourceTag: 'type:tool', onlyDependOnLibsWithTags: ['type:lib', 'type:composer', 'type:tool'] },
          ],
        },
      ],
    },
  },
  {
    files: ['**/*.cjs', '**/*.mjs', '**/*.js'],
    languageOptions: { globals: { require: 'readonly', module: 'writable', __dirname: 'readonly', process: 'readonly', console: 'readonly' } },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    // No function over 100 lines (blank lines and comments count) in shipped and tool sources. The
    // exceptions are codecs whose one switch over message types reads best whole, and generated code.
    files: ['packages/*/src/**/*.ts', 'packages/*/bin/**/*.ts', 'tools/*/src/**/*.ts'],
    ignores: ['packages/openflow/src/messages.ts', '**/gen/**'],
    rules: { 'max-lines-per-function': ['error', { max: 100, skipBlankLines: false, skipComments: false, IIFEs: true }] },
  },
  {
    files: libraryPackages.map((p) => `packages/${p}/src/**/*.ts`),
    rules: {
      'no-restricted-imports': [
        'error',
        { paths: composers.map((name) => ({ name, message: 'a library never imports a composer' })) },
      ],
    },
  },
  {
    files: purePackages.map((p) => `packages/${p}/src/**/*.ts`),
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            ...composers.map((name) => ({ name, message: 'a library never imports a composer' })),
            ...ioWorkspacePackages,
            ...[...ioModules, ...ioPackages].map((name) => ({ name, message: 'pure packages do no I/O' })),
          ],
        },
      ],
      'no-restricted-globals': ['error', { name: 'fetch', message: 'pure packages do no I/O' }],
    },
  },
);
