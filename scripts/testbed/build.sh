#!/usr/bin/env bash
# Build the test-bed binaries (etcd, Kubernetes control plane and node, Karmada, CoreDNS,
# local-path-provisioner, our pause) with the ordinary Go toolchain from the Go module proxy, their
# container images (one OCI layout), and install the Pulumi engine (CLI, language hosts, provider plugins)
# from its prebuilt archives after checking their sha256, into a cache dir outside the repo, one
# <name>-<version> dir per component, skipping what is already there.
#
# usage: scripts/testbed/build.sh [component ...]     (default: all, in this order)
#   components: engine etcd kube karmada kube-previous karmada-previous node coredns
#               local-path-provisioner pause images machine-image
#   (the *-previous ones: the oldest catalog release and its kube, for the version-upgrade drill;
#    images packs the binaries of kube etcd karmada pause coredns local-path-provisioner)
# env:
#   PULUMI_KARMADA_CACHE     cache base (default ~/.cache/pulumi-karmada); the test bed is in <base>/testbed
#   PULUMI_KARMADA_ENGINE_DIR  the engine archives + SHA256SUMS (default: ../shared/engine beside the repo)
#   TESTBED_DEADLINE_EPOCH   unix time: a component whose typical build time would cross it is not started
#   TESTBED_GO_P             go build -p (default 2)
#   TESTBED_JOBS             lanes of components built side by side (default 2; 1: one at a time)
#   TESTBED_GOSUMDB          GOSUMDB for the builds (default off, see docs/testbed.md)
set -euo pipefail

# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/lib.sh"
# The image recipe (component images): devkit/images/images.sh.
# shellcheck source-path=SCRIPTDIR source=../../devkit/images/images.sh
. "$TESTBED_DEVKIT_IMAGES/images.sh"
# The machine image's recipe (component machine-image): devkit/machines/image.sh.
# shellcheck source-path=SCRIPTDIR source=../../devkit/machines/image.sh
. "$TESTBED_MACHINE_RECIPE"

usage() {
  sed -n '2,19p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
}

# Typical cold build time of each component in seconds (the upper end of what was measured on
# 2 cores, see docs/testbed.md); used only for the deadline check.
typical_seconds() {
  case "$(tb_kind "$1")" in
    etcd) echo 180 ;;
    engine) echo 60 ;;
    kube) echo 600 ;;
    karmada) echo 600 ;;
    node) echo 600 ;;
    coredns) echo 400 ;;
    local-path-provisioner) echo 450 ;;
    pause) echo 60 ;;
    images) echo 300 ;;
    machine-image) echo 120 ;;
    *) echo 600 ;;
  esac
}

log() { printf '[testbed] %s\n' "$*"; }

# ---------------------------------------------------------------------------------------------
# Go environment
export CGO_ENABLED=0
export GOFLAGS="${GOFLAGS:-} -buildvcs=false"
# The checksum database reachable here answers 404 for many of the pinned module versions
# (pulumi v3.248.0, k8s.io/* v0.35.2, ...): do not consult it (set TESTBED_GOSUMDB to override).
export GOSUMDB="${TESTBED_GOSUMDB:-off}"
GO_P="${TESTBED_GO_P:-2}"
WORK_ROOT="$TESTBED_ROOT/.work"
LOG_DIR="$TESTBED_ROOT/logs"

# go_build OUT PKG [extra ldflags...]: static, trimmed, stripped build.
go_build() {
  local out="$1" pkg="$2"
  shift 2
  go build -p "$GO_P" -mod=mod -trimpath -ldflags "-s -w $*" -o "$out" "$pkg"
}

# go_build_each OUTDIR LDFLAGS PKG...: go_build of several main packages in one go command, so their
# links run side by side (one at a time took minutes of a single core); each lands in OUTDIR as its
# package's last path element.
go_build_each() {
  local out="$1" ld="$2"
  shift 2
  log "go build $*"
  go build -p "$GO_P" -mod=mod -trimpath -ldflags "-s -w $ld" -o "$out/" "$@"
}

