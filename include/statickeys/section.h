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

#endif /* STATICKEYS_SECTION_H */
