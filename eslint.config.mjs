// Lint for every package: typescript-eslint, plus the architecture as rules (module boundaries).
import js from '@eslint/js';
import nx from '@nx/eslint-plugin';
import prettier from 'eslint-config-prettier';
import tseslint from 'typescript-eslint';

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
];
const composers = ['@switchyard/agent', '@switchyard/controller', '@switchyard/cli'];

/** The tag rule needs nx's project graph, which exists when nx runs the lint target (as CI does). */
const underNx = Boolean(process.env.NX_TASK_TARGET_PROJECT);

export const purePackages = ['apis', 'policy-compiler', 'openflow-pipeline'];
export const libraryPackages = ['apis', 'policy-compiler', 'openflow', 'openflow-pipeline', 'ovsdb', 'ipam', 'multicluster'];

export default tseslint.config(
  { ignores: ['**/dist/**', '**/node_modules/**', '**/src/gen/**', '**/coverage/**', '.nx/**'] },
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
