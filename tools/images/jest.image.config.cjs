// The built images run under podman (test-image/): needs `npm run images` first (dist/images), root, podman and runc.
// In CI's images lane (scripts/test.sh) after the lab's podman test, which builds the images on the fresh clone.
module.exports = { ...require('../../jest.preset.cjs'), displayName: 'images:podman', roots: ['<rootDir>/test-image'] };
