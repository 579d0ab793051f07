// Unit tests: pure, fast, no root.
module.exports = { ...require('../../jest.preset.cjs'), displayName: 'ovsdb', roots: ['<rootDir>/test'] };
