// Unit tests: pure, fast, no root.
module.exports = { ...require('../../jest.preset.cjs'), displayName: 'durable-file', roots: ['<rootDir>/test'] };
