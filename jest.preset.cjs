// Shared jest settings: swc transform, workspace packages resolved to their TypeScript sources.
const path = require('node:path');

const root = __dirname;
const src = (dir, file = 'index.ts') => path.join(root, dir, 'src', file);

/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  setupFiles: [path.join(root, 'jest.fuzz-setup.cjs')],
  // The default output, and per-file times for npm test's "slowest test files" list.
  reporters: ['default', path.join(root, 'scripts/jest-file-times.cjs')],
  transform: {
    '^.+\\.(t|j|mj|cj)sx?$': [
      '@swc/jest',
      { jsc: { target: 'es2022', parser: { syntax: 'typescript' } }, module: { type: 'commonjs' } },
    ],
  },
  // @kubernetes/client-node 1.x and its auth stack are ESM-only: transform them too.
  transformIgnorePatterns: [
    '/node_modules/(?!(@kubernetes/client-node|openid-client|oauth4webapi|jose)/)',
  ],
  moduleFileExtensions: ['ts', 'tsx', 'js', 'mjs', 'cjs', 'json', 'node'],
  moduleNameMapper: {
    // Sources may use NodeNext-style `./x.js` specifiers for `./x.ts` files.
    '^(\\.{1,2}/.*)\\.js$': '$1',
    '^@switchyard/runtime/testing$': src('packages/runtime', 'testing.ts'),
    '^@switchyard/runtime/process$': src('packages/runtime', 'process.ts'),
    '^@switchyard/openflow-pipeline/testing$': src('packages/openflow-pipeline', 'testing.ts'),
    '^@switchyard/apis/types$': src('packages/apis', 'types.ts'),
    '^@switchyard/ipam/cidr$': src('packages/ipam', 'cidr/index.ts'),
    '^@switchyard/ipam/testing$': src('packages/ipam', 'testing.ts'),
    '^@switchyard/openflow/codec$': src('packages/openflow', 'codec.ts'),
    '^@switchyard/kube-api/testing$': src('tools/kube-api', 'testing.ts'),
    '^@switchyard/(runtime|apis|openflow|openflow-pipeline|ovsdb|kube|pki|durable-file|controlplane-client|ipam|policy-compiler|multicluster|agent|controller|cli)$':
      path.join(root, 'packages/$1/src/index.ts'),
    '^@switchyard/(testbed|kube-api|lab)$': path.join(root, 'tools/$1/src/index.ts'),
  },
};
