#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
#
# tools/check_layers.sh - the runtime's layers call down only, and no files
# call each other in a circle.  Usage: check_layers.sh [SOURCE_DIR]
#
# The layers, top to bottom (a file may use its own layer and those below):
#
#   tools     skctl and the other programs (tools/)
#   wiring    src/runtime.c and src/internal.h: they know every layer
#   control   names, commits, start-up state, the control socket (src/control/)
#   trace     tracepoints (src/trace/)
#   core      keys, objects, update planning, the lock, sk_stats (src/core/)
#   arch      the architectures' encodings and patch protocols (src/arch/)
#   os        the OS contract and its implementations (src/os/)
#   support   settings, messages, statistics, memory, injection (src/support/)
#
# Two graphs are checked, over src/ and tools/:
#   - includes: each #include "..." of a file of ours, resolved like the
#     compiler (the includer's folder, then src/);
#   - calls: a file that calls a function another file defines (non-static
#     definitions at the start of a line), so that files sharing one header
#     (control/control.h, tools/skctl_transport.h) are checked too.
# An edge from a lower layer to a higher one is an upward arrow.  A .c and
# the .h of the same name in the same folder are one node; nodes that reach
# one another are a circle.  Either fails the check, naming the files.
#
# Known exception, by design: support/mem.c and support/settings.c call the
# two OS primitives they declare themselves (sk__os_pages_map/_unmap,
# sk__os_secure_getenv), which every OS implements; the OS layer in turn
# uses settings, messages and counters.  Those three calls are the only
# ones allowed from support/ up to os/ (ALLOWED_UP below).
set -euo pipefail

root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
command -v python3 >/dev/null || { echo "check_layers: python3 is needed" >&2; exit 1; }

exec python3 - "$root" <<'PY'
import os, re, sys

root = sys.argv[1]
LAYERS = ["tools", "wiring", "control", "trace", "core", "arch", "os", "support"]
RANK = {name: i for i, name in enumerate(LAYERS)}
# (caller file, callee symbol) pairs allowed to go up: see the comment above.
ALLOWED_UP = {
    ("src/support/mem.c", "sk__os_pages_map"),
    ("src/support/mem.c", "sk__os_pages_unmap"),
    ("src/support/settings.c", "sk__os_secure_getenv"),
}

def layer(path):
    if path.startswith("tools/"):
        return "tools"
    if path in ("src/runtime.c", "src/internal.h"):
        return "wiring"
    parts = path.split("/")
    if len(parts) > 2 and parts[0] == "src" and parts[1] in RANK:
        return parts[1]
    return None

files = []
for top in ("src", "tools"):
    for d, _, names in os.walk(os.path.join(root, top)):
        for n in names:
            if n.endswith((".c", ".h")):
                files.append(os.path.relpath(os.path.join(d, n), root))
files.sort()
unlayered = [f for f in files if layer(f) is None]
if unlayered:
    print("check_layers: files in no layer:", " ".join(unlayered))
    sys.exit(1)

def node(path):
    return os.path.splitext(path)[0]

def strip(text):
    text = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"), text, flags=re.S)
    text = re.sub(r"//[^\n]*", "", text)
    return re.sub(r'"(\\.|[^"\\\n])*"', '""', text)

texts = {f: open(os.path.join(root, f), encoding="utf-8", errors="replace").read() for f in files}
code = {f: strip(t) for f, t in texts.items()}

edges = {}  # (from node, to node) -> why

def add(src, dst, why):
    if node(src) != node(dst):
        edges.setdefault((src, dst), why)

# Includes.
for f, t in texts.items():
    for m in re.finditer(r'^\s*#\s*include\s+"([^"]+)"', t, flags=re.M):
        inc = m.group(1)
        for base in (os.path.dirname(f), "src"):
            cand = os.path.normpath(os.path.join(base, inc))
            if cand in texts:
                add(f, cand, "includes " + inc)
                break

# Calls: non-static functions defined at the start of a line.
KEYWORDS = {"if", "for", "while", "switch", "return", "sizeof", "defined",
            "__attribute__", "__has_include", "main"}
defined = {}
defn = re.compile(r"^(?!static\b)(?:[A-Za-z_][\w\s\*]*?[\s\*])?([A-Za-z_]\w*)\s*\([^;{]*?\)\s*(?:__attribute__\s*\(\(.*?\)\)\s*)?\{",
                  flags=re.M | re.S)
for f, c in code.items():
    if not f.endswith(".c"):
        continue
    for m in defn.finditer(c):
        name = m.group(1)
        head = c[m.start():m.start(1)]
        if name in KEYWORDS or "static" in head.split() or "#" in head:
            continue
        defined.setdefault(name, set()).add(f)
calls = re.compile(r"\b([A-Za-z_]\w*)\s*\(")
for f, c in code.items():
    if not f.endswith(".c"):
        continue
    for name in set(calls.findall(c)):
        # A file that defines the function calls its own (several files
        # define one where each OS or architecture has its own).
        if f in defined.get(name, ()):
            continue
        for g in defined.get(name, ()):
            if g != f and (f, name) not in ALLOWED_UP:
                add(f, g, "calls " + name + "()")

problems = []
for (src, dst), why in sorted(edges.items()):
    if RANK[layer(src)] > RANK[layer(dst)]:
        problems.append("upward arrow: %s (%s) %s, in %s (%s)"
                        % (src, layer(src), why, dst, layer(dst)))

# Circles: strongly connected components of the node graph (Tarjan).
graph = {}
for (src, dst) in edges:
    graph.setdefault(node(src), set()).add(node(dst))
index, low, stack, on, sccs = {}, {}, [], set(), []
def visit(v):
    work = [(v, iter(sorted(graph.get(v, ()))))]
    index[v] = low[v] = len(index)
    stack.append(v); on.add(v)
    while work:
        w, it = work[-1]
        for x in it:
            if x not in index:
                index[x] = low[x] = len(index)
                stack.append(x); on.add(x)
                work.append((x, iter(sorted(graph.get(x, ())))))
                break
            if x in on:
                low[w] = min(low[w], index[x])
        else:
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[w])
            if low[w] == index[w]:
                comp = []
                while True:
                    x = stack.pop(); on.discard(x); comp.append(x)
                    if x == w:
                        break
                if len(comp) > 1:
                    sccs.append(sorted(comp))
for v in sorted(graph):
    if v not in index:
        visit(v)
for comp in sccs:
    members = set(comp)
    why = ["%s %s, in %s" % (s, w, d) for (s, d), w in sorted(edges.items())
           if node(s) in members and node(d) in members]
    problems.append("circle: " + " <-> ".join(comp) + "\n    " + "\n    ".join(why))

counts = {name: sum(1 for f in files if layer(f) == name) for name in LAYERS}
print("check_layers: %d files (%s), %d nodes, %d edges (includes and calls)"
      % (len(files), ", ".join("%s %d" % (n, counts[n]) for n in LAYERS),
         len({node(f) for f in files}), len(edges)))
print("check_layers: layers, top to bottom: " + " -> ".join(LAYERS))
if problems:
    print("\n".join(problems))
    print("check_layers: %d violation(s)" % len(problems))
    sys.exit(1)
print("check_layers: every arrow goes down, and no files form a circle")
PY
