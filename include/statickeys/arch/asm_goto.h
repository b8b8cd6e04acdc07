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
 *       On PE it must come last in the template (below).
 */
#ifndef STATICKEYS_ARCH_ASM_GOTO_H
#define STATICKEYS_ARCH_ASM_GOTO_H

#ifndef _WIN32 /* ELF */
#define SK__SITE_ENTRY(key_field)                                            \
	".pushsection sk_sites, \"a?" SK__RETAIN_FLAG "\"\n\t"               \
	".balign 4\n\t"                                                      \
	".long 1b - ., %l[sk__l_yes] - .\n\t"                                \
	".long " key_field ", %c1\n\t"                                       \
	".popsection"
/* SK__ASM_PUSH(name, elf flags, pe flags) / SK__ASM_POP - data of the site
 * (a key slot) in section @name, then back to the code. */
#define SK__ASM_PUSH(name, elf, pe) ".pushsection " name ", \"" elf "\"\n\t"
#define SK__ASM_POP ".popsection\n\t"
#else
/*
 * PE/COFF (mingw-w64 gcc, x86-64).  GNU as has no section stack for COFF
 * (.pushsection, .popsection and .previous are ELF's), and an asm cannot
 * know which section the compiler put its function in (.text,
 * .text.startup for main, .text.unlikely, .text$NAME with
 * -ffunction-sections, a C++ inline function's COMDAT).  But the x64 SEH
 * unwind directives remember it: .seh_proc, which gcc emits at the start
 * of every function when __SEH__ is defined, records the function's
 * section, and .seh_code switches back to it.  So the data goes with
 * .section, and the entry, which comes last, returns with .seh_code
 * (statickeys/branch.h patches sites only where __SEH__ is defined).
 *
 * The entries go to "sk_sites$m", between statickeys/section_pe.h's
 * markers.  PE has no retain flag, and GNU ld's --gc-sections (how Rust
 * links) drops a section nothing refers to: the first site of each
 * translation unit (.ifndef) puts a reference to its entry, and so to the
 * unit's whole "sk_sites$m" section, in ".xdata$sk", which the linker
 * always keeps (its default script: KEEP(*(.xdata*))) and nothing reads
 * (the unwinder reaches .xdata only through .pdata's addresses).
 */
#define SK__SITE_ENTRY(key_field)                                            \
	".section sk_sites$m, \"dr\"\n\t"                                    \
	".balign 4\n\t"                                                      \
	"4: .long 1b - ., %l[sk__l_yes] - .\n\t"                             \
	".long " key_field ", %c1\n\t"                                       \
	".ifndef .Lsk__sites_kept\n\t"                                       \
	".set .Lsk__sites_kept, 1\n\t"                                       \
	".section .xdata$sk, \"dr\"\n\t"                                     \
	".rva 4b\n\t"                                                        \
	".endif\n\t"                                                         \
	".seh_code"
#define SK__ASM_PUSH(name, elf, pe) ".section " name ", \"" pe "\"\n\t"
#define SK__ASM_POP /* the entry, which follows, returns to the code */
#endif

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
