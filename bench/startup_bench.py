# SPDX-License-Identifier: MIT OR Apache-2.0
"""bench/startup_bench.py - experiment 10: start-up and memory per site.

A program with N sites (0, 1,000, 10,000, 100,000; QUICK=1 leaves out the
largest) on 100 keys, whose main() returns at once (gen_startup.py), built
four times: with statickeys sites linked to the shared library, the same
linked to the static one, with plain int flags, and with plain int flags
linked (through an rpath, like the first) to one empty shared library: what
loading any one more library costs, the floor of the first.  In the same
run:

  - start-up: fork + exec + wait of each program, the four alternating
    (bench_startup), median of a few hundred runs each;
  - instructions: the whole run of each program under cachegrind
    (load-independent; the difference is what the runtime adds);
  - memory: heap in use (mallinfo2) and resident set at main(), per site
    the statickeys program's heap minus the plain one's, over N.

Rust: the same shape of program (N sites on 100 keys, ten per function)
built against this repository's crate and against `static-keys` 0.8 (which
needs `global_init()` first), alternating the same way; N = 0, 1,000,
10,000 (not in QUICK=1 runs).

Used by run_bench.py (experiment), report.py (section, goals) and plots.py
(plot).  Standard library only.
"""
import concurrent.futures
import json
import os
import shutil
import subprocess

import gen_startup
import rust_bench

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
KEYS = 100
# A run is ~1 ms, so hundreds of runs per program cost seconds; the
# compiles dominate.  QUICK=1 leaves out 100,000 sites and the Rust builds.
SIZES = {"full": dict(sites=(0, 1000, 10000, 100000), runs=1000,
                      rust_sites=(0, 1000, 10000), rust_runs=500),
         "quick": dict(sites=(0, 1000, 10000), runs=300, rust_sites=(),
                       rust_runs=0)}

# Goals of issue "start-up, memory and the update slow path".
GOAL_10K_MS = 0.2   # 10,000 sites: at most this much later than plain flags
GOAL_1K_MS = 0.05   # 1,000 sites
GOAL_HEAP_PER_SITE = 8.0

# Before and after the site index (and two later changes to start-up),
# measured once each with valgrind (instructions, which load does not
# change) and the trap benchmark, on the same 2-vCPU machine while other
# builds ran on it: a reference printed with every report, not a result of
# the run.  "after" includes the signal-handler check by a thread-local
# depth instead of an unwind.
BEFORE_AFTER = [
    ("start-up, 10,000 sites on 100 keys: instructions of the whole run "
     "(plain flags: 125,695)", "14,051,503", "~600,000"),
    ("heap in use at main(), 10,000 sites", "405,440 B (40.5 per site)",
     "1,952 B (0.2 per site)"),
    ("1-site flip: user-space instructions per update", "~13,900", "~1,800"),
    ("56 packed sites: instructions per update", "55,965", "30,580"),
    ("1,000 packed sites: instructions per update", "702,836", "494,029"),
    ("10,000 packed sites: instructions per update", "7,359,310",
     "5,059,569"),
    ("dlopen + dlclose of a plugin with 10,000 sites on 100 keys, 2 keys "
     "on (200 sites patched): instructions", "14.2 M", "0.84 M"),
    ("start-up, 0 sites on 100 keys: ms over plain flags, static / shared "
     "library, before and after libgcc_s (the unwinder) left the link "
     "(bench_startup, 1,000 alternating runs each)", "+0.179 / +0.245",
     "+0.074 / +0.144"),
    ("start-up, 1,000 sites on 100 keys: instructions of the whole run "
     "over plain flags, static library / shared library over plain flags + "
     "the empty library, before and after start-up stopped allocating, "
     "looking up the C library's signal functions and reading settings "
     "nobody set (cachegrind)",
     "+76,639 / +99,416", "+43,806 / +49,641"),
    ("trap handler, ns per trap in a 1 / 56 / 1,000 / 10,000-site batch "
     "(experiment 5, three alternating runs, medians)",
     "45-53 / 75-85 / 104-114 / 129-275", "20-21 / 51-57 / 94-100 / 201-220"),
]


