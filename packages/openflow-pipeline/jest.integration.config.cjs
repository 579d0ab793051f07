// Integration tests: real OVS / netns / iptables; need root (see tools/testbed).
const preset = require('../../jest.preset.cjs');
module.exports = {
  ...preset,
  displayName: 'openflow-pipeline:integration',
  roots: ['<rootDir>/test-integration'],
  testTimeout: 120000,
  globalSetup: '../../tools/testbed/jest/global-setup.cjs',
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1', ...preset.moduleNameMapper },
};
