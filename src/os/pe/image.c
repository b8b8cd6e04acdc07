/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * src/os/pe/image.c - the loaded object (the program or a DLL) that holds
 * an address, on Windows: GetModuleHandleExW(FROM_ADDRESS) gives the
 * module, whose base is where its PE headers were loaded; their optional
 * header gives its size and preferred base (the bias), their section table
 * its executable sections.
 *
 * The loader's lock: Windows runs DLL constructors (DllMain, and the gcc
 * constructors mingw's CRT calls from it) under it, and GetModuleHandleExW
 * takes it too, from the same thread: a lock it already holds.  As on ELF
 * this runs before the patch lock is taken.
 *
 * Paths are the loader's, in UTF-8, with '/' for '\': the runtime names
 * objects by the part after the last '/' ("plugin.dll:key"), and Windows
 * accepts either separator.  Each distinct path is kept for the process's
 * life (a DLL loaded again reuses its copy).
 */
#include <windows.h>

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "os/os.h"

static const IMAGE_NT_HEADERS *nt_headers(HMODULE m)
{
	const IMAGE_DOS_HEADER *dos = (const IMAGE_DOS_HEADER *)m;

	if (!m || dos->e_magic != IMAGE_DOS_SIGNATURE)
		return NULL;
	const IMAGE_NT_HEADERS *nt =
		(const IMAGE_NT_HEADERS *)((const char *)m + dos->e_lfanew);
	return nt->Signature == IMAGE_NT_SIGNATURE ? nt : NULL;
}

/* The span of module @m and its executable sections. */
static void take_sections(struct sk__image *img, HMODULE m,
			  const IMAGE_NT_HEADERS *nt)
{
	uintptr_t base = (uintptr_t)m;
	const IMAGE_SECTION_HEADER *sec = IMAGE_FIRST_SECTION(nt);

	img->bias = base - (uintptr_t)nt->OptionalHeader.ImageBase;
	img->lo = base;
	img->hi = base + nt->OptionalHeader.SizeOfImage;
	for (unsigned i = 0; i < nt->FileHeader.NumberOfSections; i++) {
		if (!(sec[i].Characteristics & IMAGE_SCN_MEM_EXECUTE) ||
		    img->nsegments == SK__IMAGE_SEGMENTS)
			continue;
		struct sk__segment *seg = &img->segments[img->nsegments++];
		seg->lo = base + sec[i].VirtualAddress;
		seg->hi = seg->lo + sec[i].Misc.VirtualSize;
		seg->prot = 0; /* no code writer on Windows reads it */
	}
}

struct kept_path {
	struct kept_path *next;
	char path[];
};

static pthread_mutex_t paths_lock = PTHREAD_MUTEX_INITIALIZER;
static struct kept_path *paths;

/* @m's file as a kept UTF-8 string with '/' separators; "" if unknown. */
static const char *module_path(HMODULE m)
{
	wchar_t wide[MAX_PATH * 2];
	char utf8[MAX_PATH * 4];
	DWORD n = GetModuleFileNameW(m, wide, sizeof(wide) / sizeof(wide[0]));

	if (n == 0 || n >= sizeof(wide) / sizeof(wide[0]))
		return "";
	int len = WideCharToMultiByte(CP_UTF8, 0, wide, (int)n, utf8,
				      (int)sizeof(utf8) - 1, NULL, NULL);
	if (len <= 0)
		return "";
	utf8[len] = '\0';
	for (char *c = utf8; *c; c++)
		if (*c == '\\')
			*c = '/';
	pthread_mutex_lock(&paths_lock);
	struct kept_path *k = paths;
	while (k && strcmp(k->path, utf8) != 0)
		k = k->next;
	if (!k && (k = malloc(sizeof(*k) + (size_t)len + 1))) {
		memcpy(k->path, utf8, (size_t)len + 1);
		k->next = paths;
		paths = k;
	}
	pthread_mutex_unlock(&paths_lock);
	return k ? k->path : "";
}

static HMODULE module_of(const void *addr, DWORD flags)
{
	HMODULE m = NULL;

	if (!GetModuleHandleExW(GET_MODULE_HANDLE_EX_FLAG_FROM_ADDRESS | flags,
				(LPCWSTR)addr, &m))
		return NULL;
	return m;
}

void sk__os_image_of(const void *probe, struct sk__image *img)
{
	*img = (struct sk__image){ .path = "" };
	HMODULE m = module_of(probe,
			      GET_MODULE_HANDLE_EX_FLAG_UNCHANGED_REFCOUNT);
	const IMAGE_NT_HEADERS *nt = nt_headers(m);

	if (!nt)
		return;
	img->path = module_path(m);
	take_sections(img, m, nt);
}

bool sk__os_in_program(const void *addr)
{
	HMODULE program = GetModuleHandleW(NULL);
	const IMAGE_NT_HEADERS *nt = nt_headers(program);

	return nt && (uintptr_t)addr >= (uintptr_t)program &&
	       (uintptr_t)addr - (uintptr_t)program <
		       nt->OptionalHeader.SizeOfImage;
}

void sk__os_pin_image(const void *addr)
{
	(void)module_of(addr, GET_MODULE_HANDLE_EX_FLAG_PIN);
}
