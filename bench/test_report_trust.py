#!/usr/bin/env python3
# SPDX-License-Identifier: MIT OR Apache-2.0
"""bench/test_report_trust.py - the report says when it cannot be trusted.

Feeds report.py and run_bench.py fake samples and load readings (never the
machine's own) and checks the verdicts: a timing goal measured on a machine
that was not quiet, or whose spread straddles its target, is INCONCLUSIVE
with the reason and never MET; goals on instruction counts and bytes are
judged as before whatever the load.  Fast and deterministic: ctest
bench_report_trust.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import dyndbg_bench  # noqa: E402
import report  # noqa: E402
import run_bench  # noqa: E402

FAILS = []


def check(what, cond):
    print("%s: %s" % ("ok  " if cond else "FAIL", what))
    if not cond:
        FAILS.append(what)


QUIET = {"load_before": 0.9, "load_after": 1.1, "load_mean": 1.0,
         "own_cpus": 1.0, "other_cpus": 0.05, "steal_fraction": 0.0,
         "cpus": 2, "seconds": 30.0}
LOADED = dict(QUIET, load_before=3.9, load_after=4.1, load_mean=4.0,
              other_cpus=1.1)
STOLEN = dict(QUIET, steal_fraction=0.12)


def pipe_rows(ratio, p25, p75, runs=10, fields=True):
    rows = []
    for ipc in ("threads", "processes"):
        for checks in (8, 32):
            for v, r in (("static", ratio), ("flag", 1.0)):
                row = {"ipc": ipc, "checks": checks, "variant": v,
                       "median_ms": 500.0 * r, "min_ms": 386.0,
                       "max_ms": 1117.0, "ratio_to_flag": r, "runs": runs}
                if fields:
                    row.update(ratio_min=min(p25, r) - 0.01,
                               ratio_p25=p25 if v == "static" else 1.0,
                               ratio_p75=p75 if v == "static" else 1.0,
                               ratio_max=max(p75, r) + 0.01)
                rows.append(row)
    return rows


def results(machine, ratio=0.98, p25=0.97, p75=0.99, runs=10, fields=True):
    """A results.json of a run: every goal's data, @machine for every
    experiment's load (None: a results.json from before it was kept)."""
    res = {
        "header": {"quick": False, "seconds": 700.0, "cpus": 2},
        "wall_seconds": 1140.0,
        "branch_cost": {"static_off": {"instructions": 1.0,
                                       "data_reads": 0.0, "branches": 0.0}},
        "pipe": {"runs": pipe_rows(ratio, p25, p75, runs, fields),
                 "cachegrind": [
                     {"checks": c, "variant": v,
                      "instructions_per_message": n}
                     for c in (8, 32) for v, n in (("static", 100.0),
                                                   ("flag", 116.0))]},
        "update_latency": [
            {"sites": 56, "mode": "batched", "layout": "spread",
             "median_us": 250.0, "text_writes_per_flip": 168,
             "syncs_per_flip": 3},
            {"sites": 56, "mode": "mprotect", "layout": "packed",
             "median_us": 15.0, "text_writes_per_flip": 0,
             "syncs_per_flip": 2},
            {"sites": 56, "mode": "mprotect", "layout": "spread",
             "median_us": 16.0, "text_writes_per_flip": 0,
             "syncs_per_flip": 2}],
        "update_info": {"pwrite_1byte_us": 1.6,
                        "mprotect_calls_per_flip": [
                            {"sites": 56, "layout": "packed", "calls": 2},
                            {"sites": 56, "layout": "spread", "calls": 2}]},
        "flip_floor": {"procmem": {"ratio": 1.1, "p99_over_median": 1.5,
                                   "flips": 10000},
                       "mprotect": {"ratio": 1.3}},
        "flip_floor_static": {"procmem": {"ratio": 1.15,
                                          "p99_over_median": 1.4,
                                          "flips": 10000},
                              "mprotect": {"ratio": 1.2}},
        "disturbance": {"batched_interruptions_per_flip": 3.0,
                        "batched_interruptions_per_flip_spread": [2.9, 3.1],
                        "batched_spread_interruptions_per_flip": 3.5,
                        "batched_spread_interruptions_per_flip_spread":
                            [3.2, 4.6],
                        "repeats": 3},
        "disturbance_runs": [],
        "threads": [{"mode": "default", "threads": 1, "median_us": 8.0},
                    {"mode": "default", "threads": 500, "median_us": 7.5}],
        "startup": {"c": [
            {"sites": n, "extra_ms": 0.3, "static_extra_ms": 0.01,
             "shared_over_lib_ms": 0.02, "heap_per_site": 0.0,
             "heap_after_update_bytes": 1000 + 4 * n,
             "plain_heap_after_update_bytes": 1000}
            for n in (0, 1000, 10000)],
            "rust": [{"sites": 10000, "ours_us": 900.0,
                      "theirs_us": 1000.0}]},
        "dyndbg": {"cachegrind": {"alone": {"sk_pr_debug": {
            "instructions": 1.0, "data_reads": 0.0, "branches": 0.0}}},
            "switch": {"inproc": [{"matched": 1000,
                                   "core_syncs_per_query": 3.0}]}},
    }
    if machine is not None:
        res["machine_load"] = {e: dict(machine) for e in (
            "1 branch cost", report.EXP_PIPE, report.EXP_UPDATE,
            report.EXP_FLOOR, report.EXP_DISTURB, report.EXP_THREADS,
            report.EXP_STARTUP)}
    return res


