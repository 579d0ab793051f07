// Unit tests: pure, fast, no root.
module.exports = { ...require('../../jest.preset.cjs'), displayName: 'policy-compiler', roots: ['<rootDir>/test'] };
