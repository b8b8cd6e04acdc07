# SPDX-License-Identifier: MIT OR Apache-2.0
"""bench/report.py - goals and the Markdown report, from results.json.

goals(results) judges the published goals (MET / MISSED, "NOT MEASURED"
when an experiment could not run, INCONCLUSIVE with the reason when a timing
was taken on a machine that was not quiet or its spread straddles the
target: verdict() below decides every one); render(results) writes REPORT.md.  The
kernel's published figures are printed beside ours, always labelled as a
reference: they were measured on other hardware, in the kernel.
"""
import rust_bench  # experiment 9 (bench/rust_bench.py)
import startup_bench  # experiment 10 (bench/startup_bench.py)
import trace_bench  # experiment 11 (bench/trace_bench.py)
import windows_bench  # experiment 12 (bench/windows_bench.py)
import static_call_bench  # experiment 13 (bench/static_call_bench.py)
import startup_calls_bench  # experiment 13c (bench/startup_calls_bench.py)
import dyndbg_bench  # experiment 14 (bench/dyndbg_bench.py)
import port_insns  # experiment 15 (bench/port_insns.py)

# The kernel's published figures (see docs/benchmarks.md for the sources).
KERNEL_UPDATE = {
    "one_by_one": "57 ms, 168 IPIs (56 sites, 24 CPUs; 2019)",
    "batched": "1.4 ms, 3 IPIs (56 sites, 24 CPUs; 2019)",
}
KERNEL_TRAP = "int3 handler 45 ns -> ~180 ns with batching (2019)"
KERNEL_STATIC_OFF = ("1 no-op instruction, no load, no conditional branch; "
                     "a flag check is mov + test + jne, 10 bytes against the "
                     "5-byte no-op (Documentation/staging/static-keys.rst)")
KERNEL_PIPE = ("pipe-test (perf bench sched pipe), Linux 3.3, jump labels vs "
               "flags: elapsed -1.4%, cycles -2.8%, instructions -0.2%, "
               "branches -0.7%, branch misses -12% "
               "(Documentation/staging/static-keys.rst)")


def _find(rows, **match):
    for r in rows or []:
        if all(r.get(k) == v for k, v in match.items()):
            return r
    return None


# ---- when a timing cannot be trusted ---------------------------------------
#
# Timings move with the machine's load; instruction counts (cachegrind),
# bytes and call counts do not.  A timing goal is judged MET / MISSED only
# when the machine was quiet during its experiment and the spread of its
# samples does not straddle the target; otherwise it is INCONCLUSIVE, with
# the reason.  INCONCLUSIVE is never a MET.  The rules, in one place
# (docs/benchmarks.md, "When the report cannot be trusted"):
#
# Quiet, for one experiment (figures from run_bench.machine_during):
#  - other load: the 1-minute load average during the experiment (mean of
#    the readings before and after), less the CPUs the experiment's own
#    processes kept busy, at most MAX_OTHER_LOAD_PER_CPU x CPUs.  The load
#    average lags by about a minute, so also:
#  - other CPU use: busy time of the whole machine (/proc/stat) less our own
#    processes' CPU time, over the experiment's wall time, at most
#    MAX_OTHER_CPUS_PER_CPU x CPUs: exact for the experiment's window;
#  - steal: at most MAX_STEAL of the CPU time taken by the hypervisor.
MAX_OTHER_LOAD_PER_CPU = 0.75
MAX_OTHER_CPUS_PER_CPU = 0.25
MAX_STEAL = 0.05
# /proc/stat counts in ticks of 10 ms: over a window shorter than this the
# CPU-use and steal shares are a few ticks, noise rather than a reading,
# and only the load average judges the experiment.
MIN_WINDOW_S = 2.0
# Spread: where the run records the spread of the judged figure itself (the
# interquartile range of per-run ratios when there are at least
# IQR_MIN_SAMPLES, else their min-max; the min-max over repeats), a goal
# whose spread has samples on both sides of the target is INCONCLUSIVE.
IQR_MIN_SAMPLES = 4

# The experiments whose timings goals judge (run_bench.py runs them under
# these names and records results["machine_load"][name]).
EXP_PIPE = "2 pipe ping-pong"
EXP_UPDATE = "3 update latency"
EXP_FLOOR = "3b 1-site flip against its floor"
EXP_DISTURB = "6 disturbance"
EXP_THREADS = "8 threads"
EXP_STARTUP = "10 start-up and memory per site"
EXP_CALLS = "13 static calls"
EXP_TRACE = "11 tracepoint event with bpftrace attached"
EXP_DYNDBG = "14 dynamic debug"


