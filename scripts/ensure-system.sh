#!/usr/bin/env bash
# Installs the Debian packages the tests and the lab need (scripts/apt-packages.txt, or the list
# given as the first argument, e.g. tools/images/apt-packages.txt) when missing.
# Idempotent; needs root when something is missing. Prints what it installs.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
list=${1:-$here/apt-packages.txt}
mapfile -t wanted < <(grep -v '^\s*#' "$list" | awk 'NF{print $1}')
missing=()
for p in "${wanted[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
# kubectl: any kubectl on PATH will do; Debian's kubernetes-client otherwise (the default list only).
[ $# -gt 0 ] || command -v kubectl >/dev/null 2>&1 || missing+=(kubernetes-client)
if [ ${#missing[@]} -eq 0 ]; then
  echo "ensure-system: all Debian packages of $(basename "$(dirname "$list")")/$(basename "$list") present"
  exit 0
fi
if [ "$(id -u)" != 0 ]; then
  echo "ensure-system: missing ${missing[*]}; run as root to install them" >&2
  exit 1
fi
echo "ensure-system: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
# The packaged OVS service cannot start without the kernel module; that is expected (we run our own).
apt-get install -y -q --no-install-recommends "${missing[@]}"
