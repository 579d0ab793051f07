// Unit tests: no root, no OVS (the wait helpers and other pure parts).
module.exports = { ...require('../../jest.preset.cjs'), displayName: 'testbed', roots: ['<rootDir>/test'] };
