#!/usr/bin/env bash
# Runs `npm ci` (whose prepare step builds the workspace through nx) unless node_modules was
# installed by `npm ci` from this very package-lock.json: a stamp with the lock's hash is written
# inside node_modules after a successful install, so `npm ci` removing node_modules removes it too.
# Used by the demo and by npm test, so CI's second command does not reinstall what its first did.
set -euo pipefail
cd "$(dirname "$0")/.."
stamp=node_modules/.switchyard-lock.sha256
want=$(sha256sum package-lock.json | cut -d' ' -f1)
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] && [ -d node_modules/.bin ]; then
  echo "node_modules was installed by npm ci from this package-lock.json: npm ci skipped"
  exit 0
fi
npm ci --no-audit --no-fund --loglevel=error
echo "$want" > "$stamp"
