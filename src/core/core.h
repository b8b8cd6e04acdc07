/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * src/core/core.h - the core's private interfaces (prefix sk__).
 *
 *   key.c        kernel semantics of enable/disable/inc/dec
 *   update.c     key states -> the sites that must change, in batches
 *   objects.c    the registry of linked objects, their sites and keys
 *   site_index.c an object's site entries read in place; its index by key
 *   site_name.c  naming a site in messages (function, object)
 *   lock.c       the patch lock (a futex word naming its owner)
 *   config.c     the public sk_config_* setters
 *   stats.c      sk_stats_get, sk_stats_runtime_bytes (with the names of
 *                the mechanisms in use)
 *
 * Calls go down only: the control plane calls the core, the core calls the
 * architecture (arch/backend.h), the OS layer (os/os.h) and support/,
 * never back up.
 * src/runtime.c wires the layers together at start-up and around fork().
 */
#ifndef SK_CORE_H
#define SK_CORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arch/backend.h"
#include "os/os.h"
#include "statickeys/key.h"
#include "statickeys/object.h"
#include "statickeys/static_call.h"

/* sk__key_is_valid - @key carries the magic of SK_DEFINE_KEY_*. */
static inline bool sk__key_is_valid(const struct sk_key *key)
{
	return key && (key->magic & SK__KEY_MAGIC_MASK) == SK__KEY_MAGIC;
}

/* ---- objects.c: the registry of linked objects ---------------------------------------------------------- */

#define SK__MAX_SEGMENTS SK__IMAGE_SEGMENTS

/* sk__site - a decoded site entry (sk__object_site). */
struct sk__site {
	uintptr_t code;
	uintptr_t target;
	struct sk_key *key;
	unsigned branch; /* 1: sk_branch_likely */
};

/* sk__object - one registered executable or shared object. */
struct sk__object {
	struct sk__object *next;
	struct sk__object_handle *handle;
	/* Its site entries are read where the linker put them (sites_start,
	 * below): nothing per site is copied at registration. */
	size_t nentries;
	size_t nsites; /* entries that name a valid key */
	size_t nlinux; /* of which kernel-style sites (SK__SITE_LINUX_KEY) */
	int sorted;    /* entries ascend by site address (1) or not (0);
			  -1 until the trap handler first needs to know */
	/* Its sites by key: built by the first update that reaches the object
	 * (site_index.c), NULL until then. */
	struct sk__key_index *by_key;
	/* Keys defined in this object; each key is listed by one registered
	 * object only.  Read in place from the object's key table (its
	 * "sk_keys" section) until a change needs a copy of its own
	 * (keys_owned: malloc'd here). */
	struct sk_key **keys;
	size_t nkeys;
	bool keys_owned;
	/* File name, as dladdr() gives it: argv[0] for the main program
	 * (copied once for the process's life: a daemon may write its title
	 * over argv), "" if unknown; another object's name is the dynamic
	 * linker's, which frees it only after the object's destructors
	 * unregistered it. */
	const char *path;
	struct sk__segment segments[SK__MAX_SEGMENTS];
	unsigned nsegments;
	uintptr_t lo, hi; /* the span of all its loaded segments */
	/* The bounds it was registered with, and how many handles did so: a
	 * C constructor and a Rust one (different handles) may register the
	 * same object's tables; the second only counts (objects.c). */
	const struct sk__site_entry *sites_start;
	struct sk_key *const *keys_start;
	unsigned handles;
	uintptr_t bias;   /* load address minus link-time address */
};

/* The registered objects, newest first.  Read and changed under the lock. */
extern struct sk__object *sk__objects;

/* ---- site_index.c: an object's sites, read in place -------------------- */

/* Inline: registration reads every entry of every object through these,
 * and start-up time is what that costs. */

/* sk__object_entry - entry @i (< nentries) of @obj's site table. */
static inline const struct sk__site_entry *
sk__object_entry(const struct sk__object *obj, size_t i)
{
	return &obj->sites_start[i];
}

/* sk__entry_key - the key an entry names (NULL: an undefined weak key, or
 * no site), through the object's GOT slot the entry points at.  An entry
 * whose code field is 0 names no site: a PE table's marker, or the entry of
 * a C++ inline function's COMDAT copy that the linker discarded (GNU ld
 * for PE clears a field that refers to discarded code; ELF's section
 * groups drop such an entry with its code). */
static inline struct sk_key *sk__entry_key(const struct sk__site_entry *e)
{
	if (__builtin_expect(e->code == 0, 0))
		return NULL;
	return *(struct sk_key *const *)((const char *)&e->key + e->key);
}
/* sk__object_site - entry @i of @obj, decoded. */
void sk__object_site(const struct sk__object *obj, size_t i,
		     struct sk__site *out);
/* sk__object_key_sites - the entry numbers of @key's sites in @obj (*n of
 * them, in table order), building the object's index by key at the first
 * call.  Return: 0 or -ENOMEM. */
