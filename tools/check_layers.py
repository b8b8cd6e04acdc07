#!/usr/bin/env python3
# SPDX-License-Identifier: MIT OR Apache-2.0
"""tools/check_layers.py - the runtime's layers use only the layers below
them, and no files use each other in a circle, as the linker and the
compiler see it.

Usage: check_layers.py SOURCE_DIR OBJECTS [--nm NM]

OBJECTS lists the built objects by link: a "unit NAME" line for each
library or program, then for each target linked into it a "target NAME
SOURCE_DIR" line followed by the paths of that target's objects
(tests/CMakeLists.txt writes BUILD/tests/layers_objects.txt for the
runtime's libraries and tools/).

The layers, top to bottom (a file may use its own layer and those below):

  tools       skctl and the other programs (tools/)
  wiring      src/runtime.c and src/internal.h: they know every layer
  control     names, commits, start-up state, the control socket (src/control/)
  trace       tracepoints (src/trace/)
  core        keys, objects, update planning, the lock, sk_stats (src/core/)
  arch        the architectures' encodings and patch protocols (src/arch/)
  os          the OS contract's implementations (src/os/)
  support     settings, messages, statistics, memory, injection (src/support/)
  primitives  what support/ asks of the OS, in files that use nothing of
              the runtime: pages (src/os/<os>/pages.c), the environment
              (src/os/<os>/environ.c), and the contract that declares
              them, src/os/os.h
  public      the public headers (include/)

Two graphs are checked:
  - uses, from the linker's view: every undefined symbol of a built object
    (`nm`: a call, a function's address taken, a variable read) resolved
    to the object that defines it in the same link (a program's -Wl,--wrap
    renames are its own link's, not read here);
  - includes, every #include "..." and <...> of a file under src/, tools/
    or include/, resolved as the compiler does (quotes: the includer's
    folder, then src/ (-iquote), then include/ (-I); angle brackets:
    include/, then src/, which no longer compiles), and, where the compiler
    wrote a dependency file (OBJECT.d), any header of ours the build opened
    that those lines do not reach (an #include of a macro).
  - control/'s calls outside the runtime: every undefined symbol of an
    object of src/control/ that its link does not define is a C library
    function, and must be one of the memory, string and formatting
    functions listed here (ISO_C) or one that src/os/os.h's "control-libc:"
    list names (its sockets, poll(), its files): control/ asks the OS
    everything else through the contract.
An edge from a lower layer to a higher one is an upward arrow.  A .c and
the .h of the same name in the same folder are one node; nodes that reach
one another are a circle.  Either fails the check, naming both files and
the symbol or the #include.  Files that this build does not compile (other
OSes and architectures) have their includes checked here and their uses in
the builds that compile them (the cross and Windows sub-builds run this
check too).
"""
import argparse
import os
import re
import subprocess
import sys

LAYERS = ["tools", "wiring", "control", "trace", "core", "arch", "os",
          "support", "primitives", "public"]
RANK = {name: i for i, name in enumerate(LAYERS)}
# The files of an OS folder that implement the primitives (see above).
PRIMITIVE_FILES = ("pages.c", "environ.c")


def layer(path):
    if path.startswith("include/"):
        return "public"
    if path.startswith("tools/"):
        return "tools"
    if path in ("src/runtime.c", "src/internal.h"):
        return "wiring"
    if path == "src/os/os.h" or (path.startswith("src/os/") and
                                 os.path.basename(path) in PRIMITIVE_FILES):
        return "primitives"
    parts = path.split("/")
    if len(parts) > 2 and parts[0] == "src" and parts[1] in RANK:
        return parts[1]
    return None


def node(path):
    return os.path.splitext(path)[0]


def source_files(root):
    files = []
    for top in ("src", "tools", "include"):
        for d, _, names in os.walk(os.path.join(root, top)):
            files += [os.path.relpath(os.path.join(d, n), root)
                      for n in names if n.endswith((".c", ".h"))]
    return sorted(files)


# ---- includes --------------------------------------------------------------

# Comments blank out; string and character literals stay whole, so that a
# "/*" inside a string hides nothing and #include "..." keeps its name.
LEXEMES = re.compile(r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', re.S)
INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*(?:"([^"\n]+)"|<([^>\n]+)>)', re.M)


