// Unit tests: pure, fast, no root.
module.exports = { ...require('../../jest.preset.cjs'), displayName: 'openflow-pipeline', roots: ['<rootDir>/test'] };
