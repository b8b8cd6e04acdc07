#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# deb_test.sh build|install SRC_DIR DEB_DIR - the Debian packages
# (cmake/packaging.cmake, CPack), in two steps:
#   build    builds them into DEB_DIR and checks what each carries; it
#            touches nothing outside DEB_DIR, so it runs beside other tests
#            (install_deb_build)
#   install  installs DEB_DIR's packages with apt-get, builds the README's
#            quick-start program with nothing but pkg-config, runs it, runs
#            it under gdb with no set-up (gdb must load the script by
#            itself), then removes the packages: always, even when a step
#            fails.  It changes /usr, so it runs alone (install_deb_packages,
#            RUN_SERIAL, after install_deb_build: a ctest fixture).
# Needs root, apt-get, dpkg-deb and cpack; skipped (77) with the reason
# otherwise, or when a libstatickeys is already installed in /usr.
set -eu
mode=$1 src=$2 debdir=$3
pkgs="libstatickeys0 libstatickeys-dev statickeys-tools"
skip() { echo "SKIPPED: $*"; exit 77; }
[ "$(id -u)" = 0 ] || skip "installing packages needs root"
for t in apt-get dpkg-deb dpkg-shlibdeps file cpack pkg-config; do
	command -v $t >/dev/null || skip "$t not found (dpkg-dev, file, apt, cmake, pkg-config)"
done
for p in $pkgs; do
	dpkg-query -W -f '${Status}' "$p" 2>/dev/null | grep -q installed &&
		skip "$p is already installed: not touching it"
done
compgen -G '/usr/lib/*/libstatickeys*' >/dev/null || compgen -G '/usr/lib/libstatickeys*' >/dev/null &&
	skip "a libstatickeys is already in /usr/lib: not touching it"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
apt_opts=(-y -qq -o DPkg::Lock::Timeout=300)
remove() {
	DEBIAN_FRONTEND=noninteractive apt-get purge "${apt_opts[@]}" $pkgs >"$tmp/purge.log" 2>&1 ||
		{ cat "$tmp/purge.log"; echo "FAIL: could not remove the packages"; }
	rm -rf "$tmp"
}
fail() { echo "FAIL: $*"; exit 1; }
passed=0
ok() { echo "ok: $*"; passed=$((passed + 1)); }

