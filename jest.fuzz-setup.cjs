// Every property test and fuzzer in a jest run draws from one seed: fixed unless FUZZ_SEED says
// otherwise, so a red CI replays exactly. `npm run fuzz` sets a fresh seed and prints it.
const fc = require('fast-check');

const seed = process.env.FUZZ_SEED === undefined ? 20261125 : Number(process.env.FUZZ_SEED);
if (!Number.isInteger(seed)) throw new Error(`FUZZ_SEED must be an integer, got ${JSON.stringify(process.env.FUZZ_SEED)}`);
fc.configureGlobal({ ...fc.readConfigureGlobal(), seed });
