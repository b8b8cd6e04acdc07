# SPDX-License-Identifier: MIT OR Apache-2.0
# statickeys support for gdb, auto-loaded with libstatickeys.
#
# While a key flips, the runtime puts int3 on the first byte of each changing
# site (the kernel's protocol); a thread that reaches one traps, and the
# library's SIGTRAP handler sends it on.  Under gdb the trap stops the
# program first ("received signal SIGTRAP" at site+1), and neither
# `handle SIGTRAP ... nopass` (the thread would resume mid-instruction) nor
# `... pass` (gdb then passes the traps of its own breakpoints too, and the
# program dies) lets it go on.
#
# This script adds one catchpoint for SIGTRAP whose condition,
# $_statickeys_trap(), gdb evaluates at every SIGTRAP stop, with the pc
# already moved back onto the int3:
#   - the int3 of a statickeys site: false, and gdb resumes the thread at
#     the site without a signal: it meets the int3 again until the update is
#     done, then runs the new instruction.  The program sees nothing.
#   - the program's own int3 (not a site): true, pc set past it, so gdb
#     stops there as it would without us;
#   - a SIGTRAP sent with kill()/raise(): true (a stop, as without us);
#   - gdb's own breakpoints and single-steps: false (gdb handles them).
# The catchpoint is re-created if deleted (e.g. by `delete`).
#
# A gdb breakpoint on a site itself cannot work: gdb saves the byte under its
# int3 when it inserts it and writes that byte back when it removes it, so a
# breakpoint inserted while the library is mid-update (its own int3 there)
# would later put a stray int3 back, and one inserted between the library's
# check and its write would be overwritten.  The kernel refuses kprobes on
# jump-label sites for the same reason, and the library refuses to update a
# key while any tool's int3 is on one of its sites (-EILSEQ).  So a
# breakpoint with a location on a site -- `break work` where work() starts
# with a site, or `break` on the line of an `if (sk_branch_...)` -- is moved
# past the site, onto both places the site leads (the next instruction and
# the jump target): it stops every time the code runs, whichever way the key
# is.  The script says so, with the new breakpoint numbers; their condition,
# commands, ignore count and temporariness are the original's (the siblings
# of a hit temporary breakpoint go with it).  Sites are read from the
# "sk_sites" sections of the loaded objects (_sites_in_sections), so this
# works before `run` and for objects the runtime has not registered yet.
#
# Static calls' trampolines (statickeys/static_call.h) are known by their
# shape: their int3s are let through like a site's, and a breakpoint on one
# is moved to where its jump leads now (it does not follow later updates).
# Their call sites, where the runtime patches them (a link with
# -Wl,--emit-relocs), are known from its list, sk__debugger_call_sites.
#
# Whether the script is loaded: it sets sk__debugger_script in the runtime;
# under a tracer without it, the runtime says on stderr how to load it.
import re
import struct

import gdb

_SI_KERNEL = 0x80


def _u64(addr):
    mem = gdb.selected_inferior().read_memory(addr, 8)
    return int.from_bytes(bytes(mem), "little")


def _is_site(addr):
    """addr is the first byte of a site of a registered object (the
    runtime's own index, sk__debugger_sites: what its trap handler knows)."""
    try:
        where = int(gdb.parse_and_eval("(unsigned long)&sk__debugger_sites"))
    except gdb.error:
        return False  # the runtime is not loaded (yet)
    try:
        index = _u64(_u64(where))
        if index == 0:
            return False
        # Each registered object's site entries, read in place: records of
        # five words (lo, hi, entries, n, sorted); an entry is four int32s,
        # the first the site's address relative to itself.
        tables, count = _u64(index), _u64(index + 8)
        inferior = gdb.selected_inferior()

        def site(entries, i):
            e = entries + 16 * i
            return e + struct.unpack("<i", bytes(inferior.read_memory(e, 4)))[0]
        for t in range(min(count, 4096)):
            lo, hi, entries, n, ascending = struct.unpack(
                "<5Q", bytes(inferior.read_memory(tables + 40 * t, 40)))
            if not lo <= addr < hi or n > 1 << 24:
                continue
            if ascending:  # by halves, as the trap handler does
                first, last = 0, n
                while first < last:
                    mid = (first + last) // 2
                    v = site(entries, mid)
                    if v == addr:
                        return True
                    first, last = (mid + 1, last) if v < addr else (first, mid)
                continue
            raw = bytes(inferior.read_memory(entries, 16 * n))
            for i, (code, _, _, _) in enumerate(struct.iter_unpack("<4i", raw)):
                if entries + 16 * i + code == addr:
                    return True
    except (gdb.MemoryError, gdb.error):
        pass
    return False


