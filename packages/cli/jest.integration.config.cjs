// Integration tests: the embedded Kubernetes API server (TLS), the controller binary, kubectl, the real yardctl;
// and a real agent on a real OVS (tools/testbed: needs root) for the agent commands.
module.exports = {
  ...require('../../jest.preset.cjs'),
  displayName: 'cli:integration',
  roots: ['<rootDir>/test-integration'],
  testTimeout: 120000,
  globalSetup: '../../tools/testbed/jest/global-setup.cjs',
};
