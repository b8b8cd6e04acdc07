/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * statickeys/arch/x86_64.h - the x86-64 site: one 5-byte instruction.
 *
 * Contract: SK__ARCH_BRANCH(keyp, branch, jump) expands to a bool expression
 * that is true when the site jumps.  It emits, where it stands, either
 *   NOP5  0f 1f 44 00 00     (jump == 0), or
 *   JMP   e9 <rel32>         (jump == 1) to the "yes" label,
 * and records the site in the "sk_sites" section of its object as four
 * 32-bit fields, all relative so the table needs no load-time relocation:
 *   code   = site address  - &code
 *   target = "yes" label   - &target
 *   key    = GOT slot of the key - &key   (a key may live in another object;
 *            the slot is filled once per key and object by the dynamic linker;
 *            PE: a slot of the site's own, below)
 *   flags  = bit 0: the branch is "likely" (kernel's branch bit).
 * The "?" section flag puts the entry in the same COMDAT group as the code,
 * so a C++ inline function's discarded copies take their entries with them.
 * The "R" flag (SHF_GNU_RETAIN, SK__SECTION_RETAIN in statickeys/key.h)
 * keeps the entry under --gc-sections: nothing references it but the
 * __start_/__stop_ symbols, which lld (and ld -z start-stop-gc) do not count
 * as references, so without it clang/lld and Rust links drop every entry.
 *
 * The key operand must print as a bare symbol name even in -fPIC code, where
 * gcc refuses "i" for symbol addresses: gcc takes "X" with the %p modifier,
 * clang takes "s" with %c (and rejects %p on "X").  A non-constant key (a pointer variable) makes the assembler
 * fail on ".long %reg@GOTPCREL": keys must be global objects, as in the kernel.
 */
#ifndef STATICKEYS_ARCH_X86_64_H
#define STATICKEYS_ARCH_X86_64_H

#include "statickeys/arch/asm_goto.h"
#include "statickeys/arch/x86_operand.h"

#define SK__ARCH_SITE_SIZE 5

/* The site instruction at 1:, a jump when %c2 (shared with x86_64_slot.h). */
#define SK__ARCH_SITE_INSN SK__X86_SITE_INSN(".byte 0x0f, 0x1f, 0x44, 0x00, 0x00")

#ifndef _WIN32
#define SK__ARCH_BRANCH(keyp, branch, jump)                                  \
	SK__ASM_GOTO_SITE(SK__ARCH_SITE_INSN                                 \
			  SK__SITE_ENTRY(SK__KEY_OPERAND "@GOTPCREL"),        \
			  SK__KEY_CONSTRAINT(keyp), "i"(branch), "i"(jump))
#else
/* PE has no GOT: the entry's key field points at a slot of its own that
 * holds the key's address (for a key in another DLL, mingw-w64's
 * auto-import fills it at load time, as the dynamic linker fills a GOT
 * slot), in a section of slots beside the entries. */
#define SK__ARCH_BRANCH(keyp, branch, jump)                                  \
	SK__ASM_GOTO_SITE(SK__ARCH_SITE_INSN                                 \
			  SK__ASM_PUSH(".rdata$sk_slots", "", "dr")          \
			  ".balign 8\n\t"                                    \
			  "3: .quad 0 + " SK__KEY_OPERAND "\n\t"              \
			  SK__ASM_POP SK__SITE_ENTRY("3b - ."),              \
			  SK__KEY_CONSTRAINT(keyp), "i"(branch), "i"(jump))
#endif

#endif /* STATICKEYS_ARCH_X86_64_H */
