/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * src/core/objects.c - the registry of linked objects, their sites and keys.
 *
 * Each executable, shared library and dlopen'd plugin that contains sites or
 * keys registers itself from its constructors (statickeys/object.h) and
 * unregisters from its destructors, which the dynamic linker runs before it
 * unmaps the object.  Unregistering takes the patch lock, so it waits for any
 * batch that may be writing into the object, and it removes the object's
 * sites from the trap handler's index (waiting out readers) before returning:
 * no update writes into the object and no trap is resolved against it once
 * its memory can go away.
 *
 * A key may have sites in any object: the entry names the key through the
 * object's GOT, so the dynamic linker resolves it wherever it is defined.
 * Like the kernel's modules, an object registered after some of its keys
 * changed is patched before its constructors finish, i.e. before dlopen()
 * returns.  Registration runs from priority-101 constructors, before the
 * object's ordinary constructors can run a site.
 *
 * Keys that live in unloadable objects follow the dynamic linker's rule,
 * which matches the kernel's for modules: an object whose GOT binds to a
 * symbol of a dlopen'd object makes glibc keep that object loaded for as
 * long as the user is (a "relocation dependency"), so a key never goes away
 * while sites in another object still name it; dlclose() of the key's own
 * handle then only drops a reference.  When the last user goes, the key and
 * every site naming it go in the same dlclose().  An unloaded key is gone
 * from the registry (names, introspection); a plugin loaded again starts
 * from its keys' initial states.
 *
 * Lock order: the dynamic linker's lock, then the patch lock.  glibc's
 * dlopen() and dlclose() hold the former while running our constructors and
 * destructors, which take the latter; so nothing may call into the dynamic
 * linker (dladdr, dl_iterate_phdr, dlopen, dlsym) while holding the patch
 * lock, which is why an object is described before the lock is taken.
 * glibc's fork() does not take the dynamic linker's lock, so our fork
 * handler holding the patch lock cannot deadlock with a dlopen() either.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "core/core.h"
#include "support/mem.h"
#include "support/message.h"

struct sk__object *sk__objects;
void (*sk__object_added_hook)(struct sk__object *obj);
void (*sk__object_removing_hook)(uintptr_t lo, uintptr_t hi);

/*
 * A kernel-style key (statickeys/linux.h) that nobody initialised is a false
 * key, as the kernel's documentation promises; give it the magic the other
 * calls check.  Only for keys named by SK__SITE_LINUX_KEY sites: the native
 * types keep refusing zeroed memory.  A CAS, because the header does the same
 * from the kernel-style calls (sk__linux_key) in any thread.
 */
void sk__key_adopt_zeroed(struct sk_key *key)
{
	unsigned zero = 0;

	if (__atomic_load_n(&key->magic, __ATOMIC_RELAXED) == 0)
		__atomic_compare_exchange_n(&key->magic, &zero, SK__KEY_MAGIC,
					    false, __ATOMIC_RELAXED,
					    __ATOMIC_RELAXED);
}

const struct sk__segment *sk__object_segment_of(const struct sk__object *obj,
						uintptr_t addr)
{
	for (unsigned i = 0; i < obj->nsegments; i++)
		if (addr >= obj->segments[i].lo && addr < obj->segments[i].hi)
			return &obj->segments[i];
	return NULL;
}

/* The object's file for messages: the main program's path may be "". */
static const char *display_name(const struct sk__object *obj)
{
	return obj->path && *obj->path ? obj->path : "the program";
}

/*
 * One runtime per process.  A program that links the static library without
 * exporting it, and loads a plugin linked with the shared one, has two: each
 * patches only the objects registered with it, so a key flipped through one
 * never reaches the other's sites.  To say so instead of failing silently,
 * each runtime stamps the keys its objects define with bits of its own
 * address (bits 1..15 of the key's magic, unused otherwise) and checks the
 * stamp of every key its sites name.
 */
#define RUNTIME_STAMP_MASK 0xfffeu

