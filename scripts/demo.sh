#!/usr/bin/env bash
# The main job (npm run demo): installs what a fresh machine lacks (Debian packages, npm ci, which
# builds the workspace through nx), then the lab's demo: `switchyard-lab up` (build check, API
# server, controller, OVS nodes), the nginx-allow walkthrough, `down`. Each phase prints a line
# `[elapsed] phase: ...` timed from this command. `npm run demo -- --keep` leaves the lab running.
set -euo pipefail
cd "$(dirname "$0")/.."
export SWITCHYARD_T0=${SWITCHYARD_T0:-$(date +%s%3N)}
progress() { printf '[%6.1f s] %s\n' "$(( $(date +%s%3N) - SWITCHYARD_T0 ))e-3" "$*"; }

progress "install: Debian packages (scripts/apt-packages.txt)"
bash scripts/ensure-system.sh
if [ -d node_modules/.bin ]; then
  progress "install: node_modules present (npm ci skipped)"
else
  progress "install: npm ci (its prepare step builds every package through nx; a minute on a fresh clone)"
  npm ci --no-audit --no-fund --loglevel=error
fi
progress "lab: switchyard-lab up --nodes 2, then the walkthrough"
exec tools/lab/bin/demo "$@"
