// Unit tests: the manifest generator, the image definitions, the tar and report parts; no root, no image build.
module.exports = { ...require('../../jest.preset.cjs'), displayName: 'images', roots: ['<rootDir>/test'] };