def _is_call_site(addr):
    """addr is a static call's call site that the runtime patches (its
    list, sk__debugger_call_sites: a pointer to {sites, count}, the sites
    ascending: what its trap handler knows)."""
    try:
        where = int(gdb.parse_and_eval(
            "(unsigned long)&sk__debugger_call_sites"))
    except gdb.error:
        return False  # the runtime is not loaded (yet), or is older
    try:
        index = _u64(_u64(where))
        if index == 0:
            return False
        sites, first, last = _u64(index), 0, min(_u64(index + 8), 1 << 24)
        while first < last:
            mid = (first + last) // 2
            v = _u64(sites + 8 * mid)
            if v == addr:
                return True
            first, last = (mid + 1, last) if v < addr else (first, mid)
    except (gdb.MemoryError, gdb.error):
        pass
    return False


_ENDBR64 = b"\xf3\x0f\x1e\xfa"


def _trampoline(addr):
    """The 16 bytes of a static call's trampoline from its jump at addr
    (statickeys/static_call.h: a 5-byte jump the library rewrites, then
    xor eax,eax; ret; jmp *slot(%rip); "SC"), or None: known by its shape,
    as the library's trap handler knows it.  The jump is at a 16-byte
    boundary, or 4 bytes into a 32-byte one after an endbr64 (an object
    built for IBT, -fcf-protection)."""
    ibt = addr % 32 == 4
    if addr % 16 and not ibt:
        return None
    try:
        t = bytes(gdb.selected_inferior().read_memory(
            addr - 4 if ibt else addr, 20 if ibt else 16))
    except (gdb.MemoryError, gdb.error):
        return None
    if ibt:
        if t[:4] != _ENDBR64:
            return None
        t = t[4:]
    if t[5:10] != b"\x31\xc0\xc3\xff\x25" or t[14:16] != b"SC":
        return None
    return t


def _trampoline_target(addr):
    """Where the trampoline at addr (its symbol or its jump) leads now:
    its jump's destination, or for the far form (the jump to its own slot
    reader, as before the library has seen it) the function in the slot.
    None if not one."""
    if addr % 32 == 0:
        try:
            if bytes(gdb.selected_inferior().read_memory(addr, 4)) == _ENDBR64:
                addr += 4
        except (gdb.MemoryError, gdb.error):
            return None
    t = _trampoline(addr)
    if t is None or t[0] != 0xE9:
        return None
    dest = addr + 5 + struct.unpack("<i", t[1:5])[0]
    if dest == addr + 8:
        try:
            return _u64(addr + 14 + struct.unpack("<i", t[10:14])[0])
        except (gdb.MemoryError, gdb.error):
            return None
    return dest


_SITE_ENTRY = struct.Struct("<iiiI")  # code, target, key, flags (arch/x86_64.h)
_site_cache = {"key": None, "sites": {}}


def _sites_in_sections():
    """{site address: jump target} of every loaded object, decoded from its
    "sk_sites" section (statickeys/arch/x86_64.h: relative 32-bit fields).
    Cached until the list of sections changes (a load, an unload, `run`)."""
    try:
        files = gdb.execute("info files", to_string=True)
    except gdb.error:
        return {}
    ranges = tuple((int(a, 16), int(b, 16)) for a, b in re.findall(
        r"^\s*0x([0-9a-f]+) - 0x([0-9a-f]+) is sk_sites\b", files, re.M))
    if ranges == _site_cache["key"]:
        return _site_cache["sites"]
    sites = {}
    for lo, hi in ranges:
        try:
            table = bytes(gdb.selected_inferior().read_memory(lo, hi - lo))
        except (gdb.MemoryError, gdb.error):
            continue
        for off in range(0, len(table) - _SITE_ENTRY.size + 1, _SITE_ENTRY.size):
            code, target, _, _ = _SITE_ENTRY.unpack_from(table, off)
            sites[lo + off + code] = lo + off + 4 + target
    _site_cache.update(key=ranges, sites=sites)
    return sites