# 1. Build the packages from this tree, as packaging.cmake says, into
# DEB_DIR, and check what each carries.
build_packages() {
	rm -rf "$debdir"
	mkdir -p "$debdir"
	cmake -S "$src" -B "$debdir/b" -DCMAKE_INSTALL_PREFIX=/usr -DCMAKE_BUILD_TYPE=RelWithDebInfo \
		-DSTATICKEYS_BUILD_TESTS=OFF -DSTATICKEYS_BUILD_BENCH=OFF \
		${CMAKE_C_COMPILER_LAUNCHER:+-DCMAKE_C_COMPILER_LAUNCHER=$CMAKE_C_COMPILER_LAUNCHER} \
		>"$debdir/conf.log" 2>&1 || { cat "$debdir/conf.log"; fail "configure"; }
	cmake --build "$debdir/b" -j2 >"$tmp/build.log" 2>&1 || { cat "$tmp/build.log"; fail "build"; }
	(cd "$debdir/b" && cpack -G DEB >"$tmp/cpack.log" 2>&1) || { cat "$tmp/cpack.log"; fail "cpack"; }
	debs=("$debdir"/b/*.deb)
	[ ${#debs[@]} = 3 ] || fail "expected 3 packages, got: ${debs[*]}"

	# 2. Each package carries its files.
	has() { # has PACKAGE PATTERN
		dpkg-deb -c "$debdir"/b/"$1"_*.deb | awk '{print $6}' | grep -qE "$2" || fail "$1 lacks $2"
	}
	has libstatickeys0 '^\./usr/lib/[^/]+/libstatickeys\.so\.0\.'
	has libstatickeys0 '^\./usr/lib/[^/]+/libstatickeys\.so\.0$'
	has libstatickeys0 '^\./usr/share/gdb/auto-load/usr/lib/[^/]+/libstatickeys\.so\.0\.[0-9.]+-gdb\.py$'
	has libstatickeys-dev '^\./usr/include/statickeys\.h$'
	has libstatickeys-dev '^\./usr/lib/[^/]+/libstatickeys\.a$'
	has libstatickeys-dev '^\./usr/lib/[^/]+/libstatickeys\.so$'
	has libstatickeys-dev '^\./usr/lib/[^/]+/pkgconfig/statickeys\.pc$'
	has libstatickeys-dev '^\./usr/lib/[^/]+/cmake/statickeys/statickeysConfig\.cmake$'
	has statickeys-tools '^\./usr/bin/skctl$'
	has statickeys-tools '^\./usr/share/man/man1/skctl\.1'
	has statickeys-tools '^\./usr/bin/skdemo$'
	# The etcd sync is built with go (tools/CMakeLists.txt says when it is not).
	if grep -q 'statickeys-etcd-sync not built' "$debdir/conf.log"; then
		echo "note: $(grep -o 'statickeys-etcd-sync not built.*' "$debdir/conf.log"): not in the package"
	else
		has statickeys-tools '^\./usr/bin/statickeys-etcd-sync$'
	fi
	dpkg-deb -f "$debdir"/b/statickeys-tools_*.deb Depends Suggests | grep -q 'etcd-client' ||
		fail "statickeys-tools ships statickeys-etcd-sync without Depends/Suggests on etcd-client"
	# Every package carries the machine-readable copyright file (DEP-5) where
	# Debian policy puts it, naming the license of each file it ships.
	for p in $pkgs; do
		has $p "^\./usr/share/doc/$p/copyright\$"
		dpkg-deb --fsys-tarfile "$debdir"/b/${p}_*.deb | tar -xO ./usr/share/doc/$p/copyright >"$tmp/copyright"
		head -n1 "$tmp/copyright" | grep -qx 'Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/' ||
			fail "$p: the copyright file is not in the DEP-5 format"
		grep -qx 'License: MIT or Apache-2.0' "$tmp/copyright" && grep -qx 'License: MIT' "$tmp/copyright" &&
			grep -qx 'License: Apache-2.0' "$tmp/copyright" ||
			fail "$p: the copyright file lacks the license or its texts"
	done
	dpkg-deb -f "$debdir"/b/libstatickeys-dev_*.deb Depends | grep -q 'libstatickeys0 (= ' ||
		fail "libstatickeys-dev does not depend on its libstatickeys0"
	ok "3 packages, each with its files (runtime + gdb script, development files, tools) and its copyright file"

}

case $mode in
build) build_packages; echo "$passed passed, 0 failed"; exit 0 ;;
install) ;;
*) fail "unknown mode $mode (build or install)" ;;
esac

# 3. Install them as a user would.
debs=("$debdir"/b/*.deb)
[ ${#debs[@]} = 3 ] && [ -e "${debs[0]}" ] ||
	fail "no packages in $debdir/b: install_deb_build makes them (ctest runs it first)"
trap remove EXIT
DEBIAN_FRONTEND=noninteractive apt-get install "${apt_opts[@]}" "${debs[@]}" >"$tmp/install.log" 2>&1 ||
	{ cat "$tmp/install.log"; fail "apt-get install"; }
ok "apt-get install ./*.deb"

# 4. The README's quick start, as written, with only pkg-config.
cd "$tmp"
sed -n '/^## Quick start/,/^## /p' "$src/README.md" | sed -n '/^```c$/,/^```$/p' | sed '1d;$d' >quick.c
grep -q 'sk_key_enable(&tracing)' quick.c || fail "no quick-start program found in README.md"
{ echo '#include <stdio.h>'; echo 'static void trace_event(int x) { printf("%d\n", x); }'; cat quick.c; } >prog.c
cc prog.c $(pkg-config --cflags --libs statickeys) -o prog 2>cc.log || { cat cc.log; fail "cc with pkg-config"; }
./prog || fail "the quick-start program failed"
ldd ./prog | grep -qE 'libstatickeys\.so\.0 => (/usr)?/lib/' || fail "prog does not use the packaged library"
ok "quick start built with pkg-config alone, runs"

# 5. gdb with no set-up at all loads the script and the program runs through.
if command -v gdb >/dev/null; then
	HOME=$tmp gdb -batch -ex run ./prog >gdb.log 2>&1 || true
	grep -q 'statickeys: catchpoint' gdb.log || { cat gdb.log; fail "gdb did not load the script"; }
	grep -q 'exited normally' gdb.log || { cat gdb.log; fail "under gdb the program did not run to the end"; }
	ok "gdb loads the script by itself; the program runs to its end"
else
	echo "gdb not installed: not checked under gdb"
fi

# 6. The tools, and find_package() with no hints.
skctl --help >/dev/null || fail "skctl from statickeys-tools does not run"
skdemo -n 2 -i 10 -t 1 | grep -q '^tick 1 greeting=1 ' || fail "skdemo from statickeys-tools does not run"
mkdir cm && printf '%s\n' 'cmake_minimum_required(VERSION 3.16)' 'project(c C)' \
	'find_package(statickeys REQUIRED)' 'add_executable(prog prog.c)' \
	'target_link_libraries(prog PRIVATE statickeys::statickeys_static)' >cm/CMakeLists.txt
cp prog.c cm/
cmake -S cm -B cm/b >cm.log 2>&1 && cmake --build cm/b >>cm.log 2>&1 || { cat cm.log; fail "find_package"; }
cm/b/prog || fail "the statically linked program failed"
ok "skctl and skdemo run; find_package(statickeys) with no hints"

# 7. Removal leaves nothing behind.
trap - EXIT
remove
for p in $pkgs; do
	dpkg-query -W -f '${Status}' "$p" 2>/dev/null | grep -q ' installed' && fail "$p still installed"
done
compgen -G '/usr/lib/*/libstatickeys*' >/dev/null && fail "files left in /usr/lib"
[ -e /usr/share/gdb/auto-load/usr/lib ] && ls -R /usr/share/gdb/auto-load/usr/lib | grep -q statickeys &&
	fail "the gdb script was left behind"
ok "apt-get purge removes everything"
echo "$passed passed, 0 failed"