def without_comments(text):
    def blank(m):
        s = m.group(0)
        return s if s[0] in "\"'" else " " + "\n" * s.count("\n")
    return LEXEMES.sub(blank, text)


def resolve_include(includer, name, quoted, known):
    """The file of ours the compiler opens for #include of @name, or None."""
    dirs = ([os.path.dirname(includer), "src", "include"] if quoted
            else ["include", "src"])
    for d in dirs:
        cand = os.path.normpath(os.path.join(d, name))
        if cand in known:
            return cand
    return None


def include_edges(root, files):
    known = set(files)
    edges = {}
    for f in files:
        with open(os.path.join(root, f), encoding="utf-8", errors="replace") as fh:
            text = without_comments(fh.read())
        for m in INCLUDE.finditer(text):
            quoted = m.group(1) is not None
            name = m.group(1) if quoted else m.group(2)
            target = resolve_include(f, name, quoted, known)
            if target and node(target) != node(f):
                spelled = '"%s"' % name if quoted else "<%s>" % name
                edges.setdefault((f, target), "#include " + spelled)
    return edges


def reachable(graph, starts):
    """@starts and every file their #include lines reach in @graph."""
    seen, todo = set(starts), list(starts)
    while todo:
        for d in graph.get(todo.pop(), ()):
            if d not in seen:
                seen.add(d)
                todo.append(d)
    return seen


def depfile_headers(obj, root, known):
    """The headers of ours the compiler opened for @obj (its .d file, which
    CMake has the compiler write), or () where there is none."""
    try:
        with open(obj + ".d", encoding="utf-8", errors="replace") as fh:
            text = fh.read()
    except OSError:
        return ()
    rule = text.replace("\\\n", " ").split("\n")[0]  # "OBJECT: SOURCE HEADERS..."
    deps = rule.split(": ", 1)[1] if ": " in rule else ""
    out = set()
    for p in deps.replace("\\ ", "\0").split():
        p = p.replace("\0", " ")
        if os.path.isabs(p):  # CMake passes absolute paths (-iquote, -I)
            rel = os.path.relpath(os.path.normpath(p), root)
            if rel in known:
                out.add(rel)
    return out


def unread_include_edges(objects, edges, root, files):
    """The headers of ours each object's compilation opened that its
    source's #include lines (or its own header's) do not reach."""
    graph = {}
    for (src, dst) in edges:
        graph.setdefault(src, []).append(dst)
    known = set(files)
    found = {}
    for _, source, obj in objects:
        own = [f for f in files if node(f) == node(source)]
        for h in sorted(depfile_headers(obj, root, known) - reachable(graph, own)):
            found.setdefault((source, h), "reaches %s (the compiler's dependency file)" % h)
    return found


# ---- uses, from the built objects ------------------------------------------

def read_units(listing, root):
    """{unit: [(target, source file, object path)]} from the OBJECTS listing."""
    units, unit, target, srcdir = {}, None, None, None
    with open(listing, encoding="utf-8") as fh:
        for line in fh.read().splitlines():
            if line.startswith("unit "):
                unit = units.setdefault(line.split(" ", 1)[1], [])
            elif line.startswith("target "):
                _, target, srcdir = line.split(" ", 2)
            elif line.strip():
                unit.append((target, object_source(line, target, srcdir, root), line))
    return units


def object_source(obj, target, srcdir, root):
    """CMake names an object after its source: CMakeFiles/T.dir/<the
    source's path from the target's folder, ".." written "__">.o"""
    marker = "/CMakeFiles/%s.dir/" % target
    if marker not in obj:
        sys.exit("check_layers: %s: not an object of target %s" % (obj, target))
    rel = re.sub(r"\.(o|obj)$", "", obj.split(marker, 1)[1])
    rel = "/".join(".." if p == "__" else p for p in rel.split("/"))
    return os.path.relpath(os.path.normpath(os.path.join(srcdir, rel)), root)


UNDEFINED = set("Uwv")


