// Unit tests: no root. Many start the embedded server in-process (certificates, TLS), which takes
// seconds on a loaded 2-core machine: 30 s guards against hangs without failing on load.
module.exports = { ...require('../../jest.preset.cjs'), displayName: 'kube-api', roots: ['<rootDir>/test'], testTimeout: 30000 };
