# SPDX-License-Identifier: MIT OR Apache-2.0
"""bench/trace_bench.py - experiment 11: one tracepoint event's cost with
bpftrace attached and counting, ours against a plain sys/sdt.h probe under
its semaphore, side by side in one process (bench/trace_attached.sh runs
bench/trace_attached.c under bpftrace; bpftrace's counts must equal the
events fired).  Without root, BPF or bpftrace the row says why and reads
"not measured".

Used by run_bench.py (experiment) and report.py (section).  Standard
library only.
"""
import json
import os
import subprocess

HERE = os.path.dirname(os.path.abspath(__file__))


def experiment(build_root, out, quick):
    """Run trace_attached.sh; its JSON, or {"skipped": why}."""
    path = os.path.join(out, "raw", "trace_attached.json")
    if os.path.exists(path):
        os.remove(path)
    cmd = [os.path.join(HERE, "trace_attached.sh"), build_root, path]
    if quick:
        cmd.append("--quick")
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=900)
    print(p.stdout.rstrip(), flush=True)
    if p.returncode not in (0, 77) or not os.path.exists(path):
        raise RuntimeError("trace_attached.sh exited %d: %s"
                           % (p.returncode, (p.stdout + p.stderr)[-400:]))
    with open(path) as f:
        return json.load(f)


def section(res):
    r = res.get("trace_attached")
    s = "## 11. Tracepoint event with bpftrace attached\n\n"
    if not r:
        return s + "Not run.\n\n"
    if "skipped" in r:
        return s + "Not measured: %s.\n\n" % r["skipped"]
    s += ("ns per event while bpftrace counts each probe "
          "(`usdt:BIN:bench:NAME { @n = count(); }`), %d rounds of %d events "
          "of each, the order alternating; bpftrace counted %s events of "
          "each, as fired.\n\n"
          % (r["rounds"], r["per_round"],
             r["bpftrace_counted"]["statickeys"]))
    rows = []
    counted = r["bpftrace_counted"]
    for k, name, site in (
            ("statickeys", "statickeys `sk_trace_*()`",
             "5-byte NOP, %rsp moved below the red zone"),
            ("usdt_semaphore", "sys/sdt.h probe under its semaphore",
             "1-byte NOP")):
        rows.append("| %s | %s | %.0f | %.0f | %.0f | %d |" % (
            name, site, r[k]["median_ns"], r[k]["min_ns"], r[k]["max_ns"],
            counted[k]))
    forms = r.get("forms") or {}
    for k, name, site in (
            ("nop5_bare", "reference: bare 5-byte NOP",
             "5-byte NOP (its red zone is overwritten)"),
            ("nop10", "reference: libbpf's 10-byte NOP",
             "`66 2e 0f 1f 84 00..`")):
        f = forms.get(k)
        if f and "refused" in f:
            rows.append("| %s | %s | bpftrace could not attach: %s | | | 0 |"
                        % (name, site, f["refused"]))
        elif f:
            rows.append("| %s | %s | %.0f | %.0f | %.0f | %d |" % (
                name, site, f["median_ns"], f["min_ns"], f["max_ns"],
                f["bpftrace_counted"]))
    s += ("| probe | site | median ns | min ns | max ns | bpftrace counted |\n"
          "|---|---|---|---|---|---|\n" + "\n".join(rows) + "\n\n")
    s += "Ours / USDT (medians): %.3f.\n\n" % r["ratio_ours_to_usdt"]
    return s


def goals(res, goal, timed):
    """Experiment 11's goals: no event lost (a count), and the cost of an
    attached event against the plain probe's (a timing)."""
    r = res.get("trace_attached") or {}
    if "skipped" in r or not r:
        r = {}
    fired = r.get("fired_each")
    seen = (r.get("bpftrace_counted") or {}).get("statickeys")
    lost = fired - seen if fired and seen is not None else None
    ratio = r.get("ratio_ours_to_usdt")
    return [goal("tracepoint events lost with bpftrace attached", lost,
                 lost == 0, "= 0"),
            timed("tracepoint event with bpftrace attached / sys/sdt.h "
                  "probe's (medians)", ratio,
                  ratio is not None and ratio <= 0.5, "<= 0.50")]
