#!/usr/bin/env bash
# `npm run stop:containerized`: `pulumi destroy` of the sandbox stack (the sample removed from Karmada
# first), then the sandbox lab — every process, mount, cgroup, network namespace and file it made.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
exec "$repo/node_modules/.bin/ts-node" --transpile-only "$repo/scripts/sandbox/containerized.ts" down "$@"
