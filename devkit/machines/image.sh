# shellcheck shell=bash
# The test bed's machine image: a minimal Debian bookworm root filesystem, built with mmdebstrap from
# Debian's package registry, that every lab machine boots read-only under its own overlay
# (devkit/lab/machine.ts) with systemd as PID 1 (systemd-nspawn -b). What a platform engineer's VM has
# for the hosts mode: systemd and journald (persistent), OpenSSH, iproute2, curl and CA certificates (the
# library downloads its artifacts with curl), and HAProxy for the load-balancer machine — disabled here,
# enabled on that machine only. Nothing per machine is in the image: host keys, machine-id, address and
# the authorized key are written into each machine's overlay at its first boot.
# Sourced by scripts/testbed/build.sh (component machine-image) after lib.sh; defines functions only.
# Any change to this file makes a new machine-image-<suite>-<key> cache dir (lib.sh: TESTBED_MACHINE_KEY);
# the suite is versions.env's MACHINE_IMAGE_SUITE.

# Debian's package registry (TESTBED_DEBIAN_MIRROR for another mirror of it).
MACHINE_MIRROR="${TESTBED_DEBIAN_MIRROR:-http://deb.debian.org/debian}"
# Debian packages on top of the minbase variant (which has bash, coreutils, tar, gzip, util-linux …).
MACHINE_PACKAGES=(systemd systemd-sysv dbus libpam-systemd openssh-server iproute2 curl ca-certificates procps
  haproxy)

# machine_image_build DIR: DIR/rootfs (the image) and DIR/packages.txt (every package and its version).
machine_image_build() {
  local dir=$1 root="$1/rootfs" packages
  command -v mmdebstrap >/dev/null || {
    echo "mmdebstrap is not installed (scripts/setup.sh packages installs it)" >&2
    return 1
  }
  packages="$(
    IFS=,
    echo "${MACHINE_PACKAGES[*]}"
  )"
  rm -rf "$root"
  # no device nodes: systemd-nspawn gives each machine its own /dev
  mmdebstrap --variant=minbase --include="$packages" --skip=output/dev "$MACHINE_IMAGE_SUITE" "$root" "$MACHINE_MIRROR"
  machine_image_prepare "$root"
  # shellcheck disable=SC2016 # dpkg-query's own ${…} fields
  chroot "$root" dpkg-query -W -f '${Package} ${Version}\n' >"$dir/packages.txt"
  du -sh "$root" | cut -f1 >"$dir/size"
}

# machine_image_prepare ROOT: what makes the root filesystem an image rather than one machine.
machine_image_prepare() {
  local root=$1 wants="$1/etc/systemd/system/multi-user.target.wants"
  # per machine (devkit/lab/machine.ts): host keys pinned by the estate, a machine-id of its own
  rm -f "$root"/etc/ssh/ssh_host_*
  : >"$root/etc/machine-id"
  # the load balancer runs on its own machine only
  rm -f "$wants/haproxy.service"
  # the address comes from systemd-networkd (a .network file per machine)
  ln -sf /lib/systemd/system/systemd-networkd.service "$wants/systemd-networkd.service"
  # journald keeps the logs across reboots, as on a VM
  mkdir -p "$root/var/log/journal"
  mkdir -p "$root/etc/ssh/sshd_config.d"
  # MaxStartups: up to 64 steps at once open one connection each (docs/hosts.md "sshd under parallel steps")
  printf '%s\n' "# devkit/machines/image.sh: keys only" "PasswordAuthentication no" \
    "KbdInteractiveAuthentication no" "PermitRootLogin prohibit-password" "MaxStartups 100:30:200" \
    >"$root/etc/ssh/sshd_config.d/10-lab.conf"
  rm -rf "$root"/var/lib/apt/lists/* "$root"/var/cache/apt/*.bin
}
