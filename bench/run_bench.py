#!/usr/bin/env python3
# SPDX-License-Identifier: MIT OR Apache-2.0
"""bench/run_bench.py - run every experiment, write results.json and REPORT.md.

    python3 bench/run_bench.py --build build-release --out bench/out [--quick]

The C programs in the build directory measure; this script runs them (and
valgrind, strace, nm around them), gathers their JSON into one results.json,
draws the plots with the virtualenv's matplotlib when it can, and writes
REPORT.md (also printed).  Standard library only, so the report never depends
on plotting being possible.
"""
import argparse
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import report  # noqa: E402
import rust_bench  # noqa: E402
import startup_bench  # noqa: E402
import trace_bench  # noqa: E402
import windows_bench  # noqa: E402
import static_call_bench  # noqa: E402
import startup_calls_bench  # noqa: E402
import dyndbg_bench  # noqa: E402
import port_insns  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

# Sizes of the full run and of QUICK=1; every figure is a median over these.
SIZES = {
    "full": dict(loop=(200000, 2200000), time_iter=200000, time_reps=11,
                 pipe_msgs=100000, pipe_runs=10, pipe_cg=(2000, 6000),
                 flips=20, min_flips=20, commit_flips=20, traps=2000,
                 trap_flips=200, disturb_flips=1000, disturb_idle=300,
                 disturb_reps=3, lock_ms=3000, thread_flips=200,
                 thread_scan_flips=20, floor_rounds=5000),
    "quick": dict(loop=(100000, 1100000), time_iter=50000, time_reps=5,
                  pipe_msgs=20000, pipe_runs=3, pipe_cg=(1000, 3000),
                  flips=6, min_flips=3, commit_flips=6, traps=300,
                  trap_flips=30, disturb_flips=200, disturb_idle=100,
                  disturb_reps=1, lock_ms=500, thread_flips=40,
                  thread_scan_flips=5, floor_rounds=1000),
}

LOOP_VARIANTS = ["empty", "static_off", "static_on", "flag", "flag_on",
                 "flag_expect", "flag_atomic"]
BYTES_OF = {"static_off": "static", "static_on": "static", "flag": "flag",
            "flag_on": "flag", "flag_expect": "expect",
            "flag_atomic": "atomic"}


def log(msg):
    print(msg, flush=True)


def run(cmd, timeout=600, **kw):
    """Run a command; return (exit code, stdout, stderr)."""
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout,
                       **kw)
    return p.returncode, p.stdout, p.stderr


def run_json(cmd, out, name, env=None):
    """Run a benchmark program writing JSON to out/raw/NAME.json."""
    path = os.path.join(out, "raw", name + ".json")
    t0 = time.time()
    rc, so, se = run(cmd + ["--json", path], env=env)
    log(so.rstrip())
    if se.strip():
        log(se.rstrip())
    log("  (%s: %.1f s)" % (name, time.time() - t0))
    if rc not in (0, 77) or not os.path.exists(path):
        raise RuntimeError("%s exited %d" % (" ".join(cmd), rc))
    with open(path) as f:
        return json.load(f)


# ---- header ---------------------------------------------------------------

def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def compiler(build):
    cc = "cc"
    try:
        with open(os.path.join(build, "CMakeCache.txt")) as f:
            m = re.search(r"^CMAKE_C_COMPILER:\w+=(.*)$", f.read(), re.M)
            if m:
                cc = m.group(1)
    except OSError:
        pass
    rc, so, _ = run([cc, "--version"])
    return so.splitlines()[0] if rc == 0 and so else cc


def commit():
    rc, so, _ = run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"])
    if rc != 0:
        return "unknown (not a git checkout)"
    rc2, st, _ = run(["git", "-C", ROOT, "status", "--porcelain",
                      "--untracked-files=no"])
    return so.strip() + (" (with local changes)" if st.strip() else "")


def header(build, quick):
    return {
        "date": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()),
        "cpu": cpu_model(),
        "cpus": os.cpu_count(),
        "kernel": platform.release(),
        "compiler": compiler(build),
        "commit": commit(),
        "build": "Release",
        "quick": quick,
    }


