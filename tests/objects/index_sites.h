/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * tests/objects/index_sites.h - many sites, written as the x86-64 site macro
 * writes them (statickeys/arch/x86_64.h), in assembly: a C file with 100,000
 * asm-goto sites takes GCC minutes, these take the assembler a moment.
 *
 * Every site is a NOP5 whose jump target is the next instruction, so the
 * code does the same in either state; the tests read the site bytes.  The
 * entries have no COMDAT group and no retain flag: these objects are linked
 * without --gc-sections.
 */
#ifndef SKO_INDEX_SITES_H
#define SKO_INDEX_SITES_H

#define SKI_STR_(x) #x
#define SKI_STR(x) SKI_STR_(x)

/* One site at local label 1, its entry naming @key. */
#define SKI_SITE(key)                                                        \
	"1: .byte 0x0f, 0x1f, 0x44, 0x00, 0x00\n"                            \
	".pushsection sk_sites, \"a\"\n"                                     \
	".balign 4\n"                                                        \
	".long 1b - ., 1b + 5 - ., " #key "@GOTPCREL, 0\n"                   \
	".popsection\n"

/* @n sites of @key in address order from symbol @first on. */
#define SKI_SORTED_SITES(first, key, n)                                      \
	__asm__(".text\n"                                                    \
		".globl " #first "\n"                                        \
		#first ":\n"                                                 \
		".rept " SKI_STR(n) "\n" SKI_SITE(key) ".endr\n"             \
		"ret\n")

/* 2 * @n sites of @key whose table is not in address order: the entries
 * alternate between sites in text subsection 1 and subsection 0, which the
 * assembler lays out after each other (all of 0, then all of 1). */
#define SKI_UNSORTED_SITES(first, key, n)                                    \
	__asm__(".text\n"                                                    \
		".globl " #first "\n"                                        \
		#first ":\n"                                                 \
		".rept " SKI_STR(n) "\n"                                     \
		".subsection 1\n" SKI_SITE(key)                              \
		".subsection 0\n" SKI_SITE(key)                              \
		".endr\n"                                                    \
		".subsection 0\n"                                            \
		"ret\n")

#endif /* SKO_INDEX_SITES_H */
