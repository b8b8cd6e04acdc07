#!/usr/bin/env python3
# SPDX-License-Identifier: MIT OR Apache-2.0
"""bench/windows_bench.py - experiment 12: Windows x86-64 under wine.

The runtime built for Windows with mingw-w64 (cmake/toolchains/
x86_64-w64-mingw32.cmake, only the static library, in BUILD/windows-bench),
bench/windows_flip.c built against it and run under wine: the flip cost of
a key with 1 and with 1,000 sites, with the writer WriteProcessMemory (the
default) and VirtualProtect side by side in one run, the same while 2
threads run the 1,000 sites (traps resumed per update), and what one
FlushProcessWriteBuffers() costs alone; every row with sk_stats_get()'s
counters over its updates.  Wine is not Windows: these are wine 8's calls
on Linux.  Without mingw-w64 or wine the row says why and reads "not
measured".

Used by run_bench.py (experiment) and report.py (section).  Alone:

    python3 bench/windows_bench.py BUILD [--out DIR] [--quick] [--check]

--check (the ctest windows_flip_bench) exits 77 with the reason when it
cannot run, and 1 unless every row is there and no update took more than 3
core syncs.  Standard library only.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
TRIPLE = "x86_64-w64-mingw32"

# windows_flip.exe's sizes: enable+disable pairs of the 1-site key, of the
# 1,000-site key, of the 1,000-site key with 2 threads running its sites,
# and calls of FlushProcessWriteBuffers (and of the writers' calls) alone.
SIZES = {
    "full": dict(pairs1=1000, pairs1000=200, trap_pairs=200, calls=5000),
    "quick": dict(pairs1=100, pairs1000=20, trap_pairs=20, calls=1000),
}

# The rows windows_flip.exe must print: (sites, threads) for each writer.
ROWS = [(1, 0), (1000, 0), (1000, 2)]
WRITERS = ["WriteProcessMemory", "VirtualProtect"]


def find_wine():
    """wine64 on PATH, Debian 12's /usr/lib/wine/wine64, or wine."""
    w = shutil.which("wine64")
    if not w and os.access("/usr/lib/wine/wine64", os.X_OK):
        w = "/usr/lib/wine/wine64"
    return w or shutil.which("wine")


def _run(cmd, timeout, **kw):
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout,
                       **kw)
    if p.returncode != 0:
        raise RuntimeError("%s exited %d: %s" % (
            " ".join(cmd[:3]), p.returncode, (p.stdout + p.stderr)[-600:]))
    return p.stdout


def build(build_root, gcc, cmake):
    """The static runtime for Windows and windows_flip.exe; its path."""
    xbuild = os.path.join(build_root, "windows-bench")
    jobs = os.environ.get("SK_CROSS_JOBS", "2")
    # Configured once (the build re-runs CMake when a CMakeLists changes):
    # the library alone, no tests, benchmarks or tools.
    if not any(os.path.exists(os.path.join(xbuild, f))
               for f in ("Makefile", "build.ninja")):
        _run([cmake, "-S", ROOT, "-B", xbuild,
              "-DCMAKE_TOOLCHAIN_FILE=" + os.path.join(
                  ROOT, "cmake", "toolchains", TRIPLE + ".cmake"),
              "-DCMAKE_BUILD_TYPE=Release", "-DSK_CROSS_SUBBUILD=ON",
              "-DSTATICKEYS_BUILD_TESTS=OFF", "-DSTATICKEYS_BUILD_BENCH=OFF",
              "-DSTATICKEYS_BUILD_TOOLS=OFF"], 300)
    _run([cmake, "--build", xbuild, "-j", jobs, "--target",
          "statickeys_static"], 600)
    lib = os.path.join(xbuild, "src", "libstatickeys.a")
    exe = os.path.join(xbuild, "bench", "windows_flip.exe")
    os.makedirs(os.path.dirname(exe), exist_ok=True)
    inputs = [lib, os.path.join(HERE, "windows_flip.c"),
              os.path.join(ROOT, "tests", "repeat.h")]
    if (os.path.exists(exe) and os.path.getmtime(exe) >=
            max(os.path.getmtime(f) for f in inputs)):
        return xbuild, exe
    # sk_runtime_library (src/CMakeLists.txt): WaitOnAddress is in
    # synchronization, and winpthreads; -static links winpthreads and
    # libgcc in, so no DLL need sit beside the program.
    _run([gcc, "-O2", "-Wall", "-Wextra", "-D__USE_MINGW_ANSI_STDIO=1",
          "-I" + os.path.join(ROOT, "include"), "-o", exe,
          os.path.join(HERE, "windows_flip.c"), lib, "-lsynchronization",
          "-lpthread", "-static"], 300)
    return xbuild, exe


