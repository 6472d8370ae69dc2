#!/usr/bin/env bash
# The containerized sandbox (`npm run start:containerized`; `npm start` is the local estate on hosts): a
# Karmada control plane deployed by `pulumi up` of the stacks
# program (stack "sandbox", config Pulumi.sandbox.yaml) to a loopback Kubernetes API "cluster" made of
# real etcd + kube-apiserver + kube-controller-manager processes, with a second kube-apiserver standing
# in for karmada-apiserver. Pods never run (no kubelet): the sandbox shows every object the library
# creates, on real API servers, and lets you preview and apply changes. See docs/sandbox.md.
#
# usage: scripts/sandbox/containerized-up.sh [--preview]
#   again: re-applies (the clusters keep running in the background); --preview: show what `up` would
#   change (after editing Pulumi.sandbox.yaml or the code) without applying it.
# Stop and remove everything with `npm run stop:containerized`. Settings: scripts/sandbox/lib.sh.
set -euo pipefail

mode=up
case "${1:-}" in
  "") ;;
  --preview) mode=preview ;;
  *)
    echo "usage: $0 [--preview]" >&2
    exit 2
    ;;
esac

# shellcheck source=scripts/sandbox/lib.sh
. "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/lib.sh"

# 1. System packages, npm dependencies and the test bed (the engine, etcd, kube-apiserver, Karmada; a first
#    build on a new machine takes ~15 min, later runs skip it).
"$SANDBOX_REPO/scripts/setup.sh" packages npm estate
sandbox_engine_env

# 2. Loopback clusters, kept running in the background (pid files under $SANDBOX_DIR/clusters/*/run).
mkdir -p "$SANDBOX_DIR"
chmod 700 "$SANDBOX_DIR"
sandbox_cluster ca --dir "$SANDBOX_DIR/karmada-ca" --name pulumi-karmada-sandbox-ca
sandbox_log "host cluster on $SANDBOX_HOST_ADDRESS, karmada-apiserver stand-in on $SANDBOX_KARMADA_ADDRESS"
sandbox_cluster start --name host --address "$SANDBOX_HOST_ADDRESS" --dir "$SANDBOX_DIR/clusters/host" >/dev/null
sandbox_cluster start --name karmada-api --address "$SANDBOX_KARMADA_ADDRESS" \
  --dir "$SANDBOX_DIR/clusters/karmada-api" --ca-dir "$SANDBOX_DIR/karmada-ca" >/dev/null

sandbox_require_engine || exit 3
sandbox_log "pulumi: $PULUMI ($("$PULUMI" version))"

# 3. The project copy and the stack config: Pulumi.sandbox.yaml plus what only exists on this machine.
mkdir -p "$SANDBOX_PROJECT" "$SANDBOX_DIR/state"
cp "$SANDBOX_REPO/Pulumi.yaml" "$SANDBOX_PROJECT/Pulumi.yaml"
for entry in stacks node_modules package.json tsconfig.json; do
  ln -sfn "$SANDBOX_REPO/$entry" "$SANDBOX_PROJECT/$entry"
done
config="$SANDBOX_PROJECT/Pulumi.$SANDBOX_STACK.yaml"
salt="$(grep '^encryptionsalt:' "$config" 2>/dev/null || true)"
{
  if [[ -n "$salt" ]]; then printf '%s\n' "$salt"; fi
  cat "$SANDBOX_REPO/Pulumi.sandbox.yaml"
} >"$config.new"
mv "$config.new" "$config"
sandbox_pulumi stack select --create --secrets-provider passphrase "$SANDBOX_STACK"
crds="$TESTBED_KARMADA_CRDS"
[[ -f "$crds" ]] || crds="$SANDBOX_REPO/test/fixtures/crds"
set_config() { sandbox_pulumi config set --stack "$SANDBOX_STACK" "$@"; }
set_config --secret karmada:hostKubeconfig <"$SANDBOX_DIR/clusters/host/kubeconfig"
# cluster.ts names the only context of a cluster's kubeconfig loopback-<name>
set_config --plaintext karmada:hostContext loopback-host
set_config --plaintext --path karmada:controlPlane.apiServer.externalEndpoint "$SANDBOX_KARMADA_ADDRESS:6443"
set_config --plaintext --path karmada:controlPlane.pki.karmadaCa.certPem <"$SANDBOX_DIR/karmada-ca/ca.crt"
set_config --secret --path karmada:controlPlane.pki.karmadaCa.keyPem <"$SANDBOX_DIR/karmada-ca/ca.key"
set_config --plaintext --path karmada:crds.kind path
set_config --plaintext --path karmada:crds.path "$crds"

# 4. Deploy, then hand out the Karmada admin kubeconfig.
if [[ "$mode" == preview ]]; then
  sandbox_pulumi preview --diff --stack "$SANDBOX_STACK"
  exit 0
fi
sandbox_pulumi up --yes --stack "$SANDBOX_STACK"
(
  umask 077
  sandbox_pulumi stack output --stack "$SANDBOX_STACK" --show-secrets adminKubeconfig >"$SANDBOX_KARMADA_KUBECONFIG"
)

karmadactl="karmadactl"
if [[ -x "${TESTBED_KARMADA_BIN:-}/karmadactl" ]]; then karmadactl="$TESTBED_KARMADA_BIN/karmadactl"; fi
cat <<MSG

Sandbox is up.
  Karmada admin kubeconfig: $SANDBOX_KARMADA_KUBECONFIG
    kubectl --kubeconfig $SANDBOX_KARMADA_KUBECONFIG get crds
    kubectl --kubeconfig $SANDBOX_KARMADA_KUBECONFIG api-resources --api-group=policy.karmada.io
    $karmadactl --kubeconfig $SANDBOX_KARMADA_KUBECONFIG api-resources
  Host cluster kubeconfig:  $SANDBOX_DIR/clusters/host/kubeconfig
    kubectl --kubeconfig $SANDBOX_DIR/clusters/host/kubeconfig -n karmada-system get deploy,sts,svc,secrets,pvc
  Change something (Pulumi.sandbox.yaml or the code), then: npm run start:containerized -- --preview (or without --preview)
  Karmada's controllers, scheduler and webhook do not run here (no kubelet), so objects their webhooks
  guard (PropagationPolicy, ...) are refused. Stop and remove everything: npm run stop:containerized
MSG
