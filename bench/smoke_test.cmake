# bench/smoke_test.cmake - every benchmark program runs in a tiny mode and
# writes well-formed JSON carrying the fields docs/benchmarks.md documents.
# Timings are never checked: they mean nothing at this size.  Needs CMake
# 3.19 (string(JSON)); bench/CMakeLists.txt registers it only then.
#
#   cmake -DBENCH_DIR=<build>/bench -DWORK_DIR=<dir> [-DEMULATOR=qemu,-L,dir]
#         -P smoke_test.cmake
# EMULATOR (comma-separated) runs the programs of a cross build.
file(MAKE_DIRECTORY ${WORK_DIR})
string(REPLACE "," ";" emulator "${EMULATOR}")
set(failures 0)

# run(NAME JSON_FILE FIELDS... COMMAND prog args...)
# FIELDS are paths into the JSON, dot-separated ("update_latency.0.mode").
function(run name json)
  cmake_parse_arguments(R "" "" "FIELDS;COMMAND" ${ARGN})
  execute_process(COMMAND ${emulator} ${R_COMMAND} --json ${json}
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err
    TIMEOUT 120)
  if(NOT (rc EQUAL 0 OR rc EQUAL 77))
    message(SEND_ERROR "${name}: exit ${rc}\n${out}\n${err}")
    return()
  endif()
  file(READ ${json} text)
  string(JSON status ERROR_VARIABLE e GET "${text}" status)
  if(e)
    message(SEND_ERROR "${name}: malformed JSON or no status: ${e}\n${text}")
    return()
  endif()
  if(status STREQUAL "skipped")
    string(JSON why ERROR_VARIABLE e GET "${text}" skip_reason)
    message(STATUS "${name}: skipped (${why})")
    return()
  endif()
  foreach(field IN LISTS R_FIELDS)
    string(REPLACE "." ";" path "${field}")
    string(JSON value ERROR_VARIABLE e GET "${text}" ${path})
    if(e)
      message(SEND_ERROR "${name}: field ${field} missing: ${e}")
    endif()
  endforeach()
  message(STATUS "${name}: ok")
endfunction()

run(latency ${WORK_DIR}/latency.json
  FIELDS update_latency.0.sites update_latency.0.mode update_latency.0.median_us
         update_latency.0.p99_us update_latency.0.syncs_per_flip
         update_latency.0.sites_written_per_flip update_latency.0.layout
         update_latency.1.layout pwrite_1byte_us core_syncs_total
  COMMAND ${BENCH_DIR}/bench_keys latency --sites 56 --flips 2 --min-flips 2)
run(floor ${WORK_DIR}/floor.json
  FIELDS flip_floor.procmem.ratio flip_floor.procmem.floor_median_us
         flip_floor.mprotect.ratio
  COMMAND ${BENCH_DIR}/bench_keys floor --rounds 3)
run(startup ${WORK_DIR}/startup.json
  FIELDS startup.0.median_us startup.0.runs
  COMMAND ${BENCH_DIR}/bench_startup --runs 3 /bin/true)
run(commit ${WORK_DIR}/commit.json
  FIELDS commit.0.keys commit.0.mode commit.0.median_us commit.0.syncs_per_change
  COMMAND ${BENCH_DIR}/bench_keys commit --flips 2)
run(traps ${WORK_DIR}/traps.json
  FIELDS trap_hits.0.sites trap_hits.0.mode trap_hits.0.traps_per_flip
  COMMAND ${BENCH_DIR}/bench_keys traps --flips 3)
run(disturb ${WORK_DIR}/disturb.json
  FIELDS disturbance.batched_interruptions_per_flip
         disturbance.one_by_one_interruptions_per_flip
         disturbance.batched_spread_interruptions_per_flip
         disturbance.mprotect_spread_interruptions_per_flip
         disturbance_runs.0.gap_histogram disturbance_runs.0.layout
  COMMAND ${BENCH_DIR}/bench_keys disturb --flips 10 --idle-ms 10)
run(locks ${WORK_DIR}/locks.json
  FIELDS locks.lock_hold.buckets locks.lock_wait.buckets locks.fast_path.buckets
         locks.fairness
         locks.bucket_labels
  COMMAND ${BENCH_DIR}/bench_keys locks --ms 50)
run(threads ${WORK_DIR}/threads.json
  FIELDS threads.0.threads threads.0.mode threads.0.median_us
         threads.0.ratio_to_1_thread
  COMMAND ${BENCH_DIR}/bench_keys threads --flips 2)
run(trap_cost ${WORK_DIR}/trap_cost.json
  FIELDS trap.handler_ns_median trap.sites trap_cost.0.trap_ns_median
  COMMAND ${BENCH_DIR}/bench_trap_cost --traps 10)
run(branch_time ${WORK_DIR}/branch_time.json
  FIELDS branch_time.static_off.cold_ns branch_time.flag.cold_ratio_to_flag
  COMMAND ${BENCH_DIR}/bench_branch_time --iterations 1000 --repeats 1)
run(pipe ${WORK_DIR}/pipe.json
  FIELDS pipe.0.ipc pipe.0.checks pipe.0.variant pipe.0.median_ms pipe.0.ratio_to_flag
         pipe.0.ratio_p25 pipe.0.ratio_p75
  COMMAND ${BENCH_DIR}/bench_pipe --messages 200 --runs 1)

run(static_call ${WORK_DIR}/static_call.json
  FIELDS static_call_update.update_floor.ratio
         static_call_update.update_floor.update_median_us
         static_call_update.batch.0.static_calls
         static_call_update.batch.0.syncs_per_change
  COMMAND ${BENCH_DIR}/bench_keys static_call --rounds 3 --commits 1)

# Experiment 13a's call loops: each one runs, and its timed mode prints
# one JSON line with ns_per_call.
file(GLOB call_loops ${BENCH_DIR}/call_loop_*)
foreach(prog IN LISTS call_loops)
  get_filename_component(name ${prog} NAME)
  execute_process(COMMAND ${emulator} ${prog} 1000 time
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 60)
  string(JSON ns ERROR_VARIABLE e GET "${out}" ns_per_call)
  if(NOT rc EQUAL 0 OR e)
    message(SEND_ERROR "${name}: exit ${rc}, ${e}\n${out}\n${err}")
  else()
    message(STATUS "${name}: ok")
  endif()
endforeach()
