# shellcheck shell=bash
# The test bed's container images, built without Docker from the test bed's own binaries: which image
# holds what (images_table), and how they are written as ONE OCI image layout (deterministic tar layers,
# JSON by jq, digests by sha256sum). Sourced by scripts/testbed/build.sh (component `images`) and by the
# unit tests, after scripts/testbed/lib.sh (versions, tb_dir); defines functions only.
# Any change to this file makes a new images-<version>-<key> cache dir (lib.sh: TESTBED_IMAGES_KEY).

# PATH of every image: the one of upstream's Kubernetes (distroless) images.
IMG_PATH="/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
# Fixed timestamps make the digests depend on the content only.
IMG_CREATED="1970-01-01T00:00:00Z"
IMG_BUSYBOX=/bin/busybox
IMG_CA_BUNDLE=/etc/ssl/certs/ca-certificates.crt

# Every Karmada binary that has an image upstream (docker.io/karmada/karmada-<c>): the catalog's Karmada
# components (lib/catalog/components.ts) minus the apiserver, which runs the kube-apiserver image.
img_karmada_components() {
  echo controller-manager scheduler webhook aggregated-apiserver agent descheduler search metrics-adapter \
    scheduler-estimator
}

# busybox_version: the version of the Debian busybox inside the busybox images (1.35.0 on bookworm,
# whatever the 1.37.0 tag says), or "not installed".
busybox_version() {
  local banner
  banner="$("$IMG_BUSYBOX" 2>/dev/null | head -n 1)" || true
  [[ "$banner" =~ ^BusyBox\ v([0-9.]+) ]] || {
    echo "not installed"
    return 0
  }
  echo "${BASH_REMATCH[1]}"
}

# img_row REF UPSTREAM ENTRYPOINT CMD USER LAYERS VERSION WHAT: one images_table line.
img_row() {
  local IFS='|'
  echo "$*"
}

# images_table: one line per image, fields separated by "|":
#   ref | upstream ref it stands for | entrypoint (JSON) | cmd (JSON) | user | layers | version label | what
# <ref> is the path under a registry. The control plane is under karmada/, the path of the library's
# `images.registry` setting (lib/catalog/images.ts: every image becomes <registry>/<last element of the
# upstream repository>:<catalog tag>); node infrastructure keeps upstream's path at the registry root.
images_table() {
  local k8s=registry.k8s.io c etcd_tag="${ETCD_VERSION#v}-0" bb b
  bb="$(busybox_version)"
  for b in kube-apiserver kube-controller-manager; do
    img_row "karmada/$b:$KUBE_VERSION" "$k8s/$b:$KUBE_VERSION" "" "" "" "base $b" "$KUBE_VERSION" \
      "/usr/local/bin/$b"
  done
  img_row "karmada/etcd:$etcd_tag" "$k8s/etcd:$etcd_tag" "" "" "" "base sh etcd" "$ETCD_VERSION" \
    "/usr/local/bin/{etcd,etcdctl,etcdutl}, /bin/sh (Debian busybox-static $bb)"
  for c in $(img_karmada_components); do
    img_row "karmada/karmada-$c:$KARMADA_VERSION" "docker.io/karmada/karmada-$c:$KARMADA_VERSION" "" "" "" \
      "base certs karmada-$c" "$KARMADA_VERSION" "/bin/karmada-$c, CA bundle"
  done
  local busybox=("docker.io/library/busybox:$BUSYBOX_IMAGE_TAG" "" '["sh"]' "" "base busybox" "$bb"
    "/bin/busybox (Debian busybox-static $bb, NOT $BUSYBOX_IMAGE_TAG) and a symlink per applet")
  img_row "karmada/busybox:$BUSYBOX_IMAGE_TAG" "${busybox[@]}"
  img_row "pause:$PAUSE_VERSION" "$k8s/pause:$PAUSE_VERSION" '["/pause"]' "" 65535:65535 "base pause" \
    "$PAUSE_VERSION" "/pause (the test bed's own pause program, devkit/images/pause)"
  img_row "coredns/coredns:$COREDNS_VERSION" "$k8s/coredns/coredns:$COREDNS_VERSION" '["/coredns"]' "" \
    65532:65532 "base certs coredns" "$COREDNS_VERSION" \
    "/coredns (file capability cap_net_bind_service), CA bundle"
  img_row "rancher/local-path-provisioner:$LOCAL_PATH_PROVISIONER_VERSION" \
    "docker.io/rancher/local-path-provisioner:$LOCAL_PATH_PROVISIONER_VERSION" "" '["local-path-provisioner"]' "" \
    "base local-path-provisioner" "$LOCAL_PATH_PROVISIONER_VERSION" "/usr/bin/local-path-provisioner"
  img_row "busybox:$BUSYBOX_IMAGE_TAG" "${busybox[@]}" # local-path-provisioner's helper pods
}

