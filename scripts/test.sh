#!/usr/bin/env bash
# The one test command (npm test): installs what a fresh machine lacks, then lint, typecheck,
# build, unit tests, package-shape checks, the npm consumer check (tools/pack-check/consumers.mjs)
# and integration tests (real OVS, root) through nx.
# Prints each stage as it starts (`::: [elapsed] stage`), the time each stage and each integration
# suite took, and a final "N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/.."
export NX_DAEMON=false NX_NO_CLOUD=true NX_TUI=false FORCE_COLOR=0 NO_COLOR=1
log=$(mktemp -d)/test.log
declare -a times=()
failed_stage=""

stage() {
  local name=$1; shift
  local t0=$SECONDS
  printf '::: [%5s s] %s\n' "$SECONDS" "$name"
  if "$@" 2>&1 | tee -a "$log"; then rc=0; else rc=${PIPESTATUS[0]}; fi
  times+=("$(printf '%-40s %5ss  %s' "$name" "$((SECONDS - t0))" "$([ "$rc" = 0 ] && echo ok || echo FAILED)")")
  if [ "$rc" != 0 ] && [ -z "$failed_stage" ]; then failed_stage=$name; fi
  return 0
}

stage "system packages" bash scripts/ensure-system.sh
[ -z "$failed_stage" ] && stage "npm ci" npm ci --no-audit --no-fund
if [ -z "$failed_stage" ]; then
  stage "lint" npx nx run-many -t lint --outputStyle=static
  stage "typecheck" npx nx run-many -t typecheck --outputStyle=static
  stage "build" npx nx run-many -t build --outputStyle=static
  stage "unit tests" npx nx run-many -t test --outputStyle=static
  stage "release dry run (nx release, independent versions)" npx nx release --dry-run --skip-publish
  stage "package shape (pack, ESM+CJS, publint, attw)" npx nx run-many -t test:pack --parallel=2 --outputStyle=static
  stage "npm consumers (README programs from the tarballs, types, LICENSE)" node tools/pack-check/consumers.mjs
  for p in $(npx nx show projects --with-target test:integration | sort); do
    stage "integration: $p" npx nx run "$p:test:integration" --outputStyle=static
  done
fi

echo
echo "== time per stage =="
printf '%s\n' "${times[@]}"
plain=$(sed -E 's/\x1b\[[0-9;]*m//g' "$log")
passed=$(echo "$plain" | grep -aE '^Tests: ' | grep -oE '[0-9]+ passed' | awk '{s+=$1} END {print s+0}')
failedn=$(echo "$plain" | grep -aE '^Tests: ' | grep -oE '[0-9]+ failed' | awk '{s+=$1} END {print s+0}')
echo
if [ -n "$failed_stage" ]; then
  echo "first failing stage: $failed_stage"
  echo "$passed passed, $((failedn > 0 ? failedn : 1)) failed"
  exit 1
fi
echo "$passed passed, $failedn failed"
[ "$failedn" = 0 ]
