// The built images run under podman (test-image/): needs `npm run images` first (dist/images), root, podman and runc.
// In the images lane of `SWITCHYARD_TEST_IMAGES=1 npm test` (scripts/test.sh; not in .ci/run: docs/development.md), after the lab's podman test built them.
module.exports = { ...require('../../jest.preset.cjs'), displayName: 'images:podman', roots: ['<rootDir>/test-image'] };