# images_list: the images.tsv lines, <ref> TAB <upstream ref> TAB <what is inside>.
images_list() {
  images_table | awk -F'|' -v OFS='\t' '{ print $1, $2, $8 }'
}

# ---------------------------------------------------------------------------------------------
# Layers. Each is built once per run from a scratch rootfs dir, then shared by every image naming it.

declare -A IMG_LAYER_DIGEST=() IMG_LAYER_DIFF_ID=() IMG_LAYER_SIZE=() IMG_LAYER_FROM=()

# img_bin COMPONENT NAME: a binary of a test-bed component (which must be built).
img_bin() {
  local f
  f="$(tb_dir "$1")/bin/$2"
  [[ -x "$f" ]] || {
    echo "images: $f is missing (build it first: scripts/testbed/build.sh $1)" >&2
    return 1
  }
  echo "$f"
}

# img_put ROOT SRC DEST MODE [WHAT]: copy SRC to ROOT/DEST (parent dirs 0755) with MODE; records where it
# came from (WHAT, or SRC's place in the test-bed cache) for the image's source label.
img_put() {
  local root="$1" src="$2" dest="$3" mode="$4"
  mkdir -p "$root/$(dirname "$dest")"
  cp "$src" "$root/$dest"
  chmod "$mode" "$root/$dest"
  IMG_FROM+=("${5:-${src#"$TESTBED_ROOT"/} (test-bed cache)}")
}

# img_populate NAME ROOT: the files of layer NAME, written into the empty dir ROOT.
img_populate() {
  local name="$1" root="$2" c a
  case "$name" in
    base) # users of distroless images (root, nonroot 65532, nobody 65534) and a world-writable /tmp
      mkdir -p "$root/etc" "$root/tmp"
      printf '%s\n' root:x:0:0:root:/root:/sbin/nologin nobody:x:65534:65534:nobody:/nonexistent:/sbin/nologin \
        nonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin >"$root/etc/passwd"
      printf '%s\n' root:x:0: nobody:x:65534: nonroot:x:65532: >"$root/etc/group"
      chmod 0644 "$root/etc/passwd" "$root/etc/group"
      chmod 1777 "$root/tmp"
      IMG_FROM+=("the recipe (devkit/images/images.sh)")
      ;;
    certs)
      img_put "$root" "$IMG_CA_BUNDLE" etc/ssl/certs/ca-certificates.crt 0644 \
        "this machine's CA bundle (Debian ca-certificates)"
      ;;
    kube-apiserver | kube-controller-manager)
      img_put "$root" "$(img_bin kube "$name")" "usr/local/bin/$name" 0755
      ;;
    etcd)
      for c in etcd etcdctl etcdutl; do img_put "$root" "$(img_bin etcd "$c")" "usr/local/bin/$c" 0755; done
      ;;
    sh) # busybox runs the applet its argv[0] names, sh (Debian's also runs its other applets from this shell)
      img_put "$root" "$IMG_BUSYBOX" bin/sh 0755 "$IMG_BUSYBOX (Debian busybox-static $(busybox_version))"
      ;;
    busybox)
      img_put "$root" "$IMG_BUSYBOX" bin/busybox 0755 "$IMG_BUSYBOX (Debian busybox-static $(busybox_version))"
      for a in $("$IMG_BUSYBOX" --list); do
        [[ "$a" == busybox ]] || ln -s busybox "$root/bin/$a"
      done
      ;;
    karmada-*) img_put "$root" "$(img_bin karmada "$name")" "bin/$name" 0755 ;;
    pause) img_put "$root" "$(img_bin pause pause)" pause 0755 ;;
    coredns) # as upstream's image: may bind port 53 as the nonroot user
      img_put "$root" "$(img_bin coredns coredns)" coredns 0755
      setcap cap_net_bind_service=+ep "$root/coredns"
      ;;
    local-path-provisioner)
      img_put "$root" "$(img_bin local-path-provisioner local-path-provisioner)" usr/bin/local-path-provisioner 0755
      ;;
    *)
      echo "images: unknown layer $name in the recipe" >&2
      return 1
      ;;
  esac
}

