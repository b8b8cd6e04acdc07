#!/usr/bin/env python3
# SPDX-License-Identifier: MIT OR Apache-2.0
"""bench/port_insns.py - experiment 15: what an off site and a static call
execute on each port, counted from the disassembly.

qemu's timings mean nothing, so the ports are compared by the instructions
they run: bench/port_insns.c compiled at -O2 -fPIC by each port's compiler
(the Debian cross gcc; zig's clang for loongarch64) and disassembled (the
triple's objdump; loongarch64, which Debian 12's binutils cannot
disassemble, by a decoder of the few instructions these paths hold).  Each
function's path is walked from its entry as a thread runs it while the key
is off and before any update (no branch taken but unconditional jumps
inside the function), to its return or its jump out:

  off site     port_off's path less port_plain's: what one site of an off
               key adds (its no-op, and the alignment a port needs)
  static call  port_static_call's path to its jump to the trampoline, plus
               the trampoline's instructions up to its jump (after the
               runtime has pointed it at the target: near), against
               port_direct's tail call; "far": through the far form
               instead (a target beyond the jump's reach, or one the jump
               cannot enter)

The linker adds nothing on these paths except on ppc64le, whose direct
calls of the trampoline go through a stub that saves r2 (2 instructions,
and the caller restores r2 after the call); that is noted, not counted.

Used by run_bench.py (experiment) and report.py (section).  Alone:

    python3 bench/port_insns.py BUILD [--check]

--check (the ctest bench_port_insns) exits 1 unless every installed
port's off site adds at least one and at most its PORTS "site"
instructions, its static call adds at most its "call" instructions to a
direct call, and its far form costs more than the near jump; 77 when no
port's compiler is installed.  Standard library only.
"""
import argparse
import json
import os
import re
import shutil
import struct
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
SOURCE = os.path.join(HERE, "port_insns.c")

# Each port: the most instructions one site may add to an off path (its
# no-op, and an alignment no-op or a sign extension where NOTES says) and
# the instructions a static call adds to a direct call (the trampoline's
# jump; ppc64le's TOC set-up too) - what --check holds each port to -; its
# compiler, objdump (None: the loongarch64 decoder), where a trampoline's
# jump and far form start (None: the first instruction that is not an
# endbr), and its mnemonics, as objdump prints them: a return, an
# unconditional direct jump, an indirect jump.
PORTS = [
    dict(name="x86-64", site=1, call=1, cc=["gcc"], objdump="objdump", jump=None, far=8,
         ret=r"^ret", jmp=r"^jmp\s+[0-9a-f]", ijmp=r"^jmp\s+\*"),
    dict(name="i686", site=1, call=1, cc=["i686-linux-gnu-gcc"],
         objdump="i686-linux-gnu-objdump", jump=None, far=8,
         ret=r"^ret", jmp=r"^jmp\s+[0-9a-f]", ijmp=r"^jmp\s+\*"),
    dict(name="aarch64", site=1, call=1, cc=["aarch64-linux-gnu-gcc"],
         objdump="aarch64-linux-gnu-objdump", jump=0, far=12,
         ret=r"^ret", jmp=r"^b\s", ijmp=r"^br\s"),
    dict(name="riscv64", site=2, call=1, cc=["riscv64-linux-gnu-gcc"],
         objdump="riscv64-linux-gnu-objdump", jump=0, far=12,
         ret=r"^ret|^jalr\s+zero,0\(ra\)", jmp=r"^j\s",
         ijmp=r"^jr\s|^jalr\s+zero"),
    dict(name="ppc64le", site=2, call=7, cc=["powerpc64le-linux-gnu-gcc"],
         objdump="powerpc64le-linux-gnu-objdump", jump=24, far=36,
         ret=r"^blr", jmp=r"^b\s", ijmp=r"^bctr"),
    dict(name="s390x", site=2, call=1, cc=["s390x-linux-gnu-gcc"],
         objdump="s390x-linux-gnu-objdump", jump=0, far=6,
         ret=r"^br\s+%r14", jmp=r"^(j|jg|brcl\s+15,)\s", ijmp=r"^br\s+%r1\b"),
    dict(name="loongarch64", site=1, call=1, cc=None, objdump=None, jump=0, far=12),
    dict(name="armhf", site=2, call=1, cc=["arm-linux-gnueabihf-gcc"],
         objdump="arm-linux-gnueabihf-objdump", jump=0, far=12,
         ret=r"^bx\s+lr|^pop(\.w)?\s+\{.*pc\}",
         jmp=r"^b(\.w|\.n)?\s", ijmp=r"^ldr(\.w)?\s+pc|^bx\s+r(?!l)"),
]
NOTES = {
    "ppc64le": "the site's function sign-extends its result (`extsw`), the "
               "plain one returns it as is; the trampoline sets its TOC "
               "pointer (6) before its `b`, and the linker's stub that "
               "saves r2 (`std r2,24(r1)`; `b`) adds 2 on the way in",
    "riscv64": "compressed code: a site whose code would start at 2 mod 4 "
               "has a 2-byte `c.nop` before it (here it does); the tail "
               "call is `auipc`+`jr`",
    "i686": "`-fPIC` code calls rather than tail-calls (the GOT pointer "
            "in `ebx`), the static call and the direct call alike",
    "armhf": "Thumb-2 (Debian's default); a site whose code would start "
             "at 2 mod 4 has a 16-bit `nop` before it",
    "loongarch64": "built by zig's clang (Debian 12 has no loongarch64 "
                   "gcc), decoded here",
    "s390x": "the site's function sign-extends its result (`lgfr`), the "
             "plain one returns it as is; the trampoline's `brcl` at +0 is "
             "counted as the `brcl 15` the runtime makes it",
}