def machine_quiet(m):
    """(quiet, why not) for one experiment's machine_load record; quiet
    when a figure is missing (not measured here: nothing to say)."""
    why = []
    cpus = m.get("cpus") or 1
    if m.get("load_mean") is not None:
        other = m["load_mean"] - (m.get("own_cpus") or 0)
        if other > MAX_OTHER_LOAD_PER_CPU * cpus:
            why.append("other load %.2f > %.2f x %d CPUs"
                       % (other, MAX_OTHER_LOAD_PER_CPU, cpus))
    short = (m.get("seconds") or 0) < MIN_WINDOW_S
    if m.get("other_cpus") is not None and not short:
        if m["other_cpus"] > MAX_OTHER_CPUS_PER_CPU * cpus:
            why.append("other processes used %.2f CPUs > %.2f x %d"
                       % (m["other_cpus"], MAX_OTHER_CPUS_PER_CPU, cpus))
    if m.get("steal_fraction") is not None and not short:
        if m["steal_fraction"] > MAX_STEAL:
            why.append("steal %.1f%% > %.0f%%"
                       % (100 * m["steal_fraction"], 100 * MAX_STEAL))
    return (not why), "; ".join(why)


def _machine(res, exp):
    """The machine_load record of @exp, {} when the run has none (an
    older results.json): a timing goal, its load unknown."""
    return (res.get("machine_load") or {}).get(exp) or {}


def verdict(value, ok, machine=None, spread=None, test=None, doubt=None):
    """The one place a goal's status is decided.

    @ok: the goal's test on @value.  @machine: for a timing goal, the
    machine_load record of its experiment ({} when unknown); None for a
    goal on counts or bytes, which load does not change.  @spread: (low,
    high, what) of the judged figure, with @test the goal's test, for the
    spread rule.  @doubt: another reason the figure proves nothing.
    Return NOT MEASURED, MET, MISSED or "INCONCLUSIVE (reasons)"."""
    if value is None:
        return "NOT MEASURED"
    why = []
    if machine:
        quiet, reason = machine_quiet(machine)
        if not quiet:
            why.append("machine not quiet: " + reason)
    if spread and test and spread[0] is not None and spread[1] is not None:
        if test(spread[0]) != test(spread[1]):
            why.append("spread %s-%s (%s) straddles the target"
                       % (_fmt(spread[0]), _fmt(spread[1]), spread[2]))
    if doubt:
        why.append(doubt)
    if why:
        return "INCONCLUSIVE (%s)" % "; ".join(why)
    return "MET" if ok else "MISSED"


def _goal(name, value, ok, target, machine=None, spread=None, test=None,
          doubt=None):
    g = {"goal": name, "target": target, "value": value,
         "status": verdict(value, ok, machine, spread, test, doubt)}
    if machine is not None:
        g["timing"] = True
        if g["status"].startswith("INCONCLUSIVE"):
            g["would_be"] = "MET" if ok else "MISSED"
    return g


def _branch_goals(res):
    off = (res.get("branch_cost") or {}).get("static_off") or {}
    out = []
    for field, name in (("instructions", "static branch off: instructions"),
                        ("data_reads", "static branch off: data reads"),
                        ("branches", "static branch off: conditional branches")):
        v = off.get(field)
        want = 1 if field == "instructions" else 0
        out.append(_goal(name, v, v is not None and round(v, 2) == want,
                         "= %d per check" % want))
    return out


