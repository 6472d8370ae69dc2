#!/usr/bin/env bash
# `npm run start:containerized`: the containerized Karmada estate on real nodes — the sandbox lab (a host
# cluster of three kubelet + containerd nodes, two one-node member clusters, a registry holding every
# image the test bed built) and `pulumi up` of the stacks program's `sandbox` stack onto it: etcd and the
# control plane as pods, a push and a pull member, the sample workload running in both members.
# Sets up what it needs first (scripts/setup.sh). Again: no changes; `--preview`: the diff only.
# Settings: Pulumi.sandbox.yaml. Code: scripts/sandbox/containerized.ts. Stop and remove: npm run stop:containerized.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
"$repo/scripts/setup.sh" packages npm containerized
exec "$repo/node_modules/.bin/ts-node" --transpile-only "$repo/scripts/sandbox/containerized.ts" up "$@"
