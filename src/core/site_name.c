/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * src/core/site_name.c - naming a site in an error message.
 *
 * A refused update must say which code it refused to touch: address,
 * function, object, bytes found.  dladdr() would name the function, but it
 * takes the dynamic linker's lock, and the messages are written with the
 * patch lock held: a dlopen() whose constructor waits for the patch lock
 * while holding the dynamic linker's lock would deadlock with us (the lock
 * order is the dynamic linker's, then ours).  So the object's own file is
 * read instead, by the OS layer (os/os.h: sk__os_symbol_of; ELF: its
 * symbol tables).  Error path only; best effort (a stripped file gives the
 * object alone).
 */
#include <stdio.h>

#include "core/core.h"

void sk__site_describe(const struct sk__object *obj, uintptr_t addr,
		       char *buf, size_t len)
{
	const char *shown = obj && obj->path[0] ? obj->path : "the program";
	char name[128];
	uint64_t off = 0;

	/* In the library's one place (os/linux/fd_slot.c), under the patch lock. */
	sk__os_fdslot_lend();
	bool have = obj && sk__os_symbol_of(obj->path, addr - obj->bias, name,
					     sizeof(name), &off);
	sk__os_fdslot_return();
	if (have)
		snprintf(buf, len, "%p (%s+0x%llx in %s)", (void *)addr, name,
			 (unsigned long long)off, shown);
	else
		snprintf(buf, len, "%p (in %s)", (void *)addr, shown);
}

void sk__site_bytes(const unsigned char *b, char out[SK__SITE_TEXT])
{
	size_t len = 0;

	out[0] = '\0';
	for (unsigned i = 0; i < sk__arch_site_size; i++)
		len += (size_t)snprintf(out + len, SK__SITE_TEXT - len,
					"%s%02x", i ? " " : "", b[i]);
}

const struct sk__object *sk__object_of(uintptr_t addr)
{
	for (const struct sk__object *o = sk__objects; o; o = o->next)
		if (addr >= o->lo && addr < o->hi)
			return o;
	return NULL;
}
