/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * statickeys/arch/arm_slot.h - the 32-bit Arm (Thumb-2) site for
 * kernel-style keys.
 *
 * The same 4-byte site as statickeys/arch/arm.h, with a slot of two 4-byte
 * pointers, the key (perhaps embedded: "__tracepoint_foo+4", or an element
 * of a key array) and its spelling, as statickeys/arch/x86_64_slot.h
 * describes.  Contract: as SK__ARCH_BRANCH_SLOT there.
 *
 * Here the slot is a C object, not assembler data: no constraint of gcc's
 * on arm names both an embedded key ("X" does, for keys of external
 * linkage only) and a key of internal linkage at -O2 ("US" does, for a
 * whole variable only), while a static pointer's initialiser takes any
 * address constant, and the slot itself is always a whole variable.  A key
 * known only at run time does not compile: the initialiser is not constant
 * (C), or not a constant expression (C++, where the slot is constexpr).
 * The slot is read-only after relocation (.data.rel.ro), as the
 * assembler's is on the other architectures.
 */
#ifndef STATICKEYS_ARCH_ARM_SLOT_H
#define STATICKEYS_ARCH_ARM_SLOT_H

#include "statickeys/arch/arm.h"

#ifdef __cplusplus
#define SK__ARM_SLOT_CONST constexpr const
#else
#define SK__ARM_SLOT_CONST const
#endif

#define SK__ARCH_BRANCH_SLOT(keyp, name, flags, jump)                        \
	__extension__({                                                      \
		static SK__ARM_SLOT_CONST void *const sk__slot[2] = {        \
			(keyp), (name)                                       \
		};                                                           \
		SK__ASM_GOTO_SITE(SK__ARCH_SITE_INSN                         \
				  SK__SITE_ENTRY("%c0 - ."),                 \
				  SK__ARM_SYM(sk__slot), "i"(flags),        \
				  "i"(jump));                                \
	})

#endif /* STATICKEYS_ARCH_ARM_SLOT_H */
