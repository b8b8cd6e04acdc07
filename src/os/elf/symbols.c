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
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "os/os.h"

/* The running process's own ELF class: a 32-bit program (i686) reads its
 * objects' 32-bit headers and symbols. */
#if UINTPTR_MAX > 0xffffffffu
typedef Elf64_Ehdr Ehdr;
typedef Elf64_Shdr Shdr;
typedef Elf64_Sym Sym;
#define OWN_CLASS ELFCLASS64
#define SYM_TYPE(i) ELF64_ST_TYPE(i)
#else
typedef Elf32_Ehdr Ehdr;
typedef Elf32_Shdr Shdr;
typedef Elf32_Sym Sym;
#define OWN_CLASS ELFCLASS32
#define SYM_TYPE(i) ELF32_ST_TYPE(i)
#endif

static bool read_at(int fd, void *buf, size_t len, off_t off)
{
	return pread(fd, buf, len, off) == (ssize_t)len;
}

static bool symbol_of(int fd, uint64_t vaddr, char *name, size_t len,
		      uint64_t *offset)
{
	Ehdr eh;

	if (!read_at(fd, &eh, sizeof(eh), 0) ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 ||
	    eh.e_ident[EI_CLASS] != OWN_CLASS ||
	    eh.e_shentsize != sizeof(Shdr) || eh.e_shnum == 0 ||
	    eh.e_shnum > 4096)
		return false;
	Shdr *sh = calloc(eh.e_shnum, sizeof(*sh));
	bool found = false;
	if (!sh || !read_at(fd, sh, eh.e_shnum * sizeof(*sh), (off_t)eh.e_shoff))
		goto out;
	for (int pass = 0; pass < 2 && !found; pass++) {
		unsigned want = pass == 0 ? SHT_SYMTAB : SHT_DYNSYM;
		for (unsigned i = 0; i < eh.e_shnum && !found; i++) {
			if (sh[i].sh_type != want || sh[i].sh_link >= eh.e_shnum ||
			    sh[i].sh_entsize != sizeof(Sym))
				continue;
			const Shdr *strs = &sh[sh[i].sh_link];
			size_t nsym = sh[i].sh_size / sizeof(Sym);
			Sym sym;
			for (size_t k = 0; k < nsym && !found; k++) {
				if (!read_at(fd, &sym, sizeof(sym),
					     (off_t)(sh[i].sh_offset + k * sizeof(sym))))
					break;
				if (SYM_TYPE(sym.st_info) != STT_FUNC ||
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

/* image.c: the name objects give the main program (its argv[0]). */
const char *sk__elf_program_name(void);

bool sk__os_symbol_of(const char *path, uint64_t vaddr, char *name, size_t len,
		      uint64_t *offset)
{
	/* The program by the OS's own name for its file: argv[0] names it
	 * only from the directory it was started in (a program started
	 * through $PATH from elsewhere has a bare name there). */
	bool program = !path[0] || strcmp(path, sk__elf_program_name()) == 0;
	int fd = program ? sk__os_open_program()
			 : open(path, O_RDONLY | O_CLOEXEC);
	bool found = fd >= 0 && symbol_of(fd, vaddr, name, len, offset);

	if (fd >= 0)
		close(fd);
	return found;
}