def _update_goals(res):
    rows = res.get("update_latency") or []
    info = res.get("update_info") or {}
    out = []

    def row(mode, layout, sites=56):
        return _find(rows, sites=sites, mode=mode, layout=layout)
    # Default writer on real layouts: exact writes cost one pwrite per site
    # and protocol step, and nothing more.
    b = row("batched", "spread")
    v = round(b["text_writes_per_flip"] / 56.0, 2) if b else None
    out.append(_goal("56 spread sites, default writer: code writes per site",
                     v, v is not None and v <= 3, "<= 3"))
    ref = info.get("pwrite_1byte_us")
    v = (round(b["median_us"] / (56 * 3 * ref), 2)
         if b and ref else None)
    out.append(_goal("56 spread sites, default writer: flip / (56 x 3 x one "
                     "1-byte pwrite, %s us here)" % _fmt(ref), v,
                     v is not None and v <= 1.2, "<= 1.2",
                     machine=_machine(res, EXP_UPDATE)))
    # The mprotect writer: layout-blind, by construction.
    mp, ms = row("mprotect", "packed"), row("mprotect", "spread")
    v = round(ms["median_us"] / mp["median_us"], 2) if mp and ms else None
    out.append(_goal("56 sites, mprotect writer: spread / packed (medians)",
                     v, v is not None and v <= 2, "<= 2",
                     machine=_machine(res, EXP_UPDATE)))
    calls = [c["calls"] for c in info.get("mprotect_calls_per_flip") or []
             if c.get("calls") is not None]
    v = max(calls) if calls else None
    out.append(_goal("mprotect writer: protection changes per flip, 56 "
                     "packed / 56 and 1000 spread over pages (worst)", v,
                     v is not None and v <= 2 and len(set(calls)) == 1,
                     "<= 2, the same for every layout"))
    batched = [r for r in rows if r["mode"] != "one_by_one"]
    worst = max((r["syncs_per_flip"] for r in batched), default=None)
    out.append(_goal("core syncs per flip, every N (batched modes)", worst,
                     worst is not None and worst <= 3, "<= 3"))
    return out


def _other_goals(res):
    out = []
    d = res.get("disturbance") or {}
    runs = res.get("disturbance_runs")
    for mode, layout, key in (
            ("batched", "packed", "batched_interruptions_per_flip"),
            ("batched", "spread", "batched_spread_interruptions_per_flip"),
            ("mprotect", "packed", "mprotect_interruptions_per_flip"),
            ("mprotect", "spread", "mprotect_spread_interruptions_per_flip")):
        v = d.get(key)
        run = _find(runs, observer="thread", mode=mode, layout=layout)
        away = run and run.get("spinner_away_fraction")
        # A spinner that is mostly off its CPU is rarely interrupted by
        # anything: a low count then proves nothing.
        doubt = ("spinner off CPU %.0f%%" % (100 * away)
                 if v is not None and v <= 4 and away and away > 0.25
                 else None)
        sp = d.get(key + "_spread")
        # Interruptions are gaps in a spinner's clock: load makes them.
        out.append(_goal("spinner interruptions per flip, %s writer, %s"
                         % ("default" if mode == "batched" else mode, layout),
                         v, v is not None and v <= 4, "<= 4",
                         machine=_machine(res, EXP_DISTURB),
                         spread=sp and (sp[0], sp[1], "min-max of %s repeats"
                                        % d.get("repeats")),
                         test=lambda x: x <= 4, doubt=doubt))
    runs = (res.get("pipe") or {}).get("runs") or []
    for ipc in ("threads", "processes"):
        for checks in (8, 32):
            r = _find(runs, ipc=ipc, checks=checks, variant="static")
            v = r["ratio_to_flag"] if r else None
            out.append(_goal("pipe ping-pong, %s, %d checks: static / flag"
                             % (ipc, checks), v, v is not None and v <= 1.0,
                             "<= 1.00 (no slower)",
                             machine=_machine(res, EXP_PIPE),
                             spread=_pipe_spread(runs, r),
                             test=lambda x: x <= 1.0))
    # The same question answered exactly: instructions per message.
    cg = (res.get("pipe") or {}).get("cachegrind") or []
    for checks in (8, 32):
        st = _find(cg, checks=checks, variant="static")
        fl = _find(cg, checks=checks, variant="flag")
        v = round(st["instructions_per_message"] -
                  fl["instructions_per_message"], 2) if st and fl else None
        out.append(_goal("pipe ping-pong, %d checks: instructions per "
                         "message, static - flag (cachegrind)" % checks, v,
                         v is not None and v <= 0, "<= 0"))
    return out


def _pipe_spread(runs, r):
    """(low, high, what) of the per-run ratio static / flag of row @r."""
    if not r:
        return None
    n = r.get("runs") or 0
    if n >= IQR_MIN_SAMPLES and "ratio_p25" in r:
        return (r["ratio_p25"], r["ratio_p75"], "IQR of %d runs' ratios" % n)
    if "ratio_min" in r:
        return (r["ratio_min"], r["ratio_max"],
                "min-max of %d runs' ratios" % n)
    # An older results.json: the widest ratio its elapsed times allow.
    f = _find(runs, ipc=r["ipc"], checks=r["checks"], variant="flag")
    if f and f.get("max_ms") and f.get("min_ms"):
        return (round(r["min_ms"] / f["max_ms"], 2),
                round(r["max_ms"] / f["min_ms"], 2),
                "from min-max elapsed ms")
    return None


