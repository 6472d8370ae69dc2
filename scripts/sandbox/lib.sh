# shellcheck shell=bash
# Shared settings of scripts/sandbox/up.sh and down.sh. Sourced: defines variables and functions only.
#
# env:
#   PULUMI_KARMADA_CACHE       cache base (default ~/.cache/pulumi-karmada); the sandbox lives in <base>/sandbox
#   SANDBOX_HOST_ADDRESS       loopback address of the host cluster (default 127.0.3.10)
#   SANDBOX_KARMADA_ADDRESS    loopback address of the karmada-apiserver stand-in (default 127.0.3.11)
#   PULUMI_CONFIG_PASSPHRASE   passphrase of the sandbox stack's secrets (default: a fixed local one)

SANDBOX_REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
SANDBOX_CACHE="${PULUMI_KARMADA_CACHE:-$HOME/.cache/pulumi-karmada}"
SANDBOX_DIR="$SANDBOX_CACHE/sandbox"
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

# sandbox_engine_env: the environment pulumi runs in. A pulumi installed the usual way (on PATH before
# the test bed is added) is used as is; otherwise the test bed's CLI and provider plugins. Sets PULUMI.
sandbox_engine_env() {
  local ambient_pulumi ambient_home="${PULUMI_HOME:-}"
  ambient_pulumi="$(command -v pulumi || true)"
  # shellcheck source=scripts/testbed/env.sh
  . "$SANDBOX_REPO/scripts/testbed/env.sh"
  if [[ -n "$ambient_pulumi" ]]; then
    PULUMI="$ambient_pulumi"
    # the usual installation: its own plugin cache, plugins downloaded as needed
    if [[ -n "$ambient_home" ]]; then export PULUMI_HOME="$ambient_home"; else unset PULUMI_HOME; fi
    unset PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION
  else
    PULUMI=""
  fi
  export PULUMI_BACKEND_URL="file://$SANDBOX_DIR/state"
  export PULUMI_CONFIG_PASSPHRASE="${PULUMI_CONFIG_PASSPHRASE:-pulumi-karmada-sandbox}"
  export PULUMI_SKIP_UPDATE_CHECK=true
  # tsc type-checks the program; the engine just runs it
  export PULUMI_NODEJS_TRANSPILE_ONLY=true
}

# sandbox_require_engine: stop loudly, with the reason, when no Pulumi engine (CLI + Node.js language
# host) can be found. The test bed cannot build one here (scripts/testbed/lib.sh, docs/testbed.md).
sandbox_require_engine() {
  if [[ -n "$PULUMI" ]] && command -v pulumi-language-nodejs >/dev/null; then return 0; fi
  if [[ -n "$PULUMI" && -x "$(dirname "$PULUMI")/pulumi-language-nodejs" ]]; then return 0; fi
  sandbox_log "!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!"
  sandbox_log "!!! SANDBOX NOT DEPLOYED: no Pulumi engine (pulumi + pulumi-language-nodejs) on PATH."
  sandbox_log "!!!   $TESTBED_UNAVAILABLE_REASON"
  sandbox_log "!!! Install Pulumi the usual way (with the plugins listed in scripts/testbed/versions.env)"
  sandbox_log "!!! and run npm start again. The loopback clusters started above keep running; npm run stop removes them."
  sandbox_log "!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!"
  return 1
}

# sandbox_pulumi ARGS...: pulumi in the sandbox project.
sandbox_pulumi() {
  (cd "$SANDBOX_PROJECT" && "$PULUMI" --non-interactive "$@")
}
