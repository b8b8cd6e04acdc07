/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * src/os/windows/pages.c - pages of the runtime's own for the update path
 * (support/mem.c): VirtualAlloc, which hands out zeroed pages (64 KiB
 * granularity of addresses; mem.c asks for 128 KiB chunks).
 *
 * A primitive (os/os.h): support/ calls it, so it calls nothing of the
 * runtime.
 */
#include <windows.h>

#include "os/os.h"

void *sk__os_pages_map(size_t len)
{
	return VirtualAlloc(NULL, len, MEM_RESERVE | MEM_COMMIT,
			    PAGE_READWRITE);
}

void sk__os_pages_unmap(void *p, size_t len)
{
	(void)len; /* MEM_RELEASE frees the whole reservation, size 0 */
	VirtualFree(p, 0, MEM_RELEASE);
}