def _destinations(addr, sites, depth=0):
    """Where execution goes from addr when addr is a site: the next
    instruction and the jump target (followed on when they are sites
    too); [addr] when it is not a site."""
    if addr not in sites or depth > 8:
        return [addr]
    out = []
    for d in (addr + 5, sites[addr]):
        for x in _destinations(d, sites, depth + 1):
            if x not in out:
                out.append(x)
    return out


def _spec(addr):
    """A location for `break` that survives relocation (a PIE before and
    after `run`): *'symbol' + offset, else the bare address."""
    try:
        where = gdb.execute("info symbol 0x%x" % addr, to_string=True)
    except gdb.error:
        where = ""
    m = re.match(r"(.+?)(?: \+ (\d+))? in section ", where)
    if not m or "'" in m.group(1):
        return "*0x%x" % addr, "0x%x" % addr
    off = int(m.group(2) or 0)
    return "*'%s' + %d" % (m.group(1), off), "%s+%d" % (m.group(1), off)


class _StatickeysTrap(gdb.Function):
    """$_statickeys_trap() - condition of the statickeys SIGTRAP catchpoint:
true to stop, false for a trap of a statickeys site (retried silently)."""

    def __init__(self):
        super().__init__("_statickeys_trap")
        self.retried = 0

    def invoke(self):
        try:
            code = int(gdb.parse_and_eval("$_siginfo")["si_code"])
            pc = int(gdb.parse_and_eval("(unsigned long)$pc"))
        except gdb.error:
            return False
        if code <= 0:
            return True  # kill(), raise(), sigqueue(): show it
        if code != _SI_KERNEL:
            return False  # single-step, hardware breakpoint: gdb's
        if (_is_site(pc) or _trampoline(pc) is not None or
                _is_call_site(pc)):
            self.retried += 1
            return False
        try:
            byte = bytes(gdb.selected_inferior().read_memory(pc, 1))[0]
        except gdb.MemoryError:
            return False
        if byte != 0xCC:
            return False  # gdb's own breakpoint (memory reads show the
            # original byte), or an int3 removed since
        gdb.execute("set var $pc = %d" % (pc + 1))
        return True  # the program's own int3


