// The jest configuration of an integration suite that needs root, OVS and network namespaces:
// every such package's jest.integration.config.cjs is this with its own name.
const path = require('node:path');

/**
 * @param {string} name the package's short name (`ovsdb` gives the display name `ovsdb:integration`)
 * @returns {import('jest').Config}
 */
module.exports = function integrationConfig(name) {
  return {
    ...require('../../../jest.preset.cjs'),
    displayName: `${name}:integration`,
    roots: ['<rootDir>/test-integration'],
    testTimeout: 120000,
    globalSetup: path.join(__dirname, 'global-setup.cjs'),
  };
};
