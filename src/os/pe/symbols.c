/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * src/os/pe/symbols.c - a function's name for a message, on Windows: not
 * given.  PE images carry no symbol table of their own (mingw's COFF
 * symbols are stripped from release builds, debug information lives in
 * DWARF sections or a PDB), so a message about a patched site on Windows
 * (x86-64 keys and static calls are patched there: os/windows/writer.c)
 * names its address alone.
 */
#include "os/os.h"

bool sk__os_symbol_of(const char *path, uint64_t vaddr, char *name, size_t len,
		      uint64_t *offset)
{
	(void)path, (void)vaddr, (void)name, (void)len, (void)offset;
	return false;
}

/* Call sites of static calls are not found here (the trampolines are
 * patched; calls go through them): a PE image keeps no relocations of its
 * code (SK__RELOCS_NOT_KEPT). */
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