# img_join ITEM...: the items separated by "; ".
img_join() {
  local out="$1" item
  shift
  for item in "$@"; do out+="; $item"; done
  echo "$out"
}

# img_blob OCI FILE: move FILE into OCI's blobs; prints its digest (sha256:...).
img_blob() {
  local sum
  sum="$(sha256sum "$2" | cut -d' ' -f1)"
  mv "$2" "$1/blobs/sha256/$sum"
  echo "sha256:$sum"
}

# img_layer OCI WORK NAME: build layer NAME once (a gzipped tar of its rootfs: sorted, root-owned, mtime 0,
# gzip without name/time, so equal content gives an equal digest).
img_layer() {
  local oci="$1" work="$2" name="$3" root tarf
  [[ -n "${IMG_LAYER_DIGEST[$name]:-}" ]] && return 0
  root="$work/layer-$name"
  tarf="$work/layer-$name.tar"
  rm -rf "$root"
  mkdir -p "$root"
  chmod 0755 "$root"
  IMG_FROM=()
  img_populate "$name" "$root"
  find "$root" -mindepth 1 -type d ! -path "$root/tmp" -exec chmod 0755 {} +
  # posix format for the file capability (SCHILY.xattr); fixed extended-header names and no atime/ctime
  # keep it deterministic
  # shellcheck disable=SC2046 # the top-level entries of the layer, plain names
  (cd "$root" && LC_ALL=C tar --sort=name --owner=0 --group=0 --numeric-owner --mtime=@0 --format=posix \
    --pax-option=exthdr.name=%d/PaxHeaders/%f,delete=atime,delete=ctime --xattrs \
    --xattrs-include=security.capability -cf "$tarf" -- $(LC_ALL=C ls -A))
  IMG_LAYER_DIFF_ID[$name]="sha256:$(sha256sum "$tarf" | cut -d' ' -f1)"
  gzip -n -c "$tarf" >"$tarf.gz"
  IMG_LAYER_SIZE[$name]="$(stat -c %s "$tarf.gz")"
  IMG_LAYER_DIGEST[$name]="$(img_blob "$oci" "$tarf.gz")"
  IMG_LAYER_FROM[$name]="$(img_join "${IMG_FROM[@]}")"
  rm -rf "$root" "$tarf"
}

# img_json_blob OCI WORK JSON: store a JSON document as a blob; prints "<digest> <size>".
img_json_blob() {
  local f="$2/blob.json"
  printf '%s' "$3" >"$f"
  local size
  size="$(stat -c %s "$f")"
  echo "$(img_blob "$1" "$f") $size"
}

