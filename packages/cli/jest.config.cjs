// Unit tests: pure, fast, no root.
module.exports = { ...require('../../jest.preset.cjs'), displayName: 'cli', roots: ['<rootDir>/test'] };
