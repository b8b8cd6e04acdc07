#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# tests/rust/cargo.sh STEP CARGO BUILD_DIR SOURCE_DIR [QEMU_DIR]
#
# Runs one step of the Rust workspace's checks (rust/) for ctest, with
# CARGO_TARGET_DIR inside the CMake build directory:
#   test-bundled  cargo test, the C runtime built from this tree by cc; the
#                 torture also with the mprotect writer and sync fallback
#   test-system   cargo test against this build's libstatickeys installed
#                 into BUILD_DIR/rust-prefix and found by pkg-config
#   test-lto      cargo test --release with fat LTO (bundled): sites,
#                 key listings, static calls, debug statements and the
#                 constructor must survive LTO (basic, mixed, torture,
#                 static_call, dyndbg)
#   test-crt-static  cargo test with -C target-feature=+crt-static (bundled):
#                 fully static test programs
#   clippy        cargo clippy -D warnings (the compat crate is left out:
#                 it is static-keys code, unchanged, and warns as documented)
#   doc           cargo doc with warnings denied
#   package       cargo package --workspace; a new project builds from the
#                 .crate files (package.sh)
#   prefix        a new project against an install in a prefix the loader
#                 does not search (package.sh)
#   test-musl     both crates' tests built for x86_64-unknown-linux-musl:
#                 fully static programs on the musl Rust bundles, the C
#                 runtime compiled by musl-gcc (the packaged crates on musl:
#                 package.sh)
#   build-freebsd, build-macos-x86_64, build-macos-aarch64
#                 both crates and their test programs built (not run) for
#                 x86_64-unknown-freebsd, x86_64- and aarch64-apple-darwin
#                 with cargo-zigbuild (zig as C compiler and linker, with its
#                 bundled FreeBSD and macOS SDK files; PyPI: ziglang,
#                 cargo-zigbuild, from python3 or BUILD_DIR/os/zig, where
#                 .ci/run installs them)
#   test-musl-aarch64  the crate's basic, no_sites, torture, trace and dyndbg tests for
#                 aarch64-unknown-linux-musl (fully static; zig as C compiler
#                 and linker), run under qemu-user 10
#   test-i686     the workspace's tests built for i686-unknown-linux-gnu
#                 (linked by i686-linux-gnu-gcc), run natively
#   test-riscv64  the site-decoding (mixed), no-sites, torture and debug
#                 statement (dyndbg) tests built for
#                 riscv64gc-unknown-linux-gnu, run under qemu-riscv64 10
#                 ($SK_QEMU_RISCV64, QEMU_DIR, or PATH)
#   test-loongarch64  the crate's tests (basic, static calls, tracepoints,
#                 torture), the site-decoding (mixed) and no-sites tests and
#                 the static-keys 0.8 programs of the compat crate, built for
#                 loongarch64-unknown-linux-gnu with cargo-zigbuild and a
#                 standard library built from rust-src (-Zbuild-std: rustup
#                 has no loongarch64 std to download here), run under
#                 qemu-loongarch64 10 with Debian's loong64 glibc
#                 (tests/cross/fetch_sysroot_loong64.sh)
#   test-portable the crate's tests with the `portable` feature: sites test
#                 an atomic flag and the bundled runtime is the portable
#                 backend, as on an architecture without a port
#   trace-bpftrace  tests/trace/bpftrace_test.sh on the Rust program with a
#                 tracepoint (rust/tests/traced, linked as Rust links by
#                 default): bpftrace lists it, attaching turns it on, every
#                 event is counted with its arguments, leaving turns it off
#   trace-perf    tests/trace/perf_test.sh on the same program linked by GNU
#                 ld (perf misplaces SDT probes in lld's layout:
#                 rust/tests/traced/build.rs)
#   test-s390x, test-ppc64le, test-armhf  the crate's tests built for
#                 s390x, powerpc64le and armv7 hard-float (the runtime
#                 patches C sites there, the crate's sites test the key's
#                 flag, as on aarch64) and run under QEMU_DIR/qemu-s390x,
#                 qemu-ppc64le, qemu-arm; skipped with the reason without
#                 the target's std (rustup target add s390x-unknown-linux-gnu,
#                 powerpc64le-unknown-linux-gnu,
#                 armv7-unknown-linux-gnueabihf), its gcc or qemu 10
#   test-windows  both crates' tests and the mixed C + Rust test built for
#                 x86_64-pc-windows-gnu (mingw-w64 gcc links them and compiles
#                 the bundled runtime and the C sites) and run under wine 8,
#                 beside a bcryptprimitives.dll of our own
#                 (tests/rust/windows/processprng.c: wine 8 lacks the
#                 ProcessPrng Rust's std imports): patched sites, the torture
#                 also with the VirtualProtect writer; skipped with the reason
#                 without the target's std, mingw-w64 or wine
# Exits 77 (skipped) with the reason when cargo >= 1.87 is not there.
set -euo pipefail
# grep that reads all its input: `cmd | grep -q` can leave cmd a SIGPIPE,
# which pipefail counts as the pipeline failing.
matches() { grep "$@" >/dev/null; }
step=$1 cargo=$2 build=$3 src=$4 qemu_dir=${5:-}

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