static unsigned runtime_stamp(void)
{
	unsigned s = (unsigned)((uintptr_t)&sk__objects >> 3) &
		     RUNTIME_STAMP_MASK;

	return s ? s : 2;
}

static void stamp_keys(const struct sk__object *obj, unsigned stamp)
{
	for (size_t i = 0; i < obj->nkeys; i++) {
		unsigned *m = &obj->keys[i]->magic;
		unsigned old = __atomic_load_n(m, __ATOMIC_RELAXED);
		if (!(old & RUNTIME_STAMP_MASK))
			__atomic_compare_exchange_n(m, &old, old | stamp, false,
						    __ATOMIC_RELAXED,
						    __ATOMIC_RELAXED);
	}
}

/* A site whose key another runtime stamped: say so once per process. */
static inline void check_one_runtime(const struct sk__object *obj,
				     const struct sk_key *key, unsigned stamp)
{
	/* A word, not a bool: riscv64 has no one-byte atomic exchange
	 * instruction, and gcc would call libatomic for it. */
	static unsigned warned;
	unsigned other = __atomic_load_n(&key->magic, __ATOMIC_RELAXED) &
			 RUNTIME_STAMP_MASK;

	if (__builtin_expect(!other || other == stamp, 1) ||
	    __atomic_exchange_n(&warned, 1u, __ATOMIC_RELAXED))
		return;
	sk__warn("key '%s', used by %s, belongs to another copy of the "
		 "statickeys runtime in this process: updates through one copy "
		 "do not reach the other's sites; link one runtime only (see "
		 "docs/shared-objects.md, \"One runtime per process\")",
		 key->name, display_name(obj));
}

/* Say why a site will never change: its key is missing or not a key. */
static void warn_bad_site(const struct sk__object *obj,
			  const struct sk__site_entry *e)
{
	struct sk_key *key = sk__entry_key(e);
	void *code = (void *)sk__entry_code(e);

	if (!e->code)
		return; /* no site (sk__entry_key) */
	if (!key)
		sk__warn("site %p in %s names an undefined weak key; it keeps "
			 "its compiled direction", code, display_name(obj));
	else
		sk__warn("site %p in %s names %p, which is not a key defined "
			 "with SK_DEFINE_KEY_*; ignoring the site", code,
			 display_name(obj), (void *)key);
}

/* A site scan_sites() does not pass at a glance: a kernel-style one, one
 * whose key is missing or not a key, or whose key another runtime stamped.
 * Returns whether it names a valid key. */
static __attribute__((noinline, cold)) bool
scan_unusual_site(const struct sk__object *obj, const struct sk__site_entry *e,
		  unsigned stamp)
{
	struct sk_key *key = sk__entry_key(e);

	if (key && ((unsigned)e->flags & SK__SITE_LINUX_KEY))
		sk__key_adopt_zeroed(key);
	if (!sk__key_is_valid(key)) {
		warn_bad_site(obj, e);
		return false;
	}
	check_one_runtime(obj, key, stamp);
	return true;
}

/*
 * The one pass over an object's site entries that registration makes before
 * taking the lock: count the valid ones, give kernel-style zeroed keys their
 * magic, warn about the others and about keys of another runtime.  Nothing
 * is copied: updates read the entries in place (site_index.c).  A key this
 * object defines has no stamp yet (stamp_keys runs under the lock), which is
 * right: it is this runtime's.
 *
 * Start-up pays this loop per site, so the usual site (a native one whose
 * key is valid and this runtime's: sk__key_is_valid() and
 * check_one_runtime() in one comparison of the magic) costs about twenty
 * instructions; everything else is left to scan_unusual_site().
 */
