// Unit tests: pure planning functions and reconcilers over a fake client, the manual clock.
module.exports = { ...require('../../jest.preset.cjs'), displayName: 'multicluster', roots: ['<rootDir>/test'] };
