#!/usr/bin/env bash
# Stop the containerized sandbox (`npm run stop:containerized`): `pulumi destroy` of the sandbox stack, stop the loopback
# clusters, and remove everything under the sandbox directory (state, clusters, CA, kubeconfigs).
#
# usage: scripts/sandbox/containerized-down.sh      Settings: scripts/sandbox/lib.sh.
set -euo pipefail

# shellcheck source=scripts/sandbox/lib.sh
. "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/lib.sh"

if [[ ! -d "$SANDBOX_DIR" ]]; then
  sandbox_log "no sandbox at $SANDBOX_DIR"
  exit 0
fi
sandbox_engine_env

if [[ -x "$PULUMI" && -f "$SANDBOX_PROJECT/Pulumi.$SANDBOX_STACK.yaml" ]]; then
  # destroy talks to the clusters: start them again if they were stopped (their etcd data is kept)
  sandbox_cluster start --name host --address "$SANDBOX_HOST_ADDRESS" --dir "$SANDBOX_DIR/clusters/host" >/dev/null
  sandbox_cluster start --name karmada-api --address "$SANDBOX_KARMADA_ADDRESS" \
    --dir "$SANDBOX_DIR/clusters/karmada-api" --ca-dir "$SANDBOX_DIR/karmada-ca" >/dev/null
  if sandbox_pulumi destroy --yes --stack "$SANDBOX_STACK"; then
    sandbox_pulumi stack rm --yes --stack "$SANDBOX_STACK"
  else
    # everything below is removed anyway: the state and both clusters are local to this directory
    sandbox_log "pulumi destroy failed; removing the sandbox regardless"
  fi
else
  sandbox_log "no pulumi CLI or no sandbox stack: skipping pulumi destroy"
fi

sandbox_cluster stop --dir "$SANDBOX_DIR/clusters/karmada-api"
sandbox_cluster stop --dir "$SANDBOX_DIR/clusters/host"
rm -rf "$SANDBOX_DIR"
sandbox_log "sandbox removed"
