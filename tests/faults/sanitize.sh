#!/bin/sh
# SPDX-License-Identifier: MIT OR Apache-2.0
# sanitize.sh KIND SOURCE_DIR BUILD_DIR CMAKE CTEST C_COMPILER CXX_COMPILER TARGETS...
#
# Builds the runtime and the given test programs with a sanitizer, then runs
# the core, fault, front-end (linux_, cxx_, trace_), static-call and
# dynamic-debug tests in that build:
#   asan  AddressSanitizer + UndefinedBehaviorSanitizer (any report fails)
#   tsan  ThreadSanitizer, with the reviewed suppressions in tsan.supp
# Exit 77 (skipped) if the compiler cannot build a sanitized program here.
set -eu
# faults_late_runtime_* preload the runtime or expect the default
# SIGTRAP policy: neither goes with a sanitizer runtime, which must come
# first in the process and (TSan) needs STATICKEYS_BLOCKED_SIGTRAP=warn.
# The tracepoint tests of compilers and tracers (trace_misuse_build links
# unsanitized programs; bpftrace and perf are not what this build checks).
exclude='|late_runtime|trace_misuse_build|trace_bpftrace|trace_perf'
kind=$1 src=$2 dir=$3 cmake=$4 ctest=$5 cc=$6 cxx=$7
shift 7
here=$(cd "$(dirname "$0")" && pwd)

# Line tables only (-g1): what a sanitizer's report needs for file:line,
# at a fraction of full debug information's compile time.
case $kind in
asan)
	flags="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
	# -O1, as AddressSanitizer's own documentation runs it: most of the
	# speed of -O2 for a third less compiling of an instrumented tree.
	opt="-O1 -g1 -DNDEBUG"
	# Leak checking needs ptrace-like thread suspension, often refused in
	# containers; leaks are not what this build is for.
	export ASAN_OPTIONS=detect_leaks=0:abort_on_error=0:halt_on_error=1
	export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
	;;
tsan)
	flags="-fsanitize=thread"
	opt="-O2 -g1 -DNDEBUG"
	# die_after_fork=0: the fork tests fork multi-threaded processes on
	# purpose; their children only run sites and flip keys.
	export TSAN_OPTIONS="suppressions=$here/tsan.supp:halt_on_error=1:die_after_fork=0:second_deadlock_stack=1"
	# ThreadSanitizer's own background thread blocks every signal and
	# never runs a site: exactly the case STATICKEYS_BLOCKED_SIGTRAP=warn
	# is documented for.  The tests that need the default policy are left
	# out of this build (they run in the normal and ASan builds).
	export STATICKEYS_BLOCKED_SIGTRAP=warn
	# ThreadSanitizer also defers asynchronous signal handlers and runs
	# them later from its own code with every signal blocked; a handler
	# that then meets a changing site's int3 is killed by the kernel.  The
	# tests that run sites in signal handlers are left out here too (the
	# thread-model runs of every case include the handler cases).
	exclude="$exclude|blocked_sigtrap|signals|soak|thread_models_handler|thread_models\$|thread_models_static\$"
	;;
*)
	echo "unknown sanitizer kind $kind" >&2
	exit 2
	;;
esac

probe=$(mktemp -d)
trap 'rm -rf "$probe"' EXIT
echo 'int main(void) { return 0; }' > "$probe/p.c"
if ! "$cc" $flags "$probe/p.c" -o "$probe/p" 2>/dev/null || ! "$probe/p"; then
	echo "SKIPPED: $cc cannot build and run a $kind program here"
	exit 77
fi

"$cmake" -S "$src" -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	-DCMAKE_C_FLAGS_RELWITHDEBINFO="$opt" -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="$opt" \
	-DCMAKE_C_COMPILER="$cc" -DCMAKE_CXX_COMPILER="$cxx" \
	-DCMAKE_C_FLAGS="$flags" -DCMAKE_CXX_FLAGS="$flags" \
	-DCMAKE_EXE_LINKER_FLAGS="$flags" -DCMAKE_SHARED_LINKER_FLAGS="$flags" \
	-DSTATICKEYS_BUILD_BENCH=OFF -DSK_SANITIZED_BUILD=ON >/dev/null
"$cmake" --build "$dir" -j 2 --target "$@" >/dev/null

# The torture tests are shortened: the sanitizers slow every access down.
export SK_TORTURE_SECONDS=3
cd "$dir"
"$ctest" --output-on-failure --timeout 300 -R '^(core|faults|linux|cxx|trace|static_call|dyndbg)_' \
	-E "clang|does_not_compile$exclude"
