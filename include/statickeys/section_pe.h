/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * statickeys/section_pe.h - where a PE/COFF object (a Windows program or
 * DLL, built by mingw-w64 gcc) lists its keys; included by
 * statickeys/section.h under _WIN32.
 *
 * PE has no __start_/__stop_ symbols.  It has grouped sections instead: the
 * linker (GNU ld for PE, as Microsoft's link.exe) merges every input section
 * "sk_keys$<suffix>" into one output section "sk_keys", ordered by suffix.
 * So each key's listing goes to "sk_keys$m", and two one-pointer markers,
 * in "sk_keys$a" and "sk_keys$z", come before and after all of them.  The
 * markers are defined in this header, once per linked object: selectany
 * (COMDAT, "pick any") lets every file that includes it define them and the
 * linker keep one copy per program or DLL, which sees only its own (a PE
 * object exports nothing it does not mark dllexport).
 *
 * The linker may pad between input sections: the runtime skips null
 * entries of a key listing (core/objects.c keeps only valid keys), and the
 * markers themselves are null.
 *
 * The site table (x86-64, where sites are patched: statickeys/branch.h)
 * is grouped the same way: each site's entry goes to "sk_sites$m"
 * (statickeys/arch/asm_goto.h), between one-entry markers in "sk_sites$a"
 * and "sk_sites$z".  Entries are 16 bytes and 4-aligned, so no padding
 * falls between them; an all-zero entry (a marker) names no site and the
 * runtime skips it.  Where sites test flags, the table is empty.
 */
#ifndef STATICKEYS_SECTION_PE_H
#define STATICKEYS_SECTION_PE_H

#define SK__KEYS_SECTION "sk_keys$m"
/* The registration handle: one per linked object, picked among the files'
 * copies as the markers are (selectany).  Not weak: GNU ld for PE names a
 * weak definition's alias after the first global symbol of its file, which
 * two files may share (a marker, at -O0), and then refuses the second
 * file's as a "multiple definition".  PE has no visibility (an object
 * exports only what it marks dllexport). */
#define SK__HANDLE_ATTR selectany

/*
 * With --gc-sections (Rust always links so) GNU ld for PE drops a section
 * nothing refers to, and PE has no flag to retain one.  So each listing
 * entry is referred to from an entry of the constructor list, which the
 * linker always keeps: a function that only names the entry, run once at
 * start-up (priority 65535, the last list: it does nothing).
 */
#define SK__KEY_LISTING_KEEP(ref)                                            \
	;                                                                    \
	static void ref##_keep(void)                                         \
	{                                                                    \
		__asm__ volatile("" : : "r"(&ref));                          \
	}                                                                    \
	static void (*ref##_keeper)(void)                                    \
		__attribute__((used, section(".ctors.65535"))) = ref##_keep

#if !defined(SK_BUILDING_LIBRARY)
struct sk_key;

/* The markers, with C names so that C and C++ files of one object share
 * them (C++ gives a const object internal linkage unless it is extern). */
#ifdef __cplusplus
#define SK__PE_MARKER extern "C"
#else
#define SK__PE_MARKER
#endif
SK__PE_MARKER __attribute__((selectany, used, section("sk_sites$a")))
const struct sk__site_entry sk__sites_pe_start[1] = { { 0, 0, 0, 0 } };
SK__PE_MARKER __attribute__((selectany, used, section("sk_sites$z")))
const struct sk__site_entry sk__sites_pe_stop[1] = { { 0, 0, 0, 0 } };
SK__PE_MARKER __attribute__((selectany, used, section("sk_keys$a")))
struct sk_key *const sk__keys_pe_start[1] = { 0 };
SK__PE_MARKER __attribute__((selectany, used, section("sk_keys$z")))
struct sk_key *const sk__keys_pe_stop[1] = { 0 };

/* The four bounds statickeys/object.h hands to the runtime: each table
 * begins after its start marker and ends where its stop marker begins. */
#define SK__SITES_START (sk__sites_pe_start + 1)
#define SK__SITES_STOP (sk__sites_pe_stop + 0)
#define SK__KEYS_START (sk__keys_pe_start + 1)
#define SK__KEYS_STOP (sk__keys_pe_stop + 0)
#endif /* !SK_BUILDING_LIBRARY */

#endif /* STATICKEYS_SECTION_PE_H */
