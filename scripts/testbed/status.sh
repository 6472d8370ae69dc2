#!/usr/bin/env bash
# Print which test-bed components are built (one line each) and exit 0.
# usage: scripts/testbed/status.sh [--json]
#   --json   one JSON object: {"root": ..., "components": [{"name","version","present","dir","bin"}...],
#            "present": [...], "missing": [...], "karmadaCrds": ..., "k8sOpenapi": ...,
#            "imagesOci": <OCI image layout dir>, "imagesList": <images.tsv>}
set -euo pipefail

# shellcheck source-path=SCRIPTDIR source=env.sh
. "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/env.sh"

json_str() {
  local s="$1"
  s="${s//\\/\\\\}"
  s="${s//\"/\\\"}"
  printf '"%s"' "$s"
}

json_list() {
  local first=1 x
  printf '['
  for x in "$@"; do
    ((first)) || printf ','
    first=0
    json_str "$x"
  done
  printf ']'
}

# lab_status: the labs of real nodes (devkit/lab) that are up, each cluster's nodes and whether they are
# Ready (kubectl as the cluster's admin). Details and teardown: devkit/lab/cli.ts status|down <lab>.
lab_status() {
  local lab dir kubeconfig cluster
  for lab in e2e sandbox; do
    dir="$(dirname "$TESTBED_ROOT")/labs/$lab"
    if [[ ! -e "/run/netns/pk-$lab" ]]; then
      echo "lab $lab: not running"
      continue
    fi
    echo "lab $lab: up ($dir)"
    for kubeconfig in "$dir"/clusters/*/admin.kubeconfig; do
      [[ -f "$kubeconfig" ]] || continue
      cluster="$(basename "$(dirname "$kubeconfig")")"
      printf '  %-10s %s\n' "$cluster" "$(timeout 5 kubectl --kubeconfig "$kubeconfig" get nodes \
        -o 'jsonpath={range .items[*]}{.metadata.name}={.status.conditions[?(@.type=="Ready")].status} {end}' 2>/dev/null ||
        echo "(API not answering)")"
    done
  done
}

case "${1:-}" in
  --json)
    printf '{"root":%s,"components":[' "$(json_str "$TESTBED_ROOT")"
    first=1
    for c in "${TESTBED_COMPONENTS[@]}"; do
      ((first)) || printf ','
      first=0
      present=false
      tb_present "$c" && present=true
      printf '{"name":%s,"version":%s,"present":%s,"dir":%s,"bin":%s}' "$(json_str "$c")" \
        "$(json_str "$(tb_version "$c")")" "$present" "$(json_str "$(tb_dir "$c")")" \
        "$(json_str "$(tb_dir "$c")/bin")"
    done
    # shellcheck disable=SC2086 # space-separated lists
    printf '],"present":%s,"missing":%s,"karmadaCrds":%s,"k8sOpenapi":%s,"imagesOci":%s,"imagesList":%s}\n' \
      "$(json_list $TESTBED_COMPONENTS_PRESENT)" "$(json_list $TESTBED_COMPONENTS_MISSING)" \
      "$(json_str "$TESTBED_KARMADA_CRDS")" "$(json_str "$TESTBED_K8S_OPENAPI")" \
      "$(json_str "$TESTBED_IMAGES_OCI")" "$(json_str "$TESTBED_IMAGES_LIST")"
    ;;
  "")
    echo "test bed: $TESTBED_ROOT"
    for c in "${TESTBED_COMPONENTS[@]}"; do
      state=missing
      tb_present "$c" && state=present
      printf '%-22s %-20s %-8s %s\n' "$c" "$(tb_version "$c")" "$state" "$(tb_dir "$c")"
    done
    echo "images: $TESTBED_IMAGES_LIST (OCI layout: $TESTBED_IMAGES_OCI)"
    echo "engine archives: $TESTBED_ENGINE_SOURCE; plugins in $TESTBED_PULUMI_HOME: $(for p in "${TESTBED_PLUGINS[@]}"; do printf '%s %s ' "$p" "$(tb_version "$p")"; done)"
    lab_status
    ;;
  -h | --help)
    sed -n '2,6p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
    ;;
  *)
    echo "unknown option: $1 (use --json)" >&2
    exit 2
    ;;
esac
exit 0
