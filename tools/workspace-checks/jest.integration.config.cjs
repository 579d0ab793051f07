// Checks of the built workspace (bins after `npm ci`): nx builds every package first.
module.exports = { ...require('../../jest.preset.cjs'), displayName: 'workspace-checks:integration', roots: ['<rootDir>/test-integration'], testTimeout: 60000 };