static void scan_sites(struct sk__object *obj,
		       const struct sk__site_entry *start,
		       const struct sk__site_entry *stop)
{
	size_t n = start && stop > start ? (size_t)(stop - start) : 0;
	size_t unusual = 0, unusual_valid = 0, linux_style = 0;
	unsigned stamp = runtime_stamp();

	if (n && sk__arch_site_size == 0) {
		/* The portable backend patches nothing (arch/portable/). */
		sk__warn("%s has %zu sites compiled for code patching, but this "
			 "runtime is the portable backend; they keep their "
			 "compiled direction: rebuild it with -DSK_NO_ASM_GOTO "
			 "(statickeys.pc and the CMake package add it)",
			 display_name(obj), n);
		n = 0;
	}
	for (size_t i = 0; i < n; i++) {
		const struct sk__site_entry *e = &start[i];
		const struct sk_key *key = sk__entry_key(e);
		/* The magic without the initial state: SK__KEY_MAGIC, with no
		 * runtime's stamp or with ours. */
		unsigned m = key ? __atomic_load_n(&key->magic, __ATOMIC_RELAXED) &
					   ~SK__KEY_INIT_TRUE
				 : 0;

		if (__builtin_expect(!((unsigned)e->flags & SK__SITE_LINUX_KEY) &&
				     (m == SK__KEY_MAGIC ||
				      m == (SK__KEY_MAGIC | stamp)), 1))
			continue;
		unusual++;
		if (!scan_unusual_site(obj, e, stamp))
			continue;
		unusual_valid++;
		linux_style += ((unsigned)e->flags & SK__SITE_LINUX_KEY) != 0;
	}
	obj->nentries = n;
	obj->nsites = n - unusual + unusual_valid;
	obj->nlinux = linux_style;
}

/*
 * Path and executable segments of the object that holds @probe, from the OS
 * layer's loader (os/os.h: sk__os_image_of), which runs before the patch
 * lock is taken: it may take the dynamic linker's.
 */
static void describe_object(struct sk__object *obj, const void *probe)
{
	struct sk__image img;

	sk__os_image_of(probe, &img);
	obj->path = img.path;
	obj->bias = img.bias;
	obj->lo = img.lo;
	obj->hi = img.hi;
	obj->nsegments = img.nsegments;
	for (unsigned i = 0; i < img.nsegments; i++)
		obj->segments[i] = img.segments[i];
}

/* Does the object's table ascend by site address (the usual layout:
 * compilers and linkers emit sites in code order)?  The trap handler then
 * searches it by halves.  Asked when the table is first published, not at
 * registration: start-up pays per site only what it must. */
static bool entries_ascend(const struct sk__object *obj)
{
	uintptr_t last = 0;

	for (size_t i = 0; i < obj->nentries; i++) {
		uintptr_t code = sk__entry_code(&obj->sites_start[i]);
		if (code <= last)
			return false;
		last = code;
	}
	return true;
}

/* Set by the first batch (sk__objects_publish_traps): before it no site was
 * ever changed, so no trap can be ours and the handler needs no index. */
static bool traps_published;

/*
 * Give the trap handler every registered object's site table (in place:
 * one small record per object); returns once no handler can still be
 * reading the previous list.  Without memory for the new list the handler
 * gets none at all rather than a stale one that may name an unloaded
 * object's code: a late trap is then passed on to the previous SIGTRAP
 * handler, a trap during a batch is still resolved.
 */
static void publish_site_index(void)
{
	size_t n = 0, k = 0;

	if (!traps_published)
		return;
	for (struct sk__object *o = sk__objects; o; o = o->next)
		n += o->nentries != 0;
	struct sk__site_table *t = n ? sk__mem_alloc(n * sizeof(*t)) : NULL;
	if (n && !t) {
		sk__warn("out of memory indexing sites for the trap handler");
		sk__trap_set_sites(NULL, 0);
		return;
	}
	for (struct sk__object *o = sk__objects; o; o = o->next) {
		if (!o->nentries)
			continue;
		if (o->sorted < 0)
			o->sorted = entries_ascend(o);
		t[k++] = (struct sk__site_table){ o->lo, o->hi, o->sites_start,
						  o->nentries,
						  (size_t)o->sorted };
	}
	sk__trap_set_sites(t, n);
}