FLOOR = "1-site flip / its floor, procmem writer, dynamic glibc (medians, same run)"


def by_name(gs):
    return {g["goal"]: g for g in gs}


def status(gs, prefix):
    hits = [g["status"] for g in gs if g["goal"].startswith(prefix)]
    assert hits, prefix
    return hits


PIPE = "pipe ping-pong, threads, 8 checks: static / flag"
PIPE_CG = "pipe ping-pong, 8 checks: instructions per message"
COUNTS = ("static branch off", PIPE_CG, "core syncs per flip",
          "56 spread sites, default writer: code writes",
          "mprotect writer: protection changes", "heap per",
          "disabled sk_pr_debug", "sk_dyndbg_query() switching a file")
TIMINGS = ("pipe ping-pong, threads", "pipe ping-pong, processes",
           "56 spread sites, default writer: flip /",
           "56 sites, mprotect writer: spread / packed",
           "1-site flip / its floor, procmem", "1-site flip with 500 threads",
           "start-up, 1000 sites on 100 keys, static",
           "start-up, 10000 sites on 100 keys, shared library: ms over plain "
           "flags linked", "start-up, Rust", "spinner interruptions per flip, "
           "default writer, packed")


# 1. The quiet-machine rule, alone.
check("a quiet machine is quiet", report.machine_quiet(QUIET) == (True, ""))
# A window of a few ticks (an experiment of well under a second): its
# CPU-use and steal shares are noise, and only the load average judges it.
check("a sub-second window: other CPU use and steal not judged",
      report.machine_quiet(dict(QUIET, seconds=0.4, other_cpus=1.83,
                                steal_fraction=0.3))[0])
q, why = report.machine_quiet(LOADED)
check("load 4.0, own 1.0 CPU, 2 CPUs: not quiet (%s)" % why,
      not q and "other load 3.00 > 0.75 x 2 CPUs" in why
      and "other processes used 1.10 CPUs" in why)
q, why = report.machine_quiet(STOLEN)
check("12%% steal: not quiet (%s)" % why, not q and "steal 12.0% > 5%" in why)
q, why = report.machine_quiet(dict(QUIET, load_mean=2.4, own_cpus=1.0))
check("other load 1.4 <= 1.5 on 2 CPUs: quiet", q)
check("nothing recorded (no /proc): quiet, nothing to say",
      report.machine_quiet({"cpus": 2})[0])

# 2. run_bench.machine_during from two fake readings 10 s apart.
hz = os.sysconf("SC_CLK_TCK")
a = {"wall": 100.0, "load1": 2.0, "total": 0, "steal": 0, "busy": 0,
     "own_cpu_s": 5.0}
b = {"wall": 110.0, "load1": 3.0, "total": 20 * hz, "steal": 2 * hz,
     "busy": 15 * hz, "own_cpu_s": 15.0}
