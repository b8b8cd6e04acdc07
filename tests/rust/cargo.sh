#!/usr/bin/env bash
# tests/rust/cargo.sh STEP CARGO BUILD_DIR SOURCE_DIR
#
# Runs one step of the Rust workspace's checks (rust/) for ctest, with
# CARGO_TARGET_DIR inside the CMake build directory:
#   test-bundled  cargo test, the C runtime built from this tree by cc; the
#                 torture also with the mprotect writer and sync fallback
#   test-system   cargo test against this build's libstatickeys installed
#                 into BUILD_DIR/rust-prefix and found by pkg-config
#   test-lto      cargo test --release with fat LTO (bundled): sites,
#                 key listings and the constructor must survive LTO
#   test-crt-static  cargo test with -C target-feature=+crt-static (bundled):
#                 fully static test programs
#   clippy        cargo clippy -D warnings (the compat crate is left out:
#                 it is static-keys code, unchanged, and warns as documented)
#   doc           cargo doc with warnings denied
#   package       cargo package --workspace; a new project builds from the
#                 .crate files (package.sh)
#   prefix        a new project against an install in a prefix the loader
#                 does not search (package.sh)
# Exits 77 (skipped) with the reason when cargo >= 1.87 is not there.
set -euo pipefail
step=$1 cargo=$2 build=$3 src=$4

if [ "$cargo" = "NOTFOUND" ] || [ -z "$cargo" ] || ! "$cargo" --version >/dev/null 2>&1; then
  echo "SKIPPED: cargo not found (install Rust >= 1.87 to test the Rust crates)"
  exit 77
fi
ver=$("$cargo" --version | awk '{print $2}')
major=${ver%%.*} rest=${ver#*.} minor=${rest%%.*}
if [ "$major" -lt 1 ] || { [ "$major" -eq 1 ] && [ "$minor" -lt 87 ]; }; then
  echo "SKIPPED: cargo $ver is older than 1.87 (asm goto label operands)"
  exit 77
fi

# rustc and the other tools sit next to cargo (~/.cargo/bin under rustup).
export PATH="$(dirname "$cargo"):$PATH"
export CARGO_TARGET_DIR="$build/rust-target"
export CARGO_TERM_COLOR=never
# One test at a time: the harness starts a thread per test, and a starting
# thread blocks every signal, which makes a flip in another test wait for it
# (and, past ~1 s on a loaded machine, refuse with EBUSY, as documented).
targs=(--test-threads=1 --nocapture)
cd "$src/rust"
unset STATICKEYS_SYS_BUNDLED STATICKEYS_SYS_SYSTEM

case $step in
test-bundled)
  STATICKEYS_SYS_BUNDLED=1 "$cargo" test --workspace -- "${targs[@]}"
  # The torture again with the other writer and with the core-sync fallback.
  STATICKEYS_SYS_BUNDLED=1 STATICKEYS_WRITER=mprotect \
    "$cargo" test -p statickeys --test torture -- "${targs[@]}"
  STATICKEYS_SYS_BUNDLED=1 STATICKEYS_SYNC=mprotect \
    "$cargo" test -p statickeys --test torture -- "${targs[@]}"
  ;;
test-system)
  prefix="$build/rust-prefix"
  rm -rf "$prefix"
  cmake --install "$build" --prefix "$prefix" >/dev/null
  export PKG_CONFIG_PATH="$prefix/lib/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
  export LD_LIBRARY_PATH="$prefix/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  pkg-config --exists statickeys
  STATICKEYS_SYS_SYSTEM=1 "$cargo" test --workspace -- "${targs[@]}"
  ;;
test-lto)
  STATICKEYS_SYS_BUNDLED=1 CARGO_PROFILE_RELEASE_LTO=fat \
    "$cargo" test --release --tests -p statickeys -p statickeys-test-mixed -- "${targs[@]}"
  ;;
test-crt-static)
  # Fully static test programs (-C target-feature=+crt-static, static-pie on
  # x86_64-unknown-linux-gnu; --target keeps their artifacts apart from the
  # other steps'), the bundled runtime, every test program checked to be
  # static.  Left out: the plugin test, whose cdylib cargo does not build
  # with crt-static, and the doctests (rustdoc links them without RUSTFLAGS;
  # they run in test-bundled).
  triple=x86_64-unknown-linux-gnu
  [ "$(uname -m)" = x86_64 ] || { echo "SKIPPED: not an x86-64 host"; exit 77; }
  [ -e /usr/lib/x86_64-linux-gnu/libc.a ] ||
    { echo "SKIPPED: no static glibc (libc6-dev)"; exit 77; }
  export RUSTFLAGS="-C target-feature=+crt-static"
  STATICKEYS_SYS_BUNDLED=1 "$cargo" test --workspace --tests --target $triple \
    --exclude statickeys-test-plugin -- "${targs[@]}"
  STATICKEYS_SYS_BUNDLED=1 STATICKEYS_SYNC=mprotect "$cargo" test \
    -p statickeys --test torture --target $triple -- "${targs[@]}"
  t=$(find "$CARGO_TARGET_DIR/$triple/debug/deps" -name 'torture-*' -type f \
      -executable | head -1)
  file -L "$t" | grep -Eq 'static-pie linked|statically linked' ||
    { echo "FAILED: $t is not static: $(file -L "$t")"; exit 1; }
  echo "crt-static: $(file -L "$t" | cut -d, -f1-5)"
  echo "not run here: statickeys-test-plugin (no cdylib with crt-static)"
  ;;
clippy)
  if ! "$cargo" clippy --version >/dev/null 2>&1; then
    echo "SKIPPED: cargo clippy not installed (rustup component add clippy)"
    exit 77
  fi
  STATICKEYS_SYS_BUNDLED=1 "$cargo" clippy --workspace --all-targets \
    --exclude statickeys-test-compat -- -D warnings
  echo "clippy: no warnings"
  ;;
package | prefix)
  exec "$src/tests/rust/package.sh" "$step" "$cargo" "$build" "$src"
  ;;
doc)
  STATICKEYS_SYS_BUNDLED=1 RUSTDOCFLAGS="-D warnings" \
    "$cargo" doc --no-deps -p statickeys -p statickeys-sys
  echo "cargo doc: no warnings"
  ;;
*)
  echo "unknown step $step" >&2
  exit 2
  ;;
esac
