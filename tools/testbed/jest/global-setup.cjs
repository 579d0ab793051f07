// Jest globalSetup for integration suites: fail loudly (never skip) when root/OVS/netns are missing,
// and reap what crashed earlier runs left behind.
module.exports = async function globalSetup() {
  const { assertIntegrationReady, reapStale } = require('../src/index.ts');
  await assertIntegrationReady();
  await reapStale();
};
