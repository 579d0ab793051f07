#!/usr/bin/env bash
# Installs switchyard-agent on a Linux VM or bare-metal host as an ExternalNode agent (systemd).
# Renders the agent configuration and a systemd unit under --root (default /); starts the service
# only when installing into / (and not --no-start). Windows hosts are out of scope.
#
#   ./install-vm.sh --ns vm-ns --nodename vm1 --bin ./switchyard-agent --config ./antrea-agent.conf \
#       --kubeconfig ./antrea-agent.kubeconfig [--controller-url https://10.0.0.1:443 \
#       --controller-ca ./ca.crt --token-file ./token] [--root /] [--no-start]
set -euo pipefail

usage() {
  sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'
  exit "${1:-2}"
}
die() {
  echo "install-vm.sh: $*" >&2
  exit 2
}

ROOT=/
NS=""
NODENAME=""
BIN=""
CONFIG=""
KUBECONFIG_IN=""
CONTROLLER_URL=""
CONTROLLER_CA=""
TOKEN_FILE=""
START=1
while [[ $# -gt 0 ]]; do
  case "$1" in
    --root) ROOT="$2"; shift 2 ;;
    --ns) NS="$2"; shift 2 ;;
    --nodename) NODENAME="$2"; shift 2 ;;
    --bin) BIN="$2"; shift 2 ;;
    --config) CONFIG="$2"; shift 2 ;;
    --kubeconfig) KUBECONFIG_IN="$2"; shift 2 ;;
    --controller-url) CONTROLLER_URL="$2"; shift 2 ;;
    --controller-ca) CONTROLLER_CA="$2"; shift 2 ;;
    --token-file) TOKEN_FILE="$2"; shift 2 ;;
    --no-start) START=0; shift ;;
    -h|--help) usage 0 ;;
    *) die "unknown flag $1 (see --help)" ;;
  esac
done
[[ -n "$NS" ]] || die "--ns (the ExternalNode's Namespace) is required"
[[ -n "$BIN" && -f "$BIN" ]] || die "--bin must name the switchyard-agent executable (got '${BIN}')"
[[ -n "$CONFIG" && -f "$CONFIG" ]] || die "--config must name an antrea-agent.conf (got '${CONFIG}')"
[[ -n "$KUBECONFIG_IN" && -f "$KUBECONFIG_IN" ]] || die "--kubeconfig must name the agent's kubeconfig (got '${KUBECONFIG_IN}')"
[[ "$NS" =~ ^[a-z0-9]([-a-z0-9]*[a-z0-9])?$ ]] || die "--ns '${NS}' is not a Namespace name"
[[ -z "$NODENAME" || "$NODENAME" =~ ^[a-z0-9]([-.a-z0-9]*[a-z0-9])?$ ]] || die "--nodename '${NODENAME}' is not an object name"

CONF_DIR=/etc/switchyard
BIN_PATH=/usr/sbin/switchyard-agent
DATA_DIR=/var/lib/switchyard
UNIT=/etc/systemd/system/switchyard-agent.service
r() { echo "${ROOT%/}$1"; }

install -d -m 0755 "$(r "$CONF_DIR")" "$(r /usr/sbin)" "$(r /etc/systemd/system)"
install -d -m 0700 "$(r "$DATA_DIR")"
install -m 0755 "$BIN" "$(r "$BIN_PATH")"
# Credentials: readable by root only.
install -m 0600 "$KUBECONFIG_IN" "$(r "$CONF_DIR/antrea-agent.kubeconfig")"
EXTRA_ARGS=""
if [[ -n "$CONTROLLER_URL" ]]; then
  EXTRA_ARGS+=" --controller-url=${CONTROLLER_URL}"
  if [[ -n "$CONTROLLER_CA" ]]; then
    install -m 0644 "$CONTROLLER_CA" "$(r "$CONF_DIR/controller-ca.crt")"
    EXTRA_ARGS+=" --controller-ca-file=${CONF_DIR}/controller-ca.crt"
  fi
  if [[ -n "$TOKEN_FILE" ]]; then
    install -m 0600 "$TOKEN_FILE" "$(r "$CONF_DIR/controller-token")"
    EXTRA_ARGS+=" --token-file=${CONF_DIR}/controller-token"
  fi
fi

# The configuration: the given file without the keys this script sets, then those keys.
grep -vE '^[[:space:]]*#?[[:space:]]*(nodeType|externalNodeNamespace):' "$CONFIG" |
  sed -E "s|^([[:space:]]+kubeconfig:).*|\1 ${CONF_DIR}/antrea-agent.kubeconfig|" >"$(r "$CONF_DIR/antrea-agent.conf.tmp")"
if ! grep -qE '^clientConnection:' "$(r "$CONF_DIR/antrea-agent.conf.tmp")"; then
  printf 'clientConnection:\n  kubeconfig: %s/antrea-agent.kubeconfig\n' "$CONF_DIR" >>"$(r "$CONF_DIR/antrea-agent.conf.tmp")"
fi
printf 'nodeType: externalNode\nexternalNodeNamespace: %s\n' "$NS" >>"$(r "$CONF_DIR/antrea-agent.conf.tmp")"
chmod 0644 "$(r "$CONF_DIR/antrea-agent.conf.tmp")"
mv "$(r "$CONF_DIR/antrea-agent.conf.tmp")" "$(r "$CONF_DIR/antrea-agent.conf")"

{
  echo '[Unit]'
  echo 'Description=switchyard-agent (ExternalNode): Antrea NetworkPolicy on this host through Open vSwitch'
  echo 'After=network-online.target openvswitch-switch.service'
  echo 'Wants=network-online.target'
  echo
  echo '[Service]'
  [[ -n "$NODENAME" ]] && echo "Environment=NODE_NAME=${NODENAME}"
  echo "ExecStart=${BIN_PATH} --config=${CONF_DIR}/antrea-agent.conf --data-dir=${DATA_DIR}${EXTRA_ARGS}"
  echo 'Restart=on-failure'
  echo 'RestartSec=5'
  echo
  echo '[Install]'
  echo 'WantedBy=multi-user.target'
} >"$(r "$UNIT")"
chmod 0644 "$(r "$UNIT")"

echo "installed: $(r "$BIN_PATH"), $(r "$CONF_DIR/antrea-agent.conf"), $(r "$UNIT")"
if [[ "$ROOT" == "/" && "$START" == 1 ]]; then
  systemctl daemon-reload
  systemctl enable --now switchyard-agent.service
fi