void sk__objects_publish_traps(void)
{
	if (traps_published)
		return;
	traps_published = true;
	publish_site_index();
}

/* The first object registered (the program, or the first library of its
 * start-up with sites or keys) is kept here: start-up allocates nothing.
 * malloc's first use (its arena, a getrandom and two brk calls) costs more
 * than registering 1,000 sites. */
static struct sk__object first_object;
static unsigned first_object_taken; /* a word: see check_one_runtime */

static struct sk__object *object_alloc(void)
{
	struct sk__object *obj = &first_object;

	if (!__atomic_exchange_n(&first_object_taken, 1u, __ATOMIC_ACQUIRE))
		memset(obj, 0, sizeof(*obj));
	else
		obj = calloc(1, sizeof(*obj));
	if (obj)
		obj->sorted = -1; /* not known yet: entries_ascend() */
	return obj;
}

static void object_free(struct sk__object *obj)
{
	if (!obj)
		return;
	sk__key_index_free(obj->by_key);
	if (obj->keys_owned)
		free(obj->keys);
	if (obj == &first_object)
		__atomic_store_n(&first_object_taken, 0u, __ATOMIC_RELEASE);
	else
		free(obj);
}

/* Give @obj a copy of its key list that it may change, with room for
 * @extra more.  Return: 0 or -ENOMEM (the list is unchanged). */
static int keys_own(struct sk__object *obj, size_t extra)
{
	struct sk_key **keys;
	size_t n = obj->nkeys + extra ? obj->nkeys + extra : 1; /* not 0 */

	if (obj->keys_owned) {
		keys = realloc(obj->keys, n * sizeof(*keys));
	} else {
		keys = malloc(n * sizeof(*keys));
		if (keys && obj->nkeys)
			memcpy(keys, obj->keys, obj->nkeys * sizeof(*keys));
	}
	if (!keys)
		return -ENOMEM;
	obj->keys = keys;
	obj->keys_owned = true;
	return 0;
}

/*
 * Kernel-style keys initialised without a name (STATIC_KEY_INIT_*, zeroed
 * memory: statickeys/linux.h) take the name their site spells ("&old_key"
 * gives "old_key", "&__tracepoint_foo.key" "__tracepoint_foo.key") from the
 * first site in the object that holds the key, and that object lists them,
 * so snapshots and skctl show them like defined keys.  The string belongs to
 * the same object as the key, so it lives as long as the key.  Sites in
 * other objects do not name a key: their strings could unload first.
 */
static int name_linux_keys(struct sk__object *obj,
			   const struct sk__site_entry *start,
			   const struct sk__site_entry *stop)
{
	size_t n = start && stop > start ? (size_t)(stop - start) : 0;

	for (size_t i = 0; i < n; i++) {
		const struct sk__site_entry *e = &start[i];
		if (!((unsigned)e->flags & SK__SITE_LINUX_KEY))
			continue;
		const void *const *slot =
			(const void *const *)((const char *)&e->key + e->key);
		struct sk_key *key = (struct sk_key *)slot[0];
		const char *spelled = slot[1];
		if (!key || !spelled || key->name || !sk__key_is_valid(key) ||
		    (uintptr_t)key < obj->lo || (uintptr_t)key >= obj->hi)
			continue;
		if (keys_own(obj, 1) != 0)
			return -ENOMEM;
		obj->keys[obj->nkeys++] = key;
		while (*spelled == '&' || *spelled == ' ')
			spelled++;
		/* No one reads it yet: the key is listed by no registered object. */
		key->name = spelled;
	}
	return 0;
}

static int ptr_cmp(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t)*(struct sk_key *const *)a;
	uintptr_t y = (uintptr_t)*(struct sk_key *const *)b;

	return x < y ? -1 : x > y;
}

/* An object lists each key once: the C++ front end (statickeys.hpp) lists a
 * key next to each of its sites, so one object may list it several times. */
