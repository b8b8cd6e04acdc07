/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * src/os/elf/symbols.c - the function that holds an address, from an ELF
 * object's own file, for messages (core/site_name.c): its section
 * headers, then .symtab (static functions too) or else .dynsym.  Not
 * dladdr(): that takes the dynamic linker's lock, and the messages are
 * written with the patch lock held (the lock order is the dynamic
 * linker's, then ours).  Error path only; best effort.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "os/os.h"

static bool read_at(int fd, void *buf, size_t len, off_t off)
{
	return pread(fd, buf, len, off) == (ssize_t)len;
}

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

bool sk__os_symbol_of(const char *path, uint64_t vaddr, char *name, size_t len,
		      uint64_t *offset)
{
	int fd = path[0] ? open(path, O_RDONLY | O_CLOEXEC)
			 : sk__os_open_program();
	bool found = fd >= 0 && symbol_of(fd, vaddr, name, len, offset);

	if (fd >= 0)
		close(fd);
	return found;
}
