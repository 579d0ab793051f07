// The built images run under podman (test-image/): needs `npm run images` first (dist/images), root, podman and runc.
// Not in CI: the image build alone takes 5-10 minutes on 2 cores (docs/development.md).
module.exports = { ...require('../../jest.preset.cjs'), displayName: 'images:podman', roots: ['<rootDir>/test-image'] };
