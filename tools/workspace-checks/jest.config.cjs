module.exports = { ...require('../../jest.preset.cjs'), displayName: 'workspace-checks', roots: ['<rootDir>/test'], testTimeout: 60000 };
