// Integration tests: the embedded Kubernetes API server (TLS), kubectl, real HTTPS watch streams.
module.exports = {
  ...require('../../jest.preset.cjs'),
  displayName: 'controller:integration',
  roots: ['<rootDir>/test-integration'],
  testTimeout: 120000,
};
