#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# fetch_sysroot_loong64.sh DEST - a loongarch64 glibc to run the loongarch64
# port's programs under qemu-user: Debian's loong64 libc6, libgcc-s1 and
# libstdc++6 (unstable: loong64 is an architecture of the Debian archive
# there; Debian 12 has none), unpacked under DEST.
#
# The loongarch64 build uses zig's C compiler and its glibc stubs
# (cmake/toolchains/loongarch64-linux-gnu.cmake): enough to link, not to
# run.  The packages are downloaded with apt-get through a private apt
# configuration under DEST (its own sources list, lists and cache), checked
# by apt against Debian's archive keyring, and unpacked with dpkg-deb -x:
# nothing is installed and the machine's apt sources are not changed.
# Does nothing if DEST already holds the dynamic loader and the C library.
set -euo pipefail
dest=${1:?usage: fetch_sysroot_loong64.sh DEST}
mkdir -p "$dest"
dest=$(cd "$dest" && pwd)
triplet=loongarch64-linux-gnu
have() { [ -e "$dest/usr/lib/$triplet/libc.so.6" ] &&
         [ -e "$dest/usr/lib/$triplet/libgcc_s.so.1" ] &&
         [ -e "$dest/lib64/ld-linux-loongarch-lp64d.so.1" ]; }
if have; then
  echo "loong64 sysroot already in $dest"
  exit 0
fi

apt=$dest/apt
mkdir -p "$apt/etc/sources.list.d" "$apt/etc/preferences.d" \
  "$apt/state/lists/partial" "$apt/cache/archives/partial"
echo "deb [arch=loong64 signed-by=/usr/share/keyrings/debian-archive-keyring.gpg]" \
  "http://deb.debian.org/debian unstable main" > "$apt/etc/sources.list"
opts=(-o "Dir::Etc=$apt/etc" -o "Dir::Etc::SourceList=$apt/etc/sources.list"
      -o "Dir::Etc::SourceParts=$apt/etc/sources.list.d"
      -o "Dir::Etc::Preferences=$apt/etc/preferences"
      -o "Dir::Etc::PreferencesParts=$apt/etc/preferences.d"
      -o "Dir::State=$apt/state" -o "Dir::State::status=/dev/null"
      -o "Dir::Cache=$apt/cache" -o "Debug::NoLocking=1"
      -o "APT::Sandbox::User=root"
      -o "APT::Architecture=loong64" -o "APT::Architectures=loong64")
apt-get "${opts[@]}" -qq update
(cd "$apt" && rm -f ./*.deb &&
 apt-get "${opts[@]}" -qq download libc6:loong64 libgcc-s1:loong64 libstdc++6:loong64)
for deb in "$apt"/*.deb; do dpkg-deb -x "$deb" "$dest"; done
rm -f "$apt"/*.deb
# The loader where programs name it (PT_INTERP), whatever the packages'
# merged-/usr layout.
if [ ! -e "$dest/lib64/ld-linux-loongarch-lp64d.so.1" ]; then
  mkdir -p "$dest/lib64"
  ln -sf "../usr/lib/$triplet/ld-linux-loongarch-lp64d.so.1" \
    "$dest/lib64/ld-linux-loongarch-lp64d.so.1"
fi
have || { echo "fetch_sysroot_loong64.sh: $dest lacks the loader or libc" >&2; exit 1; }
echo "loong64 sysroot in $dest (Debian unstable: libc6, libgcc-s1, libstdc++6)"
