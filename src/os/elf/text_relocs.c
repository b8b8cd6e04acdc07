/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * src/os/elf/text_relocs.c - the relocations of an object's code, as the
 * linker kept them in its file (`-Wl,--emit-relocs`), for static calls
 * whose call sites are patched (core/static_call.c): the only record of
 * which instructions call a trampoline that a C compiler leaves behind.
 *
 * Read from the file, never from memory (relocation sections are not
 * loaded): its section headers, the names of its symbols (only the
 * relocations against the symbols the caller names are looked at), then
 * each SHT_RELA section that applies to an executable section, a block at
 * a time.  A field the caller wants
 * is taken only if the file's bytes around it equal the loaded ones: a
 * file replaced on disk since the object was loaded gives nothing.  In
 * the library's one place for files (os/linux/fd_slot.c), under the patch
 * lock; the caller lends it.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "os/os.h"

#if UINTPTR_MAX > 0xffffffffu
typedef Elf64_Ehdr Ehdr;
typedef Elf64_Shdr Shdr;
typedef Elf64_Rela Rela;
typedef Elf64_Sym Sym;
#define OWN_CLASS ELFCLASS64
#define RELA_TYPE(i) ELF64_R_TYPE(i)
#define RELA_SYM(i) ELF64_R_SYM(i)
#else
/* i686 links keep SHT_REL (the addend in the code): not read, so i686
 * call sites keep calling the trampoline. */
typedef Elf32_Ehdr Ehdr;
typedef Elf32_Shdr Shdr;
typedef Elf32_Rela Rela;
typedef Elf32_Sym Sym;
#define OWN_CLASS ELFCLASS32
#define RELA_TYPE(i) ELF32_R_TYPE(i)
#define RELA_SYM(i) ELF32_R_SYM(i)
#endif

#define BLOCK 1024 /* relocations read at a time (24 KiB) */
#define FIELD 4    /* the pc-relative fields asked about: 32 bits */

static bool read_at(int fd, void *buf, size_t len, uint64_t off)
{
	return pread(fd, buf, len, (off_t)off) == (ssize_t)len;
}

/* The file's code, read CODE_BLOCK bytes at a time: the fields come in
 * address order, so a program's 400 call sites take a few reads, not one
 * read each. */
#define CODE_BLOCK (64 * 1024)
struct code_cache {
	unsigned char *buf; /* CODE_BLOCK bytes */
	uint64_t off;       /* the file offset buf holds from... */
	size_t len;         /* ...and how many bytes */
};

/* The file's bytes [@vaddr - @before, @vaddr + FIELD) equal the loaded
 * ones, @text being the section that holds them. */
static bool same_as_loaded(int fd, const Shdr *text, uint64_t vaddr,
			   unsigned before, uintptr_t bias,
			   struct code_cache *c)
{
	uint64_t from = vaddr - before;
	size_t len = before + FIELD;

	if (len > 16 || from < text->sh_addr ||
	    vaddr + FIELD > text->sh_addr + text->sh_size)
		return false;
	uint64_t at = text->sh_offset + (from - text->sh_addr);
	if (at < c->off || at + len > c->off + c->len) {
		uint64_t end = text->sh_offset + text->sh_size;
		size_t n = end - at < CODE_BLOCK ? (size_t)(end - at) : CODE_BLOCK;
		c->len = 0;
		if (!read_at(fd, c->buf, n, at))
			return false;
		c->off = at;
		c->len = n;
	}
	return memcmp(c->buf + (at - c->off),
		      (const void *)(uintptr_t)(bias + from), len) == 0;
}

/*
 * Which symbols of symbol table @symtab are named @prefix...: a bitmap by
 * symbol index (NULL: cannot tell, every relocation is asked about).  A
 * program's code has a relocation per call (11,000 in one of 300 KB), and
 * nearly none names a trampoline: one bit test each, where asking @want
 * decodes the instruction (~90 instructions a relocation).
 */
static unsigned char *symbols_named(int fd, const Shdr *sh, unsigned nsh,
				    unsigned symtab, const char *prefix,
				    size_t *nsyms)
{
	if (symtab >= nsh || sh[symtab].sh_type != SHT_SYMTAB ||
	    sh[symtab].sh_entsize != sizeof(Sym) || sh[symtab].sh_link >= nsh)
		return NULL;
	const Shdr *strs = &sh[sh[symtab].sh_link];
	size_t n = sh[symtab].sh_size / sizeof(Sym), plen = strlen(prefix);
	Sym *syms = malloc(n * sizeof(*syms));
	char *names = malloc(strs->sh_size + 1);
	unsigned char *bits = calloc(n / 8 + 1, 1);
	bool ok = syms && names && bits &&
		  read_at(fd, syms, n * sizeof(*syms), sh[symtab].sh_offset) &&
		  read_at(fd, names, strs->sh_size, strs->sh_offset);

	for (size_t i = 0; ok && i < n; i++) {
		size_t at = syms[i].st_name;
		if (at + plen <= strs->sh_size &&
		    memcmp(names + at, prefix, plen) == 0)
			bits[i / 8] |= (unsigned char)(1u << (i % 8));
	}
	free(syms);
	free(names);
	if (!ok) {
		free(bits);
		return NULL;
	}
	*nsyms = n;
	return bits;
}