def read_symbols(nm, paths):
    """{object: (defined names, undefined names)}, from nm's POSIX format
    ("object: name type value size"), external symbols only."""
    syms = {p: (set(), set()) for p in paths}
    for i in range(0, len(paths), 200):
        chunk = paths[i:i + 200]
        run = subprocess.run([nm, "-A", "-P", "-g"] + chunk, capture_output=True, text=True)
        if run.returncode != 0:
            sys.exit("check_layers: %s failed: %s" % (nm, run.stderr.strip()))
        for line in run.stdout.splitlines():
            obj, _, rest = line.rpartition(": ")
            fields = rest.split()
            if obj not in syms or len(fields) < 2:
                continue
            name, kind = fields[0], fields[1]
            if name.startswith("__imp_"):  # PE: a call through the import table
                name = name[len("__imp_"):]
            if name == ".TOC.":  # ppc64 ELFv2: the linker's TOC base, no one's code
                continue
            syms[obj][1 if kind in UNDEFINED else 0].add(name)
    return syms


def use_edges(units, syms):
    """Each link resolves its objects' undefined symbols to its objects'
    definitions, as the linker does."""
    edges = {}
    for objects in units.values():
        defined = {}
        for _, source, obj in objects:
            for name in syms[obj][0]:
                defined.setdefault(name, set()).add(source)
        for _, source, obj in objects:
            for name in sorted(syms[obj][1]):
                for d in defined.get(name, ()):
                    if node(d) != node(source):
                        edges.setdefault((source, d), "uses " + name)
    return edges


# ---- control/'s calls into the C library ----------------------------------

# What control/ may call besides os/os.h's list: memory, strings,
# formatting, and what the compiler's code calls by itself.
ISO_C = set("""
memchr memcmp memcpy memmove memset strchr strrchr strcmp strncmp strcpy
strncpy strcat strlen strnlen strspn strcspn strstr strtok_r strdup strndup
strerror strtol strtoul strtoll strtoull snprintf vsnprintf sprintf
vsprintf fprintf vfprintf fputs fputc fwrite fflush stderr stdout asprintf
vasprintf malloc calloc realloc free qsort atexit abort
errno_location errno error iob_func acrt_iob_func chkstk_ms tls_get_addr
tls_get_offset stack_chk_fail stack_chk_guard GLOBAL_OFFSET_TABLE_ assert_fail
emutls_get_address
""".split())
# The compiler's own helpers (libgcc, compiler-rt): 64-bit division on
# i686 (__udivdi3), soft arithmetic, aarch64's outline atomics
# (__aarch64_cas4_acq_rel), 32-bit Arm's run-time ABI (division, 64-bit
# shifts and compares, memory copies, the thread pointer, unwinding:
# __aeabi_uldivmod, __aeabi_read_tp, __aeabi_unwind_cpp_pr0).
COMPILER_HELPER = re.compile(r"^((u?divmod|u?div|u?mod|mul|ashl|ashr|lshr|"
                             r"popcount|clz|ctz|ffs|neg|u?cmp)[a-z]{2,3}[0-9]"
                             r"|aarch64_[a-z]+[0-9]+(_[a-z_]+)?"
                             r"|aeabi_(u?idiv|u?idivmod|u?ldivmod|l(asr|lsl|"
                             r"lsr|mul)|u?lcmp|mem(cpy|move|set|clr)[48]?|"
                             r"read_tp|unwind_cpp_pr[012]))$")
CONTRACT = "src/os/os.h"


def libc_name(name):
    """The C library's name for @name: no leading underscores (Mach-O's,
    glibc's and mingw-w64's internal spellings), no large-file "64" and no
    fortified "_chk", no "mingw_" prefix."""
    name = name.lstrip("_")
    if name.startswith("mingw_"):
        name = name[len("mingw_"):]
    if name.endswith("_chk"):
        name = name[:-len("_chk")]
    if name.endswith("64") and not name.endswith("_64"):
        name = name[:-2]
    return name


def control_libc_list(root):
    """The functions os/os.h lets control/ call itself ("control-libc:",
    continued on the comment's indented lines), or None."""
    try:
        with open(os.path.join(root, CONTRACT), encoding="utf-8") as fh:
            lines = fh.read().splitlines()
    except OSError:
        return None
    for i, line in enumerate(lines):
        if line.startswith(" * control-libc:"):
            names = line.split(":", 1)[1].split()
            for more in lines[i + 1:]:
                if not more.startswith(" *   "):
                    break
                names += more[3:].replace("*/", "").split()
            return set(names)
    return None