# ---- experiment 1: branch cost --------------------------------------------

def cachegrind(cmd, out, tag):
    """Run @cmd under cachegrind; return its summary counts by event."""
    path = os.path.join(out, "raw", "cachegrind.%s.out" % tag)
    rc, _, se = run(["valgrind", "--tool=cachegrind", "--cache-sim=yes",
                     "--branch-sim=yes", "--cachegrind-out-file=" + path]
                    + cmd, timeout=600)
    if rc != 0:
        raise RuntimeError("cachegrind %s failed: %s" % (tag, se[-500:]))
    events = summary = None
    with open(path) as f:
        for line in f:
            if line.startswith("events:"):
                events = line.split()[1:]
            elif line.startswith("summary:"):
                summary = [int(x) for x in line.split()[1:]]
    return dict(zip(events, summary))


def per_iteration(counts_lo, counts_hi, n_lo, n_hi):
    # "+ 0.0" turns the -0.0 of a rounded tiny negative into 0.0.
    return {k: round((counts_hi[k] - counts_lo[k]) / float(n_hi - n_lo), 4)
            + 0.0 for k in counts_lo}


def code_bytes(binary):
    """Bytes one more check adds: (size of 9 checks - size of 1) / 8."""
    rc, so, _ = run(["nm", "-S", "--defined-only", binary])
    if rc != 0:
        return {}
    size = {}
    for line in so.splitlines():
        parts = line.split()
        if len(parts) == 4 and parts[3].startswith("bytes_"):
            size[parts[3]] = int(parts[1], 16)
    out = {}
    for kind in ("static", "flag", "expect", "atomic"):
        a, b = size.get("bytes_%s_1" % kind), size.get("bytes_%s_9" % kind)
        if a is not None and b is not None:
            out[kind] = (b - a) / 8.0
    return out


def exp_branch_cost(bdir, out, sz):
    res = {"variants": LOOP_VARIANTS[1:]}
    cost = {v: {} for v in LOOP_VARIANTS[1:]}
    if shutil.which("valgrind"):
        n_lo, n_hi = sz["loop"]
        per = {}
        for v in LOOP_VARIANTS:
            exe = os.path.join(bdir, "branch_loop_" + v)
            lo = cachegrind([exe, str(n_lo)], out, v + ".lo")
            hi = cachegrind([exe, str(n_hi)], out, v + ".hi")
            per[v] = per_iteration(lo, hi, n_lo, n_hi)
        for v in LOOP_VARIANTS[1:]:
            d = {k: round(per[v][k] - per["empty"][k], 3) + 0.0
                 for k in per[v]}
            cost[v].update(instructions=round(d["Ir"], 3),
                           data_reads=round(d["Dr"], 3),
                           branches=round(d["Bc"], 3),
                           mispredicts=round(d["Bcm"], 4))
    else:
        res["cachegrind_skipped"] = "valgrind is not installed"
    sizes = code_bytes(os.path.join(bdir, "bench_branch_time"))
    for v in cost:
        if BYTES_OF[v] in sizes:
            cost[v]["code_bytes"] = sizes[BYTES_OF[v]]
    t = run_json([os.path.join(bdir, "bench_branch_time"), "--iterations",
                  str(sz["time_iter"]), "--repeats", str(sz["time_reps"])],
                 out, "branch_time")["branch_time"]
    for v, d in t.items():
        cost.setdefault(v, {}).update(d)
    res.update(cost)
    return res


# ---- experiment 2: pipe ping-pong -----------------------------------------

def exp_pipe(bdir, out, sz):
    exe = os.path.join(bdir, "bench_pipe")
    d = run_json([exe, "--messages", str(sz["pipe_msgs"]), "--runs",
                  str(sz["pipe_runs"])], out, "pipe")
    res = {"runs": d["pipe"]}
    if not shutil.which("valgrind"):
        res["cachegrind_skipped"] = "valgrind is not installed"
        return res
    n_lo, n_hi = sz["pipe_cg"]
    counts = []
    for checks in (8, 32):
        for v in ("static", "flag", "flag_expect", "flag_atomic"):
            cmd = [exe, "--one", v, "--checks", str(checks), "--ipc",
                   "threads", "--messages"]
            tag = "pipe.%s.%d" % (v, checks)
            lo = cachegrind(cmd + [str(n_lo)], out, tag + ".lo")
            hi = cachegrind(cmd + [str(n_hi)], out, tag + ".hi")
            p = per_iteration(lo, hi, n_lo, n_hi)
            counts.append({"checks": checks, "variant": v,
                           "instructions_per_message": round(p["Ir"], 2),
                           "data_reads_per_message": round(p["Dr"], 2),
                           "branches_per_message": round(p["Bc"], 2)})
    res["cachegrind"] = counts
    return res


