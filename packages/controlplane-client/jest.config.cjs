// Unit tests: pure, fast, no root.
module.exports = { ...require('../../jest.preset.cjs'), displayName: 'controlplane-client', roots: ['<rootDir>/test'] };
