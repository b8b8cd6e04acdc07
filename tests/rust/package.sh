#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# tests/rust/package.sh STEP CARGO BUILD_DIR SOURCE_DIR (run by cargo.sh)
#
#   package  `cargo package --workspace`, no libstatickeys visible to
#            pkg-config: statickeys-sys must build from the C sources it
#            carries.  The .crate must hold every file
#            src/sources.txt names (every architecture) and every public
#            header, as files.  Then a new project depending on the two
#            packaged crates (as from crates.io) builds and runs its
#            threaded test and programs (blocked_signals: every thread
#            blocks every signal while keys flip); the same built for
#            x86_64-unknown-linux-musl (fully static, as Rust ships musl
#            programs), where that target's std and musl-gcc are installed.
#            Building them must change none of the unpacked files.
#   prefix   this build installed into a prefix the loader does not search,
#            found with PKG_CONFIG_PATH as the C instructions say: the
#            program runs (the static library is linked); with only the
#            shared library there the build stops and says why; with
#            LD_LIBRARY_PATH set the shared library is linked and runs.
set -euo pipefail
# grep that reads all its input: `cmd | grep -q` can leave cmd a SIGPIPE,
# which pipefail counts as the pipeline failing.
matches() { grep "$@" >/dev/null; }
step=$1 cargo=$2 build=$3 src=$4
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
unset STATICKEYS_SYS_BUNDLED STATICKEYS_SYS_SYSTEM LD_LIBRARY_PATH PKG_CONFIG_PATH
fail() { echo "FAIL: $*"; exit 1; }
ctarget=$build/rust-consumer-$step # the new project's own target directory

# The new project, outside every workspace, with the dependencies pinned to
# the versions the repository's lock file has (already fetched).
consumer() { # consumer STATICKEYS_DIR SYS_DIR [cargo args...]
	local sk=$1 sys=$2
	shift 2
	rm -rf "$tmp/consumer"
	cp -r "$src/tests/rust/consumer" "$tmp/consumer"
	cp "$src/rust/Cargo.lock" "$tmp/consumer/"
	(cd "$tmp/consumer" && CARGO_TARGET_DIR=$ctarget "$cargo" "$@" \
		--config "patch.crates-io.statickeys.path='$sk'" \
		--config "patch.crates-io.statickeys-sys.path='$sys'")
}

package_contents() { # the .crate's file list, checked against the sources
	local crate=$1 list=$tmp/list missing=0 f
	tar -tvzf "$crate" >"$tmp/tv"
	grep -v '^-' "$tmp/tv" && fail "the .crate holds entries that are not plain files"
	awk '{print $NF}' "$tmp/tv" | sed 's|^[^/]*/||' | sort >"$list"
	# Every relative .c path in src/sources.txt, comments left out.
	for f in $(sed 's/#.*//' "$src/src/sources.txt" | tr -s ' \t:' '\n' |
		grep -E '^[A-Za-z0-9_][A-Za-z0-9_/.-]*\.c$' | sort -u); do
		grep -qxF "c/src/$f" "$list" || { echo "missing from the package: src/$f"; missing=1; }
	done
	for f in $(cd "$src" && find include -name '*.h' | sort); do
		grep -qxF "c/$f" "$list" || { echo "missing from the package: $f"; missing=1; }
	done
	[ $missing = 0 ] || fail "statickeys-sys does not carry the sources it compiles"
	grep -vE '^(c/src/.*\.[ch]|c/src/sources\.txt|c/include/.*\.h|build\.rs|src/.*\.rs|Cargo\.(toml|toml\.orig|lock)|LICENSE-(MIT|APACHE)|\.cargo_vcs_info\.json)$' "$list" &&
		fail "statickeys-sys packs files it does not use"
	echo "statickeys-sys: $(grep -c '^c/' "$list") C sources and headers packed, every one src/sources.txt names"
}

