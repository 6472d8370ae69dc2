# shellcheck shell=bash
# Shared definitions for scripts/testbed/*.sh. Sourced (by build.sh, env.sh, status.sh):
# defines variables and functions only, changes no shell options.

TESTBED_SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source-path=SCRIPTDIR source=versions.env
. "$TESTBED_SCRIPT_DIR/versions.env"

TESTBED_CACHE="${PULUMI_KARMADA_CACHE:-$HOME/.cache/pulumi-karmada}"
TESTBED_ROOT="$TESTBED_CACHE/testbed"
# Pulumi home of the test bed: provider plugins are installed here, so the engine finds them offline.
# shellcheck disable=SC2034 # used by env.sh
TESTBED_PULUMI_HOME="$TESTBED_ROOT/pulumi-home"

# All components, in build order; a plain build.sh builds (or installs) all of them. `engine` is the
# Pulumi CLI with its language hosts and the provider plugins, installed from prebuilt archives (below).
# The ones after karmada-previous are for real nodes and container images; `images` packs the binaries of
# the components before it. `machine-image` is the root filesystem the systemd machines boot.
# shellcheck disable=SC2034 # used by the scripts that source this file
TESTBED_COMPONENTS=(engine etcd kube karmada kube-previous karmada-previous node coredns local-path-provisioner
  pause images machine-image)
# The components whose bin dirs env.sh puts on PATH (the others' binaries run inside images, or are an
# older release).
# shellcheck disable=SC2034 # used by env.sh
TESTBED_PATH_COMPONENTS=(engine etcd kube node karmada)

# Our own code in the test bed: the pause program and the image recipe (devkit/images/). Their content is
# part of the cache key of the components built from them (TESTBED_PAUSE_KEY, TESTBED_IMAGES_KEY below).
TESTBED_DEVKIT_IMAGES="$(cd "$TESTBED_SCRIPT_DIR/../.." && pwd)/devkit/images"
# The machine image's recipe (devkit/machines/image.sh): its content is the image's cache key.
TESTBED_MACHINE_RECIPE="$(cd "$TESTBED_SCRIPT_DIR/../.." && pwd)/devkit/machines/image.sh"

# Where the prebuilt Pulumi engine archives are (the CLI bundle, provider plugins, SHA256SUMS): next to the
# repository as ../shared/engine, or PULUMI_KARMADA_ENGINE_DIR. Without them a pulumi installed the usual
# way is used (docs/testbed.md).
# shellcheck disable=SC2034 # used by build.sh and env.sh
TESTBED_ENGINE_SOURCE="${PULUMI_KARMADA_ENGINE_DIR:-$(cd "$TESTBED_SCRIPT_DIR/../../.." && pwd)/shared/engine}"
# Provider plugins of the engine: name and version variable (versions.env), in install order.
# shellcheck disable=SC2034 # used by build.sh and status.sh
TESTBED_PLUGINS=(kubernetes tls random command)

# tb_version COMPONENT: the pinned version (as written in versions.env).
tb_version() {
  case "$1" in
    etcd) echo "$ETCD_VERSION" ;;
    engine) echo "$PULUMI_VERSION" ;;
    tls) echo "$TLS_VERSION" ;;
    random) echo "$RANDOM_VERSION" ;;
    command) echo "$COMMAND_VERSION" ;;
    kubernetes) echo "$KUBERNETES_PROVIDER_VERSION" ;;
    kube) echo "$KUBE_VERSION" ;;
    karmada) echo "$KARMADA_VERSION" ;;
    kube-previous) echo "$KUBE_PREVIOUS_VERSION" ;;
    karmada-previous) echo "$KARMADA_PREVIOUS_VERSION" ;;
    node) echo "$KUBE_VERSION" ;;
    coredns) echo "$COREDNS_VERSION" ;;
    local-path-provisioner) echo "$LOCAL_PATH_PROVISIONER_VERSION" ;;
    pause) echo "$PAUSE_VERSION" ;;
    images) echo "$KARMADA_VERSION-$TESTBED_IMAGES_KEY" ;;
    machine-image) echo "$MACHINE_IMAGE_SUITE-$TESTBED_MACHINE_KEY" ;;
    *) return 1 ;;
  esac
}

# tb_key_of FILE...: short sha256 of the lines on stdin plus the files' content (a cache key).
tb_key_of() {
  local sum
  sum="$({ cat; cat -- "$@" 2>/dev/null; } | sha256sum)"
  echo "${sum:0:12}"
}