# cross_target ARCH: set cargo up for the Rust target of a port (its std
# installed by rustup, the cross gcc as linker and C compiler) and run its
# tests; skipped with the reason when something is missing.
# zigbuild_ready TARGET: zig and cargo-zigbuild on the path (from python3,
# or BUILD_DIR/os/zig where .ci/run installs them) and Rust's std for
# TARGET; else exit 77 (skipped) saying which is missing.
zigbuild_ready() {
  local t=$1 zig=$build/os/zig
  [ -d "$zig/ziglang" ] && export PYTHONPATH=$zig${PYTHONPATH:+:$PYTHONPATH}
  [ -d "$zig/bin" ] && export PATH=$zig/bin:$PATH
  python3 -c 'import ziglang' 2>/dev/null || { echo "SKIPPED: no zig (pip install ziglang)"; exit 77; }
  command -v cargo-zigbuild >/dev/null || { echo "SKIPPED: no cargo-zigbuild (pip install cargo-zigbuild)"; exit 77; }
  [ -d "$(rustc --print sysroot)/lib/rustlib/$t/lib" ] ||
    { echo "SKIPPED: no Rust std for $t (rustup target add $t)"; exit 77; }
}

cross_target() {
  local arch=$1 rtarget gcc qemu= q var
  case $arch in
  i686) rtarget=i686-unknown-linux-gnu gcc=i686-linux-gnu-gcc ;;
  riscv64) rtarget=riscv64gc-unknown-linux-gnu gcc=riscv64-linux-gnu-gcc ;;
  esac
  command -v $gcc >/dev/null || { echo "SKIPPED: no $gcc"; exit 77; }
  [ -d "$(rustc --print sysroot)/lib/rustlib/$rtarget/lib" ] ||
    { echo "SKIPPED: no Rust std for $rtarget (rustup target add $rtarget)"; exit 77; }
  var=$(tr 'a-z-' 'A-Z_' <<<"$rtarget")
  export "CARGO_TARGET_${var}_LINKER=$gcc" "CC_${rtarget//-/_}=$gcc" \
    "AR_${rtarget//-/_}=${gcc%gcc}ar" STATICKEYS_SYS_BUNDLED=1
  if [ "$arch" = i686 ]; then
    "$cargo" test --target $rtarget --workspace -- "${targs[@]}"
    return
  fi
  for q in "${SK_QEMU_RISCV64:-}" "$qemu_dir/qemu-riscv64" \
           "$(command -v qemu-riscv64 || true)"; do
    [ -n "$q" ] && [ -x "$q" ] && "$q" --version | matches 'version [1-9][0-9]\.' &&
      { qemu=$q; break; }
  done
  [ -n "$qemu" ] || { echo "SKIPPED: no qemu-riscv64 10 or newer"; exit 77; }
  export "CARGO_TARGET_${var}_RUNNER=$qemu -L /usr/riscv64-linux-gnu"
  # Under qemu-user code written through /proc/self/mem is never refetched
  # (tests/cross/riscv64.conf): the mprotect writer.
  STATICKEYS_WRITER=mprotect "$cargo" test --target $rtarget \
    -p statickeys-test-mixed -p statickeys --test mixed --test no_sites \
    --test torture --test dyndbg \
    -- "${targs[@]}"
}

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
  # The programs whose sites and static calls fat LTO can move across
  # crates and inline: the API with its sites (basic), Rust and C sites in
  # one program (mixed), the torture, static calls, and debug statements
  # (dyndbg: a descriptor and its listing in each statement's block).  Each is a fat-LTO
  # link of its own; the other four (unit tests, no_sites, trace) added
  # half of this step's time and run unoptimized in test-bundled.
  STATICKEYS_SYS_BUNDLED=1 CARGO_PROFILE_RELEASE_LTO=fat \
    "$cargo" test --release -p statickeys -p statickeys-test-mixed \
    --test basic --test mixed --test torture --test static_call --test dyndbg \
    -- "${targs[@]}"
  ;;