def experiment(build_root, out, quick):
    """Build and run windows_flip.exe under wine; its JSON with the
    versions and timings added, or {"skipped": why}."""
    gcc = shutil.which(TRIPLE + "-gcc")
    if not gcc:
        return {"skipped": "no mingw-w64 (%s-gcc; Debian: "
                           "gcc-mingw-w64-x86-64)" % TRIPLE}
    wine = find_wine()
    if not wine:
        return {"skipped": "no wine (wine64 on PATH or /usr/lib/wine/wine64;"
                           " Debian: wine64)"}
    cmake = os.environ.get("CMAKE") or shutil.which("cmake")
    if not cmake:
        return {"skipped": "no cmake to build the runtime for Windows"}
    t0 = time.time()
    xbuild, exe = build(os.path.abspath(build_root), gcc, cmake)
    t_build = time.time() - t0
    # Wine's prefix (its C: drive and registry) in the build tree, made
    # once (some seconds), as tests/windows/wine_tests.sh does.
    env = dict(os.environ)
    env.setdefault("WINEPREFIX", os.path.join(xbuild, "wineprefix"))
    # Silent but for fixmes of the memory calls: a stub
    # FlushProcessWriteBuffers says so there.
    env["WINEDEBUG"] = "-all,fixme+virtual"
    t0 = time.time()
    if not os.path.exists(os.path.join(env["WINEPREFIX"], "system.reg")):
        subprocess.run([wine, "wineboot", "--init"], env=env, timeout=300,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    t_prefix = time.time() - t0
    sz = SIZES["quick" if quick else "full"]
    cmd = [wine, exe, "--pairs1", str(sz["pairs1"]), "--pairs1000",
           str(sz["pairs1000"]), "--trap-pairs", str(sz["trap_pairs"]),
           "--calls", str(sz["calls"])]
    t0 = time.time()
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=300,
                       env=env)
    t_run = time.time() - t0
    text = p.stdout[p.stdout.find("{"):] if "{" in p.stdout else ""
    if p.returncode != 0 or not text:
        raise RuntimeError("windows_flip.exe under wine exited %d: %s"
                           % (p.returncode, (p.stdout + p.stderr)[-600:]))
    res = json.loads(text)
    stub = [l.strip() for l in p.stderr.splitlines()
            if "NtFlushProcessWriteBuffers" in l and "stub" in l]
    res.update({
        "wine": _run([wine, "--version"], 60, env=env).strip(),
        "compiler": _run([gcc, "--version"], 60).splitlines()[0],
        "flush_is_stub": bool(stub),
        "flush_stub_message": stub[0] if stub else None,
        "sizes": sz,
        "seconds_build": round(t_build, 1),
        "seconds_prefix": round(t_prefix, 1),
        "seconds_run": round(t_run, 1),
    })
    fl = res["flush_process_write_buffers"]["median_ns"]
    for r in res["rows"]:
        r["sync_share"] = (round(r["core_syncs_per_update"] * fl /
                                 r["median_ns"], 4) if r["median_ns"] else None)
    if out:
        os.makedirs(os.path.join(out, "raw"), exist_ok=True)
        with open(os.path.join(out, "raw", "windows_flip.json"), "w") as f:
            json.dump(res, f, indent=2)
    print("windows_flip.exe under wine: %d rows, core syncs per update <= "
          "%.3f, in %.1f s (build %.1f s, prefix %.1f s)"
          % (len(res["rows"]), res["core_syncs_per_update_max"], t_run,
             t_build, t_prefix), flush=True)
    return res


def check(res):
    """What the smoke test asks: every row, every update counted, at most
    3 core syncs per update, no site wrong; the reasons it fails."""
    bad = []
    rows = {(r["sites"], r["threads"], r["writer"]): r for r in res["rows"]}
    for sites, threads in ROWS:
        for w in WRITERS:
            r = rows.get((sites, threads, w))
            what = "%d sites, %d threads, %s" % (sites, threads, w)
            if not r:
                bad.append("no row for " + what)
                continue
            s = r["stats"]
            if not (r["timed_updates"] > 0 and
                    s["updates"] == r["timed_updates"]):
                bad.append("%s: %d updates timed, %d counted"
                           % (what, r["timed_updates"], s["updates"]))
            if s["sites_written"] != sites * s["updates"]:
                bad.append("%s: %d sites written in %d updates"
                           % (what, s["sites_written"], s["updates"]))
            if not 0 < r["core_syncs_per_update"] <= 3:
                bad.append("%s: %.3f core syncs per update"
                           % (what, r["core_syncs_per_update"]))
            if threads and not r["thread_calls"]:
                bad.append(what + ": the threads never ran the sites")
    if not res["core_syncs_per_update_max"] <= 3:
        bad.append("core syncs per update %.3f > 3"
                   % res["core_syncs_per_update_max"])
    if res.get("failures"):
        bad.append("%d failures (wrong sites or refused calls)"
                   % res["failures"])
    return bad


