# The two set-up commands: `make test` and `make bench`.
# Everything is built by CMake; this file only drives it.
BUILD   ?= build
JOBS    ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_FLAGS ?=

.PHONY: all build test check bench soak clean

all: build

build:
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo $(CMAKE_FLAGS)
	cmake --build $(BUILD) -j $(JOBS)

# Every test (CI runs this), in parallel: ctest -j, with the long sub-builds
# started first (COST) and the timing tests alone (RUN_SERIAL); labels and
# what each covers: tests/labels.cmake, docs/testing.md.  The last line
# counts passed, failed and skipped tests.
#
# One test more than cores: a test waiting (on a child, a socket, a fixed
# run's clock, an emulator starting) leaves its core idle, and at one test
# per core the last CI run kept two cores 94% busy.
TEST_JOBS ?= $(shell echo $$(( $(JOBS) + 1 )))
test: build
	tests/run_tests.sh $(BUILD) -j $(TEST_JOBS) --output-on-failure --timeout 600

# The quick loop, after each change: the `quick` label (in-tree programs and
# scripts that run in seconds), in parallel.  LABEL=cross (or any label of
# tests/labels.cmake) runs another set.
LABEL ?= quick
check: build
	tests/run_tests.sh $(BUILD) -j $(TEST_JOBS) --output-on-failure --timeout 600 -L '^$(LABEL)$$'

# Benchmarks: a Release build of their own (never $(BUILD), which `make test`
# uses), then bench/run_bench.py writes bench/out/REPORT.md, results.json and
# the plots: about 10 minutes on a quiet 2-vCPU machine, longer on a loaded
# one (the report prints its own time).  QUICK=1 runs small sizes (about 2
# minutes on a quiet 2-vCPU machine).
BENCH_BUILD ?= build-release

bench:
	cmake -S . -B $(BENCH_BUILD) -DCMAKE_BUILD_TYPE=Release $(CMAKE_FLAGS)
	cmake --build $(BENCH_BUILD) -j $(JOBS) --target bench_programs
	bash bench/setup_env.sh
	python3 bench/run_bench.py --build $(BENCH_BUILD) --out bench/out $(if $(QUICK),--quick)

# Soak (not part of `make test`): torture and churn for SOAK_SECONDS (default
# 10 minutes) with injection hooks widening race windows; prints the checks
# done and the failures, which must be 0.
SOAK_SECONDS ?= 600

soak: build
	SK_SOAK_SECONDS=$(SOAK_SECONDS) $(BUILD)/tests/faults/faults_soak

clean:
	rm -rf $(BUILD) build-*