# ---- experiment 3: update latency (+ strace cross-check) ------------------

def strace_check(bdir, out, sz):
    if not shutil.which("strace"):
        return {"skipped": "strace is not installed"}
    path = os.path.join(out, "raw", "strace.txt")
    jpath = os.path.join(out, "raw", "strace_latency.json")
    flips = str(sz["flips"])
    cmd = ["strace", "-f", "-c", "-o", path, "-e", "trace=membarrier",
           os.path.join(bdir, "bench_keys"), "latency", "--sites", "56",
           "--flips", flips, "--min-flips", flips, "--json", jpath]
    rc, _, se = run(cmd)
    if rc != 0:
        return {"skipped": "strace failed here: " + se.strip()[-200:]}
    calls = 0
    with open(path) as f:
        for line in f:
            parts = line.split()
            if parts and parts[-1] == "membarrier":
                calls = int(parts[3])  # % time, seconds, usecs/call, calls
    with open(jpath) as f:
        counted = json.load(f)["core_syncs_total"]
    # Set-up makes two more calls: QUERY and REGISTER.
    return {"membarrier_calls": calls, "runtime_core_syncs": counted,
            "setup_calls": 2, "agree": calls == counted + 2}


def mprotect_per_flip(bdir, out, sites, layout):
    """Protection changes (mprotect calls) per flip with the mprotect
    writer: strace -c of two runs with different flip counts, so that
    start-up calls (the dynamic linker's, the writer's probe) cancel out."""
    counts = {}
    for flips in (5, 25):
        path = os.path.join(out, "raw", "strace_mprotect_%s%d_%d.txt"
                            % (layout, sites, flips))
        cmd = ["strace", "-f", "-c", "-o", path, "-e", "trace=mprotect",
               os.path.join(bdir, "bench_keys"), "latency", "--sites",
               str(sites), "--layout", layout, "--mode", "mprotect",
               "--flips", str(flips), "--min-flips", str(flips),
               "--json", os.devnull]
        rc, _, se = run(cmd)
        if rc != 0:
            return None
        with open(path) as f:
            for line in f:
                parts = line.split()
                if parts and parts[-1] == "mprotect":
                    counts[flips] = int(parts[3])
    if len(counts) != 2:
        return None
    return round((counts[25] - counts[5]) / (2.0 * (25 - 5)), 2)


def exp_update(bdir, out, sz):
    d = run_json([os.path.join(bdir, "bench_keys"), "latency", "--flips",
                  str(sz["flips"]), "--min-flips", str(sz["min_flips"])],
                 out, "update_latency")
    info = {"writer": d.get("writer"), "sync_method": d.get("sync_method"),
            "pwrite_1byte_us": d.get("pwrite_1byte_us"),
            "strace": strace_check(bdir, out, sz)}
    if shutil.which("strace"):
        info["mprotect_calls_per_flip"] = [
            {"sites": n, "layout": layout,
             "calls": mprotect_per_flip(bdir, out, n, layout)}
            for n, layout in ((56, "packed"), (56, "spread"),
                              (1000, "spread"))]
    return d["update_latency"], info


# ---- experiments 4-7 ------------------------------------------------------

def exp_commit(bdir, out, sz):
    d = run_json([os.path.join(bdir, "bench_keys"), "commit", "--flips",
                  str(sz["commit_flips"])], out, "commit")
    if d.get("status") == "skipped":
        return {"skipped": d.get("skip_reason")}
    return {"runs": d["commit"]}