def _us(ns):
    return "%.1f" % (ns / 1e3) if ns is not None else "-"


def table(res):
    head = ["sites", "writer", "threads running the sites",
            "median us / update", "p90 us", "updates", "batches",
            "sites written", "code writes", "core syncs", "traps resumed",
            "core syncs / update", "traps / update",
            "FlushProcessWriteBuffers share"]
    lines = ["| " + " | ".join(head) + " |",
             "|" + "|".join("---" for _ in head) + "|"]
    for r in res["rows"]:
        s = r["stats"]
        share = r.get("sync_share")
        lines.append("| " + " | ".join(str(c) for c in [
            r["sites"], r["writer"], r["threads"], _us(r["median_ns"]),
            _us(r["p90_ns"]), s["updates"], s["batches"], s["sites_written"],
            s["text_writes"], s["core_syncs"], s["traps_handled"],
            "%.3f" % r["core_syncs_per_update"],
            "%.2f" % r["traps_per_update"],
            "%.2f%%" % (100 * share) if share is not None else "-"]) + " |")
    return "\n".join(lines) + "\n"


def section(res):
    r = res.get("windows")
    s = "## 12. Windows x86-64 under wine\n\n"
    if not r:
        return s + "Not run.\n\n"
    if "skipped" in r:
        return s + "Not measured: %s.\n\n" % r["skipped"]
    s += ("**Wine is not Windows.**  These are %s numbers on this Linux "
          "machine: WriteProcessMemory, VirtualProtect and "
          "FlushProcessWriteBuffers are wine's implementations of them "
          "(WriteProcessMemory is a round trip to the wine server), not "
          "Windows's; they say what the runtime does there (the counters "
          "are exact), not what a flip costs on Windows.  The runtime was "
          "built with %s (static library), `bench/windows_flip.c` against "
          "it; each update timed on its own, enable and disable pooled, "
          "the two writers' blocks alternating in one run; the counters "
          "are `sk_stats_get()`'s over the timed updates.  \"Threads "
          "running the sites\": 2 threads call the 1,000-site function in "
          "a loop while the main thread flips; the int3s they hit are "
          "resumed by the vectored exception handler.  \"Code writes\": "
          "WriteProcessMemory calls, or runs of byte stores between "
          "VirtualProtect calls, one per run of adjacent sites and protocol "
          "step.\n\n"
          % (r.get("wine"), r.get("compiler")))
    s += table(r) + "\n"
    fl = r["flush_process_write_buffers"]
    wpm = r["write_process_memory_1byte"]
    vp = r["virtual_protect_pair"]
    worst = r["core_syncs_per_update_max"]
    s += ("Core syncs per update: %.3f at most (%s 3).  Alone, medians of "
          "%d calls: one FlushProcessWriteBuffers() %.0f ns; one 1-byte "
          "WriteProcessMemory() on a code page %.1f us; one VirtualProtect() "
          "of a code page to RWX and back %.1f us.  \"FlushProcessWriteBuffers"
          " share\" = core syncs per update x one call alone / the flip's "
          "median.\n\n"
          % (worst, "<=" if worst <= 3 else "MORE THAN", fl["calls"],
             fl["median_ns"], wpm["median_ns"] / 1e3, vp["median_ns"] / 1e3))
    if r.get("flush_is_stub"):
        s += ("**Wine's FlushProcessWriteBuffers here is a stub** (wine "
              "printed `%s`): it returns without interrupting any core, so "
              "under this wine the core syncs cost next to nothing and "
              "serialise nothing; on Windows each is an inter-processor "
              "interrupt to every core running the process.\n\n" % r["flush_stub_message"])
    s += ("Run: %.1f s under wine (build of the runtime and the program %.1f "
          "s, wine prefix %.1f s, both once per build tree).\n\n"
          % (r["seconds_run"], r["seconds_build"], r["seconds_prefix"]))
    return s


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("build", help="a configured Linux build of this tree")
    ap.add_argument("--out", help="write raw/windows_flip.json here")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--check", action="store_true",
                    help="exit 77 if it cannot run, 1 if a check fails")
    args = ap.parse_args()
    t0 = time.time()
    res = experiment(args.build, args.out, args.quick)
    if "skipped" in res:
        print("SKIPPED: " + res["skipped"])
        return 77 if args.check else 0
    print(section({"windows": res}))
    print("(%.1f s in all)" % (time.time() - t0))
    if args.check:
        bad = check(res)
        for b in bad:
            print("FAILED: " + b)
        if bad:
            return 1
        print("passed: %d rows, core syncs per update <= 3 (%.3f at most)"
              % (len(res["rows"]), res["core_syncs_per_update_max"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
