/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * src/os/unpatched/fd_slot.c - the library's one descriptor for files
 * (os/os.h, "fd_slot") where no code is patched: there is no writer's
 * descriptor to hold a place for, so nothing is held at rest, and a file
 * the runtime reads (STATICKEYS_FILE, a message naming a site) takes a
 * descriptor only while it is read, as any library's would.
 */
#include <errno.h>

#include "os/os.h"

int sk__os_fdslot_init(void)
{
	return 0;
}

void sk__os_fdslot_lend(void)
{
}

void sk__os_fdslot_return(void)
{
}

int sk__os_fdslot_hold(void)
{
	return -ENOTSUP; /* only the writer holds it, and there is none */
}

int sk__os_fdslot_held_fd(void)
{
	return -1;
}

void sk__os_fdslot_release(void)
{
}

void sk__os_fdslot_after_fork_child(void)
{
}
