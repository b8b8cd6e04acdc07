#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# variant.sh VARIANT SRC BUILD CMAKE CTEST
# The tests that apply to static programs and to musl, in a sub-build BUILD
# of the tree, built once:
#   static, static-pie   glibc; every test program links the static runtime
#                        with -static or -static-pie (STATICKEYS_TEST_LINK),
#                        and so with the -Wl,--wrap options the static CMake
#                        target carries
#   musl                 CC=musl-gcc; test programs link the shared runtime
#   musl-static          CC=musl-gcc, every test program fully static; then
#                        the runtime as Rust's musl target links it: no
#                        --wrap options, the wrappers taking musl's names
#                        (SK_SIGMASK_STATIC_MUSL, os/linux/sigmask_musl.c),
#                        with every thread model that sets a mask
# What runs: the kernel-API matrix, the torture with both writers and with
# the fallback core sync, every thread model with each writer and the sync
# fallback, updates from signal handlers (signals, handler_updates), the
# control socket, skctl against a running demo (control_e2e, and its static
# call: control_static_calls), static calls (the API, the kernel's
# spellings, threads calling while they are re-pointed, with both writers),
# updates while a thread creates threads (thread_churn.c), dynamic debug
# (tests/dyndbg: the query language, the output, queries while threads
# print, the kernel's spellings, fork, skctl debug; the C++ statements with
# glibc; plugins and STATICKEYS_DYNDBG's plugin with musl's shared
# runtime), and, for the
# static ones, the
# link check: a program linked without the wrap options
# gets -ENOTSUP and a message naming the link line, no abort.
# Left out, each with its reason (printed):
#   dlopen_after (static ones)  the plugin links the shared runtime: a fully
#                        static program cannot share its runtime with a
#                        plugin (docs/static-linking.md)
#   attr_sigmask, ucontext (musl)  musl has no pthread_attr_setsigmask_np
#                        and no setcontext family
#   dyndbg_plugins, dyndbg_startup, dyndbg_config (static ones)  load a plugin linked with
#                        the shared runtime, as dlopen_after
#   dyndbg_cxx (musl ones)  musl-gcc has no C++ library of its own
# Exit 77 (skipped) with the reason when the toolchain is missing (Debian:
# libc6-dev for the static glibc archives, musl-tools for musl-gcc).
set -euo pipefail
# grep that reads all its input: `cmd | grep -q` can leave cmd a SIGPIPE,
# which pipefail counts as the pipeline failing.
matches() { grep "$@" >/dev/null; }
variant=$1 src=$2 build=$3 cmake=$4 ctest=$5

skip() { echo "SKIPPED: $*"; exit 77; }
fail() { echo "FAILED: $*" >&2; exit 1; }

cc=cc link=
case $variant in
  static|static-pie) link=$variant ;;
  musl) cc=musl-gcc ;;
  musl-static) cc=musl-gcc link=static ;;
  *) fail "unknown variant $variant" ;;
esac
command -v $cc >/dev/null || skip "no $cc (Debian package musl-tools)"
mkdir -p "$(dirname "$build")"
echo 'int main(void){return 0;}' > "$build.probe.c"
$cc ${link:+-$link} "$build.probe.c" -o "$build.probe" 2>/dev/null ||
  skip "$cc ${link:+-$link} cannot link a program (no static C library:" \
       "libc6-dev)"

targets="core_selftest core_torture
  core_sigtrap_chain core_fork_flips linux_kernel_api faults_thread_models
  faults_model_plugin faults_signals faults_handler_updates faults_process_model control_socket
  static_call_basic static_call_kernel_selftest static_call_torture
  static_call_inline_basic static_call_inline_torture static_call_inline_strip skctl
  skdemo"