static void unique_keys(struct sk__object *obj)
{
	size_t kept = 0;

	if (obj->nkeys < 2)
		return;
	/* C and Rust list each key once, in address order: nothing to do. */
	bool ascending = true;
	for (size_t i = 1; i < obj->nkeys && ascending; i++)
		ascending = (uintptr_t)obj->keys[i - 1] < (uintptr_t)obj->keys[i];
	if (ascending || keys_own(obj, 0) != 0)
		return; /* without memory a key may be listed twice */
	qsort(obj->keys, obj->nkeys, sizeof(*obj->keys), ptr_cmp);
	for (size_t i = 0; i < obj->nkeys; i++)
		if (kept == 0 || obj->keys[kept - 1] != obj->keys[i])
			obj->keys[kept++] = obj->keys[i];
	obj->nkeys = kept;
}

/* The object's key table, in place when every entry is a valid key (the
 * rule: SK_DEFINE_KEY_* lists only its own keys), else the valid ones. */
static int list_keys(struct sk__object *obj, struct sk_key *const *k0,
		     size_t nkeys)
{
	size_t valid = 0;

	for (size_t i = 0; i < nkeys; i++)
		valid += sk__key_is_valid(k0[i]);
	obj->keys = (struct sk_key **)k0; /* read only until keys_own() */
	obj->nkeys = valid == nkeys ? nkeys : 0;
	if (valid == nkeys)
		return 0;
	if (keys_own(obj, valid) != 0)
		return -ENOMEM;
	for (size_t i = 0; i < nkeys; i++)
		if (sk__key_is_valid(k0[i]))
			obj->keys[obj->nkeys++] = k0[i];
	return 0;
}

static struct sk__object *object_build(const struct sk__site_entry *s0,
				       const struct sk__site_entry *s1,
				       struct sk_key *const *k0,
				       struct sk_key *const *k1)
{
	struct sk__object *obj = object_alloc();
	size_t nkeys = k0 && k1 > k0 ? (size_t)(k1 - k0) : 0;

	if (!obj)
		return NULL;
	describe_object(obj, s0 ? (const void *)s0 : (const void *)k0);
	if (!obj->path)
		goto fail;
	obj->sites_start = s0;
	scan_sites(obj, s0, s1);
	if (list_keys(obj, k0, nkeys) != 0)
		goto fail;
	if (name_linux_keys(obj, s0, s1) != 0)
		goto fail;
	unique_keys(obj);
	return obj;
fail:
	object_free(obj);
	return NULL;
}

static bool object_holds(const struct sk__object *obj, const void *p)
{
	return (uintptr_t)p >= obj->lo && (uintptr_t)p < obj->hi;
}

/* The registered object that lists @key, with its index in *at, or NULL. */
static struct sk__object *key_lister(const struct sk_key *key, size_t *at)
{
	for (struct sk__object *o = sk__objects; o; o = o->next)
		for (size_t i = 0; i < o->nkeys; i++)
			if (o->keys[i] == key) {
				*at = i;
				return o;
			}
	return NULL;
}

/*
 * Two objects list the same key when both define the identifier and one
 * definition is reached from both: ELF interposition (an RTLD_GLOBAL
 * plugin's key preempts a later plugin's own, the program's preempts a
 * library's) or a copy relocation (a non-PIE program's copy of a library
 * key, listed by the library only).  Keep one listing per key so names and
 * introspection see each key once: the object whose memory holds the key
 * if it lists it, else the one that registered first.  The other
 * definition has no site and no name.  Ownership never moves to an object
 * that can unload first: an object whose GOT binds to another's key keeps
 * that object loaded.
 */
static void settle_key_owners(struct sk__object *obj)
{
	size_t kept = 0, at;
	bool shared = false;

	for (size_t i = 0; i < obj->nkeys && !shared; i++)
		shared = key_lister(obj->keys[i], &at) != NULL;
	/* Usually no key is listed twice, and the lists stay as they are.
	 * Without memory for copies, a key stays listed twice. */
	if (!shared || keys_own(obj, 0) != 0)
		return;
	for (size_t i = 0; i < obj->nkeys; i++) {
		struct sk_key *key = obj->keys[i];
		struct sk__object *other = key_lister(key, &at);
		if (other) {
			if (!object_holds(obj, key) || object_holds(other, key))
				continue;
			if (keys_own(other, 0) != 0)
				continue;
			other->keys[at] = other->keys[--other->nkeys];
		}
		obj->keys[kept++] = key;
	}
	obj->nkeys = kept;
}

