/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * statickeys/arch/loongarch64_slot.h - the loongarch64 site for
 * kernel-style keys.
 *
 * The same 4-byte site as statickeys/arch/loongarch64.h, with a slot of two
 * 8-byte pointers, the key (perhaps embedded: "__tracepoint_foo+8") and its
 * spelling, as statickeys/arch/x86_64_slot.h describes.  Contract: as
 * SK__ARCH_BRANCH_SLOT there.
 */
#ifndef STATICKEYS_ARCH_LOONGARCH64_SLOT_H
#define STATICKEYS_ARCH_LOONGARCH64_SLOT_H

#include "statickeys/arch/loongarch64.h"

#define SK__ARCH_BRANCH_SLOT(keyp, name, flags, jump)                        \
	SK__ASM_GOTO_SITE(SK__ARCH_SITE_INSN                                 \
			  ".pushsection sk_keyslots, \"aw?\"\n\t"            \
			  ".balign 8\n"                                      \
			  "2:\t.quad %0, %3\n\t"                             \
			  ".popsection\n\t"                                  \
			  SK__SITE_ENTRY("2b - ."),                          \
			  "i"(keyp), "i"(flags), "i"(jump), "i"(name))

#endif /* STATICKEYS_ARCH_LOONGARCH64_SLOT_H */
