#!/usr/bin/env bash
# Everything the main job and the tests need on a fresh machine, installed or reused (the README's two
# commands run this first; .ci/run runs the same steps as its own tiers):
#   1. system packages (apt-get, as root): sshd/ssh for the loopback hosts, openssl, jq, shellcheck, curl,
#      xz (the engine archive), systemd-analyze (unit checks), ss (the host scripts' port checks),
#      graphviz (the pictures in docs/)
#   2. npm dependencies (npm ci, unless node_modules matches package-lock.json)
#   3. the test bed: the Pulumi engine from ../shared/engine (sha256-checked) and etcd, kube-apiserver,
#      kube-controller-manager and Karmada built from Go modules (skipped when already in the cache);
#      `testbed` also builds the oldest catalog release the tests upgrade from, `estate` only what the
#      local estates (npm start) run
#
# usage: scripts/setup.sh [packages|npm|testbed|estate ...]   (default: packages npm testbed)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

log() { printf '[setup] %s\n' "$*" >&2; }

# apt package → a command it provides
declare -A PACKAGES=([openssh-server]=/usr/sbin/sshd [openssh-client]=ssh [openssl]=openssl [jq]=jq
  [shellcheck]=shellcheck [curl]=curl [xz-utils]=xz [systemd]=systemd-analyze [iproute2]=ss
  [graphviz]=dot)

system_packages() {
  local need=() pkg
  for pkg in "${!PACKAGES[@]}"; do
    command -v "${PACKAGES[$pkg]}" >/dev/null 2>&1 || need+=("$pkg")
  done
  ((${#need[@]} == 0)) && return 0
  if [[ "$(id -u)" != 0 ]]; then
    log "missing system packages: ${need[*]} (install them: sudo apt-get install -y ${need[*]})"
    return 1
  fi
  log "apt-get install ${need[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
}

npm_dependencies() {
  # npm ci records the installed tree in node_modules/.package-lock.json: reuse it while it is newer
  if [[ -f node_modules/.package-lock.json && node_modules/.package-lock.json -nt package-lock.json ]]; then
    return 0
  fi
  log "npm ci"
  npm ci --ignore-scripts --no-audit --no-fund
}

testbed() {
  scripts/testbed/build.sh
}

estate() {
  scripts/testbed/build.sh engine etcd kube karmada
}

steps=("$@")
((${#steps[@]})) || steps=(packages npm testbed)
for step in "${steps[@]}"; do
  case "$step" in
    packages) system_packages ;;
    npm) npm_dependencies ;;
    testbed) testbed ;;
    estate) estate ;;
    *)
      echo "unknown step: $step (packages, npm, testbed, estate)" >&2
      exit 2
      ;;
  esac
done