/*
 * The registered object whose tables start at these addresses, or NULL.
 * Each linked object has one pair of __start_ symbols, so equal bounds are
 * the same object registering through a second handle (its C constructor
 * and its Rust one).  Objects with neither table never get here.
 */
static struct sk__object *
registered_tables(const struct sk__site_entry *sites_start,
		  struct sk_key *const *keys_start)
{
	for (struct sk__object *o = sk__objects; o; o = o->next)
		if (o->sites_start == sites_start &&
		    o->keys_start == keys_start)
			return o;
	return NULL;
}

/*
 * The runtime installs process-wide handlers (SIGTRAP, fork) that point into
 * the object containing it, so that object must never be unmapped.  The
 * shared library is linked -z nodelete (SK_RUNTIME_NODELETE: nothing to do
 * here); a copy of the static library inside a plugin is pinned here, when
 * it first registers an object.  A copy linked into the program needs no
 * pin: its own segments, from auxv, tell so without asking the dynamic
 * linker.
 */
static void pin_runtime(void)
{
#ifdef SK_RUNTIME_NODELETE
	/* The shared library, linked -z nodelete: pinned already. */
	return;
#endif
	static unsigned pinned; /* a word: see check_one_runtime */

	if (__atomic_exchange_n(&pinned, 1u, __ATOMIC_RELAXED))
		return;
	/* Linked into the program: nothing unloads it, and a NOLOAD lookup
	 * of the program's own path would open the file to compare it. */
	if (sk__os_in_program((const void *)&sk__objects_add))
		return;
	sk__os_pin_image((const void *)&sk__objects_add);
}

/*
 * Objects that include the headers but have no sites and no keys (a plugin
 * that only holds a static call's target) are not built into the registry:
 * only their handles are kept, so that their unloading can still be told
 * (sk__object_removing_hook) and a static call that targets one need not
 * pin it.  Their span is looked up when asked (rare), not at start-up.
 */
static struct sk__object_handle **quiet;
static size_t nquiet, quiet_cap;

static void quiet_add(struct sk__object_handle *handle)
{
	if (sk__lock_from_loader() != 0)
		return;
	if (nquiet == quiet_cap) {
		size_t cap = quiet_cap ? quiet_cap * 2 : 16;
		void *v = sk__mem_realloc(quiet, cap * sizeof(*quiet));
		if (!v) {
			sk__unlock();
			return; /* it unloads untold: targets in it are pinned */
		}
		quiet = v;
		quiet_cap = cap;
	}
	quiet[nquiet++] = handle;
	sk__unlock();
}

/* Remove @handle from the quiet ones; whether it was there. */
static bool quiet_remove_locked(const struct sk__object_handle *handle)
{
	for (size_t i = 0; i < nquiet; i++)
		if (quiet[i] == handle) {
			quiet[i] = quiet[--nquiet];
			return true;
		}
	return false;
}

bool sk__objects_quiet_in(uintptr_t lo, uintptr_t hi)
{
	for (size_t i = 0; i < nquiet; i++)
		if ((uintptr_t)quiet[i] >= lo && (uintptr_t)quiet[i] < hi)
			return true;
	return false;
}

/* A quiet object unloads: tell the hook its span (looked up before the
 * lock: the OS's loader may take the dynamic linker's lock). */
static void quiet_unregister(struct sk__object_handle *handle)
{
	struct sk__image img;

	if (sk__lock_from_loader() != 0)
		return;
	bool was = quiet_remove_locked(handle);
	sk__unlock();
	if (!was || !sk__object_removing_hook)
		return;
	sk__os_image_of(handle, &img);
	if (img.hi <= img.lo || sk__lock_from_loader() != 0)
		return;
	sk__object_removing_hook(img.lo, img.hi);
	sk__unlock();
}

