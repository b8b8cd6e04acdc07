#!/usr/bin/env python3
# SPDX-License-Identifier: MIT OR Apache-2.0
"""bench/static_call_bench.py - experiment 13: static calls.

13a, the call: bench/call_loop.c built once per way of choosing the callee
(a direct call, a static call, a function pointer, a switch on a mode) and
per build (plain, retpoline: -mindirect-branch=thunk, cet:
-fcf-protection=full).  Cachegrind counts one call exactly (two iteration
counts subtracted): instructions, data reads and indirect branches, each
also as the excess over the direct call of the same build.  Then ns per
call in two layouts (call_loop.c): one call site in a loop, the
friendliest case for a pointer, and 1,024 sites in a row, as a hook called
from all over a hot path; every binary once per round, rounds interleaved
so that load falls on all alike; the ratios to the direct call (and static
/ pointer) are taken within each round, and the report gives their median
and min-max.

13b, the update: bench_keys static_call (bench/exp_static_call.c): one
static call's update against its floor, and N static calls with N keys in
one sk_commit_calls() against the same changes one by one.

Used by run_bench.py (experiment), report.py (section, goals).  Alone:

    python3 bench/static_call_bench.py BUILD [--quick]

Standard library only.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys

VARIANTS = ["direct", "static", "inline", "pointer", "switch"]
# "inline" (the static call with its call site patched: linked with
# -Wl,--emit-relocs) is built where call sites are patched (x86-64 Linux).
OPTIONAL = {"inline"}
# What the goals measure: the call sites patched where they are.
def _form(sc):
    return "inline" if "inline" in (sc.get("variants") or []) else "static"

BUILDS = ["plain", "retpoline", "cet"]
# Layouts: program-name suffix and what the report calls it.
LAYOUTS = [("", "1 site"), ("_sites", "1,024 sites")]
SIZES = {"full": dict(calls=20000000, rounds=5, cg=(100000, 200000),
                      update_rounds=300, commits=20),
         "quick": dict(calls=2000000, rounds=3, cg=(20000, 40000),
                       update_rounds=40, commits=4)}


def _run(cmd, timeout=600):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       universal_newlines=True, timeout=timeout)
    return p.returncode, p.stdout, p.stderr


def _cachegrind_summary(path):
    events = None
    with open(path) as f:
        for line in f:
            if line.startswith("events:"):
                events = line.split()[1:]
            elif line.startswith("summary:") and events:
                return dict(zip(events, (int(x) for x in line.split()[1:])))
    raise RuntimeError("no summary in " + path)


def _counts(exe, n_lo, n_hi, raw):
    """Per-call Ir, Dr, Bi of @exe: two runs under cachegrind, subtracted."""
    got = []
    for n in (n_lo, n_hi):
        path = os.path.join(raw, "cachegrind.%s.%d" % (os.path.basename(exe), n))
        rc, _, se = _run(["valgrind", "--tool=cachegrind", "--cache-sim=yes",
                          "--branch-sim=yes", "--cachegrind-out-file=" + path,
                          exe, str(n)])
        if rc != 0:
            raise RuntimeError("cachegrind %s: %s" % (exe, se[-300:]))
        got.append(_cachegrind_summary(path))
    per = {k: (got[1].get(k, 0) - got[0].get(k, 0)) / float(n_hi - n_lo)
           for k in ("Ir", "Dr", "Bi")}
    return {"instructions": round(per["Ir"], 3),
            "data_reads": round(per["Dr"], 3),
            "indirect_branches": round(per["Bi"], 3)}


def _median(xs):
    xs = sorted(xs)
    n = len(xs)
    return None if not n else (xs[n // 2] if n % 2
                               else (xs[n // 2 - 1] + xs[n // 2]) / 2.0)


def experiment(build_root, out, quick):
    sz = SIZES["quick" if quick else "full"]
    bdir = os.path.join(build_root, "bench")
    raw = os.path.join(out, "raw")
    os.makedirs(raw, exist_ok=True)
    def built(v, b):
        return os.path.exists(os.path.join(bdir, "call_loop_%s_%s" % (v, b)))
    builds = [b for b in BUILDS
              if all(built(v, b) for v in VARIANTS if v not in OPTIONAL)]
    variants = [v for v in VARIANTS
                if builds and all(built(v, b) for b in builds)]
    res = {"builds": builds, "variants": variants,
           "calls_per_run": sz["calls"], "rounds": sz["rounds"]}
    if not builds:
        res["skipped"] = "the call_loop programs are not built"
        return res

    def exe(v, b, suffix=""):
        return os.path.join(bdir, "call_loop_%s_%s%s" % (v, b, suffix))

    layouts = [(x, name) for x, name in LAYOUTS
               if all(os.path.exists(exe(v, b, x))
                      for b in builds for v in variants)]
    res["layouts"] = [name for _, name in layouts]

    if shutil.which("valgrind"):
        counts = {}
        for b in builds:
            for v in variants:
                counts[(v, b)] = _counts(exe(v, b), sz["cg"][0], sz["cg"][1],
                                         raw)
        res["cachegrind"] = [dict(variant=v, build=b, **c, **{
            "extra_" + k: round(c[k] - counts[("direct", b)][k], 3)
            for k in c}) for (v, b), c in counts.items()]
    else:
        res["cachegrind_skipped"] = "valgrind is not installed"

    ns = {(v, b, l): [] for b in builds for v in variants
          for _, l in layouts}
    for _ in range(sz["rounds"]):
        for x, l in layouts:
            for b in builds:
                for v in variants:
                    rc, so, se = _run([exe(v, b, x), str(sz["calls"]),
                                       "time"])
                    if rc != 0:
                        raise RuntimeError("%s: %s" % (exe(v, b, x),
                                                       se[-300:]))
                    ns[(v, b, l)].append(json.loads(so)["ns_per_call"])
    rows = []
    for _, l in layouts:
        for b in builds:
            for v in variants:
                d = ns[("direct", b, l)]
                ratios = [x / y for x, y in zip(ns[(v, b, l)], d) if y > 0]
                row = {"variant": v, "build": b, "layout": l,
                       "ns_per_call": round(_median(ns[(v, b, l)]), 3),
                       "ratio_to_direct": round(_median(ratios), 3),
                       "ratio_min": round(min(ratios), 3),
                       "ratio_max": round(max(ratios), 3)}
                if v in ("static", "inline"):
                    p = [x / y for x, y in zip(ns[(v, b, l)],
                                               ns[("pointer", b, l)])]
                    row.update(ratio_to_pointer=round(_median(p), 3),
                               ratio_to_pointer_min=round(min(p), 3),
                               ratio_to_pointer_max=round(max(p), 3))
                rows.append(row)
    res["timing"] = rows

    path = os.path.join(raw, "static_call_update.json")
    rc, so, se = _run([os.path.join(bdir, "bench_keys"), "static_call",
                       "--rounds", str(sz["update_rounds"]), "--commits",
                       str(sz["commits"]), "--json", path])
    if rc == 0:
        with open(path) as f:
            res["update"] = json.load(f).get("static_call_update")
    else:
        res["update_skipped"] = (so + se).strip().splitlines()[-1:] or [
            "bench_keys static_call failed"]
    return res


def _find(rows, **match):
    for r in rows or []:
        if all(r.get(k) == v for k, v in match.items()):
            return r
    return None


def goals(res, goal, timed):
    sc = res.get("static_calls") or {}
    cg, tm = sc.get("cachegrind"), sc.get("timing")
    out = []
    form = _form(sc)
    # The trampoline adds its jump: one instruction; a patched call site
    # is the direct call itself.
    name = "static call (%s)" % ("call site patched" if form == "inline"
                                 else "trampoline")
    s = _find(cg, variant=form, build="plain")
    for field, want in (("instructions", 0 if form == "inline" else 1),
                        ("data_reads", 0), ("indirect_branches", 0)):
        v = s["extra_" + field] if s else None
        out.append(goal("%s, plain build: %s over a direct call "
                        "(cachegrind)" % (name, field.replace("_", " ")), v,
                        v is not None and v <= want, "<= %d" % want))
    rounds = "min-max of %d rounds" % sc.get("rounds", 0)
    layouts = sc.get("layouts") or ["1 site"]
    for l in layouts:
        s = _timing(tm, form, "plain", l)
        v = s["ratio_to_direct"] if s else None
        out.append(timed("%s / direct call, plain build, %s (ns, median "
                         "of per-round ratios)" % (name, l), v,
                         v is not None and v <= 1.05, "<= 1.05",
                         spread=s and (s["ratio_min"], s["ratio_max"], rounds),
                         test=lambda x: x <= 1.05))
    # Against a pointer: faster where sites are many, as a hook's are; at
    # one site in a loop the CPU predicts the pointer's one indirect branch
    # every time (no retpoline), and a direct call can only tie with it
    # there: that layout's goal is to be no slower.
    for l in layouts:
        limit, test = ((1.0, lambda x: x < 1.0) if l != "1 site" else
                       (1.05, lambda x: x <= 1.05))
        sign = "< %.2f" % limit if l != "1 site" else "<= %.2f" % limit
        margins = {}
        for b in sc.get("builds") or []:
            s = _timing(tm, form, b, l)
            v = s["ratio_to_pointer"] if s else None
            if v is not None:
                margins[b] = v
            out.append(timed("%s / function pointer, %s build, %s (ns)"
                             % (name, b, l), v, v is not None and test(v),
                             sign, spread=s and (s["ratio_to_pointer_min"],
                                                 s["ratio_to_pointer_max"],
                                                 rounds), test=test))
        if l != "1 site" and "retpoline" in margins and len(margins) > 1:
            best = min(margins, key=margins.get)
            out.append(timed("%s: largest margin over a function pointer "
                             "(lowest ratio) in the build" % l, best,
                             best == "retpoline", "retpoline"))
    batch = ((sc.get("update") or {}).get("batch")) or []
    c = _find(batch, static_calls=64, mode="commit")
    v = c["syncs_per_change"] if c else None
    out.append(goal("64 static calls + 64 keys in one commit: core syncs", v,
                    v is not None and v <= 3, "<= 3"))
    return out


def _timing(rows, variant, build, layout):
    """A timing row; results written before layouts existed are 1 site."""
    for r in rows or []:
        if (r.get("variant") == variant and r.get("build") == build and
                r.get("layout", "1 site") == layout):
            return r
    return None


def _fmt(v):
    return "-" if v is None else ("%.2f" % v if isinstance(v, float) else str(v))


def section(res):
    sc = res.get("static_calls")
    s = "## 13. Static calls\n\n"
    if not sc:
        return s + "Not measured.\n\n"
    if sc.get("skipped"):
        return s + "Not measured: %s.\n\n" % sc["skipped"]
    s += ("One call by each way of choosing the callee, each built plain, "
          "with retpolines (-mindirect-branch=thunk) and with CET "
          "(-fcf-protection=full). Counts per call by cachegrind (exact), "
          "and their excess over the direct call of the same build; ns per "
          "call as the median of %d interleaved rounds of %d calls, ratios "
          "taken within each round. \"static\" calls the trampoline, "
          "\"inline\" is the same program linked with -Wl,--emit-relocs, "
          "whose call site the runtime re-pointed at the target itself."
          "\n\n" % (sc["rounds"], sc["calls_per_run"]))
    cg = sc.get("cachegrind")
    layouts = sc.get("layouts") or ["1 site"]
    more = [l for l in layouts if l != "1 site"]
    if more:
        s += ("ns are also measured with the call written at %s run one "
              "after the other (a hook called from all over a hot path), "
              "where each place is a branch of its own for the CPU's "
              "predictors; in a loop over one site the CPU predicts a "
              "pointer's indirect branch every time.\n\n" % more[0])
    s += ("| build | call | instructions | data reads | indirect branches "
          "| ns, 1 site | / direct (min-max) |" +
          "".join(" ns, %s | / direct (min-max) |" % l for l in more) +
          "\n|---|---|---|---|---|---|---|" + "---|---|" * len(more) + "\n")
    for b in sc["builds"]:
        for v in sc.get("variants") or VARIANTS:
            c = _find(cg, variant=v, build=b) or {}
            s += "| %s | %s | %s (%+.0f) | %s (%+.0f) | %s |" % (
                b, v, _fmt(c.get("instructions")),
                c.get("extra_instructions", 0), _fmt(c.get("data_reads")),
                c.get("extra_data_reads", 0),
                _fmt(c.get("indirect_branches")))
            for l in layouts:
                t = _timing(sc.get("timing"), v, b, l) or {}
                s += " %s | %s (%s-%s) |" % (
                    _fmt(t.get("ns_per_call")), _fmt(t.get("ratio_to_direct")),
                    _fmt(t.get("ratio_min")), _fmt(t.get("ratio_max")))
            s += "\n"
    if sc.get("cachegrind_skipped"):
        s += "\nNo counts: %s.\n" % sc["cachegrind_skipped"]
    u = sc.get("update") or {}
    f = u.get("update_floor")
    if f:
        s += ("\nAn update (the trampoline's jump rewritten with the int3 "
              "protocol) against its floor (the protocol's system calls "
              "alone on the trampoline's page), alternating with a 1-site "
              "key flip in one run: update %s us, 1-site flip %s us, floor "
              "%s us, update / floor %s (%d updates).\n"
              % (_fmt(f["update_median_us"]), _fmt(f["flip_median_us"]),
                 _fmt(f["floor_median_us"]), _fmt(f["ratio"]), f["updates"]))
    if u.get("batch"):
        s += ("\nN static calls and N keys (8 sites each) in one "
              "sk_commit_calls(), against the same changes one by one:\n\n"
              "| static calls + keys | how | median us | core syncs |\n"
              "|---|---|---|---|\n")
        for r in u["batch"]:
            s += "| %d + %d | %s | %s | %s |\n" % (
                r["static_calls"], r["keys"], r["mode"], _fmt(r["median_us"]),
                _fmt(r["syncs_per_change"]))
    elif sc.get("update_skipped"):
        s += "\nUpdates not measured: %s\n" % sc["update_skipped"]
    return s + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("build")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--out", default=None)
    a = ap.parse_args()
    out = a.out or os.path.join(a.build, "static-call-bench")
    res = {"static_calls": experiment(a.build, out, a.quick)}
    print(json.dumps(res, indent=1))
    print(section(res))
    return 0


if __name__ == "__main__":
    sys.exit(main())
