/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * statickeys/section.h - where each linked object lists its keys (and, where
 * sites are patched, its site table), in the object file format of the
 * target: the section's name, the attribute that puts a key's listing there,
 * and how an object finds the section's bounds (statickeys/object.h).
 *
 *   ELF (Linux, FreeBSD)  "sk_keys", bounded by the linker's __start_sk_keys
 *                         and __stop_sk_keys, hidden so each object sees its
 *                         own; SHF_GNU_RETAIN keeps it under --gc-sections
 *   Mach-O (macOS)        "__DATA,sk_keys", bounded by the linker's
 *                         section$start$__DATA$sk_keys symbols (ld64 makes
 *                         them, also for an object that lists no key)
 *   PE/COFF (Windows)     statickeys/section_pe.h
 *
 * ELF and x86-64 PE have patched sites; elsewhere sites test their key's
 * flag (statickeys/branch.h) and the site table is empty.
 */
#ifndef STATICKEYS_SECTION_H
#define STATICKEYS_SECTION_H

/*
 * SHF_GNU_RETAIN ("R" section flag, the retain attribute) on the "sk_sites"
 * and "sk_keys" sections.  Nothing references their contents but the
 * linker's __start_/__stop_ symbols, and lld with --gc-sections (the default
 * for Rust programs) does not count those as references: without the flag it
 * silently drops every site table and key listing of the objects it links.
 * Assemblers know the flag since binutils 2.36 and LLVM 13, compilers the
 * attribute since GCC 11 and clang 13; with an older assembler behind a
 * newer GCC, define SK_NO_SECTION_RETAIN (the CMake package and statickeys.pc
 * do so when the library's own build found the assembler lacking).  ELF
 * only: Mach-O and PE keep what "used" marks.
 */
#if defined(__ELF__) && !defined(SK_NO_SECTION_RETAIN) &&                   \
	defined(__has_attribute)
#if __has_attribute(retain)
#define SK__SECTION_RETAIN 1
#endif
#endif
#ifdef SK__SECTION_RETAIN
#define SK__RETAIN_FLAG "R"
#define SK__RETAIN_ATTR retain,
#else
#define SK__RETAIN_FLAG ""
#define SK__RETAIN_ATTR
#endif

#ifdef __cplusplus
extern "C" {
#endif
/** struct sk__site_entry - one site as the compiler records it (see arch/). */
struct sk__site_entry {
	int code;
	int target;
	int key;
	int flags;
};
#ifdef __cplusplus
}
#endif

#if defined(__APPLE__) && defined(__MACH__)
#define SK__KEYS_SECTION "__DATA,sk_keys"
/* SK__SECTION_BOUNDS(type, start, stop, segment, section) - declare @start
 * and @stop as the bounds of this object's @section. */
#define SK__SECTION_BOUNDS(type, start, stop, seg, sect)                     \
	extern type start[] __asm("section$start$" seg "$" sect);            \
	extern type stop[] __asm("section$end$" seg "$" sect)
#elif defined(_WIN32)
#include "statickeys/section_pe.h"
#else /* ELF */
#define SK__KEYS_SECTION "sk_keys"
#endif

/* The attributes of an object's one registration handle (statickeys/
 * object.h): weak, so each file's definition merges into one per object, and
 * hidden, so each object has its own (PE: section_pe.h). */
#ifndef SK__HANDLE_ATTR
#define SK__HANDLE_ATTR weak, visibility("hidden")
#endif

/* SK__KEY_LISTING_KEEP(ref) - what follows the definition of a key's listing
 * entry @ref (statickeys/key.h) so that the linker keeps it: nothing where
 * the section is retained (ELF "R", Mach-O "used"); PE: section_pe.h. */
#ifndef SK__KEY_LISTING_KEEP
#define SK__KEY_LISTING_KEEP(ref)
#endif

/* The attributes of a key's entry in its object's key listing. */
#define SK__KEYS_SECTION_ATTR used, SK__RETAIN_ATTR section(SK__KEYS_SECTION)

