#!/usr/bin/env python3
# SPDX-License-Identifier: MIT OR Apache-2.0
"""bench/dyndbg_bench.py - experiment 14: a debug statement that is off,
against the logging libraries people use, and what switching one on costs.

The statements, each in 1,000 functions of a program of its own
(bench/dyndbg_gen.py: the functions spread over ~750 KiB of text, called
in an order that jumps about it), all off:

  sk_pr_debug     statickeys `sk_pr_debug("f%d: x=%d\\n", i, x)` (C)
  verbose         `if (verbose > 1) fprintf(stderr, ...)`, verbose 0 (C)
  glog            glog `VLOG(1) << ...`, FLAGS_v 0 (C++, Debian
                  libgoogle-glog-dev)
  spdlog_macro    spdlog `SPDLOG_DEBUG("f{}: x={}", i, x)`, compiled in
                  (SPDLOG_ACTIVE_LEVEL DEBUG), the level info (C++, Debian
                  libspdlog-dev)
  spdlog_logger   spdlog `logger->debug(...)`, the logger's level info
  rs_log          Rust `log::debug!`, max level Info (crates.io `log`)
  rs_tracing      Rust `tracing::debug!`, a tracing-subscriber fmt
                  subscriber at INFO (crates.io `tracing`)

against a program without statements in the same language.  Per
statement:

  - instructions, data reads and conditional branches (cachegrind
    --branch-sim=yes; --cache-sim=yes, without which it counts no data
    reads): two runs of 2,000 and 6,000 calls, the difference over the
    4,000 calls more, less the same of the empty program: exact.  In two
    shapes of function: "alone" (nothing live across the statement: its
    own cost, what experiment 1 measures of a key site) and "live" (a value
    used after it, which a compiler keeps in a callee-saved register
    across the enabled path's call: a save and restore every statement
    that calls out when on pays, in every library alike);
  - ns: the live programs alternating, each run the median of timed loops
    of 1,000 calls, the median over passes; less the empty call's, so the
    figure is a side-by-side difference that moves with the machine;
  - bytes: each variant built with 1 and with 1,000 statements, (1,000 -
    1) / 999 by section, less the same of the empty program; code split
    into the statement's bytes in its function (what runs while it is
    off, with the register saves) and its .cold part.

Then bench/dyndbg_switch.py: switching statements of a 10,000-statement
program on and off, through skctl and in the process.

Used by run_bench.py (experiment), report.py (section, goals).  Alone:

    python3 bench/dyndbg_bench.py BUILD [--quick]

Whatever is missing (valgrind, glog, spdlog, cargo, skctl) makes its rows
say why, never the experiment fail.  Standard library only.
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
from concurrent.futures import ThreadPoolExecutor

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import dyndbg_gen as gen  # noqa: E402
import dyndbg_switch as switch  # noqa: E402

SIZES = {"full": dict(rounds=200, reps=5, passes=9, skctl_runs=11,
                      inproc_reps=21),
         "quick": dict(rounds=100, reps=3, passes=5, skctl_runs=5,
                       inproc_reps=9)}
CG_CALLS = (2000, 6000)  # calls of the two cachegrind runs
EMPTY = gen.EMPTY
VARIANTS = gen.VARIANTS


# ---- measuring -------------------------------------------------------------

def cachegrind(exe, rounds, tag):
    """Instructions, data reads, conditional branches of `exe run ROUNDS`."""
    path = "%s.cg.%s" % (exe, tag)
    gen.run(["valgrind", "--tool=cachegrind", "--cache-sim=yes",
          "--branch-sim=yes", "--cachegrind-out-file=" + path, exe, "run",
          str(rounds)])
    events = summary = None
    with open(path) as f:
        for line in f:
            if line.startswith("events:"):
                events = line.split()[1:]
            elif line.startswith("summary:"):
                summary = [int(x) for x in line.split()[1:]]
    os.unlink(path)
    return dict(zip(events, summary))


def per_call(exe, n, tag):
    """Counts per call of a program of @n statement functions."""
    lo, hi = CG_CALLS[0] // n, CG_CALLS[1] // n
    a, b = cachegrind(exe, lo, tag + ".lo"), cachegrind(exe, hi, tag + ".hi")
    calls = float((hi - lo) * n)
    return {k: (b[k] - a[k]) / calls for k in ("Ir", "Dr", "Bc")}


def counts(progs, shape, n, pool):
    """{variant: {instructions, data_reads, branches}} per statement in
    functions of @shape (the programs of @n statements); "empty_call": the
    empty programs' counts per call."""
    names = list(progs)
    per = dict(zip(names, pool.map(
        lambda v: per_call(progs[v][(shape, n)], n, v), names)))
    out = {}
    for v in names:
        e = per.get(EMPTY[VARIANTS[v]["lang"]])
        if e is None or v in EMPTY.values():
            continue
        out[v] = {"instructions": round(per[v]["Ir"] - e["Ir"], 2) + 0.0,
                  "data_reads": round(per[v]["Dr"] - e["Dr"], 2) + 0.0,
                  "branches": round(per[v]["Bc"] - e["Bc"], 2) + 0.0}
    out["empty_call"] = {v: {"instructions": round(per[v]["Ir"], 2),
                             "data_reads": round(per[v]["Dr"], 2),
                             "branches": round(per[v]["Bc"], 2)}
                         for v in names if v in EMPTY.values()}
    return out


