#!/usr/bin/python3
# SPDX-License-Identifier: MIT OR Apache-2.0
"""openmetrics_check.py FILE PID... - FILE is `skctl stats --openmetrics`
output; parse it with prometheus_client's OpenMetrics parser (which rejects
anything the format forbids: a missing "# EOF", a family split in two,
non-cumulative buckets, no +Inf bucket, ...) and check what it says about
each process PID.  Exit 77 with the reason when the parser is missing."""
import sys

try:
    from prometheus_client.openmetrics.parser import text_string_to_metric_families
except ImportError as e:
    print(f"SKIPPED: prometheus_client's OpenMetrics parser is missing ({e}); "
          "install python3-prometheus-client")
    sys.exit(77)

path, pids = sys.argv[1], sys.argv[2:]
failed = passed = 0


def check(cond, what):
    global failed, passed
    if cond:
        passed += 1
    else:
        failed += 1
        print("FAILED:", what)


text = open(path).read()
families = {f.name: f for f in text_string_to_metric_families(text)}
check(text.endswith("# EOF\n"), "ends with # EOF")
for name, typ in [("statickeys_key_enabled", "gauge"),
                  ("statickeys_updates", "counter"),
                  ("statickeys_core_syncs", "counter"),
                  ("statickeys_traps_handled", "counter"),
                  ("statickeys_update_latency_seconds", "histogram"),
                  ("statickeys_lock_hold_seconds", "histogram"),
                  ("statickeys_lock_wait_seconds", "histogram")]:
    check(name in families and families[name].type == typ,
          f"family {name} of type {typ}")

for pid in pids:
    keys = {s.labels["key"]: s.value for s in families["statickeys_key_enabled"].samples
            if s.labels["pid"] == pid}
    check(keys.get("tracing") == 1 and keys.get("shout") == 0,
          f"pid {pid}: tracing 1, shout 0 (got {keys})")
    comm = {s.labels["comm"] for s in families["statickeys_updates"].samples
            if s.labels["pid"] == pid}
    check(comm == {"skom"}, f"pid {pid}: labelled with its command ({comm})")
    updates = [s.value for s in families["statickeys_updates"].samples
               if s.labels["pid"] == pid and s.name == "statickeys_updates_total"]
    check(updates and updates[0] >= 1, f"pid {pid}: updates_total >= 1 ({updates})")
    for h in ["update_latency", "lock_hold", "lock_wait"]:
        fam = families[f"statickeys_{h}_seconds"]
        samples = [s for s in fam.samples if s.labels["pid"] == pid]
        buckets = [s for s in samples if s.name.endswith("_bucket")]
        count = [s.value for s in samples if s.name.endswith("_count")]
        total = [s.value for s in samples if s.name.endswith("_sum")]
        check(len(buckets) == 12 and buckets[-1].labels["le"] == "+Inf",
              f"pid {pid} {h}: 12 buckets ending with +Inf")
        check(count and buckets[-1].value == count[0],
              f"pid {pid} {h}: +Inf bucket equals _count")
        check(total and total[0] >= 0, f"pid {pid} {h}: a _sum")
        if h == "update_latency":
            check(count and count[0] >= 1, f"pid {pid}: one update timed at least")

print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
