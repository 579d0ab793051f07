// Integration tests: three embedded API servers (a leader, members west and east), kubectl.
module.exports = {
  ...require('../../jest.preset.cjs'),
  displayName: 'multicluster:integration',
  roots: ['<rootDir>/test-integration'],
  testTimeout: 120000,
};