def exp_trap(bdir, out, sz):
    c = run_json([os.path.join(bdir, "bench_trap_cost"), "--traps",
                  str(sz["traps"])], out, "trap_cost")
    h = run_json([os.path.join(bdir, "bench_keys"), "traps", "--flips",
                  str(sz["trap_flips"])], out, "trap_hits")
    trap = dict(c["trap"])
    trap["by_sites"] = c["trap_cost"]
    trap["hits"] = h["trap_hits"]
    return trap


def median(xs):
    xs = sorted(xs)
    return xs[len(xs) // 2] if xs else None


def exp_disturbance(bdir, out, sz):
    reps = []
    for i in range(sz["disturb_reps"]):
        d = run_json([os.path.join(bdir, "bench_keys"), "disturb",
                      "--flips", str(sz["disturb_flips"]), "--idle-ms",
                      str(sz["disturb_idle"])], out, "disturbance.%d" % i)
        if d.get("status") == "skipped":
            return {"skipped": d.get("skip_reason")}, []
        reps.append(d)
    summary = {}
    for key in reps[0]["disturbance"]:
        vals = [r["disturbance"][key] for r in reps
                if r["disturbance"][key] is not None]
        summary[key] = median(vals)
        summary[key + "_spread"] = [min(vals), max(vals)] if vals else None
    summary["repeats"] = len(reps)
    # The runs of the median repeat (by batched figure) for tables and plots.
    pick = sorted(reps, key=lambda r: r["disturbance"]
                  ["batched_interruptions_per_flip"] or 0)[len(reps) // 2]
    return summary, pick["disturbance_runs"]


def exp_locks(bdir, out, sz):
    return run_json([os.path.join(bdir, "bench_keys"), "locks", "--ms",
                     str(sz["lock_ms"])], out, "locks")["locks"]


def exp_threads(bdir, out, sz):
    """Flip cost with 1..500 threads: as shipped, and scanning every thread
    on every update (STATICKEYS_KEEP_SIGTRAP=0) as the reference."""
    d = run_json([os.path.join(bdir, "bench_keys"), "threads", "--flips",
                  str(sz["thread_flips"])], out, "threads")
    rows = d["threads"]
    d2 = run_json([os.path.join(bdir, "bench_keys"), "threads", "--flips",
                   str(sz["thread_scan_flips"]), "--mode",
                   "scan_every_update"], out, "threads_scan",
                  env=dict(os.environ, STATICKEYS_KEEP_SIGTRAP="0"))
    return rows + d2["threads"]


# ---- the machine around each experiment ----------------------------------

def read_machine():
    """A reading of the machine's load: the 1-minute load average
    (/proc/loadavg); from the `cpu` line of /proc/stat the total, steal and
    busy jiffies (busy: user, nice, system, irq, softirq; not idle, iowait
    or steal); the CPU time this process and its waited-for children have
    used; the wall clock.  None for what this system lacks (no /proc)."""
    r = {"wall": time.time(), "load1": None, "total": None, "steal": None,
         "busy": None}
    try:
        with open("/proc/loadavg") as f:
            r["load1"] = float(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        pass
    try:
        with open("/proc/stat") as f:
            for line in f:
                if line.startswith("cpu "):
                    # user nice system idle iowait irq softirq steal
                    # [guest guest_nice: already inside user and nice]
                    v = [int(x) for x in line.split()[1:]]
                    total = sum(v[:8])
                    r["total"], r["steal"] = total, v[7] if len(v) > 7 else 0
                    r["busy"] = sum(v[:3]) + sum(v[5:7])
                    break
    except (OSError, ValueError):
        pass
    me = os.times()
    r["own_cpu_s"] = (me.user + me.system + me.children_user +
                      me.children_system)
    return r


def machine_during(before, after, cpus=None):
    """What the machine did while one experiment ran, from two readings
    (read_machine): 1-minute load before and after and its mean, the share
    of CPU time stolen by the hypervisor, the CPUs this run's own processes
    kept busy on average, and the CPUs everything else kept busy (from
    /proc/stat, minus our own).  report.machine_quiet() judges it."""
    cpus = cpus or os.cpu_count() or 1
    wall = max(after["wall"] - before["wall"], 1e-6)
    own = max(after["own_cpu_s"] - before["own_cpu_s"], 0.0) / wall
    m = {"load_before": before["load1"], "load_after": after["load1"],
         "cpus": cpus, "seconds": round(wall, 1),
         "own_cpus": round(own, 2), "steal_fraction": None,
         "other_cpus": None}
    if before["load1"] is not None and after["load1"] is not None:
        m["load_mean"] = round((before["load1"] + after["load1"]) / 2.0, 2)
    else:
        m["load_mean"] = None
    if before["total"] is not None and after["total"] is not None:
        dt = after["total"] - before["total"]
        if dt > 0:
            m["steal_fraction"] = round(
                (after["steal"] - before["steal"]) / float(dt), 4)
            hz = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
            busy_cpus = (after["busy"] - before["busy"]) / float(hz) / wall
            m["other_cpus"] = round(max(busy_cpus - own, 0.0), 2)
    return m


# ---- driver ---------------------------------------------------------------

def guarded(results, name, fn):
    """Run one experiment; a failure is recorded, never fatal to the rest.
    The machine's load before and after is kept in
    results["machine_load"][name] (see machine_during)."""
    t0 = time.time()
    log("\n== %s ==" % name)
    before = read_machine()
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the report must be written
        results.setdefault("errors", {})[name] = str(e)
        log("%s failed: %s" % (name, e))
    m = machine_during(before, read_machine())
    m["quiet"], m["why_not_quiet"] = report.machine_quiet(m)
    results.setdefault("machine_load", {})[name] = m
    log("  (machine: load %s -> %s on %d CPUs, steal %s, others %s CPUs: %s)"
        % (m["load_before"], m["load_after"], m["cpus"],
           "-" if m["steal_fraction"] is None
           else "%.1f%%" % (100 * m["steal_fraction"]),
           m["other_cpus"], "quiet" if m["quiet"] else "NOT QUIET, "
           + m["why_not_quiet"]))
    results.setdefault("seconds", {})[name] = round(time.time() - t0, 1)


def run_all(bdir, out, sz, results):
    def branch():
        results["branch_cost"] = exp_branch_cost(bdir, out, sz)

    def pipe():
        results["pipe"] = exp_pipe(bdir, out, sz)

    def update():
        results["update_latency"], results["update_info"] = \
            exp_update(bdir, out, sz)

    def commit_():
        results["commit"] = exp_commit(bdir, out, sz)

    def trap():
        results["trap"] = exp_trap(bdir, out, sz)

    def disturb():
        results["disturbance"], results["disturbance_runs"] = \
            exp_disturbance(bdir, out, sz)

    def locks():
        results["locks"] = exp_locks(bdir, out, sz)

    def threads():
        results["threads"] = exp_threads(bdir, out, sz)

    def floor():
        # floor_rounds rounds of 2 flips: 10,000 flips, whose 99th
        # percentile is the tail's row.  Then the same program fully static
        # (glibc's libc.a), where it was built.
        results["flip_floor"] = run_json(
            [os.path.join(bdir, "bench_keys"), "floor", "--rounds",
             str(sz["floor_rounds"])], out, "flip_floor").get("flip_floor")
        # A process that has only ever had one thread writes each site
        # whole (one pwrite and one sync, not three): a row of its own.
        results["flip_floor_single"] = run_json(
            [os.path.join(bdir, "bench_keys"), "floor", "--rounds",
             str(sz["floor_rounds"]), "--no-busy", "--single-threaded"],
            out, "flip_floor_single").get("flip_floor")
        static = os.path.join(bdir, "bench_keys_static")
        if os.path.exists(static):
            results["flip_floor_static"] = run_json(
                [static, "floor", "--rounds", str(sz["floor_rounds"]),
                 "--no-busy"], out, "flip_floor_static").get("flip_floor")

    def startup():
        results["startup"] = startup_bench.experiment(bdir,
                                                      sz is SIZES["quick"])

    def rust():
        results["rust"] = rust_bench.experiment(os.path.dirname(bdir), out,
                                                sz is SIZES["quick"])

    def trace_attached():
        results["trace_attached"] = trace_bench.experiment(
            os.path.dirname(bdir), out, sz is SIZES["quick"])

    def windows():
        results["windows"] = windows_bench.experiment(
            os.path.dirname(bdir), out, sz is SIZES["quick"])

    def static_calls():
        results["static_calls"] = static_call_bench.experiment(
            os.path.dirname(bdir), out, sz is SIZES["quick"])
        results["startup_calls"] = startup_calls_bench.experiment(
            bdir, sz is SIZES["quick"])

    def dyndbg():
        results["dyndbg"] = dyndbg_bench.experiment(bdir,
                                                    sz is SIZES["quick"])

    def ports():
        # Compiled and disassembled, never run: the cross compilers the
        # ports' tests use (zig for loongarch64, from <build root>/os/zig).
        results["port_insns"] = port_insns.experiment(
            os.path.dirname(bdir), os.path.join(out, "port-insns"))

    # The names of experiments whose timings goals judge come from report.py
    # (the goals find their machine load under them).
    for name, fn in (("1 branch cost", branch), (report.EXP_PIPE, pipe),
                     (report.EXP_UPDATE, update),
                     (report.EXP_FLOOR, floor),
                     ("4 multi-key commit", commit_), ("5 trap path", trap),
                     (report.EXP_DISTURB, disturb), ("7 lock hold/wait", locks),
                     (report.EXP_THREADS, threads),
                     ("9 rust: statickeys vs static-keys", rust),
                     (report.EXP_STARTUP, startup),
                     (report.EXP_TRACE, trace_attached),
                     ("12 Windows x86-64 under wine", windows),
                     (report.EXP_CALLS, static_calls),
                     (report.EXP_DYNDBG, dyndbg),
                     ("15 ports: instructions", ports)):
        guarded(results, name, fn)


def make_plots(out, plot_python):
    """Draw the PNGs with the virtualenv's matplotlib; say why if not."""
    py = plot_python if plot_python and os.path.exists(plot_python) else None
    if not py:
        return [], "no virtualenv Python with matplotlib (.venv) was found"
    rc, so, se = run([py, os.path.join(HERE, "plots.py"),
                      os.path.join(out, "results.json"), out])
    if rc != 0:
        return [], "plotting failed: " + (se.strip().splitlines() or
                                          ["unknown error"])[-1]
    return [l.strip() for l in so.splitlines() if l.strip().endswith(".png")], None


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--build", default="build-release")
    ap.add_argument("--out", default=os.path.join(HERE, "out"))
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--render-only", action="store_true",
                    help="rewrite REPORT.md and the plots from results.json")
    ap.add_argument("--plot-python",
                    default=os.path.join(ROOT, ".venv", "bin", "python"))
    args = ap.parse_args()
    bdir = os.path.join(os.path.abspath(args.build), "bench")
    out = os.path.abspath(args.out)
    os.makedirs(os.path.join(out, "raw"), exist_ok=True)
    sz = SIZES["quick" if args.quick else "full"]
    t0 = time.time()
    path = os.path.join(out, "results.json")
    if args.render_only:
        with open(path) as f:
            results = json.load(f)
    else:
        results = {"header": header(args.build, args.quick)}
        run_all(bdir, out, sz, results)
        results["header"]["seconds"] = round(time.time() - t0, 1)
    results["goals"] = report.goals(results)
    with open(path, "w") as f:
        json.dump(results, f, indent=2)
    plots, why = make_plots(out, args.plot_python)
    results["plots"] = plots if plots else {"skipped": why}
    if not args.render_only:
        # The run's own wall time, plots included: the report prints it at
        # its top, so a reader sees the real figure beside the documented one.
        results["wall_seconds"] = round(time.time() - t0, 1)
    with open(path, "w") as f:
        json.dump(results, f, indent=2)
    text = report.render(results)
    with open(os.path.join(out, "REPORT.md"), "w") as f:
        f.write(text)
    log("\n" + text)
    log("wrote %s, %s and %d plot(s) in %.0f s" % (
        path, os.path.join(out, "REPORT.md"), len(plots), time.time() - t0))
    return 1 if results.get("errors") else 0


if __name__ == "__main__":
    sys.exit(main())