def _thread_goals(res):
    rows = [r for r in res.get("threads") or [] if r.get("mode") == "default"]
    one, many = _find(rows, threads=1), _find(rows, threads=500)
    v = round(many["median_us"] / one["median_us"], 2) if one and many else None
    return [_goal("1-site flip with 500 threads / with 1 thread (median)", v,
                  v is not None and v <= 1.5, "<= 1.5",
                  machine=_machine(res, EXP_THREADS))]


def _floor_goals(res):
    f = res.get("flip_floor") or {}
    fs = res.get("flip_floor_static") or {}
    out = []
    for build, data, limit_of in (
            ("dynamic glibc", f, {"procmem": 1.2, "mprotect": 1.2}),
            ("static glibc", fs, {"procmem": 1.25, "mprotect": 1.25})):
        for writer in ("procmem", "mprotect"):
            v = (data.get(writer) or {}).get("ratio")
            v = round(v, 2) if v is not None else None
            limit = limit_of[writer]
            out.append(_goal("1-site flip / its floor, %s writer, %s "
                             "(medians, same run)" % (writer, build), v,
                             v is not None and v <= limit,
                             "<= %.2f" % limit,
                             machine=_machine(res, EXP_FLOOR)))
        t = (data.get("procmem") or {}).get("p99_over_median")
        t = round(t, 2) if t is not None else None
        out.append(_goal("1-site flip, 99th percentile / median, procmem "
                         "writer, %s (%s flips)" % (
                             build, (data.get("procmem") or {}).get("flips")),
                         t, t is not None and t <= 2.0, "<= 2.0",
                         machine=_machine(res, EXP_FLOOR)))
    # The busiest row this machine has (15 threads on 16 CPUs, 1 on 2).
    busy = [b for b in f.get("busy") or [] if b["busy_threads"] > 0]
    b = busy[-1] if busy else None
    out.append(_goal("1-site flip / its floor, %s busy threads running the "
                     "site (default writer)" % (b["busy_threads"] if b
                                                 else "N"),
                     b and round(b["ratio"], 2), b is not None and
                     b["ratio"] <= 1.4, "<= 1.4",
                     machine=_machine(res, EXP_FLOOR)))
    return out


def _lock_goals(res):
    # Not judged by the machine's load: the experiment's own 2-8 updaters
    # load it by design, and the ratio divides a wait by the holds it
    # waited behind, which a loaded machine stretches alike.
    fair = (res.get("locks") or {}).get("fairness") or []
    return [_goal("patch lock, %d updaters: max wait / ((N-1) x max hold)"
                  % r["threads"], r["ratio"], r["ratio"] <= r["goal"],
                  "<= %.1f" % r["goal"]) for r in fair]


def goals(res):
    def timed_startup(*a, **kw):
        return _goal(*a, machine=_machine(res, EXP_STARTUP), **kw)

    def timed_calls(*a, **kw):
        return _goal(*a, machine=_machine(res, EXP_CALLS), **kw)

    def timed_trace(*a, **kw):
        return _goal(*a, machine=_machine(res, EXP_TRACE), **kw)
    return (_branch_goals(res) + _update_goals(res) + _floor_goals(res) +
            _other_goals(res) + _lock_goals(res) + _thread_goals(res) +
            startup_bench.goals(res, _goal, timed_startup) +
            static_call_bench.goals(res, _goal, timed_calls) +
            startup_calls_bench.goals(res, _goal, timed_calls) +
            trace_bench.goals(res, _goal, timed_trace) +
            dyndbg_bench.goals(res, _goal))


def _fmt(v, nd=2):
    if v is None:
        return "-"
    if isinstance(v, float):
        return ("%%.%df" % nd) % v
    return str(v)


def _table(head, rows):
    lines = ["| " + " | ".join(head) + " |",
             "|" + "|".join("---" for _ in head) + "|"]
    lines += ["| " + " | ".join(_fmt(c) for c in r) + " |" for r in rows]
    return "\n".join(lines) + "\n"


def _status_of(res, name):
    for g in res.get("goals", []):
        if g["goal"] == name:
            return g["status"]
    return ""


