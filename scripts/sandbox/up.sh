#!/usr/bin/env bash
# `npm start`: the local Karmada estate, deployed by `pulumi up` with the real engine — HA etcd on three
# systemd machines, the control plane on two more behind HAProxy, two push and one pull member clusters.
# Sets up what it needs first (scripts/setup.sh). Again: no changes; `--preview`: the diff only.
# Settings: Pulumi.local.yaml. Code: scripts/sandbox/estate.ts. Stop and remove: npm run stop.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
"$repo/scripts/setup.sh" packages npm estate
exec "$repo/node_modules/.bin/ts-node" --transpile-only "$repo/scripts/sandbox/estate.ts" up "$@"