# new_wrapper NAME: a fresh, empty wrapper module dir under the cache; prints its path.
new_wrapper() {
  local w="$WORK_ROOT/$1"
  chmod -R u+w "$w" 2>/dev/null || true
  rm -rf "$w"
  mkdir -p "$w"
  (cd "$w" && go mod init "local/testbed-$1" >/dev/null 2>&1)
  echo "$w"
}

# gomod_of MODULE@VERSION: path of that module version's go.mod in the module cache.
gomod_of() {
  go mod download -json "$1" | jq -r '.GoMod // empty'
}

# copy_remote_replaces GOMOD: add to the current module every replace of GOMOD whose target is a
# module (not a local path); local ones are handled by the caller.
copy_remote_replaces() {
  local line
  while IFS= read -r line; do
    [[ -n "$line" ]] && go mod edit -replace="$line"
  done < <(go mod edit -json "$1" | jq -r '.Replace // [] | .[]
      | select(.New.Version != null)
      | "\(.Old.Path)\(if .Old.Version then "@" + .Old.Version else "" end)=\(.New.Path)@\(.New.Version)"')
}

# ---------------------------------------------------------------------------------------------
# Component builders. Each runs in a subshell with `set -e`, cwd unspecified, output in the log;
# $1 is the component's cache dir (bin/ exists and is empty).

build_etcd() {
  local out="$1/bin" w m
  w="$(new_wrapper "etcd-$ETCD_VERSION")"
  cd "$w"
  go get "go.etcd.io/etcd/server/v3@$ETCD_VERSION" "go.etcd.io/etcd/etcdctl/v3@$ETCD_VERSION" \
    "go.etcd.io/etcd/etcdutl/v3@$ETCD_VERSION"
  for m in server etcdctl etcdutl; do
    local name="$m"
    [[ "$m" == server ]] && name=etcd
    log "go build $name"
    go_build "$out/$name" "go.etcd.io/etcd/$m/v3"
  done
  "$out/etcd" --version
}

# verify_engine_archives SRC: every archive the engine needs is in SRC and matches SRC/SHA256SUMS.
# A missing or tampered file is an error naming it; nothing is installed from an unverified archive.
verify_engine_archives() {
  local src="$1" name expected actual p
  [[ -f "$src/SHA256SUMS" ]] || {
    echo "engine archives: $src/SHA256SUMS is missing (set PULUMI_KARMADA_ENGINE_DIR to the directory holding the Pulumi engine archives)" >&2
    return 1
  }
  for p in cli "${TESTBED_PLUGINS[@]}"; do
    name="$(tb_engine_archive "$p")"
    expected="$(awk -v f="$name" '$2 == f || $2 == "*" f { print $1 }' "$src/SHA256SUMS")"
    [[ -n "$expected" ]] || {
      echo "engine archive $src/$name: not listed in $src/SHA256SUMS" >&2
      return 1
    }
    [[ -f "$src/$name" ]] || {
      echo "engine archive $src/$name: missing" >&2
      return 1
    }
    actual="$(sha256sum "$src/$name" | cut -d' ' -f1)"
    [[ "$actual" == "$expected" ]] || {
      echo "engine archive $src/$name: sha256 mismatch (SHA256SUMS says $expected, the file is $actual): refusing to install it" >&2
      return 1
    }
  done
}

# The Pulumi engine from prebuilt archives: the CLI bundle (CLI and language hosts side by side, which is
# how the CLI finds the hosts) extracted into bin/, then each provider plugin installed with the CLI's own
# `pulumi plugin install ... --file` into the test bed's Pulumi home.
build_engine() {
  local dir="$1" src="$TESTBED_ENGINE_SOURCE" p
  verify_engine_archives "$src"
  mkdir -p "$dir/.extract"
  tar -xJf "$src/$(tb_engine_archive cli)" -C "$dir/.extract"
  mv "$dir/.extract/pulumi/"* "$dir/bin/"
  rm -rf "$dir/.extract"
  export PULUMI_HOME="$TESTBED_PULUMI_HOME"
  set -a
  # shellcheck source-path=SCRIPTDIR source=engine.env
  . "$TESTBED_SCRIPT_DIR/engine.env"
  set +a
  mkdir -p "$PULUMI_HOME"
  for p in "${TESTBED_PLUGINS[@]}"; do
    rm -rf "$(tb_plugin_dir "$p")" "$(tb_plugin_dir "$p").lock"
    "$dir/bin/pulumi" plugin install resource "$p" "$(tb_version "$p")" --file "$src/$(tb_engine_archive "$p")"
  done
  "$dir/bin/pulumi" version
  "$dir/bin/pulumi" plugin ls
  cp "$src/SHA256SUMS" "$dir/SHA256SUMS"
}

# staging_version MODULE v0.N.P: v0.N.P if the Go module proxy serves it, else the nearest lower
# patch release it serves (k8s.io/kube-controller-manager and k8s.io/externaljwt v0.35.2 are
# withheld; their v0.35.1 differ from v0.35.2 only in go.mod/go.sum, or not at all).
staging_version() {
  local m="$1" v="$2" base patch p
  base="${v%.*}"
  patch="${v##*.}"
  for ((p = patch; p >= 0; p--)); do
    if go mod download "$m@$base.$p" >/dev/null 2>&1; then
      ((p == patch)) || log "NOTE: $m@$v is not served by the Go module proxy; using $base.$p" >&2
      echo "$base.$p"
      return 0
    fi
  done
  echo "no version of $m <= $v is served by the Go module proxy" >&2
  return 1
}

# kube_wrapper NAME VERSION: a fresh wrapper module requiring k8s.io/kubernetes VERSION, cwd set to it.
# k8s.io/kubernetes replaces each staging module with ./staging/src/k8s.io/<name>: point each one at the
# published k8s.io/<name> v0.<minor>.<patch> instead; keep remote replaces as they are.
kube_wrapper() {
  local version="$2" w gomod line staging="v0.${2#v*.}"
  w="$(new_wrapper "$1")"
  cd "$w"
  gomod="$(gomod_of "k8s.io/kubernetes@$version")"
  copy_remote_replaces "$gomod"
  while IFS= read -r line; do
    case "$line" in k8s.io/sample-*) continue ;; esac # examples, not used by the binaries
    go mod edit -replace="$line=$line@$(staging_version "$line" "$staging")"
  done < <(go mod edit -json "$gomod" | jq -r '.Replace // [] | .[] | select(.New.Version == null) | .Old.Path')
  go mod edit -require="k8s.io/kubernetes@$version"
}