# control_static_calls runs skdemo and skctl (built above).
tests='^(core_selftest|core_torture_(procmem|mprotect)|core_sigtrap_chain|core_fork_flips|linux_kernel_api|faults_thread_models_.*_(procmem|mprotect|sync_fallback)|faults_signals|faults_handler_updates|faults_process_model|control_socket|control_e2e|control_static_calls|static_call_(basic|kernel_selftest|torture_procmem|torture_mprotect|inline_basic|inline_torture_procmem|inline_torture_mprotect|inline_strip|inline_strip_all|inline_strip_unneeded))$'
# Dynamic debug: what every variant runs, and what needs a plugin sharing
# the runtime (not in a fully static program) or C++ (not with musl-gcc).
dd_targets="dyndbg_grammar dyndbg_output dyndbg_threads dyndbg_kernel_api
  dyndbg_fork dyndbg_server"
dd_tests='dyndbg_(grammar|output|threads|kernel_api|fork|skctl)'
if [ -z "$link" ]; then
  dd_targets="$dd_targets dyndbg_plugin dyndbg_plugins dyndbg_startup dyndbg_config"
  dd_tests=${dd_tests%)}'|plugins|startup|config)'
fi
if [ $cc != musl-gcc ]; then
  dd_targets="$dd_targets dyndbg_cxx"
  dd_tests=${dd_tests%)}'|cxx)'
fi
targets="$targets $dd_targets"
tests="${tests%)\$}|$dd_tests)\$"
left_out=()
[ -n "$link" ] && left_out+=("dlopen_after: a plugin linked with the shared runtime cannot share a fully static program's runtime")
[ $cc = musl-gcc ] && left_out+=("attr_sigmask: musl has no pthread_attr_setsigmask_np" "ucontext: musl has no setcontext family")
exclude=$(printf '%s\n' "${left_out[@]}" | sed 's/:.*//' | paste -sd'|')

# RelWithDebInfo's optimization without its debug information, as in the
# ports' sub-builds (tests/cross/cross.sh): nothing in these runs reads it.
CC=$cc "$cmake" -S "$src" -B "$build" -DSTATICKEYS_TEST_LINK=$link \
  -DSTATICKEYS_BUILD_BENCH=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O2 -DNDEBUG" \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -DNDEBUG" \
  > "$build.configure.log" 2>&1 ||
  { cat "$build.configure.log"; fail "configure"; }
# shellcheck disable=SC2086
"$cmake" --build "$build" -j "${SK_VARIANT_JOBS:-2}" --target $targets \
  > "$build.build.log" 2>&1 ||
  { tail -50 "$build.build.log"; fail "build (log: $build.build.log)"; }
for t in core_selftest linux_kernel_api faults_thread_models skdemo; do
  f=$(find "$build/tests" "$build/tools" -name $t -type f | head -1)
  d=$(file -L "$f")
  if [ -n "$link" ]; then
    echo "$d" | matches -E 'statically linked|static-pie linked' ||
      fail "$f is not statically linked: $d"
  fi
  if [ $cc = musl-gcc ] && [ -z "$link" ]; then
    readelf -l "$f" | matches 'ld-musl' || fail "$f does not use musl's loader"
  fi
done
wrap=$(sed -n 's/^Libs.private: //p' "$build/statickeys.pc" | sed 's/-ldl//')
echo "built ($variant, $($cc --version | head -1)): $build"

# The torture once more with the fallback core sync (mprotect).
torture=$(find "$build/tests" -name core_torture -type f | head -1)
STATICKEYS_SYNC=mprotect SK_TORTURE_SECONDS=0.5 "$torture" ||
  fail "torture with STATICKEYS_SYNC=mprotect"

# The tortures run 3 s each here, against 10 s in the main build's own run,
# as in the ports' (tests/cross/cross.sh): the same protocol and the same
# checks, linked another way.
export SK_TORTURE_SECONDS=${SK_TORTURE_SECONDS:-3}
(cd "$build" && "$ctest" -j "${SK_VARIANT_JOBS:-2}" --output-on-failure \
   -R "$tests" ${exclude:+-E "$exclude"}) || fail "ctest ($variant)"
