/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * src/os/macho/symbols.c - the function that holds an address (os/os.h,
 * "image") on macOS: not looked up.  Only a refused site update names a
 * function, and no site is patched on macOS; a message names the object.
 */
#include "os/os.h"

bool sk__os_symbol_of(const char *path, uint64_t vaddr, char *name, size_t len,
		      uint64_t *offset)
{
	(void)path, (void)vaddr, (void)name, (void)len, (void)offset;
	return false;
}

/* Call sites of static calls are not patched here: a Mach-O link keeps no
 * relocations of its code, so static calls keep their trampolines. */
long sk__os_text_relocs(const char *path, bool program, uintptr_t bias,
			const char *prefix, unsigned before,
			sk__os_reloc_want *want, void *ctx,
			uint64_t *out, size_t max, enum sk__os_relocs *kept)
{
	(void)path, (void)program, (void)bias, (void)prefix, (void)before;
	(void)want;
	(void)ctx, (void)out, (void)max;
	*kept = SK__RELOCS_NOT_KEPT;
	return 0;
}