def main_table(res):
    """The update-latency table: docs/benchmark-results.md shows this one."""
    rows = []
    # Spread (one site per page) first: the layout of a real key's sites,
    # and the one the kernel's figures are compared with.
    order = {"spread": 0, "packed": 1}
    for r in sorted(res.get("update_latency") or [],
                    key=lambda r: order.get(r.get("layout", "packed"), 2)):
        layout = r.get("layout", "packed")
        ref = (KERNEL_UPDATE.get(r["mode"], "")
               if r["sites"] == 56 and layout == "spread" else "")
        rows.append([r["sites"], layout, r["mode"], r["median_us"],
                     r["p99_us"], r["syncs_per_flip"],
                     r.get("text_writes_per_flip"), ref])
    return _table(["sites", "layout", "mode", "median us", "p99 us",
                   "core syncs/flip", "code writes/flip",
                   "kernel (reference)"], rows)


def _section_branch(res):
    bc = res.get("branch_cost") or {}
    s = "## 1. Branch cost per check\n\n"
    if bc.get("cachegrind_skipped"):
        s += "Instruction counts not measured: %s.\n\n" % bc["cachegrind_skipped"]
    rows = []
    for v in bc.get("variants", []):
        d = bc.get(v) or {}
        rows.append([v, d.get("instructions"), d.get("data_reads"),
                     d.get("branches"), d.get("mispredicts"),
                     d.get("code_bytes"), d.get("cold_ns"),
                     d.get("cold_ratio_to_flag"), d.get("hot_ns")])
    s += _table(["check", "instructions", "data reads", "cond. branches",
                 "mispredicts", "bytes/site", "ns, flag evicted",
                 "iteration / flag iteration", "ns, hot"], rows)
    s += "\nKernel (reference): static branch off = %s.\n\n" % KERNEL_STATIC_OFF
    return s


def _section_pipe(res):
    p = res.get("pipe") or {}
    s = "## 2. Pipe ping-pong (tracepoint case)\n\n"
    rows = [[r["ipc"], r["checks"], r["variant"], r["median_ms"], r["min_ms"],
             r["max_ms"], r["ratio_to_flag"],
             "%.3f-%.3f" % (r["ratio_p25"], r["ratio_p75"])
             if "ratio_p25" in r else None] for r in p.get("runs", [])]
    s += _table(["ipc", "checks", "variant", "median ms", "min ms", "max ms",
                 "ratio to flag (median)", "ratio IQR"], rows)
    if p.get("cachegrind"):
        s += "\nCachegrind, per message (threads):\n\n"
        s += _table(["checks", "variant", "instructions", "data reads",
                     "cond. branches"],
                    [[c["checks"], c["variant"], c["instructions_per_message"],
                      c["data_reads_per_message"], c["branches_per_message"]]
                     for c in p["cachegrind"]])
    elif p.get("cachegrind_skipped"):
        s += "\nCachegrind counts not measured: %s.\n" % p["cachegrind_skipped"]
    return s + "\nKernel (reference): %s.\n\n" % KERNEL_PIPE


