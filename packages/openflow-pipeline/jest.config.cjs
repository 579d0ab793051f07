// Unit tests: pure, fast, no root.
const preset = require('../../jest.preset.cjs');
// Sibling sources written with ESM `.js` specifiers (openflow's codec) resolve to their .ts files.
module.exports = {
  ...preset,
  displayName: 'openflow-pipeline',
  roots: ['<rootDir>/test'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1', ...preset.moduleNameMapper },
};
