# Test labels and scheduling, in one place (docs/testing.md says what each
# label covers).  Included first by tests/CMakeLists.txt; every folder that
# adds tests calls sk_label_tests() last, so a new test gets its labels from
# its name here.
#
#   quick      in-tree programs and scripts that run in seconds: `make check`
#              runs these, in parallel, after each change
#   cross      sub-builds of the whole tree for other architectures, OSes or
#              the portable backend, run natively or under qemu-user
#   variant    sub-builds of the whole tree linked statically, or with musl
#   sanitizer  ASan and TSan builds and runs
#   rust       the Rust crates (cargo), every target
#   wine       the Windows build, run under wine
#   install    installs, packages and consuming the installed tree
#   external   real outside tools beside the runtime: gdb, valgrind,
#              bpftrace, perf, etcd, libFuzzer
#   timing     measures time or needs the machine alone: runs by itself
#              (RUN_SERIAL), never beside another test
#
# `make test` runs every label in parallel (ctest -j); RESOURCE_LOCKs keep
# tests that share a sub-build apart, and RUN_SERIAL keeps timing tests
# alone.

# sk_label_tests() - label the tests of the calling folder: called last in
# every CMakeLists.txt that adds tests (CMake < 3.28 sets a test's
# properties only in the folder that added it).
function(sk_label_tests)
  get_property(folder_tests DIRECTORY PROPERTY TESTS)
  foreach(t IN LISTS folder_tests)
    sk_label_test(${t})
  endforeach()
endfunction()

function(sk_label_test t)
  # Inside the function: bench/ labels its tests too, outside this scope.
  # name regex -> label; a test takes every label whose pattern it matches,
  # and "quick" when it matches none of them and SK_QUICK_TESTS; a test
  # that matches nothing at all is a configure error naming it (no test
  # lands in `make check` by default).
  set(SK_LABEL_RULES
    "^windows_|_windows$"                                   wine
    "^rust_"                                                rust
    "_asan|_tsan|^faults_sanitizer_"                        sanitizer
    "^(i686|riscv64|aarch64|s390x|ppc64le|loongarch64|armhf)_cross_|^portable_backend_|^os_build_" cross
    "^static_variant_"                                      variant
    "^install_"                                             install
    "^coexist_(gdb|valgrind|uprobes)_|^trace_(bpftrace|perf|red_zone)$|^control_etcd_fleet$|^control_fuzz_libfuzzer$" external
    "_bench$|^bench_|^coexist_uprobes_"                     timing)

  # Tests that take minutes (sub-builds): started first, so that a parallel
  # run does not end waiting on one long test started last.  ctest orders by
  # COST, and after a first run by the times it measured.
  # The in-tree programs and scripts that run in seconds (`make check`).
  set(SK_QUICK_TESTS "^(arch|control|core|coexist|cxx|docs|dyndbg|faults|footprint|headers|link|linux|objects|static_call|trace)_|^layers$|^layers_sees_|^bench_report_trust$")
  set(SK_LONG_TESTS "^(i686|riscv64|aarch64|s390x|ppc64le|loongarch64|armhf)_cross_|^portable_backend_|^os_build_|^static_variant_|^faults_sanitizer_|^rust_|^windows_wine_tests$|^install_deb_build$|^coexist_valgrind_")
  set(labels "")
  set(i 0)
  list(LENGTH SK_LABEL_RULES n)
  while(i LESS n)
    list(GET SK_LABEL_RULES ${i} pattern)
    math(EXPR j "${i} + 1")
    list(GET SK_LABEL_RULES ${j} label)
    if(t MATCHES "${pattern}")
      list(APPEND labels ${label})
    endif()
    math(EXPR i "${i} + 2")
  endwhile()
  if(t STREQUAL "bench_report_trust")
    set(labels "") # judges fake samples: measures nothing, runs in a second
  elseif(t STREQUAL "windows_flip_bench")
    # Mostly a mingw-w64 build; under wine it checks that every row is
    # there and the core syncs per update, never a time: not alone.
    list(REMOVE_ITEM labels timing)
  endif()
  if(NOT labels AND t MATCHES "${SK_QUICK_TESTS}")
    set(labels quick)
  elseif(NOT labels)
    message(FATAL_ERROR "test ${t} has no label: name it after a rule of "
      "tests/labels.cmake, or add one (quick tests: SK_QUICK_TESTS)")
  endif()
  set_property(TEST ${t} APPEND PROPERTY LABELS ${labels})
  if("timing" IN_LIST labels)
    set_property(TEST ${t} PROPERTY RUN_SERIAL TRUE)
  endif()
  if(t MATCHES "${SK_LONG_TESTS}")
    set_property(TEST ${t} PROPERTY COST 1000)
  endif()
endfunction()