test-crt-static)
  # Fully static test programs (-C target-feature=+crt-static, static-pie on
  # x86_64-unknown-linux-gnu; --target keeps their artifacts apart from the
  # other steps'), the bundled runtime, every test program checked to be
  # static.  Left out: the plugin and two-copies tests, whose cdylibs cargo
  # does not build with crt-static, and the doctests (rustdoc links them without RUSTFLAGS;
  # they run in test-bundled).
  triple=x86_64-unknown-linux-gnu
  [ "$(uname -m)" = x86_64 ] || { echo "SKIPPED: not an x86-64 host"; exit 77; }
  [ -e /usr/lib/x86_64-linux-gnu/libc.a ] ||
    { echo "SKIPPED: no static glibc (libc6-dev)"; exit 77; }
  export RUSTFLAGS="-C target-feature=+crt-static"
  STATICKEYS_SYS_BUNDLED=1 "$cargo" test --workspace --tests --target $triple \
    --exclude statickeys-test-plugin --exclude statickeys-test-two-copies \
    -- "${targs[@]}"
  STATICKEYS_SYS_BUNDLED=1 STATICKEYS_SYNC=mprotect "$cargo" test \
    -p statickeys --test torture --target $triple -- "${targs[@]}"
  t=$(find "$CARGO_TARGET_DIR/$triple/debug/deps" -name 'torture-*' -type f \
      -executable | head -1)
  file -L "$t" | matches -E 'static-pie linked|statically linked' ||
    { echo "FAILED: $t is not static: $(file -L "$t")"; exit 1; }
  echo "crt-static: $(file -L "$t" | cut -d, -f1-5)"
  echo "not run here: statickeys-test-plugin and -two-copies (no cdylib with crt-static)"
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
test-musl)
  # The target's own default (crt-static), as `cargo build --target
  # x86_64-unknown-linux-musl` ships programs: the runtime's signal-mask
  # wrappers reach musl without a dynamic linker (os/linux/sigmask_musl.c).
  t=x86_64-unknown-linux-musl
  [ "$(uname -m)" = x86_64 ] || { echo "SKIPPED: not an x86-64 host"; exit 77; }
  [ -d "$(rustc --print sysroot)/lib/rustlib/$t/lib" ] ||
    { echo "SKIPPED: no Rust std for $t (rustup target add $t)"; exit 77; }
  command -v musl-gcc >/dev/null || { echo "SKIPPED: no musl-gcc (musl-tools)"; exit 77; }
  STATICKEYS_SYS_BUNDLED=1 "$cargo" test --target $t -p statickeys -p statickeys-sys \
    -- "${targs[@]}"
  t=$(find "$CARGO_TARGET_DIR/$t/debug/deps" -name 'torture-*' -type f -executable | head -1)
  file -L "$t" | matches -E 'static-pie linked|statically linked' ||
    { echo "FAILED: $t is not static: $(file -L "$t")"; exit 1; }
  echo "musl: $(file -L "$t" | cut -d, -f1-5)"
  ;;
