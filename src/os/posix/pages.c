/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * src/os/posix/pages.c - pages of the runtime's own for the update path
 * (support/mem.c): mmap, a system call, safe in a signal handler.
 *
 * A primitive (os/os.h): support/ calls it, so it calls nothing of the
 * runtime.
 */
#include <sys/mman.h>

#include "os/os.h"

void *sk__os_pages_map(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

void sk__os_pages_unmap(void *p, size_t len)
{
	munmap(p, len);
}
