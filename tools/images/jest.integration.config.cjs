// Integration tests: real iptables (legacy and nf_tables) in network namespaces; need root (see tools/testbed).
module.exports = require('../testbed/jest/integration-config.cjs')('images');
