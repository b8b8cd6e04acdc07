# SPDX-License-Identifier: MIT OR Apache-2.0
"""bench/rust_bench.py - experiment 9: the Rust crate against static-keys 0.8.

bench/rust/ is one program built twice: against this repository's
`statickeys` crate ("ours") and against `static-keys` 0.8 from crates.io
("theirs").  In the same run it measures

  - flip latency (enable + disable, each timed) for 1, 56 packed (one
    function), 56 spread (one site per 4 KiB page) and 1000 sites; ours
    also with STATICKEYS_WRITER=mprotect; system calls per flip of the
    56-site key under strace;
  - branch cost: ns per loop iteration through an off site, against a
    relaxed atomic flag; and whether the off site is exactly one NOP5;
  - the concurrent torture (two threads run 128 sites while a third flips
    their keys; a call that saw no flip must see all sites agree with the
    published state), run against theirs too: crashes and wrong directions
    are reported, never fatal to the run.

Used by run_bench.py (experiment), report.py (section) and plots.py (plot).
Standard library only.
"""
import json
import os
import shutil
import subprocess

HERE = os.path.dirname(os.path.abspath(__file__))

SIZES = {"full": dict(flips=40, iterations=100000000, repeats=5,
                      torture_s=5, torture_runs=3),
         "quick": dict(flips=10, iterations=20000000, repeats=3,
                       torture_s=2, torture_runs=1)}
IMPLS = ("ours", "theirs")


def _cargo():
    c = shutil.which("cargo")
    if c:
        return c
    home = os.environ.get("CARGO_HOME", os.path.expanduser("~/.cargo"))
    c = os.path.join(home, "bin", "cargo")
    return c if os.access(c, os.X_OK) else None


def _json(cmd, env=None, timeout=900):
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout,
                       env=env)
    if p.returncode != 0:
        raise RuntimeError("%s exited %d: %s" % (" ".join(cmd), p.returncode,
                                                 p.stderr.strip()[-300:]))
    return json.loads(p.stdout.strip().splitlines()[-1])


def _torture(exe, seconds):
    """Run one torture; report what happened whatever it was."""
    try:
        p = subprocess.run([exe, "torture", "--seconds", str(seconds)],
                           capture_output=True, text=True,
                           timeout=seconds + 60)
        rc, so, se = p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired as e:
        rc, so, se = "timeout", e.stdout or "", e.stderr or ""
        so = so.decode() if isinstance(so, bytes) else so
        se = se.decode() if isinstance(se, bytes) else se
    r = {"exit": rc}
    if isinstance(rc, int) and rc < 0:
        r["signal"] = -rc
    try:
        r.update(json.loads(so.strip().splitlines()[-1])["torture"])
        r["completed"] = True
    except (ValueError, IndexError, KeyError):
        r["completed"] = False
        # the last progress line on stderr says how far it got
        last = [l for l in se.splitlines() if l.startswith("flips ")]
        if last:
            w = last[-1].split()
            r.update(flips=int(w[1]), stable_calls=int(w[3]), wrong=int(w[5]))
        r["stderr_tail"] = se.strip()[-300:]
    return r


def _syscalls(exe, flips):
    """Total system calls of `exe latency --only 56 --flips N` (strace -c)."""
    path = "%s.strace.%d" % (exe, flips)
    p = subprocess.run(["strace", "-f", "-c", "-o", path, exe, "latency",
                        "--only", "56", "--flips", str(flips)],
                       capture_output=True, text=True, timeout=600)
    if p.returncode != 0:
        raise RuntimeError("strace failed: " + p.stderr.strip()[-200:])
    with open(path) as f:
        total = [l for l in f if l.split() and l.split()[-1] == "total"]
    os.unlink(path)
    return int(total[-1].split()[3])  # % time, seconds, usecs/call, calls


def syscalls_per_flip(rel):
    """System calls per flip of the 56-site key: the difference between 21
    and 1 flips each way, over the 40 updates that adds."""
    if not shutil.which("strace"):
        return {"skipped": "strace is not installed"}
    try:
        return {exe: round((_syscalls(os.path.join(rel, exe), 21) -
                            _syscalls(os.path.join(rel, exe), 1)) / 40.0, 1)
                for exe in IMPLS}
    except (RuntimeError, OSError, IndexError, ValueError) as e:
        return {"skipped": str(e)}


def experiment(build_root, out, quick):
    sz = SIZES["quick" if quick else "full"]
    cargo = _cargo()
    if not cargo:
        return {"skipped": "cargo is not installed (Rust >= 1.87 needed)"}
    env = dict(os.environ, CARGO_TARGET_DIR=os.path.join(
        os.path.abspath(build_root), "rust-bench-target"))
    p = subprocess.run([cargo, "build", "--release", "--manifest-path",
                        os.path.join(HERE, "rust", "Cargo.toml")],
                       capture_output=True, text=True, env=env, timeout=1800)
    if p.returncode != 0:
        return {"skipped": "cargo build failed: " + p.stderr.strip()[-300:]}
    rel = os.path.join(env["CARGO_TARGET_DIR"], "release")
    res = {"latency": [], "branch": {}, "torture": {}, "sizes": sz}
    runs = [("ours", "ours", None), ("theirs", "theirs", None),
            ("ours", "ours (mprotect writer)", "mprotect")]
    for exe, label, writer in runs:
        e = dict(os.environ)
        if writer:
            e["STATICKEYS_WRITER"] = writer
        d = _json([os.path.join(rel, exe), "latency", "--flips",
                   str(sz["flips"])], env=e)
        for row in d["latency"]:
            row["impl"] = label
            res["latency"].append(row)
    for exe in IMPLS:
        res["branch"][exe] = _json([os.path.join(rel, exe), "branch",
                                    "--iterations", str(sz["iterations"]),
                                    "--repeats", str(sz["repeats"])])["branch"]
    res["syscalls_56"] = syscalls_per_flip(rel)
    for exe in IMPLS:
        res["torture"][exe] = [_torture(os.path.join(rel, exe),
                                        sz["torture_s"])
                               for _ in range(sz["torture_runs"])]
    with open(os.path.join(out, "raw", "rust.json"), "w") as f:
        json.dump(res, f, indent=2)
    return res