build-freebsd | build-macos-x86_64 | build-macos-aarch64)
  case $step in
    build-freebsd) t=x86_64-unknown-freebsd is='for FreeBSD' ;;
    build-macos-x86_64) t=x86_64-apple-darwin is='Mach-O 64-bit x86_64' ;;
    build-macos-aarch64) t=aarch64-apple-darwin is='Mach-O 64-bit arm64' ;;
  esac
  zigbuild_ready $t
  STATICKEYS_SYS_BUNDLED=1 "$cargo" zigbuild --target $t -p statickeys -p statickeys-sys --tests
  n=0
  for f in $(find "$CARGO_TARGET_DIR/$t/debug/deps" -maxdepth 1 -type f -executable); do
    file -L "$f" | matches "$is" || { echo "FAILED: not a $t program: $(file -L "$f")"; exit 1; }
    echo "built: $(basename "$f"): $(file -L "$f" | cut -d: -f2 | cut -d, -f1-6)"
    n=$((n + 1))
  done
  [ $n -ge 5 ] || { echo "FAILED: $n test programs built, 5 expected"; exit 1; }
  # Mach-O: the keys' listing is whole pointers in "__DATA,sk_keys", where
  # the runtime looks (statickeys/section.h), and nothing else is there.
  if [ "${t#*-apple-}" != "$t" ]; then
    basic=$(find "$CARGO_TARGET_DIR/$t/debug/deps" -maxdepth 1 -name 'basic-*' -type f -executable | head -1)
    listed=$(python3 "$src/tests/cross/macho_section.py" "$basic" __DATA sk_keys)
    [ "$listed" -gt 0 ] && [ $((listed % 8)) -eq 0 ] ||
      { echo "FAILED: the basic test lists $listed bytes of keys, not whole pointers"; exit 1; }
    echo "the basic test lists $((listed / 8)) keys in __DATA,sk_keys"
  fi
  echo "built, not run (no such OS here): $n test programs of both crates for $t"
  ;;
trace-bpftrace | trace-perf)
  bin=traced
  if [ $step = trace-perf ]; then
    command -v ld.bfd >/dev/null ||
      { echo "SKIPPED: no GNU ld (ld.bfd): perf places SDT probes wrongly in lld-linked programs"; exit 77; }
    bin=traced-bfd
  fi
  STATICKEYS_SYS_BUNDLED=1 "$cargo" build -p statickeys-test-traced --bin $bin
  exec "$src/tests/trace/${step#trace-}_test.sh" "$CARGO_TARGET_DIR/debug/$bin"
  ;;
test-i686 | test-riscv64)
  cross_target "${step#test-}"
  ;;
test-musl-aarch64)
  # aarch64's musl as Rust ships it (fully static), with zig as the C
  # compiler and linker (cargo-zigbuild: Debian has no aarch64 musl cross
  # gcc), run under qemu-user 10 with the mprotect writer (qemu does not see
  # code written through /proc/self/mem).  The crate's sites are key flags
  # on aarch64 (so not `mixed`, which checks patched Rust sites), the C
  # runtime's the aarch64 backend.  `basic`'s start-up test re-executes
  # itself, which qemu-user without binfmt cannot: skipped by name.
  t=aarch64-unknown-linux-musl qemu=
  zigbuild_ready $t
  for q in "$qemu_dir/qemu-aarch64" "$(command -v qemu-aarch64 || true)"; do
    [ -n "$q" ] && [ -x "$q" ] && "$q" --version | matches 'version [1-9][0-9]\.' &&
      { qemu=$q; break; }
  done
  [ -n "$qemu" ] || { echo "SKIPPED: no qemu-aarch64 10 or newer"; exit 77; }
  export CARGO_TARGET_AARCH64_UNKNOWN_LINUX_MUSL_RUNNER=$qemu
  # cargo-zigbuild's own "test" (cargo's "zigbuild" subcommand only builds).
  STATICKEYS_SYS_BUNDLED=1 STATICKEYS_WRITER=mprotect cargo-zigbuild test --target $t \
    -p statickeys --test basic --test no_sites --test torture --test trace \
    --test dyndbg -- "${targs[@]}" --skip startup_state_from_environment
  f=$(find "$CARGO_TARGET_DIR/$t/debug/deps" -name 'torture-*' -type f -executable | head -1)
  file -L "$f" | matches 'ARM aarch64' && file -L "$f" | matches -E 'static-pie linked|statically linked' ||
    { echo "FAILED: $f is not a static aarch64 program: $(file -L "$f")"; exit 1; }
  echo "aarch64 musl: $(file -L "$f" | cut -d, -f1-5)"
  ;;