def zig_cc(build_root):
    """How zig's cc is started: the PyPI package, from python3 or
    BUILD_ROOT/os/zig (where .ci/run installs it), or None."""
    env = dict(os.environ)
    # make bench's tree, else make test's (where .ci/run put zig).
    for zdir in (os.path.join(build_root, "os", "zig"),
                 os.path.join(ROOT, "build", "os", "zig")):
        if os.path.isdir(os.path.join(zdir, "ziglang")):
            env["PYTHONPATH"] = zdir + (":" + env["PYTHONPATH"]
                                        if env.get("PYTHONPATH") else "")
            break
    ok = subprocess.run([sys.executable, "-c", "import ziglang"], env=env,
                        capture_output=True).returncode == 0
    # zig keeps frame pointers unless told; Debian's gcc omits them at -O2.
    return ([sys.executable, "-m", "ziglang", "cc", "-target",
             "loongarch64-linux-gnu", "-fomit-frame-pointer"], env) \
        if ok else (None, env)


def compile_port(port, build_root, out_dir):
    """The object for @port, or (None, why)."""
    env = None
    cc = port["cc"]
    if cc is None:
        cc, env = zig_cc(build_root)
        if cc is None:
            return None, "no zig (pip install ziglang)"
    elif not shutil.which(cc[0]):
        return None, "no %s" % cc[0]
    obj = os.path.join(out_dir, "port_insns_%s.o" % port["name"])
    p = subprocess.run(cc + ["-O2", "-fPIC", "-I", os.path.join(ROOT,
                       "include"), "-c", SOURCE, "-o", obj], env=env,
                       capture_output=True, text=True)
    if p.returncode != 0:
        return None, "does not compile: " + (p.stderr.strip().splitlines()
                                              or ["?"])[-1]
    return obj, None


# ---- the listing: (offset, mnemonic and operands, goes out) per function

def objdump_functions(objdump, obj):
    """{function: [(offset in its section, text, relocated)]} from
    `objdump -dr`: a branch with a relocation leads out of the function (a
    tail call)."""
    out = subprocess.run([objdump, "-dr", "--no-show-raw-insn", obj],
                         capture_output=True, text=True, check=True).stdout
    funcs, cur = {}, None
    for line in out.splitlines():
        m = re.match(r"^([0-9a-f]+) <([^>]+)>:$", line)
        # A local label's heading (.L1^B1) continues its function.
        if m and not m.group(2).startswith(".L"):
            cur = funcs.setdefault(m.group(2), [])
            continue
        m = re.match(r"^\s+([0-9a-f]+):\s+(R_\S+)", line)
        if m and cur:
            if cur and cur[-1][0] <= int(m.group(1), 16):
                cur[-1] = (cur[-1][0], cur[-1][1], True)
            continue
        m = re.match(r"^\s+([0-9a-f]+):\s+(\S.*)$", line)
        if m and cur is not None:
            text = re.sub(r"\s+", " ", m.group(2).split("@")[0]).strip()
            cur.append((int(m.group(1), 16), text, False))
    return funcs