def _run(cmd, **kw):
    p = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if p.returncode != 0:
        raise RuntimeError("%s exited %d: %s" % (" ".join(cmd), p.returncode,
                                                 p.stderr.strip()[-300:]))
    return p.stdout


def _compile(cc, src, obj, flags):
    if (os.path.exists(obj) and
            os.path.getmtime(obj) >= os.path.getmtime(src)):
        return
    _run([cc, "-O2", "-D_GNU_SOURCE", "-c", src, "-o", obj] + flags)


def empty_library(work):
    """Build (once) the empty shared library of the "emptylib" programs;
    return its folder."""
    d = os.path.join(work, "emptylib")
    os.makedirs(d, exist_ok=True)
    src, lib = os.path.join(d, "empty.c"), os.path.join(d, "libskempty.so")
    gen_startup.write_if_changed(src, "int sk_startup_empty(void)\n"
                                 "{\n\treturn 0;\n}\n")
    if (not os.path.exists(lib) or
            os.path.getmtime(lib) < os.path.getmtime(src)):
        _run([os.environ.get("CC", "cc"), "-O2", "-shared", "-fPIC", src,
              "-o", lib])
    return d


def _link_flags(build_root, link, work=None):
    """How a program links the runtime: "shared" (libstatickeys.so, found
    through an rpath), "static" (libstatickeys.a with the link options of
    statickeys.pc), "none" (the plain program), "emptylib" (the plain
    program and an empty shared library, found through an rpath)."""
    lib = os.path.join(build_root, "src")
    if link == "shared":
        return ["-L", lib, "-lstatickeys", "-Wl,-rpath," + lib]
    if link == "none":
        return []
    if link == "emptylib":
        d = empty_library(work)
        return ["-Wl,--no-as-needed", "-L", d, "-lskempty",
                "-Wl,-rpath," + d]
    with open(os.path.join(build_root, "statickeys.pc")) as f:
        private = [l.split(":", 1)[1].split() for l in f
                   if l.startswith("Libs.private:")]
    return [os.path.join(lib, "libstatickeys.a")] + (private[0] if private
                                                     else [])


def build_c(build_root, work, sites, link, pool):
    """Generate and build one program; return its path."""
    mode = "plain" if link in ("none", "emptylib") else "sk"
    srcs = gen_startup.generate(os.path.join(work, "%s_%d" % (mode, sites)),
                                sites, KEYS, mode)
    cc = os.environ.get("CC", "cc")
    inc = ["-I", os.path.join(ROOT, "include")]
    objs = [s[:-2] + ".o" for s in srcs]
    list(pool.map(lambda so: _compile(cc, so[0], so[1], inc),
                  zip(srcs, objs)))
    exe = os.path.join(os.path.dirname(srcs[0]), "prog_" + link)
    _run([cc, "-o", exe] + objs + _link_flags(build_root, link, work))
    return exe


def instructions(exe):
    """Instructions of one whole run (cachegrind), or None."""
    if not shutil.which("valgrind"):
        return None
    path = exe + ".cg.out"
    _run(["valgrind", "--tool=cachegrind", "--cache-sim=no",
          "--cachegrind-out-file=" + path, exe])
    with open(path) as f:
        for line in f:
            if line.startswith("summary:"):
                return int(line.split()[1])
    return None


def lazy_bindings(exe):
    """Symbols the dynamic linker binds from the first constructor to the
    exit: each first call through a PLT (a lazy binding) and each dlsym()
    is a symbol lookup (~900 instructions here).  Counted from the dynamic
    linker's own log (LD_DEBUG=bindings); None where it says nothing."""
    env = dict(os.environ, LD_DEBUG="bindings")
    p = subprocess.run([exe], env=env, capture_output=True, text=True)
    lines = p.stderr.splitlines()
    start = next((i for i, l in enumerate(lines) if "calling init:" in l),
                 None)
    if start is None:
        return None
    return sum(1 for l in lines[start:] if "binding file" in l)


