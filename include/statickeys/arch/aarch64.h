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
 *   key    = key reference - &key
 *   flags  = bit 0: the branch is "likely".
 * The key reference differs from x86-64's, where the field points straight
 * at the key's GOT slot (key@GOTPCREL).  Neither GNU as 2.40 nor clang 14 has
 * a data relocation for a GOT slot on aarch64 (R_AARCH64_GOTPCREL32 is newer
 * than both), so the field points at a pair of instructions in the
 * "sk_keyrefs" section that are never executed:
 *   ADRP x16, :got:key              the GOT slot's 4 KiB page
 *   LDR  x16, [x16, :got_lo12:key]  its offset in the page
 * The static linker resolves both against the object's GOT entry for the key,
 * which the dynamic linker fills at load time like any other: a key defined
 * in another object (or interposed) is found the way code finds it.  The
 * runtime decodes the pair to find the slot (src/arch/aarch64.c), so the
 * table still needs no load-time relocation of its own.  A linker that
 * relaxes the pair into ADRP + ADD (the key is local) gives the key's own
 * address; the decoder accepts that form too.
 *
 * The key operand must print as a bare symbol name: gcc refuses "i" for
 * symbol addresses under -fPIC/-fPIE and takes "S" with %c; clang 14 takes
 * "S" too.  Both entries use the "?" section flag so that they share the
 * code's COMDAT group, and "R" (SK__RETAIN_FLAG) so that --gc-sections
 * keeps them (see statickeys/arch/x86_64.h).
 */
#ifndef STATICKEYS_ARCH_AARCH64_H
#define STATICKEYS_ARCH_AARCH64_H

#define SK__ARCH_SITE_SIZE 4

#define SK__ARCH_BRANCH(keyp, branch, jump)                                  \
	__extension__({                                                      \
		__label__ sk__l_yes, sk__l_done;                             \
		bool sk__taken;                                             \
		__asm__ goto("1:\n\t"                                        \
			     ".if %c2\n\t"                                   \
			     "b %l[sk__l_yes]\n\t"                           \
			     ".else\n\t"                                     \
			     "nop\n\t"                                       \
			     ".endif\n\t"                                    \
			     ".pushsection sk_sites, \"a?" SK__RETAIN_FLAG "\"\n\t" \
			     ".balign 4\n\t"                                 \
			     ".long 1b - ., %l[sk__l_yes] - .\n\t"           \
			     ".long 2f - ., %c1\n\t"                         \
			     ".popsection\n\t"                               \
			     ".pushsection sk_keyrefs, \"a?" SK__RETAIN_FLAG "\"\n\t" \
			     ".balign 4\n"                                   \
			     "2:\tadrp x16, :got:%c0\n\t"                    \
			     "ldr x16, [x16, #:got_lo12:%c0]\n\t"            \
			     ".popsection"                                   \
			     :                                               \
			     : "S"(keyp), "i"(branch), "i"(jump)             \
			     :                                               \
			     : sk__l_yes);                                   \
		sk__taken = 0;                                               \
		goto sk__l_done;                                             \
	sk__l_yes:                                                           \
		sk__taken = 1;                                               \
	sk__l_done:                                                          \
		sk__taken;                                                   \
	})

#endif /* STATICKEYS_ARCH_AARCH64_H */
