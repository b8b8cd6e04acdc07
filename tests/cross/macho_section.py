#!/usr/bin/env python3
# SPDX-License-Identifier: MIT OR Apache-2.0
"""macho_section.py FILE SEGMENT SECTION - print the byte size of a section
of a 64-bit Mach-O file (0 when absent), from its LC_SEGMENT_64 commands:
how the zig builds check, without a macOS toolchain, that a program lists
its keys where the runtime looks for them (statickeys/section.h)."""
import struct
import sys

LC_SEGMENT_64 = 0x19


def section_size(data, segment, section):
    magic, _, _, _, ncmds, _, _, _ = struct.unpack_from("<IiiIIIII", data, 0)
    if magic != 0xFEEDFACF:
        sys.exit(f"not a 64-bit Mach-O file (magic {magic:#x})")
    off = 32
    for _ in range(ncmds):
        cmd, size = struct.unpack_from("<II", data, off)
        if cmd == LC_SEGMENT_64:
            nsects = struct.unpack_from("<I", data, off + 64)[0]
            for i in range(nsects):
                s = off + 72 + 80 * i
                sect = data[s:s + 16].rstrip(b"\0").decode()
                seg = data[s + 16:s + 32].rstrip(b"\0").decode()
                if (seg, sect) == (segment, section):
                    return struct.unpack_from("<Q", data, s + 40)[0]
        off += size
    return 0


if __name__ == "__main__":
    with open(sys.argv[1], "rb") as f:
        print(section_size(f.read(), sys.argv[2], sys.argv[3]))