/* What a relocation of @type fills, in the format-neutral words of os/os.h
 * (the architecture decides what it means for a call).  Only x86-64's
 * are told apart: no other port finds call sites. */
static enum sk__os_reloc_kind kind_of(unsigned machine, unsigned type)
{
	if (machine != EM_X86_64)
		return SK__RELOC_OTHER;
	switch (type) {
	case R_X86_64_PC32:
	case R_X86_64_PLT32:
		return SK__RELOC_PC32;
	case R_X86_64_GOTPCREL:
	case R_X86_64_GOTPCRELX:
		return SK__RELOC_GOT_PC32;
	default:
		return SK__RELOC_OTHER;
	}
}

static bool named(const unsigned char *bits, size_t nsyms, size_t sym)
{
	return !bits || (sym < nsyms && (bits[sym / 8] >> (sym % 8)) & 1);
}

static long scan(int fd, uintptr_t bias, const char *prefix, unsigned before,
		 sk__os_reloc_want *want, void *ctx, uint64_t *out, size_t max,
		 enum sk__os_relocs *kept)
{
	bool symtab = false;
	unsigned char *bits = NULL;
	unsigned bits_of = 0; /* the symbol table @bits describes */
	size_t nsyms = 0;
	Ehdr eh;
	Rela *block = NULL;
	Shdr *sh = NULL;
	long n = 0;

	if (!read_at(fd, &eh, sizeof(eh), 0) ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 ||
	    eh.e_ident[EI_CLASS] != OWN_CLASS ||
	    eh.e_shentsize != sizeof(Shdr) || eh.e_shnum == 0)
		return 0;
	sh = calloc(eh.e_shnum, sizeof(*sh));
	block = malloc(BLOCK * sizeof(*block));
	struct code_cache code = { malloc(CODE_BLOCK), 0, 0 };
	if (!sh || !block || !code.buf) {
		n = -ENOMEM;
		goto out;
	}
	if (!read_at(fd, sh, eh.e_shnum * sizeof(*sh), eh.e_shoff))
		goto out;
	for (unsigned i = 0; i < eh.e_shnum; i++)
		symtab |= sh[i].sh_type == SHT_SYMTAB;
	*kept = symtab ? SK__RELOCS_NONE : SK__RELOCS_STRIPPED;
	for (unsigned i = 0; i < eh.e_shnum; i++) {
		/* Relocations of an executable section that is loaded. */
		if (sh[i].sh_type != SHT_RELA || sh[i].sh_entsize != sizeof(Rela) ||
		    sh[i].sh_info == 0 || sh[i].sh_info >= eh.e_shnum)
			continue;
		const Shdr *text = &sh[sh[i].sh_info];
		if ((text->sh_flags & (SHF_ALLOC | SHF_EXECINSTR)) !=
		    (SHF_ALLOC | SHF_EXECINSTR))
			continue;
		*kept = SK__RELOCS_KEPT;
		if (prefix && (!bits_of || bits_of != sh[i].sh_link)) {
			free(bits);
			bits = symbols_named(fd, sh, eh.e_shnum, sh[i].sh_link,
					     prefix, &nsyms);
			bits_of = sh[i].sh_link;
		}
		size_t total = sh[i].sh_size / sizeof(Rela);
		for (size_t at = 0; at < total; at += BLOCK) {
			size_t k = total - at < BLOCK ? total - at : BLOCK;
			if (!read_at(fd, block, k * sizeof(Rela),
				     sh[i].sh_offset + at * sizeof(Rela)))
				goto out;
			for (size_t j = 0; j < k; j++) {
				uint64_t vaddr = block[j].r_offset;
				if (!named(bits, nsyms,
					   RELA_SYM(block[j].r_info)) ||
				    vaddr < text->sh_addr ||
				    vaddr + FIELD > text->sh_addr + text->sh_size ||
				    !want(ctx, bias + vaddr,
					  kind_of(eh.e_machine,
						  RELA_TYPE(block[j].r_info)),
					  block[j].r_addend) ||
				    !same_as_loaded(fd, text, vaddr, before, bias,
						    &code))
					continue;
				if ((size_t)n == max) {
					n = -E2BIG;
					goto out;
				}
				out[n++] = bias + vaddr;
			}
		}
	}
out:
	free(bits);
	free(block);
	free(code.buf);
	free(sh);
	return n;
}

long sk__os_text_relocs(const char *path, bool program, uintptr_t bias,
			const char *prefix, unsigned before,
			sk__os_reloc_want *want, void *ctx,
			uint64_t *out, size_t max, enum sk__os_relocs *kept)
{
	int fd;

	*kept = SK__RELOCS_UNREADABLE;
	if (program) {
		fd = sk__os_open_program();
	} else {
		fd = path[0] ? open(path, O_RDONLY | O_CLOEXEC) : -1;
		if (fd < 0)
			fd = path[0] ? -errno : -ENOENT;
	}
	if (fd < 0)
		return fd;
	long n = scan(fd, bias, prefix, before, want, ctx, out, max, kept);
	close(fd);
	return n;
}
