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
 * read instead: its ELF section headers, then .symtab (static functions
 * too) or else .dynsym, for the function symbol that contains the address.
 * Error path only; best effort (a stripped file gives the object alone).
 */
#include <elf.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/core.h"

static bool read_at(int fd, void *buf, size_t len, off_t off)
{
	return pread(fd, buf, len, off) == (ssize_t)len;
}

/* The function containing link-time address @vaddr, into @name. */
static bool symbol_of(int fd, uint64_t vaddr, char *name, size_t len,
		      uint64_t *offset)
{
	Elf64_Ehdr eh;

	if (!read_at(fd, &eh, sizeof(eh), 0) ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_shentsize != sizeof(Elf64_Shdr) || eh.e_shnum == 0 ||
	    eh.e_shnum > 4096)
		return false;
	Elf64_Shdr *sh = calloc(eh.e_shnum, sizeof(*sh));
	bool found = false;
	if (!sh || !read_at(fd, sh, eh.e_shnum * sizeof(*sh), (off_t)eh.e_shoff))
		goto out;
	for (int pass = 0; pass < 2 && !found; pass++) {
		unsigned want = pass == 0 ? SHT_SYMTAB : SHT_DYNSYM;
		for (unsigned i = 0; i < eh.e_shnum && !found; i++) {
			if (sh[i].sh_type != want || sh[i].sh_link >= eh.e_shnum ||
			    sh[i].sh_entsize != sizeof(Elf64_Sym))
				continue;
			const Elf64_Shdr *strs = &sh[sh[i].sh_link];
			size_t nsym = sh[i].sh_size / sizeof(Elf64_Sym);
			Elf64_Sym sym;
			for (size_t k = 0; k < nsym && !found; k++) {
				if (!read_at(fd, &sym, sizeof(sym),
					     (off_t)(sh[i].sh_offset + k * sizeof(sym))))
					break;
				if (ELF64_ST_TYPE(sym.st_info) != STT_FUNC ||
				    vaddr < sym.st_value ||
				    vaddr >= sym.st_value + (sym.st_size ? sym.st_size : 1) ||
				    sym.st_name >= strs->sh_size)
					continue;
				size_t n = strs->sh_size - sym.st_name;
				n = n < len - 1 ? n : len - 1;
				if (pread(fd, name, n, (off_t)(strs->sh_offset +
							       sym.st_name)) <= 0)
					break;
				name[n] = '\0';
				*offset = vaddr - sym.st_value;
				found = name[0] != '\0';
			}
		}
	}
out:
	free(sh);
	return found;
}

void sk__site_describe(const struct sk__object *obj, uintptr_t addr,
		       char *buf, size_t len)
{
	const char *shown = obj && obj->path[0] ? obj->path : "the program";
	char name[128];
	uint64_t off = 0;
	int fd;

	/* In the library's one place (os/linux/fd_slot.c), under the patch lock. */
	sk__fdslot_lend();
	fd = !obj		? -1
	     : obj->path[0] ? open(obj->path, O_RDONLY | O_CLOEXEC)
			    : sk__os_open_program();
	bool have = fd >= 0 && symbol_of(fd, addr - obj->bias, name,
					 sizeof(name), &off);

	if (fd >= 0)
		close(fd);
	sk__fdslot_return();
	if (have)
		snprintf(buf, len, "%p (%s+0x%llx in %s)", (void *)addr, name,
			 (unsigned long long)off, shown);
	else
		snprintf(buf, len, "%p (in %s)", (void *)addr, shown);
}

const struct sk__object *sk__object_of(uintptr_t addr)
{
	for (const struct sk__object *o = sk__objects; o; o = o->next)
		if (addr >= o->lo && addr < o->hi)
			return o;
	return NULL;
}
