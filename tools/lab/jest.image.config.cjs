// The lab on the built images (test-image/: `switchyard-lab up --runtime podman`): root, podman and runc; builds the
// images first when dist/images has none (a fresh clone). The images lane of `SWITCHYARD_TEST_IMAGES=1 npm test`.
module.exports = { ...require('../../jest.preset.cjs'), displayName: 'lab:podman', roots: ['<rootDir>/test-image'], testTimeout: 120000, globalSetup: require('node:path').join(__dirname, '../testbed/jest/global-setup.cjs') };
