// Integration tests: real OVS / netns / iptables; need root (see tools/testbed).
module.exports = require('../../tools/testbed/jest/integration-config.cjs')('lab');
