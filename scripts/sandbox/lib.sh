# shellcheck shell=bash
# Shared settings of scripts/sandbox/containerized-up.sh and containerized-down.sh (the kubelet-less
# containerized sandbox, `npm run start:containerized`). Sourced: defines variables and functions only.
#
# env:
#   PULUMI_KARMADA_CACHE       cache base (default ~/.cache/pulumi-karmada); the sandbox lives in <base>/sandbox
#   SANDBOX_HOST_ADDRESS       loopback address of the host cluster (default 127.0.3.10)
#   SANDBOX_KARMADA_ADDRESS    loopback address of the karmada-apiserver stand-in (default 127.0.3.11)
#   PULUMI_CONFIG_PASSPHRASE   passphrase of the sandbox stack's secrets (default: a fixed local one)

SANDBOX_REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
SANDBOX_CACHE="${PULUMI_KARMADA_CACHE:-$HOME/.cache/pulumi-karmada}"
SANDBOX_DIR="$SANDBOX_CACHE/containerized-sandbox"
SANDBOX_STACK=sandbox
SANDBOX_HOST_ADDRESS="${SANDBOX_HOST_ADDRESS:-127.0.3.10}"
SANDBOX_KARMADA_ADDRESS="${SANDBOX_KARMADA_ADDRESS:-127.0.3.11}"
# Project copy: Pulumi.yaml + links to the program; the stack config written there, never into the repo.
SANDBOX_PROJECT="$SANDBOX_DIR/project"
SANDBOX_KARMADA_KUBECONFIG="$SANDBOX_DIR/karmada-apiserver.kubeconfig"

sandbox_log() { printf '[sandbox] %s\n' "$*" >&2; }

# sandbox_cluster ARGS...: the loopback-cluster helper (scripts/sandbox/cluster.ts).
sandbox_cluster() {
  "$SANDBOX_REPO/node_modules/.bin/ts-node" --transpile-only "$SANDBOX_REPO/scripts/sandbox/cluster.ts" "$@"
}

# sandbox_engine_env: the environment pulumi runs in: the test bed's CLI and provider plugins (installed
# from ../shared/engine by scripts/testbed/build.sh), else a pulumi installed the usual way. Sets PULUMI.
sandbox_engine_env() {
  # shellcheck source=scripts/testbed/env.sh
  . "$SANDBOX_REPO/scripts/testbed/env.sh"
  if testbed_has engine; then
    PULUMI="$TESTBED_PULUMI_BIN/pulumi"
  else
    PULUMI="$(command -v pulumi || true)"
    unset PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION # a usual install fetches its plugins itself
  fi
  export PULUMI_BACKEND_URL="file://$SANDBOX_DIR/state"
  export PULUMI_CONFIG_PASSPHRASE="${PULUMI_CONFIG_PASSPHRASE:-pulumi-karmada-sandbox}"
  export PULUMI_SKIP_UPDATE_CHECK=true
  # tsc type-checks the program; the engine just runs it
  export PULUMI_NODEJS_TRANSPILE_ONLY=true
}

# sandbox_require_engine: stop loudly when there is no Pulumi engine at all.
sandbox_require_engine() {
  [[ -n "$PULUMI" ]] && return 0
  sandbox_log "no Pulumi engine: run scripts/testbed/build.sh engine (or install Pulumi), then try again"
  return 1
}

# sandbox_pulumi ARGS...: pulumi in the sandbox project.
sandbox_pulumi() {
  (cd "$SANDBOX_PROJECT" && "$PULUMI" --non-interactive "$@")
}
