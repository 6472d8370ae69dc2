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

# All components, in build order; TESTBED_DEFAULT is what a plain build.sh builds (the Pulumi CLI alone
# cannot run a TypeScript program without the Node.js language host, so it is built only on request).
# shellcheck disable=SC2034 # used by the scripts that source this file
TESTBED_COMPONENTS=(etcd pulumi kube karmada)
# shellcheck disable=SC2034 # used by build.sh
TESTBED_DEFAULT=(etcd kube karmada)
# Why the rest of the real-engine tier cannot be built here (printed by build.sh and status.sh).
# shellcheck disable=SC2034 # used by build.sh and status.sh
TESTBED_UNAVAILABLE_REASON="the Go module proxy withholds github.com/pulumi/pulumi/sdk/nodejs/cmd/pulumi-language-nodejs/v3 and the pulumi-tls, pulumi-random, pulumi-command and pulumi-kubernetes provider modules (\"This module version is not available\"), so the Node.js language host and those plugins cannot be built from Go modules; the real-engine tier runs only where pulumi and its plugins are installed the usual way"

# tb_version COMPONENT: the pinned version (as written in versions.env).
tb_version() {
  case "$1" in
    etcd) echo "$ETCD_VERSION" ;;
    pulumi) echo "$PULUMI_VERSION" ;;
    tls) echo "$TLS_VERSION" ;;
    random) echo "$RANDOM_VERSION" ;;
    command) echo "$COMMAND_VERSION" ;;
    kubernetes) echo "$KUBERNETES_PROVIDER_VERSION" ;;
    kube) echo "$KUBE_VERSION" ;;
    karmada) echo "$KARMADA_VERSION" ;;
    *) return 1 ;;
  esac
}

# tb_dir COMPONENT: cache directory of the component (holds bin/ and the .done stamp).
tb_dir() {
  local v
  v="$(tb_version "$1")" || return 1
  echo "$TESTBED_ROOT/$1-$v"
}

# tb_bins COMPONENT: the binaries the component puts into its bin/ dir.
tb_bins() {
  case "$1" in
    etcd) echo "etcd etcdctl etcdutl" ;;
    pulumi) echo "pulumi pulumi-resource-pulumi-nodejs" ;;
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
  if [[ "$1" == karmada ]]; then
    [[ -f "$d/crds.tar.gz" ]] || return 1
  fi
  return 0
}