test-loongarch64)
  # The port as a static-keys user meets it: patched Rust sites (mixed
  # decodes them beside C's), static calls, tracepoints, the torture, and
  # static-keys 0.8's own tests and examples unchanged (rust/tests/compat).
  # zig links against its glibc stubs (Rust's loongarch64 std wants glibc
  # 2.36); Debian's loong64 glibc runs the programs.  The standard library
  # is built from the toolchain's rust-src (RUSTC_BOOTSTRAP for
  # -Zbuild-std on a stable cargo), a minute once.  The mprotect writer:
  # qemu-loongarch64 does not refetch code written through /proc/self/mem
  # (tests/cross/loongarch64.excluded).
  t=loongarch64-unknown-linux-gnu qemu= sysroot=$build/tools/sysroot-loong64
  zig=$build/os/zig
  [ -d "$zig/ziglang" ] && export PYTHONPATH=$zig${PYTHONPATH:+:$PYTHONPATH}
  [ -d "$zig/bin" ] && export PATH=$zig/bin:$PATH
  python3 -c 'import ziglang' 2>/dev/null || { echo "SKIPPED: no zig (pip install ziglang)"; exit 77; }
  command -v cargo-zigbuild >/dev/null || { echo "SKIPPED: no cargo-zigbuild (pip install cargo-zigbuild)"; exit 77; }
  [ -d "$(rustc --print sysroot)/lib/rustlib/src/rust/library" ] ||
    { echo "SKIPPED: no rust-src to build loongarch64's std (rustup component add rust-src)"; exit 77; }
  [ -e "$sysroot/usr/lib/loongarch64-linux-gnu/libc.so.6" ] ||
    { echo "SKIPPED: no loong64 glibc in $sysroot (tests/cross/fetch_sysroot_loong64.sh)"; exit 77; }
  for q in "$qemu_dir/qemu-loongarch64" "$(command -v qemu-loongarch64 || true)"; do
    [ -n "$q" ] && [ -x "$q" ] && "$q" --version | matches 'version [1-9][0-9]\.' &&
      { qemu=$q; break; }
  done
  [ -n "$qemu" ] || { echo "SKIPPED: no qemu-loongarch64 10 or newer"; exit 77; }
  export CARGO_TARGET_LOONGARCH64_UNKNOWN_LINUX_GNU_RUNNER="$qemu -L $sysroot"
  echo "not run under qemu: startup_state_from_environment (it re-executes" \
       "itself through /proc/self/exe, which under qemu-user is the emulator)" \
       "and compat's run_examples (it runs the examples without the emulator;" \
       "they are run below)"
  export RUSTC_BOOTSTRAP=1 STATICKEYS_SYS_BUNDLED=1 STATICKEYS_WRITER=mprotect
  cargo-zigbuild test -Zbuild-std=std,panic_unwind --target $t \
    -p statickeys -p statickeys-test-mixed -p statickeys-test-compat \
    --test basic --test static_call --test trace --test torture \
    --test no_sites --test mixed \
    -- "${targs[@]}" --skip startup_state_from_environment
  cargo-zigbuild build -Zbuild-std=std,panic_unwind --target $t \
    -p statickeys-test-compat --bins
  bin=$CARGO_TARGET_DIR/$t/debug
  out=$($qemu -L "$sysroot" "$bin/usage")
  [ "$out" = "$(printf 'Entering foo function\nB branch\nEntering foo function\nA branch')" ] ||
    { echo "FAILED: static-keys' usage example printed: $out"; exit 1; }
  out=$($qemu -L "$sysroot" "$bin/readme" --flag)
  [ "$out" = "do_something ran 1000 times" ] ||
    { echo "FAILED: static-keys' readme example printed: $out"; exit 1; }
  echo "loongarch64: static-keys 0.8's examples print as with static-keys"
  ;;
test-portable)
  STATICKEYS_SYS_BUNDLED=1 "$cargo" test -p statickeys --features portable \
    -- "${targs[@]}"
  ;;
