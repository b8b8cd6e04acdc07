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
# jump-label sites for the same reason.  So a breakpoint with a location on
# a site is deleted, with a message naming a place to put it instead (its
# other locations, if any, are kept as new breakpoints); the library, for its
# part, refuses to update a key while any tool's int3 is on one of its sites
# (-EILSEQ).
import struct

import gdb

_SI_KERNEL = 0x80


def _u64(addr):
    mem = gdb.selected_inferior().read_memory(addr, 8)
    return int.from_bytes(bytes(mem), "little")


def _is_site(addr):
    """addr is the first byte of a site of a registered object."""
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
        if _is_site(pc):
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
    _state = gdb._statickeys_state = {"fn": _StatickeysTrap(), "bp": None}

    def _install():
        gdb.execute("catch signal SIGTRAP", to_string=True)
        num = int(gdb.parse_and_eval("$bpnum"))
        gdb.execute("condition %d $_statickeys_trap()" % num, to_string=True)
        _state["bp"] = num
        print("statickeys: catchpoint %d lets the library's own int3 traps "
              "through (see $_statickeys_trap)" % num)

    def _deleted(bp):
        # `delete` with no argument deletes every breakpoint, ours too:
        # without it the next trap would stop the program mid-instruction.
        if bp.number == _state["bp"]:
            _state["bp"] = None
            try:
                _install()
            except gdb.error:
                gdb.post_event(_install)

    def _check_breakpoint(bp):
        if not bp.is_valid() or bp.number == _state["bp"]:
            return
        try:
            locations = bp.locations
        except (AttributeError, RuntimeError, gdb.error):
            return
        on_site = [loc.address for loc in locations if _is_site(loc.address)]
        if not on_site:
            return
        others = [loc.address for loc in locations
                  if loc.address not in on_site]
        # Disabling the location is not enough: gdb marks a location
        # "permanent" when it finds an int3 in memory there (ours, mid-
        # update), and steps a thread past a permanent breakpoint by moving
        # its pc one byte on, into the middle of the site.  So it goes.
        cond, cmds = bp.condition, bp.commands
        number = bp.number
        bp.delete()
        for addr in on_site:
            where = gdb.execute("info symbol 0x%x" % addr,
                                to_string=True).split(" in section")[0]
            print("statickeys: breakpoint %d at 0x%x (%s) is on a statickeys "
                  "site, which the library rewrites while keys change; "
                  "deleted.  Break on the next instruction instead: "
                  "break *0x%x" % (number, addr, where, addr + 5))
        for addr in others:
            nb = gdb.Breakpoint("*0x%x" % addr)
            if cond:
                nb.condition = cond
            if cmds:
                nb.commands = cmds
            print("statickeys: breakpoint %d keeps its other location as "
                  "breakpoint %d at 0x%x" % (number, nb.number, addr))

    def _check_all(*_):
        for bp in list(gdb.breakpoints()):
            _check_breakpoint(bp)

    gdb.events.breakpoint_deleted.connect(_deleted)
    gdb.events.breakpoint_created.connect(_check_breakpoint)
    gdb.events.breakpoint_modified.connect(_check_breakpoint)
    # Sites become known when their object registers, after gdb may have
    # placed breakpoints: look again at every stop (all threads stopped,
    # nothing inserted yet for the next resume).
    gdb.events.stop.connect(_check_all)
    _install()