def _section_update(res):
    info = res.get("update_info") or {}
    s = "## 3. Update latency (one key, N sites)\n\n"
    s += "Writer: %s; core sync: %s.\n\n" % (info.get("writer"),
                                            info.get("sync_method"))
    s += main_table(res)
    rows = res.get("update_latency") or []
    bad = [r for r in rows if "sites_written_per_flip" in r
           and r["sites_written_per_flip"] != r["sites"]]
    if rows and "sites_written_per_flip" in rows[0]:
        s += ("\nSites rewritten per flip (runtime counter) equal N in %s.\n"
              % ("every row" if not bad else "%d row(s) only: CHECK %s"
                 % (len(rows) - len(bad), [r["sites"] for r in bad])))
    if info.get("pwrite_1byte_us") is not None:
        s += ("\nOne 1-byte pwrite to /proc/self/mem on a code page, same "
              "run: %s us (median).\n" % _fmt(info["pwrite_1byte_us"]))
    fl = res.get("flip_floor") or {}
    if fl:
        s += ("\n1-site flip against its floor, alternating in one run "
              "(floor: the protocol's system calls alone on the site's code "
              "page; procmem: 3 one-byte pwrites + 3 membarriers; mprotect: "
              "2 mprotects + 3 byte stores + 2 membarriers):\n\n")
        fs = res.get("flip_floor_static") or {}
        s += _table(["program", "writer", "flip median us", "flip p99 us",
                     "flip max us", "floor median us", "flip / floor",
                     "p99 / median", "flips"],
                    [[build, w, v["flip_median_us"], v.get("flip_p99_us"),
                      v.get("flip_max_us"), v["floor_median_us"],
                      v["ratio"], v.get("p99_over_median"), v["flips"]]
                     for build, data in (("dynamic glibc", fl),
                                         ("static glibc", fs),
                                         ("dynamic glibc, one thread",
                                          res.get("flip_floor_single")
                                          or {}))
                     for w, v in data.items()
                     if w in ("procmem", "mprotect")])
        s += ("\nEach update asks for the thread count (the check that no "
              "thread blocks SIGTRAP): glibc's own count in both programs "
              "(a dynamic one finds it with dlsym, a static one by a weak "
              "link-time reference), a stat() of /proc/PID/task (~2 us) "
              "with musl or with threads made by raw clone(), where "
              "nothing cheaper is sound (those programs are not measured "
              "here). About once a second an update also rereads every "
              "thread's state: the max column. The programs have a thread "
              "besides main() (servers do); \"one thread\" is a process "
              "that never had another, where nothing can run a site "
              "mid-write and each site is written whole: one write and one "
              "core sync, below the protocol's floor of three each.\n")
        busy = fl.get("busy") or []
        if busy:
            s += ("\nThe same (default writer) with busy cores: N other "
                  "threads running the key's site in a loop, N up to the "
                  "CPUs besides the updater's (%s here); a thread that "
                  "meets the int3 traps and is resumed by the handler:\n\n"
                  % fl.get("cpus"))
            s += _table(["busy threads", "flip median us", "floor median us",
                         "flip / floor", "traps per flip", "flips"],
                        [[b["busy_threads"], b["flip_median_us"],
                          b["floor_median_us"], b["ratio"],
                          b["traps_per_flip"], b["flips"]] for b in busy])
    mc = info.get("mprotect_calls_per_flip") or []
    if mc:
        s += ("\nmprotect writer, protection changes per flip (strace -c, "
              "difference of two runs): %s.\n"
              % ", ".join("%d %s: %s" % (c["sites"], c["layout"],
                                         _fmt(c["calls"])) for c in mc))
    st = info.get("strace") or {}
    if st.get("skipped"):
        s += "\nstrace cross-check skipped: %s.\n" % st["skipped"]
    elif st:
        s += ("\nstrace -c cross-check (56 sites, all modes): %d membarrier "
              "calls = %d core syncs counted by the runtime + %d set-up "
              "calls: %s.\n" % (st["membarrier_calls"],
                                st["runtime_core_syncs"], st["setup_calls"],
                                "agree" if st["agree"] else "DISAGREE"))
    return s + "\n"


def _section_commit(res):
    c = res.get("commit") or {}
    s = "## 4. Multi-key commit\n\n"
    if c.get("skipped"):
        return s + "Skipped: %s.\n\n" % c["skipped"]
    rows = [[r["keys"], r["sites"], r["mode"], r["median_us"], r["p99_us"],
             r["syncs_per_change"]] for r in c.get("runs", [])]
    return s + _table(["keys", "sites", "how", "median us", "p99 us",
                       "core syncs"], rows) + "\n"


def _section_trap(res):
    t = res.get("trap") or {}
    s = "## 5. Trap path\n\n"
    if not t:
        return s + "Not measured.\n\n"
    s += ("A thread that hits a site mid-update, beside a bare int3 -> "
          "SIGTRAP -> empty handler -> sigreturn round trip (the kernel's "
          "share, measured in alternating rounds):\n\n")
    s += _table(["sites in batch", "trap round trip ns (median)", "p99 ns",
                 "bare int3 ns", "handler's own ns"],
                [[r["sites"], r["trap_ns_median"], r["trap_ns_p99"],
                  r.get("bare_int3_ns_median"), r["handler_ns_median"]]
                 for r in t.get("by_sites", [])])
    s += "\nKernel (reference): %s.\n\n" % KERNEL_TRAP
    s += "Traps per flip while another thread runs every site in a loop:\n\n"
    s += _table(["sites", "mode", "traps per flip", "flip us (median)",
                 "loop rounds"],
                [[r["sites"], r["mode"], r["traps_per_flip"],
                  r["flip_median_us"], r["hammer_rounds"]]
                 for r in t.get("hits", [])])
    return s + "\n"


