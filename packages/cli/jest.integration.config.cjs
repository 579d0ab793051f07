// Integration tests: the embedded Kubernetes API server (TLS), the controller binary, kubectl, the real yardctl.
module.exports = {
  ...require('../../jest.preset.cjs'),
  displayName: 'cli:integration',
  roots: ['<rootDir>/test-integration'],
  testTimeout: 120000,
};
