#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# fetch_qemu_user.sh DEST - put qemu-user 10.x (Debian bookworm-backports)
# under DEST/usr/bin without touching the machine's apt sources.
#
# Debian 12's own qemu-user (7.2) does not see code written through
# /proc/self/mem (the old translation keeps running), which is how the
# runtime writes code by default; 10.x does.  The package is downloaded with
# apt-get through a private apt configuration under DEST (its own sources
# list, lists and cache), checked by apt against Debian's archive keyring,
# and unpacked with dpkg-deb -x: nothing is installed.  Its binaries are
# static.  Does nothing if DEST already holds them, version 10 or newer.
set -euo pipefail
dest=${1:?usage: fetch_qemu_user.sh DEST}
mkdir -p "$dest"
dest=$(cd "$dest" && pwd)
qemu=$dest/usr/bin/qemu-aarch64

version_ok() {
  local v
  v=$("$1" --version 2>/dev/null | sed -n 's/.*version \([0-9]*\)\..*/\1/p' | head -1)
  [ -n "$v" ] && [ "$v" -ge 10 ]
}
emulators="qemu-aarch64 qemu-riscv64 qemu-s390x qemu-ppc64le qemu-loongarch64 qemu-arm"
have_all() { for e in $emulators; do [ -x "$dest/usr/bin/$e" ] || return 1; done; }
if have_all && version_ok "$qemu"; then
  echo "qemu-user already in $dest: $("$qemu" --version | head -1)"
  exit 0
fi

apt=$dest/apt
mkdir -p "$apt/etc/sources.list.d" "$apt/etc/preferences.d" \
  "$apt/state/lists/partial" "$apt/cache/archives/partial"
echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg]" \
  "http://deb.debian.org/debian bookworm-backports main" \
  > "$apt/etc/sources.list"
opts=(-o "Dir::Etc=$apt/etc" -o "Dir::Etc::SourceList=$apt/etc/sources.list"
      -o "Dir::Etc::SourceParts=$apt/etc/sources.list.d"
      -o "Dir::Etc::Preferences=$apt/etc/preferences"
      -o "Dir::Etc::PreferencesParts=$apt/etc/preferences.d"
      -o "Dir::State=$apt/state" -o "Dir::State::status=/var/lib/dpkg/status"
      -o "Dir::Cache=$apt/cache" -o "Debug::NoLocking=1"
      -o "APT::Sandbox::User=root")
apt-get "${opts[@]}" -qq update
(cd "$apt" && rm -f qemu-user_*.deb && apt-get "${opts[@]}" -qq download qemu-user)
deb=$(ls "$apt"/qemu-user_*.deb)
dpkg-deb -x "$deb" "$dest"
rm -f "$deb"
# Only the emulators of the architectures tests/cross runs are kept (each
# ~5 MB); the package holds ~40 others.
keep=(); for e in $emulators; do keep+=(! -name "$e"); done
find "$dest/usr/bin" -name 'qemu-*' "${keep[@]}" -delete
if ! version_ok "$qemu"; then
  echo "fetch_qemu_user.sh: $qemu is not qemu 10 or newer" >&2
  exit 1
fi
echo "qemu-user in $dest: $("$qemu" --version | head -1)"