void sk__objects_add(struct sk__object_handle *handle,
		     const struct sk__site_entry *sites_start,
		     const struct sk__site_entry *sites_stop,
		     struct sk_key *const *keys_start,
		     struct sk_key *const *keys_stop,
		     int (*settle)(struct sk__object *obj))
{
	if (__atomic_fetch_add(&handle->refs, 1, __ATOMIC_ACQ_REL) != 0)
		return;
	pin_runtime();
	if (!sites_start && !keys_start) {
		quiet_add(handle);
		return;
	}
	struct sk__object *obj =
		object_build(sites_start, sites_stop, keys_start, keys_stop);
	if (!obj) {
		sk__warn("out of memory registering an object; its sites stay "
			 "as compiled");
		return;
	}
	if (sk__lock_from_loader() != 0) {
		sk__warn("%s is loading from inside a key update; its sites "
			 "stay as compiled", display_name(obj));
		object_free(obj);
		return;
	}
	struct sk__object *same = registered_tables(sites_start, keys_start);
	if (same) {
		/* Another handle registered these very tables: a C and a Rust
		 * constructor of one object.  Count it; sites, keys and the
		 * trap index stay as they are. */
		same->handles++;
		handle->object = same;
		sk__unlock();
		object_free(obj);
		return;
	}
	obj->handle = handle;
	obj->sites_start = sites_start;
	obj->keys_start = keys_start;
	obj->handles = 1;
	settle_key_owners(obj);
	stamp_keys(obj, runtime_stamp());
	obj->next = sk__objects;
	sk__objects = obj;
	handle->object = obj;
	publish_site_index();
	int r = settle(obj);
	if (r)
		sk__warn("could not bring %s's sites in line with their keys "
			 "(%s)", display_name(obj), strerror(-r));
	if (sk__object_added_hook)
		sk__object_added_hook(obj);
	sk__unlock();
}

SK_API void sk__object_unregister(struct sk__object_handle *handle)
{
	if (__atomic_sub_fetch(&handle->refs, 1, __ATOMIC_ACQ_REL) != 0)
		return;
	struct sk__object *obj = handle->object;
	if (!obj) {
		quiet_unregister(handle);
		return;
	}
	/* As a registration, from the dynamic linker (its destructors).  exit()
	 * from a signal handler runs them too: that is fine unless the handler
	 * interrupted this very thread's update (the lock is then ours). */
	if (sk__lock_from_loader() != 0) {
		/* Unlinking the object under that update's feet would be worse;
		 * the process is ending anyway. */
		sk__warn("%s is unloading (exit or dlclose) from a signal "
			 "handler that interrupted this thread's key update; "
			 "its sites stay registered", display_name(obj));
		return;
	}
	handle->object = NULL;
	if (--obj->handles != 0) {
		/* Another handle of the same object still holds it. */
		sk__unlock();
		return;
	}
	if (sk__object_removing_hook)
		sk__object_removing_hook(obj->lo, obj->hi);
	for (struct sk__object **pp = &sk__objects; *pp; pp = &(*pp)->next) {
		if (*pp == obj) {
			*pp = obj->next;
			break;
		}
	}
	handle->object = NULL;
	publish_site_index();
	sk__trap_forget_stuck(obj->lo, obj->hi);
	/* The index is the update path's memory (support/mem.c), whose only lock
	 * is this one: given back before it is released. */
	sk__key_index_free(obj->by_key);
	obj->by_key = NULL;
	sk__unlock();
	object_free(obj);
}

/* The main program is the object whose code holds the entry point. */
bool sk__object_is_program(const struct sk__object *obj)
{
	uintptr_t entry = sk__os_aux(SK__AUX_ENTRY);

	return entry && sk__object_segment_of(obj, (uintptr_t)entry);
}
