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
if [ -z "${SWITCHYARD_DEMO_TRANSCRIPT:-}" ]; then exec tools/lab/bin/demo "$@"; fi

# SWITCHYARD_DEMO_TRANSCRIPT=<dir> (.ci/run sets it): the walkthrough's stdout and stderr are also
# kept there, with result.json (exit code, commit, lab dir and whether it is gone), so the lab's
# demo test asserts on this very run instead of running the walkthrough a second time in CI.
dir=$SWITCHYARD_DEMO_TRANSCRIPT
mkdir -p "$dir"
rm -f "$dir/result.json"
lab_dir=/tmp/switchyard-lab # DEFAULT_LAB_DIR of tools/lab/src/plan.ts, unless --lab-dir names another
prev=
for a in "$@"; do [ "$prev" = --lab-dir ] && lab_dir=$a; prev=$a; done
set +e
tools/lab/bin/demo "$@" 2> >(tee "$dir/stderr" >&2) | tee "$dir/stdout"
rc=${PIPESTATUS[0]}
set -e
wait # the stderr tee
gone=true
[ -e "$lab_dir" ] && gone=false
printf '{"exitCode":%d,"revision":"%s","labDir":"%s","labDirGone":%s}\n' "$rc" "$(git rev-parse HEAD 2>/dev/null || echo unknown)" "$lab_dir" "$gone" > "$dir/result.json"
exit "$rc"
