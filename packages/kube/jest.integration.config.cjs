// Integration tests: real OVS / netns / iptables; need root (see tools/testbed).
module.exports = {
  ...require('../../jest.preset.cjs'),
  displayName: 'kube:integration',
  roots: ['<rootDir>/test-integration'],
  testTimeout: 120000,
  globalSetup: '../../tools/testbed/jest/global-setup.cjs',
};
