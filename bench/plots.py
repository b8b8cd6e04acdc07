# SPDX-License-Identifier: MIT OR Apache-2.0
"""bench/plots.py - the PNG plots of the benchmark report.

    .venv/bin/python bench/plots.py bench/out/results.json bench/out

Run with the virtualenv's Python (matplotlib); prints the name of each PNG it
writes, one a line.  A figure whose experiment did not run is skipped.
"""
import json
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rust_bench  # noqa: E402  (experiment 9)
import startup_bench  # noqa: E402  (experiment 10)

MODES = ("batched", "one_by_one", "mprotect")


def save(fig, out, name):
    fig.tight_layout()
    fig.savefig(os.path.join(out, name), dpi=110)
    plt.close(fig)
    print(name)


def plot_update(res, out):
    rows = res.get("update_latency")
    if not rows:
        return
    fig, (ax, ax2) = plt.subplots(1, 2, figsize=(11, 4.2))
    for mode in MODES:
        for layout in ("packed", "spread"):
            pts = sorted((r["sites"], r["median_us"], r["p99_us"],
                          r["syncs_per_flip"]) for r in rows
                         if r["mode"] == mode
                         and r.get("layout", "packed") == layout)
            if not pts:
                continue
            n = [p[0] for p in pts]
            name = "%s, %s" % (mode, layout)
            ax.errorbar(n, [p[1] for p in pts],
                        yerr=[[0] * len(pts), [p[2] - p[1] for p in pts]],
                        marker="o" if layout == "packed" else "s",
                        ls="-" if layout == "packed" else "--", capsize=3,
                        label=name + " (median, p99)")
            ax2.plot(n, [p[3] for p in pts], marker="o", label=name)
    ax.scatter([56, 56], [57000, 1400], marker="x", color="k",
               label="kernel 2019 (reference): 57 ms / 1.4 ms")
    ax.set(xscale="log", yscale="log", xlabel="sites of the key",
           ylabel="flip latency (us)", title="Update latency")
    ax.legend(fontsize=7, loc="upper left")
    ax2.axhline(3, color="grey", ls="--", lw=1, label="goal: <= 3")
    ax2.set(xscale="log", yscale="log", xlabel="sites of the key",
            ylabel="core syncs per flip", title="Core syncs (membarrier)")
    ax2.legend(fontsize=8)
    save(fig, out, "update_latency.png")


def plot_branch(res, out):
    bc = res.get("branch_cost") or {}
    names = [v for v in bc.get("variants", []) if "instructions" in bc.get(v, {})]
    if not names:
        return
    fields = ("instructions", "data_reads", "branches")
    fig, ax = plt.subplots(figsize=(9, 4))
    w = 0.8 / len(fields)
    for i, f in enumerate(fields):
        ax.bar([x + i * w for x in range(len(names))],
               [bc[v][f] for v in names], w, label=f.replace("_", " "))
    ax.set_xticks([x + w for x in range(len(names))], names, fontsize=8)
    ax.set(ylabel="per check (cachegrind, exact)",
           title="Cost of one check, loop overhead subtracted")
    ax.legend()
    save(fig, out, "branch_cost.png")


def plot_disturbance(res, out):
    runs = res.get("disturbance_runs") or []
    if not runs:
        return
    labels = list(runs[0]["gap_histogram"].keys())
    fig, (ax, ax2) = plt.subplots(1, 2, figsize=(11, 4))
    names = ["%s\n%s\n%s" % (r["observer"], r["mode"],
                              r.get("layout", "packed")) for r in runs]
    ax.bar(names, [r["interruptions_per_flip"] or 0 for r in runs])
    ax.axhline(4, color="grey", ls="--", lw=1,
               label="goal (batched, mprotect): <= 4")
    ax.set(ylabel="interruptions per flip", yscale="symlog",
           title="Spinner interruptions per 56-site flip")
    ax.tick_params(axis="x", labelsize=7)
    ax.legend(fontsize=8)
    w = 0.8 / len(runs)
    for i, r in enumerate(runs):
        ax2.bar([x + i * w for x in range(len(labels))],
                [r["gap_histogram"][k] for k in labels], w,
                label=names[i].replace("\n", " "))
    ax2.set_xticks([x + 0.4 for x in range(len(labels))], labels, fontsize=8)
    ax2.set(yscale="symlog", ylabel="gaps during the flips",
            title="Gap lengths seen by the spinner")
    ax2.legend(fontsize=7)
    save(fig, out, "disturbance.png")


