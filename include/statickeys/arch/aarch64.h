/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * statickeys/arch/aarch64.h - the aarch64 site: one 4-byte instruction.
 *
 * Contract: SK__ARCH_BRANCH(keyp, branch, jump) expands to a bool expression
 * that is true when the site jumps.  It emits, where it stands, either
 *   NOP   d503201f        (jump == 0), or
 *   B     14000000|imm26  (jump == 1) to the "yes" label,
 * and records the site in the "sk_sites" section of its object as the same
 * four 32-bit fields as on x86-64 (statickeys/object.h), all relative:
 *   code   = site address  - &code
 *   target = "yes" label   - &target
 *   key    = the site's key slot - &key
 *   flags  = bit 0: the branch is "likely".
 * On x86-64 the key field points at the key's GOT slot (key@GOTPCREL).
 * aarch64 has no such data relocation in GNU as 2.40 or clang 14
 * (R_AARCH64_GOTPCREL32 is newer), and the instruction form - a never
 * executed "ADRP x16, :got:key; LDR x16, [x16, :got_lo12:key]" pair - is
 * wrong for keys of internal linkage: both assemblers rewrite its
 * relocations as "the key's section + offset", and GNU ld 2.40 resolves
 * that GOT entry to the wrong key (static C keys and C++ keys in an
 * anonymous namespace flipped each other's sites).  So each site brings its
 * own slot, an 8-byte pointer to the key in ".data.rel.ro.sk_keyslots",
 * and the key field points at it.  The dynamic linker relocates the slot as
 * any data pointer - to whichever object's key the symbol binds to, exactly
 * as it fills a GOT entry, and with the right offset for local keys - and the
 * slot is read-only after relocation (RELRO), like the GOT.  The runtime
 * reads it as it reads x86-64's GOT slot.  The cost: one load-time
 * relocation per site instead of one per key; sk_sites itself stays
 * relocation-free.
 *
 * The key operand must print as a bare symbol name: gcc refuses "i" for
 * symbol addresses under -fPIC/-fPIE and takes "S" with %c; clang 14 takes
 * "S" too, and "S" refuses a key known only at run time.  The entry and the
 * slot use the "?" section flag so that they share the code's COMDAT group;
 * the entry is retained ("R", SK__RETAIN_FLAG) under --gc-sections and
 * keeps its slot (see statickeys/arch/x86_64.h).
 */
#ifndef STATICKEYS_ARCH_AARCH64_H
#define STATICKEYS_ARCH_AARCH64_H

#include "statickeys/arch/asm_goto.h"

#define SK__ARCH_SITE_SIZE 4

/* The site instruction at 1:, a jump when %c2 (shared with aarch64_slot.h). */
#define SK__ARCH_SITE_INSN                                                   \
	"1:\n\t"                                                             \
	".if %c2\n\t"                                                        \
	"b %l[sk__l_yes]\n\t"                                                \
	".else\n\t"                                                          \
	"nop\n\t"                                                            \
	".endif\n\t"

#define SK__ARCH_BRANCH(keyp, branch, jump)                                  \
	SK__ASM_GOTO_SITE(SK__ARCH_SITE_INSN                                 \
			  ".pushsection .data.rel.ro.sk_keyslots, \"aw?\"\n\t" \
			  ".balign 8\n"                                       \
			  "2:\t.quad %c0\n\t"                                \
			  ".popsection\n\t"                                  \
			  SK__SITE_ENTRY("2b - ."),                           \
			  "S"(keyp), "i"(branch), "i"(jump))

#endif /* STATICKEYS_ARCH_AARCH64_H */
