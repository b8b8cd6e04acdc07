/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * statickeys/arch/x86_64_slot.h - the x86-64 site for kernel-style keys.
 *
 * The same 5-byte site as statickeys/arch/x86_64.h, with one difference in
 * how its table entry names the key.  There the key field points at the
 * key's GOT slot, which exists for a symbol only: "sym@GOTPCREL" cannot
 * carry an offset, so a key embedded in another object (the kernel's
 * tracepoint pattern, static_key_false(&__tracepoint_foo.key), whose operand
 * prints as "__tracepoint_foo+8") cannot be named that way.  Here each site
 * brings its own slot, an 8-byte pointer in the writable "sk_keyslots"
 * section that the dynamic linker relocates to sym+offset like any data
 * pointer, and the key field points at that slot instead.  The runtime reads
 * both kinds the same way (*slot is the key).  The slot's second word points
 * at the key's name as the site spells it ("&__tracepoint_foo.key"), for
 * keys whose initialiser could not name them (STATIC_KEY_INIT_*, zeroed).
 *
 * Contract: SK__ARCH_BRANCH_SLOT(keyp, name, flags, jump) is a bool
 * expression, true when the site jumps; @flags is recorded as is (bit 0:
 * likely; see SK__SITE_* in statickeys/object.h; it must include
 * SK__SITE_LINUX_KEY, which tells the runtime the slot has the name word);
 * @name is a string literal.  Both sections take the "?" flag, so a
 * discarded COMDAT copy of the code takes its entry and slot with it.
 * The sk_sites flags must stay those of statickeys/arch/x86_64.h (with the
 * retain flag: the slots are kept through the entries that point at them).
 *
 * A key known only at run time (a pointer variable) must not assemble: gcc
 * prints it as a register, which ".quad %rdi" would accept with a mere
 * warning; "0 + %rdi" is an error ("invalid relocation against register").
 */
#ifndef STATICKEYS_ARCH_X86_64_SLOT_H
#define STATICKEYS_ARCH_X86_64_SLOT_H

#include "statickeys/arch/x86_64.h"

#define SK__ARCH_BRANCH_SLOT(keyp, name, flags, jump)                        \
	SK__ASM_GOTO_SITE(SK__ARCH_SITE_INSN                                 \
			  SK__ASM_PUSH("sk_keyslots", "aw?", "dr")           \
			  ".balign 8\n\t"                                    \
			  "2: .quad 0 + " SK__KEY_OPERAND ", "                \
			  SK__SLOT_NAME_OPERAND "\n\t"                        \
			  SK__ASM_POP                                        \
			  SK__SITE_ENTRY("2b - ."),                           \
			  SK__KEY_CONSTRAINT(keyp), "i"(flags), "i"(jump),    \
			  SK__KEY_CONSTRAINT(name))

#endif /* STATICKEYS_ARCH_X86_64_SLOT_H */