# img_image OCI WORK ROW: build the image of one images_table row; sets IMG_ENTRY to its index.json entry.
# (Not run in $(...): the layers it builds are remembered for the next images.)
img_image() {
  local oci="$1" work="$2" ref upstream entrypoint cmd user layers version what l
  IFS='|' read -r ref upstream entrypoint cmd user layers version what <<<"$3"
  local diff_ids=() from=() descs=() history=()
  for l in $layers; do
    img_layer "$oci" "$work" "$l"
    diff_ids+=("${IMG_LAYER_DIFF_ID[$l]}")
    [[ "$l" == base ]] || from+=("${IMG_LAYER_FROM[$l]}")
    descs+=("$(jq -cn --arg d "${IMG_LAYER_DIGEST[$l]}" --argjson s "${IMG_LAYER_SIZE[$l]}" \
      '{mediaType: "application/vnd.oci.image.layer.v1.tar+gzip", digest: $d, size: $s}')")
    history+=("$(jq -cn --arg c "$IMG_CREATED" --arg b "pulumi-karmada test bed: layer $l" '{created: $c, created_by: $b}')")
  done
  local config manifest
  config="$(jq -cn --arg created "$IMG_CREATED" --arg path "PATH=$IMG_PATH" --arg user "$user" \
    --argjson entrypoint "${entrypoint:-null}" --argjson cmd "${cmd:-null}" \
    --arg version "$version" --arg what "$what" --arg upstream "$upstream" \
    --arg source "built by the pulumi-karmada test bed (scripts/testbed/build.sh images) from $(img_join "${from[@]}")" \
    --argjson diff_ids "$(printf '%s\n' "${diff_ids[@]}" | jq -R . | jq -cs .)" \
    --argjson history "$(printf '%s\n' "${history[@]}" | jq -cs .)" '
    {created: $created, architecture: "amd64", os: "linux",
     config: ({Env: [$path], WorkingDir: "/",
               Labels: {"org.opencontainers.image.source": $source, "org.opencontainers.image.version": $version,
                        "org.opencontainers.image.description": ($what + "; stands for " + $upstream)}}
              + (if $entrypoint then {Entrypoint: $entrypoint} else {} end)
              + (if $cmd then {Cmd: $cmd} else {} end)
              + (if $user != "" then {User: $user} else {} end)),
     rootfs: {type: "layers", diff_ids: $diff_ids},
     history: $history}')"
  local c_digest c_size
  read -r c_digest c_size <<<"$(img_json_blob "$oci" "$work" "$config")"
  manifest="$(jq -cn --arg d "$c_digest" --argjson s "$c_size" \
    --argjson layers "$(printf '%s\n' "${descs[@]}" | jq -cs .)" '
    {schemaVersion: 2, mediaType: "application/vnd.oci.image.manifest.v1+json",
     config: {mediaType: "application/vnd.oci.image.config.v1+json", digest: $d, size: $s},
     layers: $layers}')"
  local m_digest m_size
  read -r m_digest m_size <<<"$(img_json_blob "$oci" "$work" "$manifest")"
  IMG_ENTRY="$(jq -cn --arg d "$m_digest" --argjson s "$m_size" --arg ref "$ref" '
    {mediaType: "application/vnd.oci.image.manifest.v1+json", digest: $d, size: $s,
     annotations: {"org.opencontainers.image.ref.name": $ref},
     platform: {architecture: "amd64", os: "linux"}}')"
}

# img_check_tools: what the recipe needs from the system, each missing one named with its package.
img_check_tools() {
  local t
  for t in skopeo:skopeo setcap:libcap2-bin jq:jq gzip:gzip; do
    command -v "${t%%:*}" >/dev/null || {
      echo "images: ${t%%:*} is not on PATH (apt-get install -y ${t#*:})" >&2
      return 1
    }
  done
  [[ "$(dpkg-query -S "$IMG_BUSYBOX" 2>/dev/null)" == "busybox-static: $IMG_BUSYBOX" ]] || {
    echo "images: $IMG_BUSYBOX is not from Debian's busybox-static (the images need a static busybox):" \
      "apt-get install -y busybox-static" >&2
    return 1
  }
  [[ -f "$IMG_CA_BUNDLE" ]] || {
    echo "images: $IMG_CA_BUNDLE is missing (apt-get install -y ca-certificates)" >&2
    return 1
  }
}

# The test-bed components whose binaries the images pack.
images_needs() {
  echo kube etcd karmada pause coredns local-path-provisioner
}

# images_build DIR: the OCI layout DIR/oci (all images, one index.json) and DIR/images.tsv; each image is
# checked with skopeo inspect.
images_build() {
  local dir="$1" oci="$1/oci" work="$1/.work" row entries=() ref c
  img_check_tools
  for c in $(images_needs); do
    tb_present "$c" || {
      echo "images: component $c is not built (the images pack its binaries): scripts/testbed/build.sh $c" >&2
      return 1
    }
  done
  rm -rf "$oci" "$work"
  mkdir -p "$oci/blobs/sha256" "$work"
  printf '%s' '{"imageLayoutVersion":"1.0.0"}' >"$oci/oci-layout"
  while IFS= read -r row; do
    log "image ${row%%|*}"
    img_image "$oci" "$work" "$row"
    entries+=("$IMG_ENTRY")
  done < <(images_table)
  printf '%s\n' "${entries[@]}" |
    jq -cs '{schemaVersion: 2, mediaType: "application/vnd.oci.image.index.v1+json", manifests: .}' >"$oci/index.json"
  images_list >"$dir/images.tsv"
  rm -rf "$work"
  while IFS=$'\t' read -r ref _; do
    skopeo inspect "oci:$oci:$ref" |
      jq -e '.Architecture == "amd64" and .Os == "linux" and (.Layers | length) > 0' >/dev/null || {
      echo "images: skopeo inspect oci:$oci:$ref failed or found no layers" >&2
      return 1
    }
    log "skopeo inspect oci:$oci:$ref: ok"
  done <"$dir/images.tsv"
  du -sh "$oci"
}
