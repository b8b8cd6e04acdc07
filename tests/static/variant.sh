#!/usr/bin/env bash
# variant.sh LINK SRC BUILD CMAKE CTEST
# The tests that apply to fully static programs (LINK: static or static-pie),
# in a sub-build BUILD of the tree where every test program links the static
# runtime with that option (STATICKEYS_TEST_LINK), and so with the -Wl,--wrap
# options the static CMake target carries: the kernel-API matrix, the
# torture with both writers and with the fallback core sync, every thread
# model with each writer and the sync fallback, updates from signal handlers,
# the control socket, and the link check (a program linked without the wrap
# options: its update is refused with the documented message, no abort).
# Not here, with the reason: the dlopen_after thread model (the plugin links
# the shared runtime: a fully static program cannot share its runtime with a
# plugin, README "Static programs and musl").
# Exit 77 (skipped) with the reason when the C library has no static
# archives (Debian: libc6-dev ships them).
set -euo pipefail
link=$1 src=$2 build=$3 cmake=$4 ctest=$5

skip() { echo "SKIPPED: $*"; exit 77; }
fail() { echo "FAILED: $*" >&2; exit 1; }

echo 'int main(void){return 0;}' > "$build.probe.c" 2>/dev/null ||
  { mkdir -p "$(dirname "$build")"; echo 'int main(void){return 0;}' > "$build.probe.c"; }
cc -$link "$build.probe.c" -o "$build.probe" 2>/dev/null ||
  skip "cc -$link cannot link a program (no static C library: libc6-dev)"

targets="core_selftest core_torture_procmem core_torture_mprotect
  core_sigtrap_chain core_fork_flips linux_kernel_api faults_thread_models
  faults_signals faults_handler_depth control_socket"
tests='^(core_selftest|core_torture_(procmem|mprotect)|core_sigtrap_chain|core_fork_flips|linux_kernel_api|faults_thread_models_.*_(procmem|mprotect|sync_fallback)|faults_signals|faults_handler_depth|control_socket)$'

"$cmake" -S "$src" -B "$build" -DSTATICKEYS_TEST_LINK=$link \
  -DSTATICKEYS_BUILD_BENCH=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  > "$build.configure.log" 2>&1 ||
  { cat "$build.configure.log"; fail "configure"; }
# shellcheck disable=SC2086
"$cmake" --build "$build" -j "${SK_VARIANT_JOBS:-2}" --target $targets \
  > "$build.build.log" 2>&1 ||
  { tail -50 "$build.build.log"; fail "build (log: $build.build.log)"; }
for t in core_selftest linux_kernel_api faults_thread_models; do
  f=$(find "$build/tests" -name $t -type f | head -1)
  file -L "$f" | grep -q 'statically linked\|static-pie linked' ||
    fail "$f is not statically linked: $(file -L "$f")"
done
echo "built ($link): $build"

# The torture once more with the fallback core sync (mprotect).
torture=$(find "$build/tests" -name core_torture_procmem -type f | head -1)
STATICKEYS_SYNC=mprotect SK_TORTURE_SECONDS=0.5 "$torture" ||
  fail "torture with STATICKEYS_SYNC=mprotect"

(cd "$build" && "$ctest" -j "${SK_VARIANT_JOBS:-2}" --output-on-failure \
   -R "$tests" -E 'dlopen_after') || fail "ctest ($link)"
echo "not run: faults_thread_models_dlopen_after_* (a plugin linked with" \
     "the shared runtime cannot share a fully static program's runtime)"

# The link check: the same program without the wrap options.
prog=$build.nowrap
cc -$link -I"$src/include" "$src/tests/static/nowrap.c" -o "$prog" \
  "$build/src/libstatickeys.a" -lpthread 2>"$prog.link.log" ||
  { cat "$prog.link.log"; fail "linking without the wrap options"; }
out=$("$prog" 2>&1) || fail "the program linked without the wrap options exited $?: $out"
echo "$out"
echo "$out" | grep -q 'refused (ENOTSUP)' &&
  echo "$out" | grep -q 'pkg-config --static --libs statickeys' ||
  fail "no message naming the link line"
echo "PASSED: static variant ($link)"
