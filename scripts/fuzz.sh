#!/usr/bin/env bash
# `npm run fuzz`: the fuzzers (packages/*/test/*fuzz*.test.ts, and packages/*/test-integration/*fuzz*.test.ts
# against real servers) run far longer than in CI, with a fresh
# seed. FUZZ_RUNS sets the runs per fuzzer (default 50,000); FUZZ_SEED=<n> replays a run.
set -euo pipefail
cd "$(dirname "$0")/.."
export FUZZ_RUNS=${FUZZ_RUNS:-50000}
export FUZZ_SEED=${FUZZ_SEED:-$(( (RANDOM << 15) | RANDOM ))}
echo "fuzz: $FUZZ_RUNS runs per fuzzer, seed $FUZZ_SEED (replay with FUZZ_SEED=$FUZZ_SEED npm run fuzz)"
rc=0
for t in $(git ls-files --cached --others --exclude-standard 'packages/*/test/*fuzz*.test.ts' 'packages/*/test-integration/*fuzz*.test.ts'); do
  pkg=${t%%/test*}
  # Fuzzers under test-integration drive real servers (root, OVS): the package's integration config.
  config=jest.config.cjs
  case $t in */test-integration/*) config=jest.integration.config.cjs ;; esac
  echo "::: $t"
  (cd "$pkg" && npx jest -c "$config" --testTimeout=86400000 "${t#"$pkg"/}") || rc=1
done
echo "fuzz: seed $FUZZ_SEED, $([ $rc = 0 ] && echo 'no failure' || echo 'FAILED (replay with the seed above)')"
exit $rc