int sk__object_key_sites(struct sk__object *obj, const struct sk_key *key,
			 const uint32_t **sites, size_t *n);
void sk__key_index_free(struct sk__key_index *ix);

/* ---- objects.c, continued ----------------------------------------------- */

/* sk__object_is_program - @obj is the program itself (not a library or a
 * plugin): the last object to register before main. */
bool sk__object_is_program(const struct sk__object *obj);
/* sk__object_segment_of - the executable segment holding @addr, or NULL. */
const struct sk__segment *sk__object_segment_of(const struct sk__object *obj,
						uintptr_t addr);
/* sk__site_describe - "0x... (function+0xN in /path)" for messages about
 * the code at @addr in @obj; reads the object's symbol table from its file,
 * never the dynamic linker (callable with the patch lock held). */
void sk__site_describe(const struct sk__object *obj, uintptr_t addr,
		       char *buf, size_t len);
/* SK__SITE_TEXT - room for sk__site_bytes()'s text. */
#define SK__SITE_TEXT (3 * SK__SITE_MAX + 1)
/* sk__site_bytes - the site-sized bytes at @b as "cc 0b 00 00 00" (the
 * site's own bytes only: 5 on x86, 4 on aarch64), for messages. */
void sk__site_bytes(const unsigned char *b, char out[SK__SITE_TEXT]);
/* sk__object_of - the registered object whose segments hold @addr. */
const struct sk__object *sk__object_of(uintptr_t addr);
/* sk__key_adopt_zeroed - an all-zero kernel-style key becomes a valid false
 * key (see SK__SITE_LINUX_KEY). */
void sk__key_adopt_zeroed(struct sk_key *key);

/* Called with the lock held after an object is linked in; the control
 * plane sets it at start-up (start-up state).  NULL by default. */
extern void (*sk__object_added_hook)(struct sk__object *obj);
/* sk__objects_quiet_in - an object that registered with no sites and no
 * keys lies in [@lo, @hi) (its unloading is told to the removing hook
 * too).  Under the lock. */
bool sk__objects_quiet_in(uintptr_t lo, uintptr_t hi);
/* Called with the lock held as an object unloads, before it is unlinked
 * (runtime.c: static calls that target it are pointed elsewhere). */
extern void (*sk__object_removing_hook)(uintptr_t lo, uintptr_t hi);

/* sk__objects_add - objects.c's half of sk__object_register() (runtime.c
 * makes sure the runtime is set up first).  @settle brings the new object's
 * sites in line with their keys, under the lock, before the hook runs and
 * before its constructors can run a site (runtime.c passes
 * sk__update_object_locked: the registry itself knows nothing of updates,
 * so update.c can use the registry without the registry using it). */
void sk__objects_add(struct sk__object_handle *handle,
		     const struct sk__site_entry *sites_start,
		     const struct sk__site_entry *sites_stop,
		     struct sk_key *const *keys_start,
		     struct sk_key *const *keys_stop,
		     int (*settle)(struct sk__object *obj));

/* sk__objects_publish_traps - before the first batch writes a site: give
 * the trap handler the registered objects' site tables (kept up to date
 * from then on).  Until then no trap can be ours, and registration
 * allocates nothing for it.  Under the lock. */
void sk__objects_publish_traps(void);

/* ---- lock.c --------------------------------------------------------------- */

/* sk__lock - take the patch lock for an update, waiting if another thread
 * holds it; async-signal-safe.  -EDEADLK if this thread holds it (a signal
 * handler that interrupted this thread's own update). */
int sk__lock(void);
/* sk__lock_from_loader - the same, for registration and unregistration,
 * which run from the dynamic linker's constructors and destructors: not
 * timed while the process has one thread. */
int sk__lock_from_loader(void);
void sk__unlock(void);
/* sk__lock_update, sk__unlock_update - sk__lock and sk__unlock for an
 * update that read the clock as it began (@start_ns): the unlock records
 * its latency with the lock's hold, from one clock reading, under the
 * lock (support/stats.h: the histograms are written only under it).  The
 * lock reuses @start_ns as the hold's start when taken at once, so pass
 * it only when nothing ran between the reading and the lock (else 0: the
 * lock reads the clock itself). */
int sk__lock_update(uint64_t start_ns);
void sk__unlock_update(uint64_t start_ns);
/* sk__lock_held_by_me - the calling thread holds the patch lock (one load:
 * async-signal-safe). */
bool sk__lock_held_by_me(void);
/* Around fork() (runtime.c): the child never inherits a half-done batch,
 * except from a fork inside a handler that interrupted the forking thread's
 * own update (lock.c). */
void sk__lock_before_fork(void);
void sk__lock_after_fork_parent(void);
void sk__lock_after_fork_child(void);

/* ---- update.c: from key states to batches ----------------------------------------------------------- */

/* sk__key_target - a key and the state its sites must show. */
struct sk__key_target {
	struct sk_key *key;
	bool on;
};

