/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * statickeys/object.h - automatic registration of each object's sites and keys.
 *
 * Every linked object (the executable, each shared library, each dlopen'd
 * plugin) has its own "sk_sites" and "sk_keys" sections; the linker marks
 * their bounds (statickeys/section.h: __start_/__stop_ symbols on ELF,
 * declared hidden here so each object sees its own).  Every translation unit that includes this header gets
 * a tiny constructor/destructor pair that hands those bounds to the runtime;
 * the runtime counts them through the object's single sk__this_object handle
 * (a weak hidden definition, merged by the linker into one per object), so an
 * object is registered once however many of its files include the header,
 * and unregistered when its last destructor runs (dlclose, exit).
 */
#ifndef STATICKEYS_OBJECT_H
#define STATICKEYS_OBJECT_H

#include "statickeys/export.h"
#include "statickeys/section.h"

#ifdef __cplusplus
extern "C" {
#endif

struct sk_key;

/* struct sk__site_entry - one site as the compiler records it: statickeys/
 * section.h, which the object formats' markers need (section_pe.h). */

/* Bits of sk__site_entry.flags. */
#define SK__SITE_LIKELY 0x1u /* sk_branch_likely: the kernel's branch bit */
/* The site is a kernel-style one (statickeys/linux.h, arch/x86_64_slot.h):
 * - its key is a struct static_key, for which all-zero memory is a valid
 *   false key, as in the kernel: the runtime gives such a key the magic of a
 *   defined key instead of refusing the site (keys of the native types never
 *   get this, so a zeroed sk_key stays refused);
 * - its key field points at a slot of two words, the key and the key's name
 *   as the site spells it, which names keys that have no name of their own.
 */
#define SK__SITE_LINUX_KEY 0x2u

/** struct sk__object_handle - one per linked object; owned by the runtime. */
struct sk__object_handle {
	int refs;
	void *object;
};

SK_API void sk__object_register(struct sk__object_handle *handle,
				const struct sk__site_entry *sites_start,
				const struct sk__site_entry *sites_stop,
				struct sk_key *const *keys_start,
				struct sk_key *const *keys_stop);
SK_API void sk__object_unregister(struct sk__object_handle *handle);

#ifndef SK_BUILDING_LIBRARY
#if defined(__APPLE__) && defined(__MACH__)
/* Mach-O: only the key listing (no site is patched: statickeys/branch.h). */
SK__SECTION_BOUNDS(struct sk_key *const, sk__keys_start, sk__keys_stop,
		   "__DATA", "sk_keys");
#define SK__SITES_START ((const struct sk__site_entry *)0)
#define SK__SITES_STOP ((const struct sk__site_entry *)0)
#define SK__KEYS_START sk__keys_start
#define SK__KEYS_STOP sk__keys_stop
#elif defined(_WIN32)
/* PE: statickeys/section_pe.h defines the four bounds. */
#else /* ELF */
extern const struct sk__site_entry __start_sk_sites[]
	__attribute__((weak, visibility("hidden")));
extern const struct sk__site_entry __stop_sk_sites[]
	__attribute__((weak, visibility("hidden")));
extern struct sk_key *const __start_sk_keys[]
	__attribute__((weak, visibility("hidden")));
extern struct sk_key *const __stop_sk_keys[]
	__attribute__((weak, visibility("hidden")));
#define SK__SITES_START __start_sk_sites
#define SK__SITES_STOP __stop_sk_sites
#define SK__KEYS_START __start_sk_keys
#define SK__KEYS_STOP __stop_sk_keys
#endif

__attribute__((SK__HANDLE_ATTR)) struct sk__object_handle sk__this_object = {
	0, 0
};

/*
 * Priority 101, the first one not reserved for the C library: the object's
 * sites must show their keys' current states before any ordinary
 * constructor of the object runs one of them, including constructors in
 * files that do not include this header, which may come first in link order.
 * The destructor, by the same number, runs after the object's ordinary
 * destructors, so they too still find the sites registered.
 */
__attribute__((constructor(101), used)) static void sk__object_ctor(void)
{
	sk__object_register(&sk__this_object, SK__SITES_START,
			    SK__SITES_STOP, SK__KEYS_START, SK__KEYS_STOP);
}

__attribute__((destructor(101), used)) static void sk__object_dtor(void)
{
	sk__object_unregister(&sk__this_object);
}
#endif /* SK_BUILDING_LIBRARY */

#ifdef __cplusplus
}
#endif

#endif /* STATICKEYS_OBJECT_H */