def memory(exe):
    return json.loads(_run([exe, "mem"]).strip().splitlines()[-1])


def spawn(bdir, progs, runs):
    out = _run([os.path.join(bdir, "bench_startup"), "--runs", str(runs)] +
               progs)
    return {r["program"]: r for r in json.loads(out)["startup"]}


def c_rows(bdir, work, sz):
    build_root = os.path.dirname(bdir)
    rows = []
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        for n in sz["sites"]:
            sk = build_c(build_root, work, n, "shared", pool)
            st = build_c(build_root, work, n, "static", pool)
            plain = build_c(build_root, work, n, "none", pool)
            plib = build_c(build_root, work, n, "emptylib", pool)
            t = spawn(bdir, [sk, st, plain, plib], sz["runs"])
            msk, mpl = memory(sk), memory(plain)
            row = {"sites": n, "keys": KEYS,
                   "statickeys_us": t[sk]["median_us"],
                   "statickeys_p90_us": t[sk]["p90_us"],
                   "static_us": t[st]["median_us"],
                   "static_instructions": instructions(st),
                   "plain_us": t[plain]["median_us"],
                   "plain_p90_us": t[plain]["p90_us"],
                   "plain_lib_us": t[plib]["median_us"],
                   "runs": t[sk]["runs"],
                   "heap_bytes": msk["heap_bytes"],
                   "plain_heap_bytes": mpl["heap_bytes"],
                   "heap_after_update_bytes": msk["heap_after_update_bytes"],
                   "plain_heap_after_update_bytes":
                       mpl["heap_after_update_bytes"],
                   "rss_bytes": msk["rss_bytes"],
                   "plain_rss_bytes": mpl["rss_bytes"],
                   "instructions": instructions(sk),
                   "plain_instructions": instructions(plain),
                   "lazy_bindings": lazy_bindings(sk),
                   "plain_lazy_bindings": lazy_bindings(plain)}
            row["extra_ms"] = (row["statickeys_us"] - row["plain_us"]) / 1e3
            row["shared_over_lib_ms"] = (row["statickeys_us"] -
                                         row["plain_lib_us"]) / 1e3
            row["empty_lib_ms"] = (row["plain_lib_us"] - row["plain_us"]) / 1e3
            row["static_extra_ms"] = (row["static_us"] - row["plain_us"]) / 1e3
            if n:
                row["heap_per_site"] = (row["heap_bytes"] -
                                        row["plain_heap_bytes"]) / float(n)
                row["heap_per_site_after_update"] = (
                    row["heap_after_update_bytes"] -
                    row["plain_heap_after_update_bytes"]) / float(n)
            rows.append(row)
    return rows


RUST_MAIN = """// Generated by bench/startup_bench.py: %(sites)d sites on %(keys)d keys.
use %(crate)s as sk;
use sk::{define_static_key_false, static_branch_unlikely};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
static COUNTER: AtomicU64 = AtomicU64::new(0);
%(keys_def)s
%(fns)s
static FNS: &[fn()] = &[%(names)s];
fn main() {
    %(init)s
    std::hint::black_box(FNS);
}
"""


