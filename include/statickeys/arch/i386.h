/*
 * statickeys/arch/i386.h - the 32-bit x86 (i686) site: one 5-byte instruction.
 *
 * Contract: as statickeys/arch/x86_64.h.  The site is either
 *   NOP5  3e 8d 74 26 00     (jump == 0; "lea %ds:0(%esi,%eiz,1),%esi",
 *                             the kernel's 32-bit 5-byte no-op, which every
 *                             i686 executes: NOPL is not on all of them), or
 *   JMP   e9 <rel32>         (jump == 1) to the "yes" label,
 * changed with the same int3 protocol as on x86-64 (src/arch/x86_64/).
 *
 * The key is named as on aarch64 (statickeys/arch/aarch64.h): i386 has no
 * data relocation that points at a GOT slot PC-relatively, and under
 * -fPIC/-fPIE a key's address is no "i" constant, so each site brings its
 * own 4-byte pointer to the key in ".data.rel.ro.sk_keyslots" (an R_386_32
 * the dynamic linker resolves to whichever object's key the symbol binds
 * to, read-only after relocation) and the entry's key field points at it
 * with R_386_PC32, a link-time constant.  The key operand prints as a bare
 * symbol (plus offset) with the constraints of statickeys/arch/x86_64.h.
 */
#ifndef STATICKEYS_ARCH_I386_H
#define STATICKEYS_ARCH_I386_H

#define SK__ARCH_SITE_SIZE 5

#ifdef __clang__
#define SK__KEY_CONSTRAINT "s"
#define SK__KEY_OPERAND "%c0"
#else
#define SK__KEY_CONSTRAINT "X"
#define SK__KEY_OPERAND "%p0"
#endif

#define SK__ARCH_BRANCH(keyp, branch, jump)                                  \
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
			     ".pushsection .data.rel.ro.sk_keyslots, \"aw?\"\n\t" \
			     ".balign 4\n"                                   \
			     "2:\t.long 0 + " SK__KEY_OPERAND "\n\t"         \
			     ".popsection\n\t"                               \
			     ".pushsection sk_sites, \"a?" SK__RETAIN_FLAG "\"\n\t" \
			     ".balign 4\n\t"                                 \
			     ".long 1b - ., %l[sk__l_yes] - .\n\t"           \
			     ".long 2b - ., %c1\n\t"                         \
			     ".popsection"                                   \
			     :                                               \
			     : SK__KEY_CONSTRAINT(keyp), "i"(branch), "i"(jump) \
			     :                                               \
			     : sk__l_yes);                                   \
		sk__taken = 0;                                               \
		goto sk__l_done;                                             \
	sk__l_yes:                                                           \
		sk__taken = 1;                                               \
	sk__l_done:                                                          \
		sk__taken;                                                   \
	})

#endif /* STATICKEYS_ARCH_I386_H */
