/*
 * src/arch/aarch64_nosigmask.c - no SIGTRAP mask wrappers on aarch64.
 *
 * sigmask.c keeps SIGTRAP deliverable for the x86-64 int3 protocol by
 * defining the C library's mask-setting functions under its x86-64 version
 * names (GLIBC_2.2.5 ...).  aarch64 has no trap protocol (a site changes
 * with one store), so nothing needs SIGTRAP and the program's masks are left
 * exactly as it sets them: sigmask.c is not built, the library's version
 * script (libstatickeys-aarch64.map) exports only sk_*, and these answers
 * tell threads_check.c (never asked on aarch64) that no wrapper is active.
 */

/* Only for aarch64 builds (src/CMakeLists.txt); empty elsewhere, so a build
 * that compiles every file of src/arch/ still links. */
#if defined(__aarch64__)
#include "internal.h"

bool sk__sigmask_wrappers_active(void)
{
	return false;
}

bool sk__sigmask_keeps_sigtrap(void)
{
	return false;
}

#endif /* __aarch64__ */
