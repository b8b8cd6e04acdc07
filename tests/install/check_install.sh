#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# check_install.sh BUILD_DIR SRC_DIR - install into a fresh prefix, then build
# and run a program through pkg-config and another through find_package().
set -eu
build=$1 src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix

cmake --install "$build" --prefix "$prefix" >"$tmp/install.log"
pc=$(find "$prefix" -name statickeys.pc | head -n 1)
[ -n "$pc" ] || { echo "statickeys.pc was not installed"; exit 1; }
libdir=$(dirname "$(dirname "$pc")")

# 1. pkg-config, exactly as the README says.
export PKG_CONFIG_PATH=$(dirname "$pc")
cc "$src/tests/install/consumer.c" $(pkg-config --cflags --libs statickeys) \
	-Wl,-rpath,"$libdir" -o "$tmp/consumer_pc"
"$tmp/consumer_pc"

# 2. CMake: find_package(statickeys) gives statickeys::statickeys.
cmake -S "$src/tests/install/cmake_consumer" -B "$tmp/cm" \
	-DCMAKE_PREFIX_PATH="$prefix" >"$tmp/cm.log" \
	|| { cat "$tmp/cm.log"; exit 1; }
cmake --build "$tmp/cm" >"$tmp/cmb.log" || { cat "$tmp/cmb.log"; exit 1; }
"$tmp/cm/consumer"

# 3. The static library, linked without -lpthread/-ldl of our own.
cc "$src/tests/install/consumer.c" $(pkg-config --cflags statickeys) \
	"$libdir/libstatickeys.a" -lpthread -ldl -o "$tmp/consumer_static"
"$tmp/consumer_static"

# 3b. The README's recipe for the static library ("One runtime per
#     process"), run as written: the program must not need libstatickeys.so.
recipe=$(grep -o '`cc prog.c [^`]*-l:libstatickeys.a[^`]*`' "$src/README.md" | tr -d '`')
[ -n "$recipe" ] || { echo "no static-library recipe found in README.md"; exit 1; }
(cd "$tmp" && cp "$src/tests/install/consumer.c" prog.c && eval "$recipe -o consumer_recipe")
if ldd "$tmp/consumer_recipe" | grep -q libstatickeys; then
	echo "the README's static recipe linked the shared library"; exit 1
fi
"$tmp/consumer_recipe"
"$tmp/cm/consumer_static"
if ldd "$tmp/cm/consumer_static" | grep -q libstatickeys; then
	echo "statickeys::statickeys_static linked the shared library"; exit 1
fi

# 3c. Fully static programs, with the link line the package gives
#     (pkg-config --static adds the -Wl,--wrap options the runtime needs),
#     and through the CMake package's static target.
if echo 'int main(void){return 0;}' | cc -static -x c - -o "$tmp/probe" 2>/dev/null; then
	for link in -static -static-pie; do
		cc $link "$src/tests/install/consumer.c" \
			$(pkg-config --static --cflags --libs statickeys) \
			-o "$tmp/consumer$link" 2>"$tmp/link.log" ||
			{ cat "$tmp/link.log"; exit 1; }
		file -L "$tmp/consumer$link" | grep -Eq 'statically linked|static-pie linked'
		"$tmp/consumer$link"
	done
	"$tmp/cm/consumer_fully_static"
	file -L "$tmp/cm/consumer_fully_static" | grep -q 'statically linked'
else
	echo "note: no static C library (libc6-dev): fully static consumers not built"
fi

# 4. The C++ and kernel-style headers, installed with the others.
c++ -std=c++17 "$src/tests/install/consumer_frontends.cpp" \
	$(pkg-config --cflags --libs statickeys) -Wl,-rpath,"$libdir" \
	-o "$tmp/consumer_frontends"
"$tmp/consumer_frontends"
# 5. The gdb script lands where gdb auto-loads it for this prefix, and gdb
#    loads it (for /usr, gdb's default directories already cover it).
script=$(find "$prefix/share/gdb/auto-load" -name 'libstatickeys.so.*-gdb.py' 2>/dev/null)
case "$script" in
"$prefix/share/gdb/auto-load$libdir/libstatickeys.so."*-gdb.py) ;;
*) echo "gdb script not installed under share/gdb/auto-load$libdir: '$script'"; exit 1 ;;
esac
n=6
if command -v gdb >/dev/null; then
	gdb -nx -batch -iex "add-auto-load-scripts-directory $prefix/share/gdb/auto-load" \
		-iex "add-auto-load-safe-path $prefix/share/gdb/auto-load" \
		-ex run "$tmp/consumer_pc" >"$tmp/gdb.log" 2>&1
	grep -q "statickeys: catchpoint" "$tmp/gdb.log" ||
		{ cat "$tmp/gdb.log"; echo "gdb did not auto-load the installed script"; exit 1; }
	# The hint printed under a debugger without the script names this
	# prefix's script (found from the loaded library), not the configured
	# prefix's.  Only a backend whose updates trap gives it (x86: the
	# library then exports the flag the script sets).
	if nm -D "$libdir"/libstatickeys.so.0 | grep -qE ' sk__debugger_script(@|$)'; then
		gdb -nx -batch -ex run "$tmp/consumer_pc" >"$tmp/gdb_hint.log" 2>&1
		grep -qF "source $script " "$tmp/gdb_hint.log" ||
			{ cat "$tmp/gdb_hint.log"; echo "the hint does not name $script"; exit 1; }
		n=8
	else
		echo "note: this backend's updates do not trap: no debugger hint to check"
	fi
else
	echo "gdb not installed: auto-loading not checked"
fi
# 6. The tools: skctl, and skdemo, which skctl(1)'s EXAMPLES run.
if [ -e "$build/tools/skctl" ]; then
	for t in skctl skdemo; do
		[ -x "$prefix/bin/$t" ] || { echo "$t was not installed in bin/"; exit 1; }
	done
	"$prefix/bin/skdemo" -n 2 -i 10 -t 1 | grep -q '^tick 1 greeting=1 ' ||
		{ echo "the installed skdemo did not run"; exit 1; }
	n=$((n + 1))
fi
# ... and statickeys-etcd-sync, where go built it (tools/CMakeLists.txt).
if [ -e "$build/tools/statickeys-etcd-sync" ]; then
	"$prefix/bin/statickeys-etcd-sync" 2>&1 | grep -q '^usage: statickeys-etcd-sync PREFIX FILE' ||
		{ echo "the installed statickeys-etcd-sync did not run"; exit 1; }
	n=$((n + 1))
else
	echo "note: statickeys-etcd-sync was not built here (go): not checked"
fi
echo "$n passed, 0 failed"
