// Fail loudly (never skip) when the external binaries these suites drive are missing.
const { execFileSync } = require('node:child_process');

module.exports = async function globalSetup() {
  for (const [bin, args] of [['kubectl', ['version', '--client']], ['openssl', ['version']]]) {
    try {
      execFileSync(bin, args, { stdio: 'ignore' });
    } catch (e) {
      throw new Error(`kube-api integration tests need ${bin} on PATH (${e.message})`);
    }
  }
};
