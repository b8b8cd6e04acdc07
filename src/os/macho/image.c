/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * src/os/macho/image.c - the loaded object that holds an address (os/os.h,
 * "image"), as macOS's dyld tells it.
 *
 * dladdr() names the image and gives its Mach-O header; the header's
 * LC_SEGMENT_64 commands give its segments, slid by the same amount as the
 * header itself is from its __TEXT segment's link address.  Nothing is
 * patched on macOS, so the executable segments serve only to tell which
 * object a key or a site belongs to.
 */
#include <dlfcn.h>
#include <mach-o/dyld.h>
#include <mach-o/loader.h>
#include <string.h>
#include <sys/mman.h>

#include "os/os.h"

/* The image's span and executable segments, from its load commands. */
static void take_segments(struct sk__image *img,
			  const struct mach_header_64 *mh)
{
	const struct load_command *lc = (const void *)(mh + 1);
	uintptr_t slide = 0;
	bool have_slide = false;

	img->lo = UINTPTR_MAX;
	for (uint32_t i = 0; i < mh->ncmds; i++) {
		if (lc->cmd == LC_SEGMENT_64) {
			const struct segment_command_64 *sg = (const void *)lc;
			if (!have_slide && !strcmp(sg->segname, "__TEXT")) {
				slide = (uintptr_t)mh - sg->vmaddr;
				have_slide = true;
			}
		}
		lc = (const void *)((const char *)lc + lc->cmdsize);
	}
	img->bias = slide;
	lc = (const void *)(mh + 1);
	for (uint32_t i = 0; i < mh->ncmds; i++) {
		const struct segment_command_64 *sg = (const void *)lc;
		lc = (const void *)((const char *)lc + lc->cmdsize);
		if (sg->cmd != LC_SEGMENT_64 || sg->vmsize == 0 ||
		    !strcmp(sg->segname, "__PAGEZERO"))
			continue;
		uintptr_t lo = slide + sg->vmaddr, hi = lo + sg->vmsize;
		img->lo = lo < img->lo ? lo : img->lo;
		img->hi = hi > img->hi ? hi : img->hi;
		if (!(sg->initprot & VM_PROT_EXECUTE) ||
		    img->nsegments == SK__IMAGE_SEGMENTS)
			continue;
		struct sk__segment *seg = &img->segments[img->nsegments++];
		seg->lo = lo;
		seg->hi = hi;
		seg->prot = PROT_EXEC | PROT_READ;
	}
}

void sk__os_image_of(const void *probe, struct sk__image *img)
{
	Dl_info info;

	*img = (struct sk__image){ .path = "" };
	if (!dladdr(probe, &info) || !info.dli_fbase)
		return;
	/* The main program's name as it was started, as on ELF systems. */
	img->path = info.dli_fbase == (void *)_dyld_get_image_header(0)
			    ? sk__os_argv0()
			    : info.dli_fname ? info.dli_fname : "";
	take_segments(img, info.dli_fbase);
}

bool sk__os_in_program(const void *addr)
{
	Dl_info info;

	return dladdr(addr, &info) &&
	       info.dli_fbase == (void *)_dyld_get_image_header(0);
}

void sk__os_pin_image(const void *addr)
{
	Dl_info info;

	if (!dladdr(addr, &info) || !info.dli_fname || !*info.dli_fname)
		return;
	(void)dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD | RTLD_NODELETE);
}
