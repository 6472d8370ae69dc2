#!/usr/bin/env bash
# `npm run stop`: `pulumi destroy` of the local estate, then every process it started and its directory.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
if [[ ! -x "$repo/node_modules/.bin/ts-node" ]]; then
  echo "[local-estate] node_modules is missing: nothing was started from this checkout" >&2
  exit 0
fi
exec "$repo/node_modules/.bin/ts-node" --transpile-only "$repo/scripts/sandbox/estate.ts" down
