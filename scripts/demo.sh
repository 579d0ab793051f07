#!/usr/bin/env bash
# The main job (npm run demo): installs what a fresh machine lacks, then runs the demo.
# The demo is the lab's (tools/lab, issue 13): a 2-node Switchyard cluster on this machine and the
# nginx-allow walkthrough; `npm run demo -- --keep` leaves the lab running.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-system.sh
[ -d node_modules/.bin ] || npm ci --no-audit --no-fund
exec tools/lab/bin/demo "$@"
