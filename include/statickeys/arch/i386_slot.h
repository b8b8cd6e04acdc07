/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * statickeys/arch/i386_slot.h - the i686 site for kernel-style keys.
 *
 * The same site as statickeys/arch/i386.h; the slot holds two 4-byte
 * pointers, the key (perhaps embedded: "__tracepoint_foo+4") and its
 * spelling, as statickeys/arch/x86_64_slot.h describes.  Contract: as
 * SK__ARCH_BRANCH_SLOT there.  "0 + %reg" does not assemble, so a key known
 * only at run time is refused.
 */
#ifndef STATICKEYS_ARCH_I386_SLOT_H
#define STATICKEYS_ARCH_I386_SLOT_H

#include "statickeys/arch/i386.h"

#define SK__ARCH_BRANCH_SLOT(keyp, name, flags, jump)                        \
	SK__ASM_GOTO_SITE(SK__ARCH_SITE_INSN                                 \
			  ".pushsection sk_keyslots, \"aw?\"\n\t"            \
			  ".balign 4\n"                                      \
			  "2:\t.long 0 + " SK__KEY_OPERAND ", 0 + "          \
			  SK__SLOT_NAME_OPERAND "\n\t"                       \
			  ".popsection\n\t"                                  \
			  SK__SITE_ENTRY("2b - ."),                          \
			  SK__KEY_CONSTRAINT(keyp), "i"(flags), "i"(jump),   \
			  SK__KEY_CONSTRAINT(name))

#endif /* STATICKEYS_ARCH_I386_SLOT_H */