def rust_source(crate, sites):
    keys = min(KEYS, sites) if sites else 0
    fns, names = [], []
    for f in range(0, sites, 10):
        body = " ".join("if static_branch_unlikely!(K%d) { COUNTER.fetch_add(1, Relaxed); }"
                        % (i % keys) for i in range(f, min(f + 10, sites)))
        # The constant makes every function different: rustc would merge
        # identical ones, leaving fewer sites than claimed.
        fns.append("#[inline(never)]\nfn f%d() { %s COUNTER.fetch_add(%d, Relaxed); }"
                   % (f // 10, body, f + 1))
        names.append("f%d" % (f // 10))
    return RUST_MAIN % dict(
        sites=sites, keys=keys, crate=crate,
        keys_def="\n".join("define_static_key_false!(K%d);" % k
                           for k in range(keys)),
        fns="\n".join(fns), names=", ".join(names),
        init="sk::global_init();" if crate == "static_keys" else "")


def rust_rows(bdir, work, sz):
    cargo = rust_bench._cargo()
    if not cargo:
        return {"skipped": "cargo is not installed"}
    proj = os.path.join(work, "rust")
    os.makedirs(os.path.join(proj, "src", "bin"), exist_ok=True)
    with open(os.path.join(HERE, "rust", "Cargo.toml")) as f:
        toml = f.read().replace('"../../rust/statickeys"', '"%s"' % os.path.join(
            ROOT, "rust", "statickeys")).replace(
            'name = "statickeys-rust-bench"', 'name = "statickeys-startup-bench"')
    bins = []
    for n in sz["rust_sites"]:
        for impl, crate in (("ours", "statickeys"), ("theirs", "static_keys")):
            name = "%s_%d" % (impl, n)
            gen_startup.write_if_changed(
                os.path.join(proj, "src", "bin", name + ".rs"),
                rust_source(crate, n))
            bins.append(name)
    gen_startup.write_if_changed(os.path.join(proj, "Cargo.toml"), toml)
    shutil.copyfile(os.path.join(HERE, "rust", "Cargo.lock"),
                    os.path.join(proj, "Cargo.lock"))
    env = dict(os.environ, CARGO_TARGET_DIR=os.path.join(proj, "target"))
    p = subprocess.run([cargo, "build", "--release", "--manifest-path",
                        os.path.join(proj, "Cargo.toml")],
                       capture_output=True, text=True, env=env, timeout=3600)
    if p.returncode != 0:
        return {"skipped": "cargo build failed: " + p.stderr.strip()[-300:]}
    rel = os.path.join(proj, "target", "release")
    rows = []
    for n in sz["rust_sites"]:
        ours, theirs = (os.path.join(rel, "%s_%d" % (i, n))
                        for i in ("ours", "theirs"))
        t = spawn(bdir, [ours, theirs], sz["rust_runs"])
        rows.append({"sites": n, "ours_us": t[ours]["median_us"],
                     "theirs_us": t[theirs]["median_us"],
                     "ours_p90_us": t[ours]["p90_us"],
                     "theirs_p90_us": t[theirs]["p90_us"],
                     "runs": t[ours]["runs"],
                     "ours_instructions": instructions(ours),
                     "theirs_instructions": instructions(theirs)})
    return rows


def experiment(bdir, quick):
    sz = SIZES["quick" if quick else "full"]
    work = os.path.join(bdir, "startup")
    res = {"c": c_rows(bdir, work, sz), "sizes": sz}
    if not sz["rust_sites"]:
        res["rust"] = {"skipped": "not in a QUICK=1 run"}
        return res
    try:
        res["rust"] = rust_rows(bdir, work, sz)
    except (RuntimeError, OSError, subprocess.TimeoutExpired) as e:
        res["rust"] = {"skipped": str(e)[-300:]}
    return res


def _find(rows, n):
    for r in rows if isinstance(rows, list) else []:
        if r["sites"] == n:
            return r
    return None


def goals(res, goal, timed=None):
    """The goals of this experiment: @goal for heap (bytes, which load does
    not change), @timed (report._goal with this experiment's machine load)
    for start-up times, which it does."""
    timed = timed or goal
    s = res.get("startup") or {}
    c, rust = s.get("c"), s.get("rust")
    out = []
    # The static library is judged against plain flags.  The shared one is
    # judged against plain flags linked to one empty shared library (same
    # rpath lookup), since loading any library costs more than the 1,000-site
    # goal on this machine; its distance to plain flags is reported too.
    for n, limit in ((10000, GOAL_10K_MS), (1000, GOAL_1K_MS)):
        r = _find(c, n)
        for what, field in (
                ("static library: ms over plain flags", "static_extra_ms"),
                ("shared library: ms over plain flags linked to one empty "
                 "shared library", "shared_over_lib_ms")):
            v = round(r[field], 3) if r and field in r else None
            out.append(timed("start-up, %d sites on 100 keys, %s (medians)"
                             % (n, what), v, v is not None and v <= limit,
                             "<= %.2f" % limit))
        v = round(r["extra_ms"], 3) if r else None
        g = goal("start-up, %d sites on 100 keys, shared library: ms over "
                 "plain flags (medians)" % n, v, False, "reported")
        if v is not None and "empty_lib_ms" in r:
            g["status"] = ("REPORTED (one empty shared library alone: "
                           "%+.3f ms)" % r["empty_lib_ms"])
        out.append(g)
    r, o = _find(c, 10000), _find(rust, 10000)
    v = round(o["ours_us"] / o["theirs_us"], 2) if o else None
    out.append(timed("start-up, Rust, 10,000 sites: statickeys / "
                     "static-keys 0.8 (medians)", v,
                     v is not None and v < 1.0, "< 1"))
    worst = max([x.get("heap_per_site", 0) for x in c or [] if x["sites"]],
                default=None)
    out.append(goal("heap per registered site, at main() (worst N)",
                    None if worst is None else round(worst, 2),
                    worst is not None and worst <= GOAL_HEAP_PER_SITE,
                    "<= %.0f bytes" % GOAL_HEAP_PER_SITE))
    slope = update_heap_slope(c)
    out.append(goal("heap per site once the first update built the index: "
                    "growth between the N rows (worst pair)",
                    None if slope is None else round(slope, 2),
                    slope is not None and slope <= GOAL_HEAP_PER_SITE,
                    "<= %.0f bytes" % GOAL_HEAP_PER_SITE))
    return out


def update_heap_slope(rows):
    """Bytes of heap per site after the first update, as the growth from
    one N to the next: the first real flip also allocates a few KiB that
    do not grow with sites (the thread check's ids, the trap handler's
    tables), which a division by one N would spread over its sites."""
    pts = sorted((x["sites"], x["heap_after_update_bytes"] -
                  x["plain_heap_after_update_bytes"])
                 for x in rows or [] if x["sites"] and
                 "heap_after_update_bytes" in x)
    slopes = [(b[1] - a[1]) / float(b[0] - a[0])
              for a, b in zip(pts, pts[1:])]
    return max(slopes) if slopes else None


def _table(head, rows):
    return rust_bench._table(head, rows)


def _kb(b):
    return "%.0f" % (b / 1024.0)


def section(res):
    s = "## 10. Start-up and memory per site\n\n"
    r = res.get("startup")
    if not r:
        return s + "Not run.\n\n"
    s += ("Programs with N sites on 100 keys whose main() returns at once "
          "(bench/gen_startup.py), statickeys linked to the shared and to "
          "the static library against the same program with plain int "
          "flags, alone and linked to one empty shared library; fork + "
          "exec + wait, the four alternating, median of %d "
          "runs each.  Instructions: the whole run under cachegrind.  Heap: "
          "mallinfo2 at main(), i.e. after registration, and again after "
          "one key was turned on and off (the first update builds the "
          "program's index by key: 4 bytes per site and 16 per key, "
          "objects_site_index).\n\n"
          % r["sizes"]["runs"])
    rows = [[x["sites"], x["statickeys_us"], "%+.3f" % x["extra_ms"],
             "%+.3f" % x["shared_over_lib_ms"],
             x["static_us"], "%+.3f" % x["static_extra_ms"], x["plain_us"],
             x["plain_lib_us"],
             x["instructions"] or "-", x["static_instructions"] or "-",
             x["plain_instructions"] or "-",
             "%s / %s" % (x.get("lazy_bindings", "-"),
                          x.get("plain_lazy_bindings", "-")),
             x["heap_bytes"],
             "%.2f" % x["heap_per_site"] if "heap_per_site" in x else "-",
             x["heap_after_update_bytes"],
             "%.2f" % x["heap_per_site_after_update"]
             if "heap_per_site_after_update" in x else "-",
             _kb(x["rss_bytes"]), _kb(x["plain_rss_bytes"])]
            for x in r["c"]]
    s += _table(["sites", "shared us", "extra ms", "extra ms over plain + "
                 "empty library", "static us", "extra ms", "plain us",
                 "plain + empty library us", "shared instructions",
                 "static instructions",
                 "plain instructions", "bindings after load (shared / plain)",
                 "heap bytes", "heap bytes per site",
                 "heap after an update", "per site",
                 "RSS KiB", "plain RSS KiB"], rows) + "\n"
    s += ("\"shared\": linked to libstatickeys.so through an rpath (the "
          "dynamic linker then also searches the rpath's hardware-capability "
          "subdirectories, about twenty failing openat calls: a cost of the "
          "rpath, not of the sites); \"plain + empty library\": the plain "
          "program linked, through an rpath the same way, to a shared "
          "library holding one empty function, which is what loading any "
          "library costs; \"static\": libstatickeys.a.  The "
          "0-site row is the runtime's fixed cost; what sites add is the "
          "difference to it.  Heap and RSS: the shared build.  Bindings "
          "after load: the symbols the dynamic linker binds from the first "
          "constructor on (LD_DEBUG=bindings): each first call through a "
          "PLT and each dlsym() (~900 instructions each, inside the "
          "instruction counts): the runtime's start-up calls into the C "
          "library and the program's constructor's call into the runtime. "
          "Binding all of the runtime's imports at load instead "
          "(LD_BIND_NOW, as -z now would) cost ~80,000 instructions more "
          "here, so they stay lazy.\n\n")
    rust = r.get("rust")
    if isinstance(rust, dict):
        s += "Rust: skipped (%s).\n\n" % rust.get("skipped")
    elif rust:
        s += ("Rust, the same shape of program, this repository's crate "
              "against `static-keys` 0.8 (`global_init()` first), "
              "alternating, median of %d runs each:\n\n"
              % r["sizes"]["rust_runs"])
        s += _table(["sites", "statickeys us", "static-keys 0.8 us",
                     "statickeys / static-keys", "statickeys instructions",
                     "static-keys instructions"],
                    [[x["sites"], x["ours_us"], x["theirs_us"],
                      "%.2f" % (x["ours_us"] / x["theirs_us"]),
                      x["ours_instructions"] or "-",
                      x["theirs_instructions"] or "-"] for x in rust]) + "\n"
    s += ("Before and after the site index (sites read in place, indexed "
          "by key at the first update; two rows: the unwinder no longer "
          "linked, and start-up doing only what start-up needs), measured "
          "once each on the same "
          "2-vCPU machine while other builds ran on it; instructions are "
          "valgrind's count, which load does not change.  A reference, not "
          "a result of this run:\n\n")
    s += _table(["what", "before", "after"], BEFORE_AFTER) + "\n"
    return s


def plot(res, out, save, plt):
    r = (res.get("startup") or {}).get("c")
    if not r:
        return
    fig, ax = plt.subplots(figsize=(7, 4))
    xs = [max(x["sites"], 1) for x in r]
    ax.plot(xs, [x["statickeys_us"] / 1e3 for x in r], "o-",
            label="statickeys")
    ax.plot(xs, [x["plain_us"] / 1e3 for x in r], "s-", label="plain flags")
    ax.plot(xs, [x["plain_us"] / 1e3 + (GOAL_10K_MS if x["sites"] >= 10000
                                        else GOAL_1K_MS) for x in r],
            "--", color="grey", label="goal: plain + 0.05 ms (1k), + 0.2 ms (10k)")
    ax.set(xscale="log", xlabel="sites (0 drawn at 1)", ylabel="ms, median",
           title="Start-up: fork + exec + wait")
    ax.legend(fontsize=8)
    save(fig, out, "startup.png")
