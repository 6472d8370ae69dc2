#!/usr/bin/env bash
# `npm test`: sets up what the tests need (scripts/setup.sh: system packages, npm dependencies, the test
# bed with the Pulumi engine), then runs jest: the unit tier, then the e2e tier (real sshd, etcd,
# kube-apiserver, Karmada and the Pulumi engine). Arguments go to jest (e.g. --selectProjects unit).
#   PULUMI_KARMADA_SKIP_E2E=1  users without Go: build only the engine; e2e suites are skipped (NOT RUN)
#   PULUMI_KARMADA_NO_GO=1     also skip the unit suites that read upstream Go modules
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
if [[ "${PULUMI_KARMADA_SKIP_E2E:-}" == 1 ]]; then
  scripts/setup.sh packages npm
  scripts/testbed/build.sh engine # needs no Go: the unit tier checks the installed plugins
else
  scripts/setup.sh
fi
exec node_modules/.bin/jest "$@"