def timings(exes, sz):
    """ns per call of each program, in alternation: the median over passes
    of each run's median loop."""
    names = list(exes)
    got = {v: [] for v in names}
    for p in range(sz["passes"]):
        rot = names[p % len(names):] + names[:p % len(names)]
        for v in rot:
            out = gen.run([exes[v], "time", str(sz["rounds"]),
                           str(sz["reps"])], stdin=subprocess.DEVNULL)
            got[v].append(json.loads(out.strip().splitlines()[-1])
                          ["ns_per_call"])
    res = {}
    for v in names:
        xs = sorted(got[v])
        res[v] = {"ns_per_call": round(xs[len(xs) // 2], 3),
                  "ns_min": round(xs[0], 3), "ns_max": round(xs[-1], 3)}
    for v in names:
        e = res.get(EMPTY[VARIANTS[v]["lang"]])
        if e and v not in EMPTY.values():
            res[v]["ns_per_statement"] = round(
                res[v]["ns_per_call"] - e["ns_per_call"], 3)
            res[v]["call_over_empty"] = round(
                res[v]["ns_per_call"] / e["ns_per_call"], 3)
    return {"passes": sz["passes"], "calls_per_loop": sz["rounds"] * gen.SITES,
            "loops_per_run": sz["reps"], "rows": res}


# Sections by what they hold (only what is loaded: no debug info, symbols).
SECTION_KIND = (
    (r"^\.text$", "code"),
    (r"^\.rodata", "rodata"),
    (r"^(\.eh_frame|\.eh_frame_hdr|\.gcc_except_table)$", "unwind"),
    (r"^(\.data|\.bss|\.tdata|\.tbss|\.got|\.data\.rel\.ro)", "data"),
    (r"^(\.rela|\.relr)", "relocations"),
    (r"^sk_", "sk_tables"),
    (r"^(\.debug|\.comment|\.symtab|\.strtab|\.shstrtab|\.gnu_debug|"
     r"\.note\.gnu\.build-id)", None),
)
FN = re.compile(r"(?:^|::)dd_f(\d+)(?:\(int\))?( \[clone \.cold\]|\.cold)?$")


def sizes(exe):
    """{section: bytes} (size -A) and the bytes of the statement functions
    (nm -S): "fn" their own, "cold" their .cold parts."""
    out = {}
    for line in gen.run(["size", "-A", exe]).splitlines():
        w = line.split()
        if len(w) == 3 and w[1].isdigit() and not w[0].startswith("Total"):
            out[w[0]] = int(w[1])
    fn = cold = 0
    syms = gen.run(["nm", "-S", "-C", "--defined-only", exe])
    for line in syms.splitlines():
        w = line.split(None, 3)
        if len(w) == 4:
            m = FN.search(w[3])
            if m:
                if m.group(2):
                    cold += int(w[1], 16)
                else:
                    fn += int(w[1], 16)
    return out, fn, cold


def _kind(section):
    for rx, kind in SECTION_KIND:
        if re.search(rx, section):
            return kind
    return "other"


def bytes_per_statement(progs):
    """Bytes one statement adds, by kind: (N statements - 1) / (N - 1), less
    the same for the empty program of its language (live shape)."""
    grow, n = {}, gen.SITES
    for v in progs:
        (s1, f1, c1), (sn, fn, cn) = (sizes(progs[v][("live", 1)]),
                                      sizes(progs[v][("live", n)]))
        d = {}
        for sec in set(s1) | set(sn):
            kind = _kind(sec)
            if kind:
                d[kind] = d.get(kind, 0) + sn.get(sec, 0) - s1.get(sec, 0)
        d["fn"], d["cold"] = fn - f1, cn - c1
        grow[v] = {k: x / float(n - 1) for k, x in d.items()}
    out = {}
    for v in grow:
        e = grow.get(EMPTY[VARIANTS[v]["lang"]])
        if e is None or v in EMPTY.values():
            continue
        d = {k: grow[v].get(k, 0) - e.get(k, 0)
             for k in set(grow[v]) | set(e)}
        row = {"in_function": d.pop("fn"), "cold_code": d.pop("cold")}
        row["other_code"] = d.pop("code", 0) - row["in_function"] - \
            row["cold_code"]
        row.update(d)
        row["total"] = sum(x for k, x in row.items())
        out[v] = {k: round(x, 1) + 0.0 for k, x in row.items()}
    return out


# ---- the experiment --------------------------------------------------------

def experiment(bdir, quick):
    """bdir: the build's bench/ folder."""
    t0 = time.time()
    sz = SIZES["quick" if quick else "full"]
    build_root = os.path.dirname(os.path.abspath(bdir))
    work = os.path.join(os.path.abspath(bdir), "dyndbg")
    res = {"statements": gen.SITES, "variants": gen.LABELS}
    if not gen._pad_asm():
        res["layout"] = "packed (no padding on %s)" % platform.machine()
    with ThreadPoolExecutor(2) as pool:
        # Every build first: nothing is timed while a compiler runs.
        progs, res["skipped"] = gen.build_all(build_root, work, pool)
        server = None
        try:
            server = switch.build(build_root, work, pool)
        except RuntimeError as e:
            res["switch_skipped"] = str(e)
        res["build_seconds"] = round(time.time() - t0, 1)
        print("  (dyndbg: programs built in %.0f s%s)" % (
            res["build_seconds"], "; not built: " + ", ".join(
                sorted(res["skipped"])) if res["skipped"] else ""),
              flush=True)
        res["bytes"] = bytes_per_statement(progs)
        if shutil.which("valgrind"):
            res["cachegrind"] = {shape: counts(progs, shape, n, pool)
                                 for shape, n in (("alone", gen.ALONE_SITES),
                                                  ("live", gen.SITES))}
        else:
            res["cachegrind_skipped"] = "valgrind is not installed"
    res["time"] = timings({v: p[("live", gen.SITES)]
                           for v, p in progs.items()}, sz)
    if server:
        try:
            res["switch"] = switch.measure(build_root, server[0], server[1],
                                           sz)
        except RuntimeError as e:
            res["switch_skipped"] = str(e)
    res["seconds"] = round(time.time() - t0, 1)
    return res


# ---- the report ------------------------------------------------------------

ORDER = ("sk_pr_debug", "verbose", "glog", "spdlog_macro", "spdlog_logger",
         "rs_log", "rs_tracing")
BYTE_KINDS = ("in_function", "cold_code", "data", "rodata", "unwind",
              "relocations", "sk_tables", "other", "total")


def _f(x, fmt="%.2f"):
    return "-" if x is None else fmt % x


def goals(res, goal):
    """Experiment 14's goals, all on counts (issue 48): a disabled
    sk_pr_debug costs what a key site costs (experiment 1's goals, in the
    shape that measures the statement alone), and one query is one commit
    however many statements it switches."""
    r = res.get("dyndbg") or {}
    cg = ((r.get("cachegrind") or {}).get("alone") or {}).get(
        "sk_pr_debug") or {}
    out = []
    for field, what, want in (("instructions", "instructions", 1),
                              ("data_reads", "data reads", 0),
                              ("branches", "conditional branches", 0)):
        v = cg.get(field)
        out.append(goal("disabled sk_pr_debug, nothing live across it: %s "
                        "per statement (14)" % what, v,
                        v is not None and round(v, 2) == want,
                        "= %d" % want))
    rows = (r.get("switch") or {}).get("inproc") or []
    f = [x for x in rows if x.get("matched") == switch.PER_FILE]
    v = f[0]["core_syncs_per_query"] if f else None
    out.append(goal("sk_dyndbg_query() switching a file of 1,000 statements "
                    "on or off: core syncs per query (14)", v,
                    v is not None and v <= 3, "<= 3"))
    return out


def _rows(r, cells):
    """One row per statement kind; a skipped one says why."""
    out = ""
    for v in ORDER:
        why = (r.get("skipped") or {}).get(v)
        if why:
            out += "| %s | not measured: %s |\n" % (r["variants"][v], why)
        else:
            out += "| %s | %s |\n" % (r["variants"][v],
                                      " | ".join(cells(v)))
    return out


def _section_cost(r):
    cg = r.get("cachegrind") or {}
    tm = (r.get("time") or {}).get("rows") or {}
    s = ("Per statement, off, less the same program without statements in "
         "its language (bench/dyndbg_bench.py).  Instructions, data reads "
         "and conditional branches: cachegrind, exact; \"alone\": nothing "
         "live across the statement; \"live\": a value used after it (the "
         "common case: the compiler keeps it in a callee-saved register "
         "across the call the enabled path makes).  ns: %s statements in "
         "their functions over the text (%s), called in an order that jumps "
         "about it, the programs alternating, median of %d passes; a "
         "side-by-side difference, as noisy as the machine.\n\n"
         % ("{:,}".format(r["statements"]),
            r.get("layout", "256-1280 bytes apart"),
            (r.get("time") or {}).get("passes", 0)))
    if r.get("cachegrind_skipped"):
        s += "Counts not measured: %s.\n\n" % r["cachegrind_skipped"]
    s += ("| statement (off) | alone: instructions | data reads | branches "
          "| live: instructions | data reads | branches | ns per statement "
          "| ns per call (empty call) |\n|---|---|---|---|---|---|---|---|"
          "---|\n")
    empty_ns = {lang: (tm.get(v) or {}).get("ns_per_call")
                for lang, v in EMPTY.items()}

    def cells(v):
        a = (cg.get("alone") or {}).get(v) or {}
        b = (cg.get("live") or {}).get(v) or {}
        t = tm.get(v) or {}
        return [_f(a.get("instructions")), _f(a.get("data_reads")),
                _f(a.get("branches")), _f(b.get("instructions")),
                _f(b.get("data_reads")), _f(b.get("branches")),
                _f(t.get("ns_per_statement")),
                "%s (%s)" % (_f(t.get("ns_per_call")),
                             _f(empty_ns.get(VARIANTS[v]["lang"])))]
    return s + _rows(r, cells) + "\n"


def _section_bytes(r):
    by = r.get("bytes") or {}
    s = ("Bytes per statement (live shape): programs of 1,000 and of 1 "
         "statement, (1,000 - 1) / 999 by section, less the same of the "
         "empty programs.  In function: the statement's bytes in its "
         "function (statickeys': what runs while it is off, the no-op and "
         "the register saves; the others' enabled path too, where the "
         "compiler kept it inline); cold: its .cold part; data: writable "
         "(statickeys: the descriptor and its key, and a GOT entry; glog: "
         "the site's flag); relocs: the dynamic relocations of the "
         "pointers in them; sk tables: statickeys' listing entry and site "
         "entry.\n\n"
         "| statement | in function | cold | data | read-only | unwind "
         "| relocs | sk tables | other | total |\n"
         "|---|---|---|---|---|---|---|---|---|---|\n")
    return s + _rows(r, lambda v: [_f((by.get(v) or {}).get(k), "%.1f")
                                   for k in BYTE_KINDS]) + "\n"


def _section_switch(r):
    if r.get("switch_skipped"):
        return "Switching not measured: %s.\n\n" % r["switch_skipped"]
    e = r.get("switch")
    if not e:
        return ""
    s = ("Switching statements of a %s-statement program (10 files of "
         "1,000) on and off (bench/dyndbg_switch.py): `skctl -p PID debug "
         "'QUERY'` from spawn to exit, median of %s, and sk_dyndbg_query() "
         "in the process, median of its runs, with the core syncs each "
         "query took.\n\n"
         % ("{:,}".format(e["statements"]),
            (e.get("skctl") or [{}])[0].get("runs", "-")))
    sk = {x["name"]: x for x in e.get("skctl") or []}
    s += ("| query | matched | skctl on ms | skctl off ms | in process on "
          "us | off us | core syncs per query |\n"
          "|---|---|---|---|---|---|---|\n")
    for x in e.get("inproc") or []:
        k = sk.get(x["name"]) or {}
        s += "| %s | %d | %s | %s | %.1f | %.1f | %.2f |\n" % (
            x["name"], x["matched"], _f(k.get("on_ms"), "%.3f"),
            _f(k.get("off_ms"), "%.3f"), x["on_us"], x["off_us"],
            x["core_syncs_per_query"])
    if e.get("skctl_skipped"):
        s += "\nskctl not measured: %s.\n" % e["skctl_skipped"]
    return s + "\nQueries: %s.\n\n" % "; ".join("`%s`" % q
                                               for q in e["queries"])


def section(res):
    r = res.get("dyndbg")
    s = ("## 14. Dynamic debug: a statement that is off, and switching it "
         "on\n\n")
    if not r:
        return s + "Not run.\n\n"
    for v, why in sorted((r.get("skipped") or {}).items()):
        if v in EMPTY.values():
            s += "Baseline %s not built: %s.\n\n" % (v, why)
    return s + _section_cost(r) + _section_bytes(r) + _section_switch(r)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("build", help="the build folder (libstatickeys in "
                    "BUILD/src, skctl in BUILD/tools)")
    ap.add_argument("--quick", action="store_true")
    a = ap.parse_args()
    res = {"dyndbg": experiment(os.path.join(os.path.abspath(a.build),
                                             "bench"), a.quick)}
    print(section(res))
    print(json.dumps(res["dyndbg"], indent=1))


if __name__ == "__main__":
    main()