m = run_bench.machine_during(a, b, cpus=2)
check("machine_during: load mean 2.5, steal 10%%, own 1.0, others 0.5 "
      "CPUs (%s)" % m,
      m["load_mean"] == 2.5 and m["steal_fraction"] == 0.1
      and m["own_cpus"] == 1.0 and m["other_cpus"] == 0.5 and m["cpus"] == 2
      and m["seconds"] == 10.0)
m = run_bench.machine_during(dict(a, load1=None, total=None),
                             dict(b, load1=None, total=None), cpus=2)
check("machine_during without /proc: figures None, quiet",
      m["load_mean"] is None and m["steal_fraction"] is None
      and report.machine_quiet(m)[0])

# 3. Quiet machine, tight spread: judged as ever.
g = report.goals(results(QUIET))
gs = by_name(g)
check("quiet, ratio 0.98 IQR 0.97-0.99: MET", gs[PIPE]["status"] == "MET")
# (but for the disturbance row whose repeats straddle 4, part 5)
dist = "spinner interruptions per flip, default writer, spread"
check("quiet, tight spreads: no goal INCONCLUSIVE",
      all(not x["status"].startswith("INCONCLUSIVE") for x in g
          if x["goal"] != dist))
g = by_name(report.goals(results(QUIET, ratio=1.14, p25=1.10, p75=1.20)))
check("quiet, ratio 1.14 IQR 1.10-1.20: MISSED",
      g[PIPE]["status"] == "MISSED")

g = report.goals(results(QUIET))
check("dynamic debug (14): a disabled statement 1/0/0 and a file's query "
      "in 3 core syncs: MET, judged on counts (no machine)",
      [x["status"] for x in g if "(14)" in x["goal"]] == ["MET"] * 4
      and not any(x.get("timing") for x in g if "(14)" in x["goal"]))
r = results(QUIET)
r["dyndbg"]["cachegrind"]["alone"]["sk_pr_debug"]["instructions"] = 4.0
g = by_name(report.goals(r))
check("dynamic debug (14): 4 instructions a statement: MISSED",
      g["disabled sk_pr_debug, nothing live across it: instructions per "
        "statement (14)"]["status"] == "MISSED")
del r["dyndbg"]["switch"]
g = by_name(report.goals(r))
check("dynamic debug (14): no switching rows: NOT MEASURED",
      g["sk_dyndbg_query() switching a file of 1,000 statements on or off: "
        "core syncs per query (14)"]["status"] == "NOT MEASURED")

# 4. Loaded machine: every timing goal INCONCLUSIVE, no count goal touched.
quiet_g = by_name(report.goals(results(QUIET, ratio=1.14, p25=1.1,
                                       p75=1.2)))
loaded = report.goals(results(LOADED, ratio=1.14, p25=1.1, p75=1.2))
lg = by_name(loaded)
for t in TIMINGS:
    for s in status(loaded, t):
        check("loaded: %s -> %s" % (t, s),
              s.startswith("INCONCLUSIVE (") and "machine not quiet" in s)
for c in COUNTS:
    for name, gg in lg.items():
        if name.startswith(c):
            check("loaded: count goal unchanged: %s (%s)"
                  % (name, gg["status"]),
                  gg["status"] == quiet_g[name]["status"]
                  and gg["status"] in ("MET", "MISSED"))
check("loaded: the MISSED pipe ratio keeps what it would be",
      lg[PIPE].get("would_be") == "MISSED")
check("INCONCLUSIVE is never MET",
      all(x["status"] != "MET" for x in loaded
          if x.get("would_be")))
stolen = by_name(report.goals(results(STOLEN)))
check("12%% steal: pipe ratio INCONCLUSIVE (%s)" % stolen[PIPE]["status"],
      "steal 12.0%" in stolen[PIPE]["status"])

# 5. The spread rule on a quiet machine.
g = by_name(report.goals(results(QUIET, ratio=1.14, p25=0.95, p75=1.30)))
check("quiet, ratio 1.14 IQR 0.95-1.30 straddles 1.00: INCONCLUSIVE (%s)"
      % g[PIPE]["status"],
      g[PIPE]["status"] == "INCONCLUSIVE (spread 0.95-1.30 (IQR of 10 "
      "runs' ratios) straddles the target)")
