/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * src/os/elf/image.c - the loaded object that holds an address, as an ELF
 * system's loader tells it (os/os.h, "image"): Linux and FreeBSD.
 *
 * Moved from core/objects.c unchanged in what it asks and when: the main
 * program from the kernel's auxiliary vector (no call into the dynamic
 * linker, none at start-up), any other object from dl_iterate_phdr().
 */
#include <dlfcn.h>
#include <link.h>
#include <sched.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "os/os.h"

struct phdr_search {
	uintptr_t probe;
	struct sk__image *img;
};

/*
 * The main program's name as dladdr() gives it: argv[0] (also under
 * qemu-user, where /proc/self/exe is the emulator).  Copied once, at its
 * registration, and kept for the process's life: a daemon may write its
 * title over argv later.  Into a static buffer when it fits, so that
 * start-up allocates nothing.
 */
const char *sk__elf_program_name(void)
{
	static char copy[256];
	static const char *name;
	static unsigned state; /* 0, 1: being copied, 2: done (a word:
				  riscv64 has no one-byte exchange) */
	unsigned expected = 0;

	if (__atomic_compare_exchange_n(&state, &expected, 1, false,
					__ATOMIC_ACQUIRE, __ATOMIC_ACQUIRE)) {
		const char *argv0 = sk__os_argv0();
		size_t len = 0;
		/* By hand: no lazy binding of strlen and memcpy. */
		while (argv0 && argv0[len] && len < sizeof(copy) - 1) {
			copy[len] = argv0[len];
			len++;
		}
		copy[len] = '\0';
		name = argv0 && argv0[len] ? strdup(argv0) : copy;
		__atomic_store_n(&state, 2, __ATOMIC_RELEASE);
	}
	/* Only two constructors of the program (C and Rust) can race here. */
	while (__atomic_load_n(&state, __ATOMIC_ACQUIRE) != 2)
		sched_yield();
	return name ? name : "";
}

/* Does a PT_LOAD segment of these program headers, loaded @bias above their
 * addresses, hold @addr? */
static bool segments_hold(const ElfW(Phdr) *ph, size_t n, uintptr_t bias,
			  uintptr_t addr)
{
	for (size_t i = 0; i < n; i++)
		if (ph[i].p_type == PT_LOAD && addr >= bias + ph[i].p_vaddr &&
		    addr - (bias + ph[i].p_vaddr) < ph[i].p_memsz)
			return true;
	return false;
}

/* The object's span and executable segments, from its program headers. */
static void take_segments(struct sk__image *obj, const ElfW(Phdr) *ph,
			  size_t n, uintptr_t bias)
{
	obj->bias = bias;
	obj->lo = UINTPTR_MAX;
	for (size_t i = 0; i < n; i++) {
		if (ph[i].p_type != PT_LOAD)
			continue;
		uintptr_t lo = bias + ph[i].p_vaddr;
		obj->lo = lo < obj->lo ? lo : obj->lo;
		obj->hi = lo + ph[i].p_memsz > obj->hi ? lo + ph[i].p_memsz
						       : obj->hi;
		if (!(ph[i].p_flags & PF_X) ||
		    obj->nsegments == SK__IMAGE_SEGMENTS)
			continue;
		struct sk__segment *seg = &obj->segments[obj->nsegments++];
		seg->lo = lo;
		seg->hi = lo + ph[i].p_memsz;
		seg->prot = PROT_EXEC | (ph[i].p_flags & PF_R ? PROT_READ : 0) |
			    (ph[i].p_flags & PF_W ? PROT_WRITE : 0);
	}
}

/* The main program's program headers as the kernel passed them (auxv), and
 * its load bias (from PT_PHDR); false without them. */
static bool program_headers(const ElfW(Phdr) **ph, size_t *n, uintptr_t *bias)
{
	*ph = (const ElfW(Phdr) *)sk__os_aux(SK__AUX_PHDR);
	*n = sk__os_aux(SK__AUX_PHNUM);
	for (size_t i = 0; *ph && i < *n; i++)
		if ((*ph)[i].p_type == PT_PHDR) {
			*bias = (uintptr_t)*ph - (*ph)[i].p_vaddr;
			return true;
		}
	return false;
}

static int find_segments(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct phdr_search *ps = arg;
	struct sk__image *obj = ps->img;

	(void)size;
	if (!segments_hold(info->dlpi_phdr, info->dlpi_phnum, info->dlpi_addr,
			   ps->probe))
		return 0;
	/* The program without a PT_PHDR (describe_object() asked auxv
	 * first): dladdr's name for it all the same. */
	if (info->dlpi_phdr == (const ElfW(Phdr) *)sk__os_aux(SK__AUX_PHDR))
		obj->path = sk__elf_program_name();
	else if (info->dlpi_name)
		obj->path = info->dlpi_name;
	take_segments(obj, info->dlpi_phdr, info->dlpi_phnum, info->dlpi_addr);
	return 1;
}

/*
 * Path and executable segments of the object that holds @probe: what
 * dladdr() would say.  The main program's come from the kernel's auxv, with
 * no call into the dynamic linker; another object's from one pass of
 * dl_iterate_phdr(), which takes the dynamic linker's lock (which dlopen
 * holds while our constructors run): so this runs before the patch lock is
 * taken.
 */
void sk__os_image_of(const void *probe, struct sk__image *img)
{
	struct phdr_search ps = { (uintptr_t)probe, img };
	const ElfW(Phdr) *ph;
	size_t n;
	uintptr_t bias;

	*img = (struct sk__image){ .path = "" };
	if (program_headers(&ph, &n, &bias) &&
	    segments_hold(ph, n, bias, (uintptr_t)probe)) {
		img->path = sk__elf_program_name();
		take_segments(img, ph, n, bias);
		return;
	}
	dl_iterate_phdr(find_segments, &ps);
}

bool sk__os_in_program(const void *addr)
{
	const ElfW(Phdr) *ph;
	size_t n;
	uintptr_t bias;

	return program_headers(&ph, &n, &bias) &&
	       segments_hold(ph, n, bias, (uintptr_t)addr);
}

void sk__os_pin_image(const void *addr)
{
	Dl_info info;

	if (!dladdr(addr, &info) || !info.dli_fname || !*info.dli_fname)
		return;
	(void)dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD | RTLD_NODELETE);
}