def control_calls(units, syms, root):
    """control/'s calls of C library functions that neither ISO_C nor the
    contract's list allows."""
    found, allowed = {}, None
    for objects in units.values():
        defined = set()
        for _, _, obj in objects:
            defined |= syms[obj][0]
        for _, source, obj in objects:
            if not source.startswith("src/control/"):
                continue
            if allowed is None:
                allowed = control_libc_list(root)
                if allowed is None:
                    sys.exit("check_layers: %s has no control-libc: list" % CONTRACT)
            for name in sorted(syms[obj][1] - defined):
                plain = libc_name(name)
                if (plain.startswith("sk_") or plain in ISO_C or
                        plain in allowed or COMPILER_HELPER.match(plain)):
                    continue
                found.setdefault((source, plain), name)
    return ["unlisted call: %s (control) -> %s: not in %s's control-libc list"
            % (src, plain, CONTRACT) for (src, plain) in sorted(found)]


# ---- the verdict -------------------------------------------------------------

def circles(edges):
    """The strongly connected components of more than one node (Tarjan)."""
    graph = {}
    for (src, dst) in edges:
        graph.setdefault(node(src), set()).add(node(dst))
    index, low, stack, on, found = {}, {}, [], set(), []
    for v in sorted(graph):
        if v in index:
            continue
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        work = [(v, iter(sorted(graph.get(v, ()))))]
        while work:
            w, it = work[-1]
            for x in it:
                if x not in index:
                    index[x] = low[x] = len(index)
                    stack.append(x)
                    on.add(x)
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
                        x = stack.pop()
                        on.discard(x)
                        comp.append(x)
                        if x == w:
                            break
                    if len(comp) > 1:
                        found.append(sorted(comp))
    return found


def describe(src, dst, why):
    return "%s (%s) -> %s (%s): %s" % (src, layer(src), dst, layer(dst), why)


def problems(edges):
    found = ["upward arrow: " + describe(s, d, why)
             for (s, d), why in sorted(edges.items())
             if RANK[layer(s)] > RANK[layer(d)]]
    for comp in circles(edges):
        members = set(comp)
        why = [describe(s, d, w) for (s, d), w in sorted(edges.items())
               if node(s) in members and node(d) in members]
        found.append("circle: " + " <-> ".join(comp) + "\n    " + "\n    ".join(why))
    return found


def read_build(listing, root, files):
    """The links and their objects; stops the check where the build is
    missing or names a file it does not know."""
    units = read_units(listing, root)
    objects = sorted({o for unit in units.values() for o in unit})
    missing = [o for _, _, o in objects if not os.path.exists(o)]
    if not objects or missing:
        sys.exit("check_layers: no objects to read (%s): build first"
                 % (missing[0] if missing else listing))
    strays = sorted({s for _, s, _ in objects if s not in files})
    if strays:
        sys.exit("check_layers: objects of files in no layer: " + " ".join(strays))
    return units, objects


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("source_dir")
    ap.add_argument("objects", help="the listing of the built objects")
    ap.add_argument("--nm", default=os.environ.get("NM", "nm"))
    args = ap.parse_args()
    root = os.path.abspath(args.source_dir)

    files = source_files(root)
    unlayered = [f for f in files if layer(f) is None]
    if unlayered:
        sys.exit("check_layers: files in no layer: " + " ".join(unlayered))
    units, objects = read_build(args.objects, root, files)

    edges = include_edges(root, files)
    edges.update(unread_include_edges(objects, edges, root, files))
    includes = len(edges)
    syms = read_symbols(args.nm, sorted({o for _, _, o in objects}))
    for key, why in use_edges(units, syms).items():
        edges.setdefault(key, why)

    built = {s for _, s, _ in objects}
    print("check_layers: %d files; %d objects of %d targets in %d links read "
          "with %s; %d include and %d use edges" % (
              len(files), len({o for _, _, o in objects}),
              len({t for t, _, _ in objects}), len(units), args.nm, includes,
              len(edges) - includes))
    print("check_layers: %d .c files not built here (other OSes and "
          "architectures): their includes checked, not their uses"
          % len([f for f in files if f.endswith(".c") and f not in built]))
    print("check_layers: layers, top to bottom: " + " -> ".join(LAYERS))
    found = problems(edges) + control_calls(units, syms, root)
    if found:
        print("\n".join(found))
        print("check_layers: %d violation(s)" % len(found))
        sys.exit(1)
    print("check_layers: every arrow goes down, and no files form a circle")


if __name__ == "__main__":
    main()