# The pause program's source: a change rebuilds the pause component (tb_present compares source.sha256).
TESTBED_PAUSE_KEY="$(tb_key_of "$TESTBED_DEVKIT_IMAGES/pause/go.mod" "$TESTBED_DEVKIT_IMAGES/pause/main.go" </dev/null)"
# The images dir is images-<KARMADA_VERSION>-<key>: the key covers every packed version, the recipe, the
# pause source and the Debian files packed as they are (busybox-static, the CA bundle), so a change of
# any of them makes a new dir.
TESTBED_IMAGES_KEY="$(
  printf '%s\n' "$KUBE_VERSION" "$ETCD_VERSION" "$KARMADA_VERSION" "$COREDNS_VERSION" \
    "$LOCAL_PATH_PROVISIONER_VERSION" "$PAUSE_VERSION" "$BUSYBOX_IMAGE_TAG" "$TESTBED_PAUSE_KEY" |
    tb_key_of "$TESTBED_DEVKIT_IMAGES/images.sh" /bin/busybox /etc/ssl/certs/ca-certificates.crt
)"

# The machine image dir is machine-image-<suite>-<key>: a new recipe makes a new image.
TESTBED_MACHINE_KEY="$(echo "$MACHINE_IMAGE_SUITE" | tb_key_of "$TESTBED_MACHINE_RECIPE")"

# tb_kind COMPONENT: what the component builds (kube-previous is kube at another version).
tb_kind() {
  echo "${1%-previous}"
}

# tb_dir COMPONENT: cache directory of the component (holds bin/ and the .done stamp).
tb_dir() {
  local v
  v="$(tb_version "$1")" || return 1
  echo "$TESTBED_ROOT/${1%-previous}-$v" # tb_kind, without a subshell (env.sh calls this often)
}

# tb_bins COMPONENT: the binaries the component puts into its bin/ dir.
tb_bins() {
  case "$(tb_kind "$1")" in
    etcd) echo "etcd etcdctl etcdutl" ;;
    engine) echo "pulumi pulumi-language-nodejs pulumi-resource-pulumi-nodejs" ;;
    kube) echo "kube-apiserver kube-controller-manager" ;;
    karmada)
      echo "karmada-controller-manager karmada-scheduler karmada-webhook karmada-aggregated-apiserver karmada-agent"
      echo "karmadactl karmada-descheduler karmada-search karmada-metrics-adapter karmada-scheduler-estimator"
      ;;
    node) echo "kubelet kube-proxy kube-scheduler kubectl" ;;
    coredns) echo "coredns" ;;
    local-path-provisioner) echo "local-path-provisioner" ;;
    pause) echo "pause" ;;
    images) ;;        # no binaries: an OCI layout and images.tsv
    machine-image) ;; # no binaries: a root filesystem
    *) return 1 ;;
  esac
}

# tb_present COMPONENT: true when the component is completely built (stamp and binaries).
tb_present() {
  local d b
  d="$(tb_dir "$1")" || return 1
  [[ -f "$d/.done" ]] || return 1
  for b in $(tb_bins "$1"); do
    [[ -x "$d/bin/$b" ]] || return 1
  done
  case "${1%-previous}" in # tb_kind
    karmada) [[ -f "$d/crds.tar.gz" ]] || return 1 ;;
    pause) [[ "$(cat "$d/source.sha256" 2>/dev/null)" == "$TESTBED_PAUSE_KEY" ]] || return 1 ;; # edited source
    images) [[ -f "$d/oci/index.json" && -f "$d/images.tsv" ]] || return 1 ;;
    machine-image) [[ -x "$d/rootfs/lib/systemd/systemd" && -s "$d/packages.txt" ]] || return 1 ;;
  esac
  if [[ "$1" == engine ]]; then
    local p
    # new archives (their SHA256SUMS differs from the one installed) mean a new engine
    if [[ -f "$TESTBED_ENGINE_SOURCE/SHA256SUMS" ]]; then
      cmp -s "$TESTBED_ENGINE_SOURCE/SHA256SUMS" "$d/SHA256SUMS" || return 1
    fi
    for p in "${TESTBED_PLUGINS[@]}"; do
      [[ -x "$(tb_plugin_dir "$p")/pulumi-resource-$p" ]] || return 1
    done
  fi
  return 0
}

# tb_plugin_dir PLUGIN: where `pulumi plugin install` puts a provider plugin in the test bed's Pulumi home.
tb_plugin_dir() {
  echo "$TESTBED_PULUMI_HOME/plugins/resource-$1-v$(tb_version "$1")"
}

# tb_engine_archive NAME: file name of an engine archive (as listed in SHA256SUMS).
tb_engine_archive() {
  case "$1" in
    cli) echo "pulumi-$PULUMI_VERSION-linux-x64.tar.xz" ;;
    *) echo "pulumi-resource-$1-v$(tb_version "$1")-linux-amd64.tar.gz" ;;
  esac
}
