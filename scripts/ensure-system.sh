#!/usr/bin/env bash
# Installs the Debian packages the tests and the lab need (scripts/apt-packages.txt, or the list
# given as the first argument, e.g. tools/images/apt-packages.txt) when missing.
# Idempotent; needs root when something is missing. Prints what it installs.
# With the default list (the lab and the tests) it also raises one kernel default the lab's
# userspace datapath needs, until the next boot: see rmem_default below.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
list=${1:-$here/apt-packages.txt}

# The lab's OVS runs the userspace (netdev) datapath, which reads every veth port through an
# AF_PACKET socket that ovs-vswitchd's main thread drains between its other work. At Linux's
# default receive buffer (net.core.rmem_default, 208 KiB: about 90 full-size frames, 20 ms of a
# 50 Mbit/s stream) any longer pause of that thread drops frames: measured on a 2-node lab, an
# iperf3 stream at 50 Mbit/s lost about 0.8 % of its packets per node with the machine idle (TCP
# retransmitted in 27-51 of its 80 0.1 s intervals, up to 240 segments in one), and more under
# load; at 4 MiB, retransmits in 0-4 intervals idle, and 5-11 (1-2 segments each) with four busy
# loops on the 2 cores. The value is a cap, not an allocation; it is raised, never
# lowered, and not persisted (set it in /etc/sysctl.d to keep it). Only for sockets made after it:
# set before the lab starts OVS.
RMEM_DEFAULT=4194304
if [ $# -eq 0 ]; then
  rmem=$(cat /proc/sys/net/core/rmem_default)
  if [ "$rmem" -lt "$RMEM_DEFAULT" ]; then
    if [ "$(id -u)" = 0 ]; then
      sysctl -qw "net.core.rmem_default=$RMEM_DEFAULT"
      echo "ensure-system: net.core.rmem_default $rmem -> $RMEM_DEFAULT (the lab's userspace datapath drops frames at the default; until the next boot)"
    else
      echo "ensure-system: net.core.rmem_default is $rmem; as root, sysctl -w net.core.rmem_default=$RMEM_DEFAULT (the lab's userspace datapath drops frames at the default)" >&2
    fi
  fi
fi
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