# kube_ldflags VERSION: the version stamps `make` would set (what --version prints), fixed build date.
kube_ldflags() {
  local version="$1" minor p
  minor="${version#v*.}"
  minor="${minor%%.*}"
  for p in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    printf ' -X %s' "$p.gitVersion=$version" "$p.gitMajor=1" "$p.gitMinor=$minor" "$p.gitTreeState=clean" \
      "$p.buildDate=1970-01-01T00:00:00Z"
  done
}

# kube_build OUT NAME VERSION CMD...: build k8s.io/kubernetes/cmd/<CMD> at VERSION into OUT/<CMD>, in the
# wrapper module NAME.
kube_build() {
  local out="$1" name="$2" version="$3" b ld pkgs=()
  shift 3
  kube_wrapper "$name" "$version"
  for b in "$@"; do pkgs+=("k8s.io/kubernetes/cmd/$b@$version"); done
  go get "${pkgs[@]}"
  ld="$(kube_ldflags "$version")"
  pkgs=()
  for b in "$@"; do pkgs+=("k8s.io/kubernetes/cmd/$b"); done
  go_build_each "$out" "$ld" "${pkgs[@]}"
}

# The control plane: kube-apiserver and kube-controller-manager ($2: the version, for kube-previous).
build_kube() {
  local version="${2:-$KUBE_VERSION}"
  kube_build "$1/bin" "kube-$version" "$version" kube-apiserver kube-controller-manager
  "$1/bin/kube-apiserver" --version
}

