#!/usr/bin/env bash
# Everything the main job and the tests need on a fresh machine, installed or reused (the README's two
# commands run this first; .ci/run runs the same steps as its own tiers):
#   1. system packages (apt-get, as root): sshd/ssh for the loopback hosts, openssl, jq, shellcheck, curl,
#      xz (the engine archive), systemd-analyze (unit checks), ss (the host scripts' port checks),
#      graphviz (the pictures in docs/); for real nodes and their images: skopeo (checks and copies the
#      OCI images), busybox-static (the shell and tools inside the images), setcap (CoreDNS's file
#      capability), containerd, runc, the CNI plugins, nft, conntrack, and docker-registry (a local registry);
#      for systemd machines: mmdebstrap (their image) and systemd-nspawn (systemd-container); PostgreSQL
#      (the team state backend the containerized e2e keeps its stack in; each suite starts its own server);
#      Chromium (the console's browser tests drive it with playwright-core)
#   2. npm dependencies (npm ci, unless node_modules matches package-lock.json)
#   3. the test bed: the Pulumi engine from ../shared/engine (sha256-checked) and etcd, kube-apiserver,
#      kube-controller-manager, Karmada, the node binaries, CoreDNS, local-path-provisioner and our pause
#      built from Go modules, and their container images (skipped when already in the cache);
#      `testbed` also builds the oldest catalog release the tests upgrade from, `estate` only what the
#      local estate (npm start) runs, `containerized` what the containerized estate on real nodes runs
#      (npm run start:containerized: the lab's node binaries and the images too)
#
# usage: scripts/setup.sh [packages|npm|testbed|estate|containerized ...]   (default: packages npm testbed)
#        scripts/setup.sh components estate|containerized   (what that step builds, see below)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

log() { printf '[setup] %s\n' "$*" >&2; }

# apt package → a command it provides
declare -A PACKAGES=([openssh-server]=/usr/sbin/sshd [openssh-client]=ssh [openssl]=openssl [jq]=jq
  [shellcheck]=shellcheck [curl]=curl [xz-utils]=xz [systemd]=systemd-analyze [iproute2]=ss
  [graphviz]=dot [skopeo]=skopeo [busybox-static]=/bin/busybox [libcap2-bin]=/usr/sbin/setcap
  [containerd]=containerd [runc]=/usr/sbin/runc [containernetworking-plugins]=/usr/lib/cni/bridge
  [nftables]=/usr/sbin/nft [conntrack]=/usr/sbin/conntrack [docker-registry]=docker-registry
  [mmdebstrap]=mmdebstrap [systemd-container]=systemd-nspawn [postgresql]=pg_ctlcluster
  [chromium]=/usr/bin/chromium)

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

# The test-bed components each step builds (scripts/testbed/build.sh names). `estate`: what the local
# estate (npm start) runs — the machines' image, and its member clusters' control planes and schedulers
# (kube-scheduler is in `node`, with kubelet and kube-proxy). `containerized`: what the containerized estate
# on real nodes runs (npm run start:containerized), images included.
ESTATE_COMPONENTS=(engine etcd kube karmada node machine-image)
CONTAINERIZED_COMPONENTS=(engine etcd kube karmada node coredns local-path-provisioner pause images)

testbed() {
  scripts/testbed/build.sh
}

estate() {
  scripts/testbed/build.sh "${ESTATE_COMPONENTS[@]}"
}

containerized() {
  scripts/testbed/build.sh "${CONTAINERIZED_COMPONENTS[@]}"
}

# `setup.sh components STEP`: the test-bed cache entries STEP builds (paths below the test bed's root, one a
# line; the engine's provider plugins are in pulumi-home) — what a new machine has after that step.
if [[ "${1:-}" == components ]]; then
  # shellcheck source-path=SCRIPTDIR source=testbed/lib.sh
  . scripts/testbed/lib.sh
  case "${2:-}" in
    estate) listed=("${ESTATE_COMPONENTS[@]}") ;;
    containerized) listed=("${CONTAINERIZED_COMPONENTS[@]}") ;;
    *)
      echo "usage: scripts/setup.sh components estate|containerized" >&2
      exit 2
      ;;
  esac
  for c in "${listed[@]}"; do
    basename "$(tb_dir "$c")"
    [[ "$c" == engine ]] && basename "$TESTBED_PULUMI_HOME"
  done
  exit 0
fi

steps=("$@")
((${#steps[@]})) || steps=(packages npm testbed)
for step in "${steps[@]}"; do
  case "$step" in
    packages) system_packages ;;
    npm) npm_dependencies ;;
    testbed) testbed ;;
    estate) estate ;;
    containerized) containerized ;;
    *)
      echo "unknown step: $step (packages, npm, testbed, estate, containerized)" >&2
      exit 2
      ;;
  esac
done