/* sk__update_locked - rewrite every site of the given keys to the given
 * states, as one batch.  All or nothing: on error no site has changed.
 * Return: 0 or -errno. */
int sk__update_locked(const struct sk__key_target *targets, size_t n);

/* sk__update_with_locked - the same, with @nextra more changes planned by
 * their owner (static calls' trampolines: static_call.c) in the batch. */
int sk__update_with_locked(const struct sk__key_target *targets, size_t n,
			   const struct sk__patch *extra, size_t nextra);

/* sk__update_object_locked - bring @obj's sites in line with their keys'
 * current states (for an object registered after keys changed). */
int sk__update_object_locked(struct sk__object *obj);

/* ---- static_call.c: static calls ---------------------------------------- */

/* sk__call_change - one static call's planned update (sk_commit_calls). */
struct sk__call_change {
	struct sk__call *call;
	void *old_func, *new_func;
	bool patching;          /* a trampoline jump to rewrite: patch */
	struct sk__patch patch;
	/* Its call sites to rewrite (call_sites.c), and which of the call's
	 * sites each is; malloc'd, freed by sk__calls_finish_locked. */
	struct sk__patch *sites;
	size_t *site_of;
	size_t nsites;
};

/* sk__calls_register / _unregister - a static call's descriptor, from its
 * constructor and destructor (runtime.c). */
void sk__calls_register(struct sk_static_call_key *key);
void sk__calls_unregister(struct sk_static_call_key *key);
/* sk__calls_plan_locked - plan @n updates: the new targets are stored (the
 * pointer form's and the far form's), trampoline jumps are planned into
 * out[i].patch.  -EINVAL for an invalid descriptor or one named twice with
 * different targets; -EILSEQ if another tool wrote over a trampoline.  On
 * error nothing changed. */
int sk__calls_plan_locked(const struct sk_static_call_change *v, size_t n,
			  struct sk__call_change *out);
/* sk__calls_patches - how many patches @n planned updates make (their
 * trampolines' and call sites'); with @buf, the patches into it. */
size_t sk__calls_patches(const struct sk__call_change *v, size_t n,
			 struct sk__patch *buf);
/* sk__calls_finish_locked - after the batch: record the jumps written, or
 * (@r != 0) put the old targets back; frees what planning took. */
void sk__calls_finish_locked(struct sk__call_change *v, size_t n, int r);
/* sk__calls_object_leaving - the object spanning [@lo, @hi) is unloading:
 * forget the static calls defined there, and point those whose target is
 * there back at their defined target (objects.c's removing hook). */
void sk__calls_object_leaving(uintptr_t lo, uintptr_t hi);
/* sk__calls_pin_if_needed - before an update, without the lock: an object
 * holding the target @func that does not register (so could unload without
 * a word) is pinned, never unloaded. */
void sk__calls_pin_if_needed(const void *func);

/* ---- call_sites.c: static calls' call sites ----------------------------- */

/* sk__call_site - a call or tail jump to a static call's trampoline that
 * updates re-point at the target itself. */
struct sk__call_site {
	uintptr_t addr;
	unsigned char insn[SK__SITE_MAX]; /* as last written or found */
};
/* sk__call_sites_find_locked - the call sites of the trampoline @tramp in
 * the object @img that holds it, read from its file the first time one of
 * its trampolines is asked about: *@out (malloc'd; NULL when none) and
 * *@n; *@through, the calls found that keep calling the trampoline (through
 * the GOT, where they could not be made direct); *@why, what the file
 * kept (SK_CALL_SITES_*, skctl calls).  Return: 0 or -ENOMEM (none then). */
int sk__call_sites_find_locked(uintptr_t tramp, const struct sk__image *img,
			       struct sk__call_site **out, size_t *n,
			       size_t *through, int *why);
/* sk__call_sites_forget_locked - the object at [@lo, @hi) is unloading. */
void sk__call_sites_forget_locked(uintptr_t lo, uintptr_t hi);

/* For the control plane, under the lock: the static calls one by one
 * (*@cursor NULL to start; NULL after the last), the alternatives programs
 * named (SK_STATIC_CALL_TARGET, linked by ->next), the static call named
 * @name (-ENOENT, or -EEXIST when several objects define one), and an
 * update of one of them. */
struct sk_static_call_key *sk__calls_next_locked(void **cursor);
const struct sk_static_call_target *sk__calls_targets_locked(void);
int sk__calls_find_locked(const char *name, size_t len,
			  struct sk_static_call_key **out);
int sk__calls_update_locked(struct sk_static_call_key *key, void *func);
/* sk__calls_sites_locked - sk_static_call_sites_of(), the lock held. */
int sk__calls_sites_locked(const struct sk_static_call_key *key,
			   struct sk_static_call_sites *out);

/* sk__batch_limit - at most this many sites per batch (0: unlimited); the
 * benchmark's "one site at a time" mode sets 1 (config.c). */
extern size_t sk__batch_limit;

#endif /* SK_CORE_H */