def _section_disturbance(res):
    d = res.get("disturbance") or {}
    s = "## 6. Disturbance of other threads\n\n"
    if d.get("skipped"):
        return s + "Skipped: %s.\n\n" % d["skipped"]
    runs = res.get("disturbance_runs") or []
    if runs:
        labels = list(runs[0]["gap_histogram"].keys())
        s += ("Spinner on CPU 1 (gaps > %d ns), %d flips of a 56-site key on "
              "CPU 0; median of %s repeat(s):\n\n"
              % (runs[0]["threshold_ns"], runs[0]["flips"], d.get("repeats")))
        s += _table(["observer", "mode", "layout", "interruptions/flip",
                     "raw gaps/flip", "background gaps/s", "flip us",
                     "core syncs/flip", "CPU 1 call IPIs/flip",
                     "CPU 1 TLB shootdowns/flip",
                     "spinner away"] + labels,
                    [[r["observer"], r["mode"], r.get("layout", "packed"),
                      r["interruptions_per_flip"],
                      r["raw_gaps_per_flip"], r["background_gaps_per_s"],
                      r["flip_us"], r.get("syncs_per_flip"),
                      r.get("cpu1_call_ipis_per_flip"),
                      r.get("cpu1_tlb_shootdowns_per_flip"),
                      r.get("spinner_away_fraction")]
                     + [r["gap_histogram"][k] for k in labels]
                     for r in runs])
    rows = []
    for key in ("batched", "one_by_one", "mprotect", "other_process",
                "batched_spread", "mprotect_spread"):
        k = key + "_interruptions_per_flip"
        if k in d:
            sp = d.get(k + "_spread")
            rows.append([key, d[k], sp and "[%.2f, %.2f]" % tuple(sp)])
    s += "\n" + _table(["run", "interruptions/flip (median)", "[min, max]"],
                       rows)
    s += ("\nKernel (reference): 168 IPIs per flip one by one, 3 batched "
          "(56 sites, 2019).\n\n")
    away = max((r.get("spinner_away_fraction") or 0 for r in runs), default=0)
    if away > 0.05:
        s += ("Note: the spinner spent up to %.0f%% of a flip window in "
              "gaps, i.e. off its CPU.  membarrier interrupts only CPUs that "
              "are running this process at that moment, so interruptions "
              "per flip fall below core syncs per flip; the CPU 1 IPI count "
              "from /proc/interrupts shows the same.\n\n"
              % (100 * away))
    return s


def _section_locks(res):
    lk = res.get("locks") or {}
    s = "## 7. Patch-lock hold and wait\n\n"
    if not lk:
        return s + "Not measured.\n\n"
    labels = lk["bucket_labels"]
    rows = []
    for name, what in (("lock_hold", "patch lock held (updaters)"),
                       ("lock_wait", "waiting for the lock (updaters)"),
                       ("fast_path", "sk_key_inc/dec on an enabled key")):
        h = lk[name]
        rows.append([what] + h["buckets"] + [h["max_ns"] / 1e3])
    s += "%d flips by 2 threads on 2 keys while 2 threads inc/dec a third:\n\n" \
        % lk.get("flips", 0)
    s += _table(["histogram"] + labels + ["max us"], rows)
    fair = lk.get("fairness") or []
    if fair:
        s += ("\nFairness: N threads each flip a 56-site key of their own as "
              "fast as they can.  ratio = longest wait / ((N-1) x longest "
              "hold), the runtime's own histograms; goal <= %.1f.  A starved "
              "thread shows as few flips against the mean.\n\n"
              % lk.get("fairness_goal", 4.0))
        s += _table(["threads", "max wait us", "max hold us", "ratio",
                     "verdict", "fewest flips (a thread)", "mean flips"],
                    [[r["threads"], r["max_wait_ns"] / 1e3,
                      r["max_hold_ns"] / 1e3, r["ratio"], r["verdict"],
                      r["min_thread_flips"], r["mean_thread_flips"]]
                     for r in fair])
    return s + "\n"


def _section_threads(res):
    rows = res.get("threads") or []
    s = "## 8. Flip cost and the number of threads\n\n"
    if not rows:
        return s + "Not measured.\n\n"
    s += ("A 1-site key flipped with 1 to 500 threads in the process (the "
          "others idle in pause()).  `default` is the library as shipped: "
          "masks are kept free of SIGTRAP, so the threads are re-read only "
          "when their number changes or once a second.  "
          "`scan_every_update` (STATICKEYS_KEEP_SIGTRAP=0) reads every "
          "thread's mask before every update, as the runtime must when it "
          "cannot keep masks clean.\n\n")
    s += _table(["mode", "threads", "median us", "p99 us", "mean us",
                 "ratio to 1 thread"],
                [[r["mode"], r["threads"], r["median_us"], r["p99_us"],
                  r["mean_us"], r["ratio_to_1_thread"]] for r in rows])
    return s + "\n"