def elf_functions(obj):
    """{function: [(offset, word, relocated)]} of a little-endian ELF64
    object of 4-byte instructions (loongarch64), and its relocations'
    offsets per section: a minimal reader, stdlib only."""
    data = open(obj, "rb").read()
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", data, 0x3a)
    secs = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize)
            for i in range(shnum)]
    relocs = {}
    for s in secs:
        if s[1] == 4:  # SHT_RELA: offsets into section s[7] (sh_info)
            for k in range(s[5] // 24):
                off, = struct.unpack_from("<Q", data, s[4] + k * 24)
                relocs.setdefault(s[7], set()).add(off)
    funcs = {}
    for s in secs:
        if s[1] != 2:  # SHT_SYMTAB
            continue
        strtab = secs[s[6]]
        for k in range(s[5] // 24):
            name_off, info, _, shndx, value, size = struct.unpack_from(
                "<IBBHQQ", data, s[4] + k * 24)
            if info & 0xf != 2 or not size:  # STT_FUNC
                continue
            end = data.index(b"\0", strtab[4] + name_off)
            name = data[strtab[4] + name_off:end].decode()
            text = secs[shndx]
            words = []
            for off in range(0, size, 4):
                w, = struct.unpack_from("<I", data, text[4] + value + off)
                words.append((off, w, value + off in relocs.get(shndx,
                                                               set())))
            funcs[name] = words
    return funcs


def la_kind(w):
    """A loongarch64 word's part in a path: ret, jmp (direct, with its
    offset), ijmp, or None."""
    if w == 0x4c000020:
        return "ret", 0
    if w & 0xfc000000 == 0x50000000:  # b offs26
        off = ((w >> 10) & 0xffff) | ((w & 0x3ff) << 16)
        return "jmp", (off - (1 << 26) if off & (1 << 25) else off) * 4
    if w & 0xfc00001f == 0x4c000000:  # jirl $zero, rj, offs
        return "ijmp", 0
    return None, 0


def kind(port, text):
    for k in ("ret", "ijmp", "jmp"):
        if re.search(port[k], text):
            return k
    return None


def target_of(text):
    m = re.search(r"\b([0-9a-f]+) <", text)
    return int(m.group(1), 16) if m else None


def walk(port, insns, start=0, stop_at=None, base=0):
    """The instructions a thread runs from @start: sequentially, into
    unconditional jumps inside the function, to a return, an indirect jump
    or a jump out (a relocated one), or to @stop_at included.  @insns'
    offsets are the function's; objdump prints a jump's target as the
    section's, @base more."""
    at = {off: i for i, (off, _, _) in enumerate(insns)}
    i, path, seen = at[start], [], set()
    while i < len(insns) and i not in seen:
        seen.add(i)
        off, ins, out = insns[i]
        path.append(ins)
        if stop_at is not None and off >= stop_at:
            break
        if port["objdump"] is None:
            k, rel = la_kind(ins)
            dest = off + rel if k == "jmp" else None
        else:
            k = kind(port, ins)
            dest = target_of(ins) if k == "jmp" else None
            if dest is not None:
                dest -= base
        if k in ("ret", "ijmp") or (k == "jmp" and (out or dest not in at)):
            break
        i = at[dest] if k == "jmp" else i + 1
    return path


# The loongarch64 words these paths hold, by their fixed bits.
LA_NAMES = [(0xffffffff, 0x03400000, "nop"), (0xffffffff, 0x4c000020, "ret"),
            (0xfc000000, 0x50000000, "b"), (0xfc00001f, 0x4c000000, "jr"),
            (0xfe000000, 0x1e000000, "pcaddu18i"),
            (0xfe000000, 0x1a000000, "pcalau12i"),
            (0xffc00000, 0x28c00000, "ld.d")]


def text_of(port, ins):
    if port["objdump"]:
        return ins
    name = next((n for mask, bits, n in LA_NAMES if ins & mask == bits),
                None)
    return name or "%08x" % ins


def measure(port, build_root, out_dir):
    obj, why = compile_port(port, build_root, out_dir)
    if not obj:
        return dict(port=port["name"], skipped=why)
    if port["objdump"]:
        if not shutil.which(port["objdump"]):
            return dict(port=port["name"], skipped="no " + port["objdump"])
        funcs = objdump_functions(port["objdump"], obj)
    else:
        funcs = elf_functions(obj)
    # No trampoline: the pointer form (a load and an indirect call).
    tramp = funcs.get("sk__sct_port_call")
    jump = port["jump"]
    if tramp and jump is None:  # x86: past an endbr64/endbr32
        jump = next(off for off, t, _ in tramp
                    if not str(t).startswith("endbr"))
    far = port["far"] + (jump if port["jump"] is None and tramp else 0)

    def path(name, **kw):
        # Offsets from the function's own start (objdump gives the
        # section's: several functions share .text in an object).
        insns = funcs[name]
        base = insns[0][0]
        rebased = [(o - base, t, r) for o, t, r in insns]
        kw["base"] = base
        # ppc64le: a direct call enters at the local entry point, past the
        # global entry's TOC set-up (addis r2,r12; addi r2,r2).
        if port["name"] == "ppc64le" and name.startswith("port_") and \
                rebased[0][1].startswith("addis r2,r12") and \
                rebased[1][1].startswith("addi r2,r2"):
            kw.setdefault("start", 8)
        return walk(port, rebased, **kw)

    plain, off = path("port_plain"), path("port_off")
    direct, call = path("port_direct"), path("port_static_call")
    near = path("sk__sct_port_call", stop_at=jump) if tramp else []
    far_block = path("sk__sct_port_call", start=far) if tramp else []
    return dict(
        trampoline_found=bool(tramp),
        port=port["name"],
        plain=len(plain), off=len(off), site=len(off) - len(plain),
        off_path=[text_of(port, i) for i in off],
        direct=len(direct), caller=len(call), trampoline=len(near),
        static_call=len(call) + len(near),
        far=len(call) + len(near) + len(far_block),
        call_path=[text_of(port, i) for i in call + near],
        far_path=[text_of(port, i) for i in far_block],
        note=NOTES.get(port["name"], ""))


def experiment(build_root, out, quick=False):
    """Every port whose compiler is installed; the rest say why."""
    del quick  # nothing is timed
    os.makedirs(out, exist_ok=True)
    return [measure(p, build_root, out) for p in PORTS]


def section(res):
    rows = res.get("port_insns")
    if not rows:
        return ""
    s = ("## 15. Ports: instructions of an off site and a static call "
         "(disassembly)\n\n"
         "bench/port_insns.c at -O2 -fPIC by each port's compiler, walked "
         "from each function's entry as a thread runs it (bench/"
         "port_insns.py says how): qemu's timings mean nothing.  *Site*: "
         "what one site of an off key adds to its function's path.  "
         "*Static call*: from the caller's entry to the target (the "
         "caller's tail call, the trampoline to its jump), against a "
         "direct tail call; *far*: through the trampoline's far form.\n\n"
         "| port | site | off path | static call (direct) | far | note |\n"
         "|---|---|---|---|---|---|\n")
    for r in rows:
        if r.get("skipped"):
            s += "| %s | not measured: %s | | | | |\n" % (r["port"],
                                                         r["skipped"])
            continue
        s += "| %s | %d | `%s` | %d (%d) | %d | %s |\n" % (
            r["port"], r["site"], "; ".join(r["off_path"]),
            r["static_call"], r["direct"], r["far"], r["note"])
    return s + "\n"


def check(rows):
    """The ctest's verdict: 0, 1 (what is wrong printed) or 77."""
    measured = [r for r in rows if not r.get("skipped")]
    for r in rows:
        if r.get("skipped"):
            print("%s: not measured (%s)" % (r["port"], r["skipped"]))
    if not measured:
        print("SKIPPED: no port's compiler is installed")
        return 77
    bad = 0
    want = {p["name"]: p for p in PORTS}
    for r in measured:
        p = want[r["port"]]
        ok = r["trampoline_found"] and 1 <= r["site"] <= p["site"] and \
            r["static_call"] - r["direct"] <= p["call"] and \
            r["far"] > r["static_call"]
        print("%s %s: site +%d (%s), static call %d vs direct %d, far %d"
              % ("ok  " if ok else "FAIL", r["port"], r["site"],
                 "; ".join(r["off_path"]), r["static_call"], r["direct"],
                 r["far"]))
        bad += not ok
    print("%d ports measured, %d wrong" % (len(measured), bad))
    return 1 if bad else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("build", help="the build tree (its os/zig has zig)")
    ap.add_argument("--check", action="store_true")
    a = ap.parse_args()
    out = os.path.join(os.path.abspath(a.build), "port-insns")
    rows = experiment(os.path.abspath(a.build), out)
    if a.check:
        sys.exit(check(rows))
    print(json.dumps(rows, indent=1))
    print(section({"port_insns": rows}))


if __name__ == "__main__":
    main()
