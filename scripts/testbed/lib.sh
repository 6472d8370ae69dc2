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
# shellcheck disable=SC2034 # used by the scripts that source this file
TESTBED_COMPONENTS=(engine etcd kube karmada kube-previous karmada-previous)

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
    *) return 1 ;;
  esac
}

# tb_kind COMPONENT: what the component builds (kube-previous is kube at another version).
tb_kind() {
  echo "${1%-previous}"
}

# tb_dir COMPONENT: cache directory of the component (holds bin/ and the .done stamp).
tb_dir() {
  local v
  v="$(tb_version "$1")" || return 1
  echo "$TESTBED_ROOT/$(tb_kind "$1")-$v"
}

# tb_bins COMPONENT: the binaries the component puts into its bin/ dir.
tb_bins() {
  case "$(tb_kind "$1")" in
    etcd) echo "etcd etcdctl etcdutl" ;;
    engine) echo "pulumi pulumi-language-nodejs pulumi-resource-pulumi-nodejs" ;;
    kube) echo "kube-apiserver kube-controller-manager" ;;
    karmada) echo "karmada-controller-manager karmada-scheduler karmada-webhook karmada-aggregated-apiserver karmada-agent karmadactl karmada-descheduler" ;;
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
  if [[ "$(tb_kind "$1")" == karmada ]]; then
    [[ -f "$d/crds.tar.gz" ]] || return 1
  fi
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
