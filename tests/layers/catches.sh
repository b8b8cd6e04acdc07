#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
#
# tests/layers/catches.sh CASE SOURCE_DIR CC NM - the layer check
# (tools/check_layers.py) sees each way the check that read sources was
# fooled (issue 47).  A small tree of our layout is compiled with CC and
# listed as CMake lists the runtime's objects: control/ above core/ above
# os/ above support/, control/ calling getpid(), which os/os.h lists.  As it is, the check must pass it (a check that always fails
# proves nothing); with CASE's one bad arrow added, it must fail naming
# that arrow, and nothing else:
#
#   call_after_attribute  os/ calls a core function whose definition
#                         follows an __attribute__((cold)) line
#   address_taken         os/ takes a core function's address, calls nothing
#   angle_include         os/ includes <core/core.h> (compiled with -I src,
#                         as the runtime was; with -iquote it must not compile)
#   macro_include         os/ includes a macro that names core/core.h: only
#                         the compiler's dependency file says which file
#   support_os_circle     support/ calls os/, which calls support/
#   control_libc_call     control/ calls a C library function (kill) that
#                         os/os.h's control-libc list does not name
set -euo pipefail
case=$1 src=$2 cc=$3 nm=$4
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
tree=$tmp/tree build=$tmp/build
fail() { echo "FAIL: $*"; exit 1; }
put() { mkdir -p "$(dirname "$tree/$1")"; cat >"$tree/$1"; }

# The tree that passes.
put src/os/os.h <<'C'
/*
 * control-libc: getpid
 *   getppid
 */
C
put src/control/ctl.c <<'C'
#include <unistd.h>

#include "core/core.h"

int sk__control_ctl(void);

int sk__control_ctl(void)
{
	return sk__core_plain() + (int)getpid();
}
C
put src/core/core.h <<'C'
int sk__core_cold(void);
int sk__core_plain(void);
C
put src/core/core.c <<'C'
#include "core/core.h"
#include "os/demo/thing.h"
#include "support/message.h"

__attribute__((cold))
int sk__core_cold(void)
{
	return sk__message(1);
}

int sk__core_plain(void)
{
	return sk__os_thing();
}
C
put src/os/demo/thing.h <<'C'
int sk__os_thing(void);
C
put src/os/demo/thing.c <<'C'
#include "os/demo/thing.h"
#include "support/message.h"

int sk__os_thing(void)
{
	return sk__message(2);
}
C
put src/support/message.h <<'C'
int sk__message(int n);
C
put src/support/message.c <<'C'
#include "support/message.h"

int sk__message(int n)
{
	return n;
}
C

# build [CFLAGS...]: compile every .c of the tree and list the objects.
build() {
  rm -rf "$build"
  printf 'unit demo\ntarget demo %s\n' "$tree/src" >"$tmp/objects.txt"
  for c in $(cd "$tree/src" && find . -name '*.c' | sort); do
    o=$build/CMakeFiles/demo.dir/${c#./}.o
    mkdir -p "$(dirname "$o")"
    "$cc" -O2 -iquote "$tree/src" "$@" -MD -MF "$o.d" -c "$tree/src/$c" -o "$o" ||
      fail "compiling $c"
    echo "$o" >>"$tmp/objects.txt"
  done
}
check() { python3 "$src/tools/check_layers.py" "$tree" "$tmp/objects.txt" --nm "$nm"; }

build
out=$(check) || { echo "$out"; fail "the clean tree does not pass"; }
echo "$out" | grep -q "every arrow goes down" || { echo "$out"; fail "no verdict"; }
echo "clean tree: passes"

# The bad arrow, and the lines the check must print for it.
flags=()
case $case in
call_after_attribute)
  put src/os/demo/bad.c <<'C'
int sk__core_cold(void); /* declared here: no #include to give it away */
int sk__os_bad(void);

int sk__os_bad(void)
{
	return sk__core_cold();
}
C
  want=("upward arrow: src/os/demo/bad.c (os) -> src/core/core.c (core): uses sk__core_cold") ;;
address_taken)
  put src/os/demo/bad.c <<'C'
int sk__core_plain(void);
int (*sk__os_bad(void))(void);

int (*sk__os_bad(void))(void)
{
	return sk__core_plain; /* not called: only its address */
}
C
  want=("upward arrow: src/os/demo/bad.c (os) -> src/core/core.c (core): uses sk__core_plain") ;;
angle_include)
  put src/os/demo/bad.c <<'C'
#include <core/core.h>

int sk__os_bad(void);

int sk__os_bad(void)
{
	return 0;
}
C
  if "$cc" -iquote "$tree/src" -fsyntax-only "$tree/src/os/demo/bad.c" 2>/dev/null; then
    fail "#include <core/core.h> compiles with -iquote src"
  fi
  echo "#include <core/core.h> does not compile with -iquote src"
  flags=(-I "$tree/src")
  want=("upward arrow: src/os/demo/bad.c (os) -> src/core/core.h (core): #include <core/core.h>") ;;
macro_include)
  put src/os/demo/bad.c <<'C'
#define SK__HEADER "core/core.h"
#include SK__HEADER

int sk__os_bad(void);

int sk__os_bad(void)
{
	return 0;
}
C
  want=("upward arrow: src/os/demo/bad.c (os) -> src/core/core.h (core): reaches src/core/core.h (the compiler's dependency file)") ;;
support_os_circle)
  put src/support/message.c <<'C'
#include "support/message.h"

int sk__os_thing(void);

int sk__message(int n)
{
	return n > 2 ? sk__os_thing() : n;
}
C
  want=("upward arrow: src/support/message.c (support) -> src/os/demo/thing.c (os): uses sk__os_thing"
        "circle: src/os/demo/thing <-> src/support/message") ;;
control_libc_call)
  put src/control/bad.c <<'C'
#include <signal.h>
#include <unistd.h>

int sk__control_bad(void);

int sk__control_bad(void)
{
	return kill(getppid(), 0); /* getppid listed, kill not */
}
C
  want=("unlisted call: src/control/bad.c (control) -> kill: not in src/os/os.h's control-libc list") ;;
*) fail "no case $case" ;;
esac

build "${flags[@]}"
if out=$(check); then
  echo "$out"
  fail "the check passes a tree where $case"
fi
echo "$out"
for line in "${want[@]}"; do
  echo "$out" | grep -qxF "$line" || fail "the check does not name: $line"
done
echo "$out" | grep -qx "check_layers: ${#want[@]} violation(s)" ||
  fail "the check finds more than ${#want[@]} violation(s)"
echo "1 passed, 0 failed ($case: named, and nothing else)"