/*
 * SK__CXX_LISTING(keyp) - a key's entry in its object's "sk_keys" section,
 * for C++ (statickeys.hpp's keys, statickeys/dyndbg.h's statements), so the
 * runtime knows its name, like SK_DEFINE_KEY_*'s.  Written by the assembler
 * next to each site (gcc ignores section attributes on template variables,
 * and puts a static local of an inline function in a COMDAT group that
 * conflicts with the plain listing entries of the same file), in the section
 * group of the code ("?"), so a discarded COMDAT copy takes its entry with
 * it; an object may list a key several times, and the runtime counts it
 * once.  The flags are those gcc gives the C listing in the same file (a
 * relocated pointer is writable in position-independent code), so the two
 * share one section.  ".quad 0 + key": a key in a register must not
 * assemble.
 */
#if defined(__GNUC__) && defined(__ELF__) &&                                 \
	(defined(__LP64__) || defined(__i386__) ||                           \
	 (defined(__arm__) && defined(__thumb2__)))
#if defined(__aarch64__) /* arch hook: gcc and clang take "S" with %c */
#define SK__CXX_KEY_SYM "%c0"
#define SK__CXX_KEY_CONSTRAINT "S"
#elif defined(__riscv) || defined(__loongarch__) /* arch hook: "i" */
#define SK__CXX_KEY_SYM "%0"
#define SK__CXX_KEY_CONSTRAINT "i"
#elif defined(__powerpc64__) /* arch hook: "i" (statickeys/arch/ppc64le.h) */
#define SK__CXX_KEY_SYM "%0"
#define SK__CXX_KEY_CONSTRAINT "i"
#elif defined(__arm__) && !defined(__clang__) /* arch hook: arch/arm.h */
#define SK__CXX_KEY_SYM "%c0"
#define SK__CXX_KEY_CONSTRAINT "US"
#elif defined(__s390x__) /* arch hook: as statickeys/arch/s390x.h */
#define SK__CXX_KEY_SYM "%0"
#if defined(__clang__)
#define SK__CXX_KEY_CONSTRAINT "i"
#else
#define SK__CXX_KEY_CONSTRAINT "jdd"
#endif
#elif defined(__clang__)
#define SK__CXX_KEY_SYM "%c0"
#define SK__CXX_KEY_CONSTRAINT "s"
#else
#define SK__CXX_KEY_SYM "%p0"
#define SK__CXX_KEY_CONSTRAINT "X"
#endif
#if defined(__i386__) || defined(__arm__) /* arch hook: 4-byte pointers */
#define SK__CXX_PTR ".long"
#define SK__CXX_PTR_SIZE "4"
#else
#define SK__CXX_PTR ".quad"
#define SK__CXX_PTR_SIZE "8"
#endif
#if defined(__PIC__) || defined(__PIE__)
/* Retained like the C listing (statickeys/key.h: lld and --gc-sections). */
#define SK__CXX_LISTING_FLAGS "\"aw?" SK__RETAIN_FLAG "\""
#else
#define SK__CXX_LISTING_FLAGS "\"a?" SK__RETAIN_FLAG "\""
#endif
#define SK__CXX_LISTING_ELF 1
#define SK__CXX_LISTING(keyp)                                                \
	__asm__(".pushsection sk_keys, " SK__CXX_LISTING_FLAGS "\n\t"        \
		".balign " SK__CXX_PTR_SIZE "\n\t"                            \
		SK__CXX_PTR " 0 + " SK__CXX_KEY_SYM "\n\t"                   \
		".popsection" : : SK__CXX_KEY_CONSTRAINT(keyp))
#elif defined(__GNUC__) && !defined(__clang__) && defined(_WIN32) &&         \
	defined(__x86_64__) && defined(__SEH__)
/* PE (mingw-w64 gcc): the listing entry in "sk_keys$m", between section_pe.h's
 * markers, back to the function's section with .seh_code, as a site does
 * (statickeys/arch/asm_goto.h); the reference from ".xdata$sk" keeps it
 * under --gc-sections. */
#define SK__CXX_LISTING(keyp)                                                \
	__asm__(".section sk_keys$m, \"dr\"\n\t"                              \
		".balign 8\n\t"                                              \
		"5: .quad 0 + %p0\n\t"                                        \
		".section .xdata$sk, \"dr\"\n\t"                              \
		".rva 5b\n\t"                                                 \
		".seh_code" : : "X"(keyp))
#else
#define SK__CXX_LISTING(keyp) ((void)0)
#endif

#endif /* STATICKEYS_SECTION_H */