# What a real node runs besides the container runtime, and kubectl: always KUBE_VERSION.
build_node() {
  kube_build "$1/bin" "node-$KUBE_VERSION" "$KUBE_VERSION" kubelet kube-proxy kube-scheduler kubectl
  "$1/bin/kubelet" --version
  "$1/bin/kubectl" version --client
}

build_karmada() {
  local dir="$1" out="$1/bin" w c name moddir KARMADA_VERSION="${2:-$KARMADA_VERSION}"
  w="$(new_wrapper "karmada-$KARMADA_VERSION")"
  cd "$w"
  go mod edit -require="github.com/karmada-io/karmada@$KARMADA_VERSION"
  # every component and addon (cmd/ dir names; karmada-search's dir has the prefix already)
  local cmds=(controller-manager scheduler webhook aggregated-apiserver agent karmadactl descheduler karmada-search
    metrics-adapter scheduler-estimator)
  local pkgs=()
  for c in "${cmds[@]}"; do pkgs+=("github.com/karmada-io/karmada/cmd/$c@$KARMADA_VERSION"); done
  go get "${pkgs[@]}"
  pkgs=()
  for c in "${cmds[@]}"; do pkgs+=("github.com/karmada-io/karmada/cmd/$c"); done
  go_build_each "$out" "-X github.com/karmada-io/karmada/pkg/version.gitVersion=$KARMADA_VERSION \
-X github.com/karmada-io/karmada/pkg/version.gitTreeState=clean" "${pkgs[@]}"
  for c in "${cmds[@]}"; do # cmd/<dir> → the release's binary name
    name="karmada-${c#karmada-}"
    [[ "$c" == karmadactl ]] && name=karmadactl
    [[ "$c" == "$name" ]] || mv "$out/$c" "$out/$name"
  done
  "$out/karmadactl" version

  # CRD bundle, laid out like the release asset crds.tar.gz: crds/{bases,patches,...}.
  moddir="$(go list -m -f '{{.Dir}}' github.com/karmada-io/karmada)"
  rm -rf "$w/crds"
  cp -r "$moddir/charts/karmada/_crds" "$w/crds"
  chmod -R u+w "$w/crds"
  tar --sort=name --owner=0 --group=0 --numeric-owner --mtime=@0 -czf "$dir/crds.tar.gz" -C "$w" crds
  tar -tzf "$dir/crds.tar.gz" | sed -n 1,5p
}