def plot_locks(res, out):
    lk = res.get("locks")
    if not lk:
        return
    labels = lk["bucket_labels"]
    fig, ax = plt.subplots(figsize=(11, 4))
    names = ("lock_hold", "lock_wait", "fast_path")
    w = 0.8 / len(names)
    for i, n in enumerate(names):
        ax.bar([x + i * w for x in range(len(labels))], lk[n]["buckets"], w,
               label=n.replace("_", " "))
    ax.set_xticks([x + w for x in range(len(labels))], labels, fontsize=8)
    ax.set(yscale="symlog", ylabel="count",
           title="Patch lock hold / wait and the inc/dec fast path")
    ax.legend()
    save(fig, out, "locks.png")


def plot_pipe(res, out):
    runs = (res.get("pipe") or {}).get("runs") or []
    if not runs:
        return
    configs = sorted({(r["ipc"], r["checks"]) for r in runs})
    variants = [v for v in ("static", "flag", "flag_expect", "flag_atomic")
                if any(r["variant"] == v for r in runs)]
    fig, ax = plt.subplots(figsize=(9, 4))
    w = 0.8 / len(variants)
    for i, v in enumerate(variants):
        ys = [next((r["ratio_to_flag"] for r in runs if r["variant"] == v and
                    (r["ipc"], r["checks"]) == c), 0) for c in configs]
        ax.bar([x + i * w for x in range(len(configs))], ys, w, label=v)
    ax.axhline(1, color="grey", ls="--", lw=1)
    ax.set_xticks([x + 0.4 - w / 2 for x in range(len(configs))],
                  ["%s, %d checks" % c for c in configs], fontsize=8)
    ax.set(ylabel="elapsed / plain flag (median)",
           title="Pipe ping-pong: time relative to a plain flag")
    ax.legend(fontsize=8)
    save(fig, out, "pipe.png")


def plot_trap(res, out):
    t = res.get("trap") or {}
    rows = t.get("by_sites")
    if not rows:
        return
    fig, ax = plt.subplots(figsize=(7, 4))
    n = [r["sites"] for r in rows]
    ax.plot(n, [r["trap_ns_median"] for r in rows], marker="o",
            label="trap round trip (median)")
    ax.plot(n, [r["handler_ns_median"] for r in rows], marker="o",
            label="handler's own work")
    ax.axhline(t.get("bare_int3_ns_median", 0), color="grey", ls="--", lw=1,
               label="bare int3 + signal round trip")
    ax.set(xscale="log", xlabel="sites in the batch", ylabel="ns",
           title="Thread hitting a site mid-update")
    ax.legend(fontsize=8)
    save(fig, out, "trap.png")


def plot_threads(res, out):
    rows = res.get("threads")
    if not rows:
        return
    fig, ax = plt.subplots(figsize=(7, 4.2))
    for mode in ("default", "scan_every_update"):
        pts = sorted((r["threads"], r["median_us"], r["p99_us"])
                     for r in rows if r["mode"] == mode)
        if not pts:
            continue
        ax.errorbar([p[0] for p in pts], [p[1] for p in pts],
                    yerr=[[0] * len(pts), [p[2] - p[1] for p in pts]],
                    marker="o", capsize=3, label=mode + " (median, p99)")
    base = [r["median_us"] for r in rows
            if r["mode"] == "default" and r["threads"] == 1]
    if base:
        ax.axhline(1.5 * base[0], color="grey", ls="--", lw=1,
                   label="goal: <= 1.5 x the 1-thread median")
    ax.set(xscale="log", yscale="log", xlabel="threads in the process",
           ylabel="1-site flip (us)", title="Flip cost and thread count")
    ax.legend(fontsize=8)
    save(fig, out, "threads.png")


def main():
    with open(sys.argv[1]) as f:
        res = json.load(f)
    out = sys.argv[2]
    for fn in (plot_update, plot_branch, plot_pipe, plot_trap,
               plot_disturbance, plot_locks, plot_threads):
        fn(res, out)
    rust_bench.plot(res, out, save, plt)
    startup_bench.plot(res, out, save, plt)


if __name__ == "__main__":
    main()