_state = getattr(gdb, "_statickeys_state", None)
if _state is None:
    _state = gdb._statickeys_state = {"fn": _StatickeysTrap(), "bp": None,
                                      "moving": False, "siblings": {},
                                      "announcing": False}

    def _announce(*_):
        if not _state["announcing"]:
            return
        _state["announcing"] = False
        if _state["bp"] is not None:
            print("statickeys: catchpoint %d lets the library's own int3 "
                  "traps through (see $_statickeys_trap)" % _state["bp"])

    def _install(announce=True):
        gdb.execute("catch signal SIGTRAP", to_string=True)
        num = int(gdb.parse_and_eval("$bpnum"))
        gdb.execute("condition %d $_statickeys_trap()" % num, to_string=True)
        _state["bp"] = num
        if announce:
            _state["announcing"] = True
            _announce()

    def _deleted(bp):
        # `delete` with no argument deletes every breakpoint, ours too:
        # without it the next trap would stop the program mid-instruction.
        # It goes on through the list it deletes from, so the catchpoint
        # made here is deleted too, and made again: say which one is kept
        # once, when the program is resumed (one message, the kept number).
        # Not from an event posted now: gdb may run it while it exits, and
        # posted events crashed gdb 13.1 there.
        if bp.number == _state["bp"]:
            _state["bp"] = None
            try:
                _install(announce=False)
            except gdb.error:
                gdb.post_event(lambda: _install(announce=False))
            _state["announcing"] = True
        # A temporary breakpoint moved past a site became one per place the
        # site leads; when one is hit (and deleted), the others go too.
        group = _state["siblings"].pop(bp.number, [])
        for n in group:
            _state["siblings"].pop(n, None)
        if group:
            def drop():
                for b in gdb.breakpoints():
                    if b.number in group and b.is_valid():
                        b.delete()
            gdb.post_event(drop)

    def _move_breakpoint(bp):
        """Moves bp's locations that are on sites to where the sites lead."""
        if not bp.is_valid() or bp.number == _state["bp"] or _state["moving"]:
            return
        try:
            locations = [loc.address for loc in bp.locations]
        except (AttributeError, RuntimeError, gdb.error):
            return
        sites = _sites_in_sections()
        tramps = {a: _trampoline_target(a) for a in locations
                  if a not in sites}
        tramps = {a: d for a, d in tramps.items() if d is not None}
        if not any(a in sites for a in locations) and not tramps:
            return
        places = []
        for a in locations:
            for d in [tramps[a]] if a in tramps else _destinations(a, sites):
                if d not in places:
                    places.append(d)
        # Disabling the location is not enough: gdb marks a location
        # "permanent" when it finds an int3 in memory there (ours, mid-
        # update), and steps a thread past a permanent breakpoint by moving
        # its pc one byte on, into the middle of the site.  So it goes.
        old = dict(number=bp.number, cond=bp.condition, cmds=bp.commands,
                   temporary=bp.temporary, ignore=bp.ignore_count,
                   enabled=bp.enabled)
        _state["moving"] = True
        try:
            bp.delete()
            made = [_replacement(addr, old) for addr in places]
        finally:
            _state["moving"] = False
        if old["temporary"]:
            for nb, _ in made:
                _state["siblings"][nb.number] = [m.number for m, _ in made]
        if tramps:
            print("statickeys: breakpoint %d was on a static call's "
                  "trampoline, whose jump the library rewrites at each "
                  "update; moved to where it leads now (set it again after "
                  "an update): %s" % (old["number"], ", ".join(
                      "breakpoint %d at %s" % (nb.number, name)
                      for nb, name in made)))
            return
        print("statickeys: breakpoint %d was on a statickeys site, which the "
              "library rewrites while keys change; moved to where the site "
              "leads: %s" % (old["number"], ", ".join(
                  "breakpoint %d at %s" % (nb.number, name)
                  for nb, name in made)))

    def _replacement(addr, old):
        spec, name = _spec(addr)
        nb = gdb.Breakpoint(spec, temporary=old["temporary"])
        if old["cond"]:
            nb.condition = old["cond"]
        if old["cmds"]:
            nb.commands = old["cmds"]
        nb.ignore_count = old["ignore"]
        nb.enabled = old["enabled"]
        return nb, name

    def _move_later(bp):
        # From a stop, never delete a breakpoint in place: gdb may be using
        # it (deleting the breakpoint being reported crashed gdb 13.1).  Do
        # it once gdb is back in its loop.
        number = bp.number
        if bp.number == _state["bp"] or _state["moving"]:
            return

        def later():
            for b in gdb.breakpoints():
                if b.number == number:
                    _move_breakpoint(b)
        gdb.post_event(later)

    def _check_all(*_):
        sites = _sites_in_sections()
        for bp in list(gdb.breakpoints()):
            try:
                if any(loc.address in sites or
                       _trampoline_target(loc.address) is not None
                       for loc in bp.locations):
                    _move_later(bp)
            except (AttributeError, RuntimeError, gdb.error):
                pass

    def _mark_loaded(*_):
        # Tell the runtime the script is here (tracer_note.c); quietly
        # nothing while it is not loaded, or is one without the variable
        # (the portable backend: nothing traps), or there is no process.
        # The address is looked up first: a `set var` that fails for want
        # of the symbol, run from this event while the program starts,
        # left gdb 13 thinking the program was running, and it crashed.
        try:
            if gdb.selected_inferior().pid:
                addr = int(gdb.parse_and_eval(
                    "(unsigned long)&sk__debugger_script"))
                gdb.execute("set var *(volatile int *)%d = 1" % addr,
                            to_string=True)
        except gdb.error:
            pass

    gdb.events.breakpoint_deleted.connect(_deleted)
    gdb.events.cont.connect(_announce)
    gdb.events.breakpoint_created.connect(_move_breakpoint)
    # Not breakpoint_modified: gdb sends it while it reports a hit (the hit
    # count) and while it exits, and even an event posted from there crashed
    # gdb 13.1.
    # Objects load after breakpoints were placed, and their sites with them:
    # look again at every stop (all threads stopped, nothing inserted yet
    # for the next resume).
    gdb.events.stop.connect(_check_all)
    gdb.events.new_objfile.connect(_mark_loaded)
    gdb.events.stop.connect(_mark_loaded)
    _install()
    _mark_loaded()
    # Breakpoints set before the script loaded (with the library, at `run`).
    gdb.post_event(_check_all)