case $step in
package)
	mkdir "$tmp/no-pc"
	export PKG_CONFIG_LIBDIR=$tmp/no-pc # no installed runtime in sight
	# --no-verify: cargo's verification builds the packed crates once
	# (statickeys against the packed statickeys-sys as a registry crate,
	# unpacked into the cargo home); the consumer below builds, tests and
	# runs the unpacked crates themselves, and then checks that the build
	# changed none of their files, which is what verification adds.  The
	# packing has a target directory of its own, emptied first.
	export CARGO_TARGET_DIR=$build/rust-package-target
	rm -rf "$CARGO_TARGET_DIR"
	(cd "$src/rust" && "$cargo" package --workspace --allow-dirty --no-verify) >"$tmp/package.log" 2>&1 || true
	grep -vE '^\s+(Compiling|Packaging|Verifying|Packaged|Finished|Updating|Locking|Adding)' "$tmp/package.log" || true
	# A manifest without documentation, homepage, repository or license is
	# what cargo warns about (crates.io shows them on the crate's page); the
	# published crates only (the tests' crates are publish = false).
	(cd "$src/rust" && "$cargo" package --allow-dirty --list -p statickeys-sys -p statickeys) \
		>"$tmp/list.log" 2>&1 || { cat "$tmp/list.log"; fail "cargo package --list"; }
	grep -E '^warning: manifest' "$tmp/list.log" && fail "cargo package warns about the manifests"
	pkgdir=$CARGO_TARGET_DIR/package
	for c in statickeys-sys statickeys; do
		[ -f "$pkgdir/$c-0.1.0.crate" ] || fail "cargo package did not produce $c-0.1.0.crate"
		tar -xzf "$pkgdir/$c-0.1.0.crate" -C "$tmp"
		# The license the manifest declares, its two texts as files (not
		# links), and where the documentation and sources are.
		for f in LICENSE-MIT LICENSE-APACHE; do
			[ -f "$tmp/$c-0.1.0/$f" ] && [ ! -L "$tmp/$c-0.1.0/$f" ] &&
				cmp -s "$tmp/$c-0.1.0/$f" "$src/$f" || fail "$c-0.1.0.crate lacks $f"
		done
		for k in 'license = "MIT OR Apache-2.0"' 'documentation = "https://docs.rs/'"$c"'"'; do
			grep -qF "$k" "$tmp/$c-0.1.0/Cargo.toml" || fail "$c-0.1.0.crate: Cargo.toml lacks $k"
		done
	done
	echo "both crates carry LICENSE-MIT, LICENSE-APACHE and documentation"
	package_contents "$pkgdir/statickeys-sys-0.1.0.crate"
	unpacked_sums() { (cd "$tmp" && find statickeys-0.1.0 statickeys-sys-0.1.0 -type f -print0 |
		sort -z | xargs -0 sha256sum); }
	unpacked_sums >"$tmp/sums.before"
	consumer "$tmp/statickeys-0.1.0" "$tmp/statickeys-sys-0.1.0" test -q
	consumer "$tmp/statickeys-0.1.0" "$tmp/statickeys-sys-0.1.0" run -q
	consumer "$tmp/statickeys-0.1.0" "$tmp/statickeys-sys-0.1.0" run -q --bin blocked_signals
	unpacked_sums | diff "$tmp/sums.before" - ||
		fail "building the packed crates changed their sources (above)"
	grep -q 'cargo:build=bundled' "$ctarget"/debug/build/statickeys-sys-*/output ||
		fail "the consumer did not build the bundled runtime"
	passed=4 musl=x86_64-unknown-linux-musl
	if [ ! -d "$(rustc --print sysroot)/lib/rustlib/$musl/lib" ]; then
		echo "not run: the packaged crates on $musl (no Rust std for it: rustup target add $musl)"
	elif ! command -v musl-gcc >/dev/null; then
		echo "not run: the packaged crates on $musl (no musl-gcc: musl-tools)"
	else
		consumer "$tmp/statickeys-0.1.0" "$tmp/statickeys-sys-0.1.0" test -q --target $musl
		consumer "$tmp/statickeys-0.1.0" "$tmp/statickeys-sys-0.1.0" run -q --target $musl
		consumer "$tmp/statickeys-0.1.0" "$tmp/statickeys-sys-0.1.0" run -q --target $musl \
			--bin blocked_signals
		file -L "$ctarget/$musl/debug/blocked_signals" | matches -E 'static-pie linked|statically linked' ||
			fail "the $musl program is not static"
		echo "$musl: $(file -L "$ctarget/$musl/debug/blocked_signals" | cut -d, -f1-5)"
		passed=7
	fi
	echo "$passed passed, 0 failed"
	;;
prefix)
	prefix=$tmp/opt/statickeys
	cmake --install "$build" --prefix "$prefix" >/dev/null
	export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
	pkg-config --exists statickeys || fail "pkg-config does not find the install"
	sk=$src/rust/statickeys sys=$src/rust/statickeys-sys
	# 1. As a user types it: the program runs without help.
	STATICKEYS_SYS_SYSTEM=1 consumer "$sk" "$sys" run -q
	ldd "$ctarget/debug/statickeys-consumer" 2>/dev/null | grep libstatickeys &&
		fail "the program needs libstatickeys.so from a directory the loader does not search"
	# 2. Only the shared library there: the build says why it stops.
	mv "$prefix/lib/libstatickeys.a" "$tmp/"
	if STATICKEYS_SYS_SYSTEM=1 consumer "$sk" "$sys" build -q >"$tmp/err" 2>&1; then
		fail "built against a shared library the loader will not find"
	fi
	grep -q 'which the dynamic loader does not search' "$tmp/err" || { cat "$tmp/err"; fail "no reason given"; }
	echo "without libstatickeys.a: the build stops with the reason"
	# 3. LD_LIBRARY_PATH names the directory: the shared library.
	LD_LIBRARY_PATH=$prefix/lib STATICKEYS_SYS_SYSTEM=1 consumer "$sk" "$sys" run -q
	LD_LIBRARY_PATH=$prefix/lib ldd "$ctarget/debug/statickeys-consumer" | matches "$prefix/lib/libstatickeys.so" ||
		fail "LD_LIBRARY_PATH set, but the shared library was not linked"
	echo "3 passed, 0 failed"
	;;
esac