def _fmt(v):
    return "%.2f" % v if isinstance(v, float) else str(v)


def _table(head, rows):
    s = "| " + " | ".join(head) + " |\n|" + "|".join("---" for _ in head)
    return s + "|\n" + "".join("| " + " | ".join(_fmt(c) for c in r) + " |\n"
                               for r in rows)


def latency_table(r):
    rows = []
    by = {(x["impl"], x["sites"], x["layout"]): x for x in r["latency"]}
    for sites, layout in ((1, "packed"), (56, "packed"), (56, "spread"),
                          (1000, "packed")):
        row = [sites, layout]
        for impl in ("ours", "ours (mprotect writer)", "theirs"):
            x = by.get((impl, sites, layout))
            row += [x["median_us"], x["p99_us"]] if x else ["-", "-"]
        o, t = by.get(("ours", sites, layout)), by.get(("theirs", sites, layout))
        row.append("%.1fx" % (t["median_us"] / o["median_us"])
                   if o and t and o["median_us"] else "-")
        rows.append(row)
    return _table(["sites", "layout", "statickeys median us", "p99 us",
                   "statickeys mprotect median us", "p99 us",
                   "static-keys 0.8 median us", "p99 us",
                   "static-keys / statickeys"], rows)


def _torture_cell(runs):
    done = sum(1 for t in runs if t.get("completed"))
    crashed = [t for t in runs if t.get("signal")]
    flips = sum(t.get("flips", 0) for t in runs)
    stable = sum(t.get("stable_calls", 0) for t in runs)
    wrong = sum(t.get("wrong", 0) for t in runs)
    how = "%d of %d runs completed" % (done, len(runs))
    if crashed:
        how += "; killed by signal %s" % ", ".join(
            str(t["signal"]) for t in crashed)
    others = [t for t in runs if not t.get("completed") and not t.get("signal")]
    if others:
        how += "; %d ended otherwise (exit %s)" % (
            len(others), ", ".join(str(t["exit"]) for t in others))
    return [how, flips, stable, wrong]


def section(res):
    r = res.get("rust")
    s = "## 9. Rust: statickeys crate vs static-keys 0.8\n\n"
    if not r:
        return s + "Not run.\n\n"
    if "skipped" in r:
        return s + "Skipped: %s.\n\n" % r["skipped"]
    s += ("The same program (bench/rust/) built against this repository's "
          "`statickeys` crate and against `static-keys` 0.8 from crates.io; "
          "enable and disable each timed, %d flips each way.  \"spread\": "
          "one site per 4 KiB page.\n\n" % r["sizes"]["flips"])
    s += latency_table(r) + "\n"
    sc = r.get("syscalls_56", {})
    if "skipped" in sc:
        s += "System calls per flip: not counted (%s).\n\n" % sc["skipped"]
    elif sc:
        s += ("System calls per flip of the 56-site key (strace -c): "
              "statickeys %s, static-keys 0.8 %s.\n\n"
              % (sc.get("ours"), sc.get("theirs")))
    b = r["branch"]
    s += _table(["crate", "loop with an off site, ns/iter",
                 "loop with a relaxed atomic flag, ns/iter",
                 "NOP5 in the probe", "probe's first bytes"],
                [[k, v["site_ns"], v["flag_ns"], v["probe_nop5"],
                  "`%s`" % v["probe_bytes"][:44]]
                 for k, v in b.items()]) + "\n"
    s += ("Concurrent torture (two threads run 128 sites of two keys while a "
          "third flips the keys for %d s; a call during which no flip "
          "happened must find every site in the published direction):\n\n"
          % r["sizes"]["torture_s"])
    s += _table(["crate", "what happened", "flips", "checked calls",
                 "wrong directions"],
                [[k] + _torture_cell(v) for k, v in r["torture"].items()])
    s += ("\n`static-keys` documents that flipping a key while other threads "
          "run is unsafe; its row reports what happened in this run, and is "
          "never a failure of ours.\n\n")
    return s


def plot(res, out, save, plt):
    r = res.get("rust")
    if not r or "latency" not in r:
        return
    labels = ["1", "56 packed", "56 spread", "1000"]
    keys = [(1, "packed"), (56, "packed"), (56, "spread"), (1000, "packed")]
    by = {(x["impl"], x["sites"], x["layout"]): x for x in r["latency"]}
    fig, ax = plt.subplots(figsize=(7, 4))
    impls = ("ours", "ours (mprotect writer)", "theirs")
    names = {"ours": "statickeys", "ours (mprotect writer)":
             "statickeys, mprotect writer", "theirs": "static-keys 0.8"}
    w = 0.27
    for i, impl in enumerate(impls):
        ys = [by[(impl,) + k]["median_us"] if (impl,) + k in by else 0
              for k in keys]
        ax.bar([j + (i - 1) * w for j in range(len(keys))], ys, w,
               label=names[impl])
    ax.set(yscale="log", xticks=range(len(keys)), xticklabels=labels,
           xlabel="sites of the key", ylabel="median us per flip",
           title="Rust: flip latency, statickeys vs static-keys 0.8")
    ax.legend(fontsize=8)
    save(fig, out, "rust_latency.png")
