#!/usr/bin/env bash
# The main job (npm run demo): installs what a fresh machine lacks, then runs the demo.
# Until the multi-node lab lands (issue 13) the demo is the testbed smoke demo: two pods on a real
# userspace OVS bridge with a conntrack policy.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-system.sh
[ -d node_modules/.bin ] || npm ci --no-audit --no-fund
exec node --import tsx tools/testbed/demo.ts "$@"