g = by_name(report.goals(results(QUIET, ratio=0.98, p25=0.96, p75=1.01)))
check("quiet, ratio 0.98 IQR 0.96-1.01: a MET becomes INCONCLUSIVE",
      g[PIPE]["status"].startswith("INCONCLUSIVE (spread"))
g = by_name(report.goals(results(QUIET, ratio=0.98, p25=0.97, p75=0.99,
                                 runs=3)))
check("3 runs, ratios' min-max 0.96-1.00: MET (%s)" % g[PIPE]["status"],
      g[PIPE]["status"] == "MET")
g = by_name(report.goals(results(QUIET, ratio=0.98, p25=0.97, p75=1.05,
                                 runs=3)))
check("3 runs, min-max 0.96-1.06: INCONCLUSIVE (%s)" % g[PIPE]["status"],
      "min-max of 3 runs' ratios" in g[PIPE]["status"])
g = by_name(report.goals(results(None, ratio=1.14, fields=False)))
check("older results.json (issue 38: 1.14, 386-1117 ms): INCONCLUSIVE from "
      "elapsed min-max (%s)" % g[PIPE]["status"],
      g[PIPE]["status"].startswith("INCONCLUSIVE (spread 0.35-2.89 "
                                   "(from min-max elapsed ms)"))
check("disturbance, repeats 3.2-4.6 straddle 4: INCONCLUSIVE",
      g[dist]["status"].startswith("INCONCLUSIVE (spread 3.20-4.60"))
check("older results.json, no load recorded: other timings judged (%s)"
      % g[FLOOR]["status"], g[FLOOR]["status"] == "MET")

# 6. The spinner-off-CPU doubt still goes through verdict().
r = results(QUIET)
r["disturbance_runs"] = [{"observer": "thread", "mode": "batched",
                          "layout": "packed", "spinner_away_fraction": 0.4}]
g = by_name(report.goals(r))
dp = "spinner interruptions per flip, default writer, packed"
check("spinner away 40%%: MET -> INCONCLUSIVE (%s)" % g[dp]["status"],
      g[dp]["status"] == "INCONCLUSIVE (spinner off CPU 40%)")

# 7. The report: its own wall time at the top, the machine table (the
# sections render() begins with; the fake results lack the other tables).
def head(r):
    return (report._section_header(r) + report._section_goals(r) +
            report._section_machine(r))


r = results(LOADED, ratio=1.14, p25=1.1, p75=1.2)
r["goals"] = report.goals(r)
text = head(r)
top = text.split("## Goals")[0]
check("REPORT.md starts with its own wall time (19 min 00 s)",
      "**This run took 19 min 00 s**" in top
      and "about 10 minutes on a quiet 2-vCPU machine" in top)
check("REPORT.md says the machine was not quiet",
      "not quiet during 7 of 7 experiments" in top)
check("REPORT.md has the machine table",
      "## Machine during the run" in text
      and "| 2 pipe ping-pong | 3.90 | 4.10 | 1.00 | 1.10 | 0.0 | 2 | 30 "
      "| **no**: other load 3.00 > 0.75 x 2 CPUs" in text)
check("REPORT.md counts the INCONCLUSIVE goals",
      "goal(s) INCONCLUSIVE" in text)
r = results(QUIET)
r["goals"] = report.goals(r)
text = head(r)
check("quiet run: 'quiet during every experiment', rows say yes",
      "The machine was quiet during every experiment." in text
      and "| yes |" in text)

# 8. A row that could not be measured says why, in its own row.
text = dyndbg_bench.section({"dyndbg": {
    "statements": 1000, "variants": dyndbg_bench.gen.LABELS,
    "skipped": {"glog": "glog's development files (Debian "
                        "libgoogle-glog-dev) not found (pkg-config libglog)"},
    "cachegrind_skipped": "valgrind is not installed",
    "switch_skipped": "cc exited 1"}})
check("the dynamic debug section names what it could not measure and why",
      "| glog `VLOG(1) << ...` (FLAGS_v 0) | not measured: glog's "
      "development files" in text
      and "Counts not measured: valgrind is not installed." in text
      and "Switching not measured: cc exited 1." in text)

print("\n%d failure(s)" % len(FAILS))
sys.exit(1 if FAILS else 0)
