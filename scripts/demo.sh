#!/usr/bin/env bash
# The main job (npm run demo): installs what a fresh machine lacks (Debian packages, npm ci, which
# builds the workspace through nx), then the lab's demo: `switchyard-lab up` (build check, API
# server, controller, OVS nodes), the nginx-allow walkthrough, `down`. Each phase prints a line
# `[elapsed] phase: ...` timed from this command. `npm run demo -- --keep` leaves the lab running;
# `npm run demo -- --runtime podman` runs the controller and agents in containers from the images
# `npm run images` built (it refuses, saying so, when they are not built; docs/lab.md).
set -euo pipefail
cd "$(dirname "$0")/.."
export SWITCHYARD_T0=${SWITCHYARD_T0:-$(date +%s%3N)}
progress() { printf '[%6.1f s] %s\n' "$(( $(date +%s%3N) - SWITCHYARD_T0 ))e-3" "$*"; }

progress "install: Debian packages (scripts/apt-packages.txt)"
bash scripts/ensure-system.sh
progress "install: npm ci unless node_modules is from this package-lock.json (its prepare step builds every package through nx; a minute on a fresh clone)"
bash scripts/ensure-node-modules.sh
progress "lab: switchyard-lab up --nodes 2, then the walkthrough"
exec tools/lab/bin/demo "$@"
