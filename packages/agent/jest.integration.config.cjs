// Integration tests: real OVS / netns; need root (see tools/testbed).
module.exports = {
  ...require('../../jest.preset.cjs'),
  displayName: 'agent:integration',
  roots: ['<rootDir>/test-integration'],
  testTimeout: 120000,
  globalSetup: '../../tools/testbed/jest/global-setup.cjs',
};
