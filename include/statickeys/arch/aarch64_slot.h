/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * statickeys/arch/aarch64_slot.h - the aarch64 site for kernel-style keys.
 *
 * The same 4-byte site as statickeys/arch/aarch64.h (NOP or B), with the
 * key named as statickeys/arch/x86_64_slot.h does: each site brings its own
 * slot, two 8-byte pointers in the writable "sk_keyslots" section - the key
 * (which may be embedded: "__tracepoint_foo+8", something a GOT reference
 * cannot name) and its spelling - relocated by the dynamic linker like any
 * data pointer; the entry's key field points at the slot.  Being an
 * ordinary data relocation, this form is also correct for static keys.
 *
 * Contract: as SK__ARCH_BRANCH_SLOT in statickeys/arch/x86_64_slot.h.
 * "S" takes the key's and the name's addresses as link-time constants and
 * refuses anything else, so a key known only at run time does not compile.
 */
#ifndef STATICKEYS_ARCH_AARCH64_SLOT_H
#define STATICKEYS_ARCH_AARCH64_SLOT_H

#include "statickeys/arch/aarch64.h"

#define SK__ARCH_BRANCH_SLOT(keyp, name, flags, jump)                        \
	SK__ASM_GOTO_SITE(SK__ARCH_SITE_INSN                                 \
			  ".pushsection sk_keyslots, \"aw?\"\n\t"            \
			  ".balign 8\n"                                       \
			  "2:\t.quad %c0, %c3\n\t"                           \
			  ".popsection\n\t"                                  \
			  SK__SITE_ENTRY("2b - ."),                           \
			  "S"(keyp), "i"(flags), "i"(jump), "S"(name))

#endif /* STATICKEYS_ARCH_AARCH64_SLOT_H */