for r in "${left_out[@]}"; do echo "not run: faults_thread_models_$r"; done

# Updates while a thread creates threads (musl blocks every signal inside
# pthread_create): none may fail, and the process must not be killed.
# No run path in a static link: glibc's start-up of a -static-pie program
# asserts that it has none (_dl_relocate_static_pie) and crashes.
churn=$build.thread_churn
$cc ${link:+-$link} -O2 -I"$src/include" "$src/tests/static/thread_churn.c" \
  -o "$churn" \
  $([ -n "$link" ] && echo "$build/src/libstatickeys.a $wrap" ||
    echo "-L$build/src -Wl,-rpath,$build/src -lstatickeys") \
  -lpthread 2>"$churn.link.log" || { cat "$churn.link.log"; fail "thread_churn link"; }
"$churn" || fail "thread_churn"

if [ -n "$link" ]; then
  # The link check: a program linked without the wrap options.
  prog=$build.nowrap
  $cc -$link -I"$src/include" "$src/tests/static/nowrap.c" -o "$prog" \
    "$build/src/libstatickeys.a" -lpthread 2>"$prog.link.log" ||
    { cat "$prog.link.log"; fail "linking without the wrap options"; }
  out=$("$prog" 2>&1) ||
    fail "the program linked without the wrap options exited $?: $out"
  echo "$out"
  echo "$out" | matches 'refused (ENOTSUP)' &&
    echo "$out" | matches 'pkg-config --static --libs statickeys' ||
    fail "no message naming the link line"
fi
if [ "$variant" = musl-static ]; then
  # As statickeys-sys builds it for x86_64-unknown-linux-musl: the sources
  # src/sources.txt lists for it, one archive, a program linked without --wrap.
  nowrap=$build.static-musl
  rm -rf "$nowrap" && mkdir -p "$nowrap"
  sources=$(sed 's/#.*//' "$src/src/sources.txt" | awk '
    /^[a-z0-9_.]+:/ { list = $1; sub(/:$/, "", list); $1 = "" }
    list ~ /^(common|control\.posix|os\.linux|arch\.x86_64|traps\.linux)$/ { print }' |
    tr -s ' \t' '\n' | grep '\.c$')
  printf '%s\n' $sources | xargs -P "${SK_VARIANT_JOBS:-2}" -I{} sh -c \
    'musl-gcc -c -O2 -std=gnu11 -D_GNU_SOURCE -D_FILE_OFFSET_BITS=64 \
       -DSK_BUILDING_LIBRARY -DSK_SIGMASK_STATIC_MUSL -fvisibility=hidden \
       -I"$1/include" -iquote "$1/src" "$1/src/{}" -o "$2/$(echo {} | tr / _).o"' \
    _ "$src" "$nowrap" || fail "compiling the runtime with SK_SIGMASK_STATIC_MUSL"
  ar rcs "$nowrap/libstatickeys.a" "$nowrap"/*.o
  musl-gcc -static -O2 -D_GNU_SOURCE -DSK_TEST_STATIC_RUNTIME -I"$src/include" \
    -I"$src/tests" "$src/tests/faults/thread_models.c" \
    "$nowrap/libstatickeys.a" -lpthread -o "$nowrap/thread_models" ||
    fail "linking thread_models without --wrap"
  for m in inherited pthread_sigmask sigprocmask siglongjmp handler_sa_mask \
           handler_sigsuspend fork_spawn exec_blocked; do
    SK_TORTURE_SECONDS=0.3 "$nowrap/thread_models" $m > "$nowrap/$m.log" 2>&1 ||
      { tail -20 "$nowrap/$m.log"; fail "thread model $m (musl, no --wrap)"; }
    echo "musl without --wrap: $m: $(grep -E '^[0-9]+ passed' "$nowrap/$m.log")"
  done
fi
echo "PASSED: variant $variant"
