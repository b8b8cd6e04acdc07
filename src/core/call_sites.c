/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * src/core/call_sites.c - where an object calls its static calls'
 * trampolines: the call sites that updates re-point at the target itself
 * (the kernel's inline static calls, HAVE_STATIC_CALL_INLINE), so that a
 * call costs what a direct call costs, not a call and a jump.
 *
 * The kernel knows its call sites because objtool records them at build
 * time; a C compiler records nothing, but a link with -Wl,--emit-relocs
 * keeps every relocation of the code in the file, and the ones that fill
 * a call's or a tail jump's rel32 with a trampoline's address are exactly
 * its call sites.  They are read once per object, at the first update of
 * one of its static calls to another target (core/static_call.c says why
 * not at registration), under the patch lock, in the library's one place
 * for files, and each is taken only if all of these hold: the
 * relocation's kind and addend are a call's (arch: sk__arch_call_reloc),
 * the instruction in memory is a direct call or jump whose destination is
 * a trampoline of this object (known by its shape, sk__arch_call_slot),
 * and the file holds the same bytes as memory there (a file replaced on
 * disk gives nothing).  What another tool has written over since is
 * refused at the update, as a key's site is.
 *
 * A call through the GOT entry of a trampoline (how rustc calls the one
 * its macro assembled) is made a direct call first (make_direct, below).
 *
 * Only calls from the object that defines the static call are found: from
 * another object they go through its PLT, not to the trampoline.  A link
 * without --emit-relocs has none, and its calls keep going through the
 * trampoline, as before.
 */
#include <errno.h>
#include <string.h>

#include "core/core.h"
#include "support/mem.h"
#include "support/message.h"

/* An object whose relocations were read, and the call sites found. */
struct scanned {
	struct scanned *next;
	uintptr_t lo, hi;
	struct sk__call_site *v; /* .addr, and .insn: the call as found */
	uintptr_t *tramp;        /* each one's trampoline */
	size_t n;
	uintptr_t *through;      /* the trampolines of calls found that stay
				  * calls through the GOT (make_direct) */
	size_t nthrough;
	int why;                 /* SK_CALL_SITES_*: what the file kept */
};

static struct scanned *scanned; /* under the patch lock */

#define MAX_SITES 8192 /* call sites an object may have found (64 KiB) */

static bool in_code(const struct sk__image *img, uintptr_t lo, uintptr_t hi)
{
	for (unsigned i = 0; i < img->nsegments; i++)
		if (lo >= img->segments[i].lo && hi <= img->segments[i].hi)
			return true;
	return false;
}

/* The relocated field at @field fills a call or jump to one of this
 * object's trampolines, directly or through its GOT entry. */
static bool want(void *ctx, uintptr_t field, enum sk__os_reloc_kind kind,
		 int64_t addend)
{
	const struct sk__image *img = ctx;
	uintptr_t site, dest;

	switch (sk__arch_call_reloc(kind, addend)) {
	case SK__CALL_DIRECT:
		if (!in_code(img, field - sk__arch_call_site_before, field + 4) ||
		    !sk__arch_call_site(field, &site, &dest))
			return false;
		break;
	case SK__CALL_GOT:
		if (!in_code(img, field - sk__arch_call_site_got_before,
			     field + 4) ||
		    !sk__arch_call_site_got(field, &dest))
			return false;
		break;
	default:
		return false;
	}
	return in_code(img, dest, dest + 1) &&
	       sk__arch_call_slot(sk__arch_call_jump(dest));
}

/*
 * A call through the GOT to a trampoline (rustc's calls: arch/backend.h,
 * sk__arch_call_site_direct) is made a direct call to the trampoline here,
 * once, so that updates can re-point it as any call site: only while the
 * process has one thread (the first update made before any thread was
 * created) and the writer writes in one system call (procmem), so that no
 * thread and no signal handler can run it half written.  Otherwise it
 * stays a call through the GOT, which reaches the trampoline, correctly.
 */
static bool make_direct(uintptr_t field)
{
	if (!sk__os_single_threaded() || sk__os_writer_ready() != 0 ||
	    !sk__os_writer_one_call())
		return false;
	int r = sk__arch_call_site_direct(field);

	if (r)
		sk__warn("the call through the GOT whose displacement is at "
			 "%p stays one (%s)", (void *)field, strerror(-r));
	return r == 0;
}

/* The fields in address order, so that every static call's sites come
 * sorted (core/static_call.c merges them).  A link writes each section's
 * relocations in address order, and the sections in order, so they
 * nearly always are (sk__sort then only checks). */
static int field_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* What @kept and the scan's result @n say of the object's calls. */
static int why_of(enum sk__os_relocs kept, long n)
{
	if (n < 0)
		return SK_CALL_SITES_UNREADABLE; /* or more than MAX_SITES */
	switch (kept) {
	case SK__RELOCS_KEPT:
		return SK_CALL_SITES_FOUND;
	case SK__RELOCS_NONE:
		return SK_CALL_SITES_NO_RELOCS;
	case SK__RELOCS_STRIPPED:
		return SK_CALL_SITES_STRIPPED;
	case SK__RELOCS_NOT_KEPT:
		return SK_CALL_SITES_NOT_PATCHED; /* Windows, macOS */
	default:
		return SK_CALL_SITES_UNREADABLE;
	}
}

static struct scanned *scan(const struct sk__image *img)
{
	uint64_t *fields = sk__mem_alloc(MAX_SITES * sizeof(*fields));
	struct scanned *s = sk__mem_alloc(sizeof(*s));
	enum sk__os_relocs kept = SK__RELOCS_UNREADABLE;
	long n = -ENOMEM;

	if (fields && s) {
		sk__os_fdslot_lend();
		/* Only relocations against a trampoline's symbol (the
		 * headers' SK__SC_TRAMP names: sk__sct_NAME; the Rust crate's
		 * sk__sct_PATH::NAME). */
		n = sk__os_text_relocs(img->path, sk__os_in_program((void *)img->lo),
				       img->bias, "sk__sct_",
				       sk__arch_call_site_before, want,
				       (void *)img, fields, MAX_SITES, &kept);
		sk__os_fdslot_return();
	}
	if (n == -ENOMEM || !s) {
		sk__mem_free(fields);
		sk__mem_free(s);
		return NULL;
	}
	memset(s, 0, sizeof(*s));
	s->lo = img->lo;
	s->hi = img->hi;
	s->why = why_of(kept, n);
	/* A file that cannot be read (gone, or more sites than we take):
	 * none, and it is not read again for the object's other calls. */
	if (n < 0)
		n = 0;
	sk__sort(fields, (size_t)n, sizeof(*fields), field_cmp);
	s->v = n ? sk__mem_alloc((size_t)n * sizeof(*s->v)) : NULL;
	s->tramp = n ? sk__mem_alloc((size_t)n * sizeof(*s->tramp)) : NULL;
	s->through = n ? sk__mem_alloc((size_t)n * sizeof(*s->through)) : NULL;
	if (n && (!s->v || !s->tramp || !s->through)) {
		n = 0;
		s->why = SK_CALL_SITES_UNREADABLE;
	}
	bool made_direct = false;
	for (long i = 0; i < n; i++) {
		uintptr_t site, dest, field = (uintptr_t)fields[i];
		/* Read again: want() said yes to this field a moment ago,
		 * a direct call's or one through the GOT. */
		if (!sk__arch_call_site(field, &site, &dest)) {
			if (!make_direct(field)) {
				if (sk__arch_call_site_got(field, &dest))
					s->through[s->nthrough++] = dest;
				continue;
			}
			made_direct = true;
			if (!sk__arch_call_site(field, &site, &dest))
				continue;
		}
		s->v[s->n].addr = site;
		memcpy(s->v[s->n].insn, (const void *)site, sk__arch_site_size);
		s->tramp[s->n++] = dest;
	}
	/* One core sync for every call made direct: this thread runs them
	 * next, and no other thread exists. */
	if (made_direct)
		(void)sk__os_sync_cores();
	sk__mem_free(fields);
	return s;
}

int sk__call_sites_find_locked(uintptr_t tramp, const struct sk__image *img,
			       struct sk__call_site **out, size_t *nout,
			       size_t *through, int *why)
{
	struct scanned *s = scanned;

	*out = NULL;
	*nout = 0;
	*through = 0;
	*why = SK_CALL_SITES_NOT_PATCHED;
	if (!sk__arch_call_site_before)
		return 0;
	*why = SK_CALL_SITES_UNREADABLE;
	if (img->hi <= img->lo)
		return 0; /* the loader did not say which object holds it */
	while (s && !(tramp >= s->lo && tramp < s->hi))
		s = s->next;
	if (!s) {
		s = scan(img);
		if (!s)
			return -ENOMEM;
		s->next = scanned;
		scanned = s;
	}
	*why = s->why;
	for (size_t i = 0; i < s->nthrough; i++)
		*through += s->through[i] == tramp;
	size_t n = 0;
	for (size_t i = 0; i < s->n; i++)
		n += s->tramp[i] == tramp;
	if (!n)
		return 0;
	struct sk__call_site *v = sk__mem_alloc(n * sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (size_t i = 0, k = 0; i < s->n; i++)
		if (s->tramp[i] == tramp)
			v[k++] = s->v[i];
	*out = v;
	*nout = n;
	return 0;
}

void sk__call_sites_forget_locked(uintptr_t lo, uintptr_t hi)
{
	for (struct scanned **pp = &scanned; *pp;) {
		struct scanned *s = *pp;
		if (s->lo >= lo && s->lo < hi) {
			*pp = s->next;
			sk__mem_free(s->v);
			sk__mem_free(s->tramp);
			sk__mem_free(s->through);
			sk__mem_free(s);
		} else {
			pp = &s->next;
		}
	}
}
