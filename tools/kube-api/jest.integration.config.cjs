// Integration tests: real kubectl and openssl against the server (no OVS needed).
module.exports = {
  ...require('../../jest.preset.cjs'),
  displayName: 'kube-api:integration',
  roots: ['<rootDir>/test-integration'],
  testTimeout: 60000,
  globalSetup: '<rootDir>/test-integration/global-setup.cjs',
};
