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

#ifdef __clang__
#define SK__SLOT_NAME_OPERAND "%c3"
#else
#define SK__SLOT_NAME_OPERAND "%p3"
#endif

#define SK__ARCH_BRANCH_SLOT(keyp, name, flags, jump)                        \
	__extension__({                                                      \
		__label__ sk__l_yes, sk__l_done;                             \
		bool sk__taken;                                              \
		__asm__ goto("1:\n\t"                                        \
			     ".if %c2\n\t"                                   \
			     ".byte 0xe9\n\t"                                \
			     ".long %l[sk__l_yes] - (1b + 5)\n\t"            \
			     ".else\n\t"                                     \
			     ".byte 0x3e, 0x8d, 0x74, 0x26, 0x00\n\t"        \
			     ".endif\n\t"                                    \
			     ".pushsection sk_keyslots, \"aw?\"\n\t"         \
			     ".balign 4\n"                                   \
			     "2:\t.long 0 + " SK__KEY_OPERAND ", 0 + "       \
			     SK__SLOT_NAME_OPERAND "\n\t"                    \
			     ".popsection\n\t"                               \
			     ".pushsection sk_sites, \"a?" SK__RETAIN_FLAG "\"\n\t" \
			     ".balign 4\n\t"                                 \
			     ".long 1b - ., %l[sk__l_yes] - .\n\t"           \
			     ".long 2b - ., %c1\n\t"                         \
			     ".popsection"                                   \
			     :                                               \
			     : SK__KEY_CONSTRAINT(keyp), "i"(flags),         \
			       "i"(jump), SK__KEY_CONSTRAINT(name)           \
			     :                                               \
			     : sk__l_yes);                                   \
		sk__taken = 0;                                               \
		goto sk__l_done;                                             \
	sk__l_yes:                                                           \
		sk__taken = 1;                                               \
	sk__l_done:                                                          \
		sk__taken;                                                   \
	})

#endif /* STATICKEYS_ARCH_I386_SLOT_H */