# go_module_build DIR NAME MODULE@VERSION [ldflags...]: build the main package at a module's root (no
# replace directives to carry over) into DIR/bin/NAME, in a wrapper module.
go_module_build() {
  local dir="$1" name="$2" modver="$3"
  shift 3
  local w
  w="$(new_wrapper "$name-${modver#*@}")"
  cd "$w"
  go mod edit -require="$modver"
  go get "$modver"
  log "go build $name"
  go_build "$dir/bin/$name" "${modver%@*}" "$@"
}

# CoreDNS: its version is a constant (coremain.CoreVersion); GitCommit, which `make` sets from git, stays
# empty (there is no checkout).
build_coredns() {
  go_module_build "$1" coredns "github.com/coredns/coredns@$COREDNS_VERSION"
  "$1/bin/coredns" -version
}

build_local_path_provisioner() {
  go_module_build "$1" local-path-provisioner \
    "github.com/rancher/local-path-provisioner@$LOCAL_PATH_PROVISIONER_VERSION" \
    "-X main.VERSION=$LOCAL_PATH_PROVISIONER_VERSION"
  "$1/bin/local-path-provisioner" --version
}

# Our own pause (devkit/images/pause: no dependencies, built in place). source.sha256 records which source
# it was built from (tb_present).
build_pause() {
  cd "$TESTBED_DEVKIT_IMAGES/pause"
  log "go build pause"
  GOWORK=off go build -trimpath -ldflags "-s -w -X main.version=$PAUSE_VERSION" -o "$1/bin/pause" .
  "$1/bin/pause" -v
  echo "$TESTBED_PAUSE_KEY" >"$1/source.sha256"
}

# The container images of everything above (devkit/images/images.sh).
build_images() {
  images_build "$1"
  cat "$1/images.tsv"
}

# The systemd machines' root filesystem (devkit/machines/image.sh), from Debian's package registry.
build_machine_image() {
  machine_image_build "$1"
  log "machine image: $(wc -l <"$1/packages.txt") packages, $(cat "$1/size")"
}

# ---------------------------------------------------------------------------------------------

declare -a REQUESTED=() FAILED=() NOT_STARTED=()
declare -A TIMES=()
RESULTS=""

# run_component COMPONENT: build one component unless present or past the deadline.
run_component() {
  local c="$1" v d logf start rc now est took
  v="$(tb_version "$c")"
  d="$(tb_dir "$c")"
  logf="$LOG_DIR/$c-$v.log"
  if tb_present "$c"; then
    log "$c $v: already built ($d)"
    record "$c" present
    return 0
  fi
  if [[ -n "${TESTBED_DEADLINE_EPOCH:-}" ]]; then
    now="$(date +%s)"
    est="$(typical_seconds "$c")"
    if ((now + est > TESTBED_DEADLINE_EPOCH)); then
      log "!!! NOT STARTING $c $v: typical build time ${est}s would cross TESTBED_DEADLINE_EPOCH ($((TESTBED_DEADLINE_EPOCH - now))s left)"
      record "$c" not-started "deadline: needs ~${est}s, $((TESTBED_DEADLINE_EPOCH - now))s left"
      return 0
    fi
  fi
  if [[ "$c" == engine && ! -d "$TESTBED_ENGINE_SOURCE" ]] && command -v pulumi >/dev/null; then
    # a machine without the archives but with Pulumi installed the usual way: use that one
    log "engine: no archives at $TESTBED_ENGINE_SOURCE; using $(command -v pulumi) ($(pulumi version 2>/dev/null))"
    record "$c" present
    return 0
  fi
  log "building $c $v … (log: $logf)"
  start="$(date +%s)"
  rm -rf "$d"
  mkdir -p "$d/bin" "$LOG_DIR"
  set +e
  (
    set -euo pipefail
    kind="$(tb_kind "$c")" # build_<kind>, "-" as "_"
    "build_${kind//-/_}" "$d" "$v"
  ) >"$logf" 2>&1
  rc=$?
  set -e
  took=$(($(date +%s) - start))
  if ((rc == 0)); then
    date -u +%Y-%m-%dT%H:%M:%SZ >"$d/.done"
    log "building $c $v … done in ${took}s"
    record "$c" built "$took"
  else
    log "building $c $v … FAILED after ${took}s (exit $rc); last lines of $logf:"
    tail -n 25 "$logf" | sed 's/^/    | /'
    record "$c" failed "$took"
  fi
}

# record COMPONENT OUTCOME [SECONDS|REASON]: one line of this run's results (lanes run in subshells).
record() {
  printf '%s\t%s\t%s\n' "$1" "$2" "${3:-}" >>"$RESULTS"
}

# Lanes built side by side (TESTBED_JOBS=2): cold, one lane alone leaves a core idle through module
# downloads, links and apt. Components sharing a Go build cache stay in one lane (node after kube reuses
# its packages; the same package compiled in two lanes at once is compiled twice); the lanes are balanced
# by the cold times in docs/testbed.md. Components of no lane (images, which packs the others) run after.
LANES=("engine etcd kube node karmada-previous coredns" "machine-image karmada kube-previous local-path-provisioner pause")

# run_lane COMPONENT...: the requested ones among them, in order.
run_lane() {
  local c
  for c in "$@"; do
    [[ " ${REQUESTED[*]} " == *" $c "* ]] && run_component "$c"
  done
  return 0
}

main() {
  local c requested=()
  for c in "$@"; do
    case "$c" in
      -h | --help)
        usage
        return 0
        ;;
      all) requested+=("${TESTBED_COMPONENTS[@]}") ;;
      *)
        if ! tb_version "$c" >/dev/null; then
          echo "unknown component: $c (known: ${TESTBED_COMPONENTS[*]})" >&2
          return 2
        fi
        requested+=("$c")
        ;;
    esac
  done
  if ((${#requested[@]} == 0)); then
    requested=("${TESTBED_COMPONENTS[@]}")
  fi

  if [[ " ${requested[*]} " != " engine " ]]; then # the Go-built components need go and jq
    command -v go >/dev/null || {
      echo "go is not on PATH: the test-bed binaries are built from Go modules (install Go, or set PULUMI_KARMADA_SKIP_E2E=1)" >&2
      return 1
    }
    command -v jq >/dev/null || {
      echo "jq is not on PATH (apt-get install -y jq)" >&2
      return 1
    }
  fi
  mkdir -p "$TESTBED_ROOT" "$LOG_DIR" "$WORK_ROOT"
  # One build at a time per cache (a second one waits, then skips what the first one built).
  exec 9>"$TESTBED_ROOT/.build.lock"
  if ! flock -n 9; then
    log "another build.sh is using $TESTBED_ROOT; waiting for it to finish"
    flock 9
  fi
  local t0
  t0="$(date +%s)"
  local jobs="${TESTBED_JOBS:-2}" lane pids=() outcome detail
  log "cache: $TESTBED_ROOT ($(go version 2>/dev/null | cut -d' ' -f3), -p $GO_P, $jobs lane(s))"
  RESULTS="$(mktemp)"
  REQUESTED=("${requested[@]}")
  if ((jobs > 1)); then
    for lane in "${LANES[@]}"; do
      # shellcheck disable=SC2086 # a lane is a list of components
      run_lane $lane &
      pids+=("$!")
    done
    wait "${pids[@]}"
    for c in "${requested[@]}"; do
      [[ " ${LANES[*]} " == *" $c "* ]] || run_component "$c"
    done
  else
    for c in "${requested[@]}"; do run_component "$c"; done
  fi
  while IFS=$'\t' read -r c outcome detail; do
    case "$outcome" in
      built) TIMES[$c]="$detail" ;;
      failed) TIMES[$c]="$detail" FAILED+=("$c") ;;
      not-started) NOT_STARTED+=("$c ($detail)") ;;
    esac
  done <"$RESULTS"
  rm -f "$RESULTS"

  echo
  log "summary (took $(($(date +%s) - t0))s):"
  for c in "${TESTBED_COMPONENTS[@]}"; do
    local state="missing" extra=""
    tb_present "$c" && state="present"
    [[ -n "${TIMES[$c]:-}" ]] && extra=" (this run: ${TIMES[$c]}s)"
    printf '  %-22s %-20s %-8s%s\n' "$c" "$(tb_version "$c")" "$state" "$extra"
  done
  if ((${#NOT_STARTED[@]})); then
    echo
    log "!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!"
    log "!!! NOT BUILT because of TESTBED_DEADLINE_EPOCH:"
    for c in "${NOT_STARTED[@]}"; do log "!!!   $c"; done
    log "!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!"
  fi
  if ((${#FAILED[@]})); then
    echo
    log "FAILED: ${FAILED[*]} (logs in $LOG_DIR)"
    return 1
  fi
  return 0
}

main "$@"
