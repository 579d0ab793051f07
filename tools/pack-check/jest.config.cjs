// Unit tests of the consumer check's parts (README blocks, CommonJS transform, manifest checks).
module.exports = { ...require('../../jest.preset.cjs'), displayName: 'pack-check', roots: ['<rootDir>/test'] };