def _section_goals(res):
    rows = [[g["goal"], g["target"], g["value"], "**%s**" % g["status"]]
            for g in res.get("goals", [])]
    s = "## Goals\n\n"
    doubt = [g for g in res.get("goals", [])
             if g["status"].startswith("INCONCLUSIVE")]
    if doubt:
        s += ("%d goal(s) INCONCLUSIVE: a timing measured while the machine "
              "was not quiet, or whose spread straddles its target, says "
              "nothing either way; rerun on a quiet machine (docs/"
              "benchmarks.md, \"When the report cannot be trusted\").  "
              "Instruction counts and bytes are not affected by load.\n\n"
              % len(doubt))
    return s + _table(["goal", "target", "measured", "status"], rows) + "\n"


def _section_machine(res):
    """The machine's load around each experiment (run_bench.guarded)."""
    ml = res.get("machine_load")
    s = "## Machine during the run\n\n"
    if not ml:
        return s + "Not recorded (a results.json from before it was).\n\n"
    rows = []
    for exp, m in ml.items():
        quiet, why = machine_quiet(m)
        st = m.get("steal_fraction")
        rows.append([exp, m.get("load_before"), m.get("load_after"),
                     m.get("own_cpus"), m.get("other_cpus"),
                     "-" if st is None else "%.1f" % (100 * st),
                     m.get("cpus"), "%.0f" % m["seconds"]
                     if m.get("seconds") is not None else None,
                     "yes" if quiet else "**no**: " + why])
    s += ("1-minute load average before and after each experiment, the CPUs "
          "its own processes and all others kept busy (/proc/stat), CPU "
          "time stolen by the hypervisor.  Quiet: other load <= %.2f x CPUs, "
          "other CPU use <= %.2f x CPUs, steal <= %.0f%%; timing goals of an "
          "experiment that was not quiet are INCONCLUSIVE.\n\n"
          % (MAX_OTHER_LOAD_PER_CPU, MAX_OTHER_CPUS_PER_CPU, 100 * MAX_STEAL))
    return s + _table(["experiment", "load before", "load after",
                       "own CPUs", "other CPUs", "steal %", "CPUs", "s",
                       "quiet?"], rows) + "\n"


def _minutes(sec):
    if sec is None:
        return "unknown"
    return "%d min %02d s" % (int(sec) // 60, int(round(sec)) % 60)


def _section_header(res):
    h = res["header"]
    s = "# statickeys benchmark report\n\n"
    wall = res.get("wall_seconds", h.get("seconds"))
    ml = res.get("machine_load") or {}
    loud = [e for e, m in ml.items() if not machine_quiet(m)[0]]
    s += ("**This run took %s** (%s; documented: about %s on a quiet "
          "2-vCPU machine, longer on a loaded one).  %s\n\n"
          % (_minutes(wall), "QUICK=1" if h.get("quick") else "full run",
             "2 minutes" if h.get("quick") else "10 minutes",
             ("The machine was not quiet during %d of %d experiments: see "
              "\"Machine during the run\"." % (len(loud), len(ml)))
             if loud else ("The machine was quiet during every experiment."
                           if ml else "")))
    s += "| | |\n|---|---|\n"
    for k in ("date", "cpu", "cpus", "kernel", "compiler", "commit", "build"):
        s += "| %s | %s |\n" % (k, h.get(k))
    s += "| run | %s, %s s |\n\n" % ("QUICK=1 (small sizes)" if h.get("quick")
                                     else "full", h.get("seconds"))
    s += ("Every figure is a median over repeated runs; every ratio is "
          "measured in the same run.  Kernel figures are printed as a "
          "reference only: other hardware, inside the kernel.  How to read "
          "each table: docs/benchmarks.md.\n\n")
    return s


def _section_plots(res):
    p = res.get("plots")
    if isinstance(p, dict):
        return "## Plots\n\nNo plots: %s.\n\n" % p.get("skipped")
    return "## Plots\n\n" + "".join("![%s](%s)\n\n" % (f[:-4], f)
                                    for f in p or [])


def render(res):
    s = _section_header(res) + _section_goals(res) + _section_machine(res)
    for fn in (_section_branch, _section_pipe, _section_update,
               _section_commit, _section_trap, _section_disturbance,
               _section_locks, _section_threads, rust_bench.section,
               startup_bench.section, trace_bench.section,
               windows_bench.section, static_call_bench.section,
               startup_calls_bench.section, dyndbg_bench.section,
               port_insns.section,
               _section_plots):
        s += fn(res)
    if res.get("errors"):
        s += "## Errors\n\n" + "".join("- %s: %s\n" % kv
                                       for kv in res["errors"].items())
    return s