test-s390x | test-ppc64le | test-armhf)
  # The ports whose Rust sites are key flags (the crate's site template is
  # x86 and riscv64's), over the bundled runtime's patched backend.
  case $step in
  test-s390x) t=s390x-unknown-linux-gnu triple=s390x-linux-gnu q=qemu-s390x ;;
  test-armhf) t=armv7-unknown-linux-gnueabihf triple=arm-linux-gnueabihf q=qemu-arm ;;
  *) t=powerpc64le-unknown-linux-gnu triple=powerpc64le-linux-gnu q=qemu-ppc64le ;;
  esac
  rustup=$(dirname "$cargo")/rustup
  "$rustup" target list --installed 2>/dev/null | matches -x $t || {
    echo "SKIPPED: no Rust standard library for $t (rustup target add $t)"; exit 77; }
  command -v $triple-gcc >/dev/null || {
    echo "SKIPPED: no $triple-gcc (tests/cross/${step#test-}.conf names the packages)"; exit 77; }
  qemu=$qemu_dir/$q
  [ -x "$qemu" ] || qemu=$(command -v $q || true)
  [ -n "$qemu" ] && "$qemu" --version | matches 'version \(1[0-9]\|[2-9][0-9]\)\.' || {
    echo "SKIPPED: no $q 10 or newer (tests/cross/fetch_qemu_user.sh)"; exit 77; }
  var=$(tr 'a-z-' 'A-Z_' <<<"$t")
  export "CARGO_TARGET_${var}_LINKER=$triple-gcc" "CC_${t//-/_}=$triple-gcc" \
    "CARGO_TARGET_${var}_RUNNER=$qemu -L /usr/$triple"
  echo "not run under qemu: startup_state_from_environment (it re-executes" \
       "itself through /proc/self/exe, which under qemu-user is the emulator)"
  # qemu does not refetch code written through /proc/self/mem on either
  # (tests/cross/<arch>.conf): the mprotect writer.
  STATICKEYS_SYS_BUNDLED=1 STATICKEYS_WRITER=mprotect "$cargo" test -p statickeys --target $t \
    -- "${targs[@]}" --skip startup_state_from_environment
  ;;
test-windows)
  t=x86_64-pc-windows-gnu
  [ -d "$(rustc --print sysroot)/lib/rustlib/$t/lib" ] || {
    echo "SKIPPED: no Rust standard library for $t (rustup target add $t)"; exit 77; }
  command -v x86_64-w64-mingw32-gcc >/dev/null || {
    echo "SKIPPED: no x86_64-w64-mingw32-gcc (Debian: gcc-mingw-w64-x86-64)"; exit 77; }
  wine=$(command -v wine64 || command -v wine || true)
  [ -n "$wine" ] || [ ! -x /usr/lib/wine/wine64 ] || wine=/usr/lib/wine/wine64
  [ -n "$wine" ] || { echo "SKIPPED: no wine (Debian: wine64)"; exit 77; }
  echo "emulator: $("$wine" --version)"
  # The test programs land in deps/: the ProcessPrng DLL goes there first.
  deps=$CARGO_TARGET_DIR/$t/debug/deps
  mkdir -p "$deps"
  x86_64-w64-mingw32-gcc -O2 -Wall -Wextra -shared -s \
    -o "$deps/bcryptprimitives.dll" "$src/tests/rust/windows/processprng.c" -ladvapi32
  export CARGO_TARGET_X86_64_PC_WINDOWS_GNU_LINKER=x86_64-w64-mingw32-gcc
  export CARGO_TARGET_X86_64_PC_WINDOWS_GNU_RUNNER=$wine
  export WINEPREFIX=${WINEPREFIX:-$build/os/wineprefix} WINEDEBUG=${WINEDEBUG:--all}
  mkdir -p "$build/os"
  # Unit and integration tests (doctests are the host's: rust_test_bundled).
  # Not statickeys-sys's: it has none, and launching its empty test program
  # under wine checks nothing (a loaded fresh-clone run once saw wine exit 1
  # there, with no output, before the harness ran).
  STATICKEYS_SYS_BUNDLED=1 "$cargo" test -p statickeys \
    -p statickeys-test-mixed --target $t --tests -- "${targs[@]}"
  # The torture again with the other writer (STATICKEYS_WRITER=mprotect:
  # VirtualProtect on Windows).
  STATICKEYS_SYS_BUNDLED=1 STATICKEYS_WRITER=mprotect \
    "$cargo" test -p statickeys --target $t --test torture -- "${targs[@]}"
  ;;
*)
  echo "unknown step $step" >&2
  exit 2
  ;;
esac
