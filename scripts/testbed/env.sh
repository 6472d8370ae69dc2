# shellcheck shell=bash
# Source this (bash) to use the test bed built by scripts/testbed/build.sh:
#   . scripts/testbed/env.sh            (works from any cwd)
# Exports PATH (the bin dirs of the engine, etcd, kube, node, karmada in front), PULUMI_HOME (where the
# provider plugins are installed at their exact versions), the Pulumi offline settings, one
# TESTBED_*_BIN variable per component, TESTBED_COMPONENTS_PRESENT /
# TESTBED_COMPONENTS_MISSING (space-separated), TESTBED_KARMADA_CRDS, TESTBED_K8S_OPENAPI,
# TESTBED_IMAGES_DIR / TESTBED_IMAGES_OCI / TESTBED_IMAGES_LIST (the container images), and
# the function testbed_has COMPONENT... (true when all of them are built).
# Does not change shell options and never fails: missing components are just listed as missing.

# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/lib.sh"

export TESTBED_ROOT
export TESTBED_ETCD_BIN TESTBED_PULUMI_BIN TESTBED_KUBE_BIN TESTBED_KARMADA_BIN TESTBED_ENGINE_SOURCE
TESTBED_ETCD_BIN="$(tb_dir etcd)/bin"
TESTBED_PULUMI_BIN="$(tb_dir engine)/bin"
TESTBED_KUBE_BIN="$(tb_dir kube)/bin"
TESTBED_KARMADA_BIN="$(tb_dir karmada)/bin"
# The oldest catalog release and its kube (the version-upgrade drill); never on PATH.
export TESTBED_KUBE_PREVIOUS_BIN TESTBED_KARMADA_PREVIOUS_BIN TESTBED_KARMADA_PREVIOUS_CRDS
TESTBED_KUBE_PREVIOUS_BIN="$(tb_dir kube-previous)/bin"
TESTBED_KARMADA_PREVIOUS_BIN="$(tb_dir karmada-previous)/bin"
TESTBED_KARMADA_PREVIOUS_CRDS="$(tb_dir karmada-previous)/crds.tar.gz"

# What a real node runs (kubelet, kube-proxy, kube-scheduler; kubectl), on PATH; and the binaries that
# run inside the images (CoreDNS, local-path-provisioner, our pause), off PATH.
export TESTBED_NODE_BIN TESTBED_COREDNS_BIN TESTBED_LOCAL_PATH_PROVISIONER_BIN TESTBED_PAUSE_BIN
TESTBED_NODE_BIN="$(tb_dir node)/bin"
TESTBED_COREDNS_BIN="$(tb_dir coredns)/bin"
TESTBED_LOCAL_PATH_PROVISIONER_BIN="$(tb_dir local-path-provisioner)/bin"
TESTBED_PAUSE_BIN="$(tb_dir pause)/bin"
# The container images (docs/testbed.md): their component dir, the OCI image layout holding all of them
# (`skopeo copy oci:$TESTBED_IMAGES_OCI:<ref> docker://<registry>/<ref>`), and images.tsv, one line per
# image: <ref> TAB <upstream ref it stands for> TAB <what is inside>.
export TESTBED_IMAGES_DIR TESTBED_IMAGES_OCI TESTBED_IMAGES_LIST
TESTBED_IMAGES_DIR="$(tb_dir images)"
TESTBED_IMAGES_OCI="$TESTBED_IMAGES_DIR/oci"
TESTBED_IMAGES_LIST="$TESTBED_IMAGES_DIR/images.tsv"

# The systemd machines' root filesystem (devkit/machines/image.sh); each machine boots it under an overlay.
export TESTBED_MACHINE_IMAGE
TESTBED_MACHINE_IMAGE="$(tb_dir machine-image)/rootfs"

# Karmada CRD bundle (same layout as the release asset crds.tar.gz) and the Kubernetes OpenAPI spec
# of the pinned kube version (inside the k8s.io/kubernetes module in the Go module cache).
export TESTBED_KARMADA_CRDS TESTBED_K8S_OPENAPI
TESTBED_KARMADA_CRDS="$(tb_dir karmada)/crds.tar.gz"
TESTBED_K8S_OPENAPI="$(go env GOMODCACHE 2>/dev/null || echo "${GOMODCACHE:-${GOPATH:-$HOME/go}/pkg/mod}")/k8s.io/kubernetes@$KUBE_VERSION/api/openapi-spec/swagger.json"

# The test bed's own Pulumi home (its plugins) is used only when the engine is installed there; otherwise
# a Pulumi installed the usual way (~/.pulumi) keeps its plugins.
if tb_present engine; then export PULUMI_HOME="$TESTBED_PULUMI_HOME"; fi
# the engine's offline settings (one definition, also read by devkit/engine/env.ts)
set -a
# shellcheck source-path=SCRIPTDIR source=engine.env
. "$TESTBED_SCRIPT_DIR/engine.env"
set +a

export TESTBED_COMPONENTS_PRESENT="" TESTBED_COMPONENTS_MISSING=""
for _tb_c in "${TESTBED_COMPONENTS[@]}"; do
  if tb_present "$_tb_c"; then
    TESTBED_COMPONENTS_PRESENT="${TESTBED_COMPONENTS_PRESENT:+$TESTBED_COMPONENTS_PRESENT }$_tb_c"
  else
    TESTBED_COMPONENTS_MISSING="${TESTBED_COMPONENTS_MISSING:+$TESTBED_COMPONENTS_MISSING }$_tb_c"
  fi
done
# Prepend each bin dir once (sourcing twice does not grow PATH); the previous release stays off PATH.
for _tb_c in "${TESTBED_PATH_COMPONENTS[@]}"; do
  _tb_d="$(tb_dir "$_tb_c")/bin"
  case ":$PATH:" in
    *":$_tb_d:"*) ;;
    *) PATH="$_tb_d:$PATH" ;;
  esac
done
unset _tb_c _tb_d
export PATH

# testbed_has COMPONENT...: true when every named component is built (names as in build.sh).
testbed_has() {
  local c
  for c in "$@"; do
    case " $TESTBED_COMPONENTS_PRESENT " in
      *" $c "*) ;;
      *) return 1 ;;
    esac
  done
  return 0
}
