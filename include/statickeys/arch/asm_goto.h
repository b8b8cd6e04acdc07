/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * statickeys/arch/asm_goto.h - what every architecture's site macro shares.
 *
 * A site macro (statickeys/arch/<arch>.h, <arch>_slot.h) is one "asm goto"
 * whose template emits the site instruction at local label 1, perhaps a key
 * slot at local label 2, and the site's sk_sites entry; around it, a
 * statement expression turns the jump into a bool.  An architecture writes
 * only its template: SK__ARCH_SITE_INSN (the instruction at 1:, a jump to
 * %l[sk__l_yes] when %c2, shared by its plain and slot sites), its key slot
 * if it needs one, and these two macros:
 *
 *   SK__ASM_GOTO_SITE(template, operands...) - the bool expression, true
 *       when the site jumps to its "yes" label, %l[sk__l_yes] in the
 *       template.  The operands are the asm's inputs; by convention %0 is the
 *       key, %1 the entry's flags and %2 the initial direction (jump).
 *   SK__SITE_ENTRY(key_field) - the sk_sites entry (statickeys/object.h):
 *       code = 1b, target = the "yes" label, key = @key_field (an assembler
 *       expression giving the key's slot relative to the field, such as
 *       "2b - ."), flags = %c1.  The "?" flag puts the entry in the code's
 *       COMDAT group, so a discarded C++ inline copy takes its entry with
 *       it; the retain flag ("R", SK__RETAIN_FLAG in statickeys/key.h)
 *       keeps it under --gc-sections, where nothing else references it.
 */
#ifndef STATICKEYS_ARCH_ASM_GOTO_H
#define STATICKEYS_ARCH_ASM_GOTO_H

#define SK__SITE_ENTRY(key_field)                                            \
	".pushsection sk_sites, \"a?" SK__RETAIN_FLAG "\"\n\t"               \
	".balign 4\n\t"                                                      \
	".long 1b - ., %l[sk__l_yes] - .\n\t"                                \
	".long " key_field ", %c1\n\t"                                       \
	".popsection"

#define SK__ASM_GOTO_SITE(template, ...)                                     \
	__extension__({                                                      \
		__label__ sk__l_yes, sk__l_done;                             \
		bool sk__taken;                                              \
		__asm__ goto(template : : __VA_ARGS__ : : sk__l_yes);        \
		sk__taken = 0;                                               \
		goto sk__l_done;                                             \
	sk__l_yes:                                                           \
		sk__taken = 1;                                               \
	sk__l_done:                                                          \
		sk__taken;                                                   \
	})

#endif /* STATICKEYS_ARCH_ASM_GOTO_H */
