/*
 * src/internal.h - the runtime's private interfaces (prefix sk__).
 *
 * Layers, top to bottom:
 *   key.c      kernel semantics of enable/disable/inc/dec
 *   update.c   key states -> the list of sites that must change
 *   objects.c  registry of linked objects, their sites and keys
 *   patch.c    the int3 protocol over one batch of site changes
 *   trap.c     the SIGTRAP handler and what it may read
 *   writer.c   writing code: /proc/self/mem or temporary mprotect
 *   sync.c     core serialisation: membarrier or a TLB-shootdown fallback
 *   lock.c     the patch lock (timed), fork handling
 *   stats.c    counters and histograms
 */
#ifndef SK_INTERNAL_H
#define SK_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arch/backend.h"
#include "statickeys/key.h"
#include "statickeys/object.h"
#include "statickeys/stats.h"

/* ---- objects.c ---------------------------------------------------------- */

/* sk__segment - an executable PT_LOAD segment of an object. */
struct sk__segment {
	uintptr_t lo, hi;
	int prot; /* PROT_* from the program header */
};

#define SK__MAX_SEGMENTS 4

/* sk__site - a decoded site entry. */
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
	struct sk__site *sites; /* sorted by (key, code) */
	size_t nsites;
	struct sk_key **keys; /* keys defined in this object; each key is
				 listed by one registered object only */
	size_t nkeys;
	char *path; /* file name, "" for the main program if unknown */
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

/* sk__object_sites_of - the sites of @key in @obj, or NULL with *n == 0. */
struct sk__site *sk__object_sites_of(struct sk__object *obj,
				     const struct sk_key *key, size_t *n);
/* sk__object_segment_of - the executable segment holding @addr, or NULL. */
const struct sk__segment *sk__object_segment_of(const struct sk__object *obj,
						uintptr_t addr);
/* sk__site_describe - "0x... (function+0xN in /path)" for messages about
 * the code at @addr in @obj; reads the object's symbol table from its file,
 * never the dynamic linker (callable with the patch lock held). */
void sk__site_describe(const struct sk__object *obj, uintptr_t addr,
		       char *buf, size_t len);
/* sk__object_of - the registered object whose segments hold @addr. */
const struct sk__object *sk__object_of(uintptr_t addr);
/* sk__key_is_valid - @key carries the magic of SK_DEFINE_KEY_*. */
bool sk__key_is_valid(const struct sk_key *key);
/* sk__key_adopt_zeroed - an all-zero kernel-style key becomes a valid false
 * key (see SK__SITE_LINUX_KEY). */
void sk__key_adopt_zeroed(struct sk_key *key);

/* Called with the lock held after an object is linked in; a later module
 * (environment start-up state) may set it.  NULL by default. */
extern void (*sk__object_added_hook)(struct sk__object *obj);

/* ---- runtime init (lock.c) ----------------------------------------------- */

/* sk__runtime_init - once per process: core sync, fork handlers. */
void sk__runtime_init(void);
/* sk__control_init - the control plane's start-up (env_state.c). */
void sk__control_init(void);

/* sk__lock - take the patch lock; -EDEADLK if this thread holds it. */
int sk__lock(void);
void sk__unlock(void);
/* sk__lock_held_by_me - for assertions and signal-handler refusal. */
bool sk__lock_held_by_me(void);

/* ---- threads_check.c ----------------------------------------------------- */

/* sk__in_signal_handler - the caller runs inside a signal handler (found by
 * unwinding its stack); sk__lock() then refuses with -EDEADLK. */
bool sk__in_signal_handler(void);
/* sk__threads_check_sigtrap - before a key update, with the lock held:
 * 0, or -EBUSY (with a message naming it) if another thread keeps SIGTRAP
 * blocked and so would be killed by the int3 of a changing site. */
int sk__threads_check_sigtrap(void);
/* sk__threads_after_fork_child - drop descriptors naming parent threads. */
void sk__threads_after_fork_child(void);

/* ---- sigmask.c ------------------------------------------------------------ */

/* sk__sigmask_wrappers_active - the program's mask-setting calls reach
 * sigmask.c's wrappers, which keep SIGTRAP out of every mask they install
 * (false when STATICKEYS_KEEP_SIGTRAP=0, or the runtime was loaded late by
 * dlopen and the C library's definitions come first). */
bool sk__sigmask_wrappers_active(void);
/* sk__sigmask_keeps_sigtrap - STATICKEYS_KEEP_SIGTRAP is not 0. */
bool sk__sigmask_keeps_sigtrap(void);

/* ---- update.c ----------------------------------------------------------- */

/* sk__key_target - a key and the state its sites must show. */
struct sk__key_target {
	struct sk_key *key;
	bool on;
};

/* sk__update_locked - rewrite every site of the given keys to the given
 * states, as one batch.  All or nothing: on error no site has changed.
 * Return: 0 or -errno. */
int sk__update_locked(const struct sk__key_target *targets, size_t n);

/* sk__update_object_locked - bring @obj's sites in line with their keys'
 * current states (for an object registered after keys changed). */
int sk__update_object_locked(struct sk__object *obj);

/* ---- patch.c ------------------------------------------------------------ */

/* sk__patch - one site change. */
struct sk__patch {
	uintptr_t addr;
	uintptr_t dest; /* where a trapped thread resumes: the new direction */
	const struct sk__segment *segment; /* NULL: write this site alone */
	unsigned char old_insn[SK__SITE_MAX];
	unsigned char new_insn[SK__SITE_MAX];
};

/* sk__patch_apply - apply @n changes sorted by address. Return: 0 or -errno;
 * on error every site holds its old instruction again. */
int sk__patch_apply(struct sk__patch *patches, size_t n);

extern size_t sk__batch_limit; /* 0: unlimited */

/* ---- trap.c ------------------------------------------------------------- */

/* sk__trap_install - make sure our SIGTRAP handler is the installed one,
 * chaining to whatever was there. Return: 0 or -errno. */
int sk__trap_install(void);
/* sk__trap_publish - let the handler resolve traps in @v (sorted). */
void sk__trap_publish(const struct sk__patch *v, size_t n);
/* sk__trap_retire - stop resolving the batch; returns when no handler can
 * still be reading it. */
void sk__trap_retire(void);
/* sk__trap_add_stuck - sites a failed rollback left trapped: resolve them
 * for as long as their object stays loaded (copied). */
void sk__trap_add_stuck(const struct sk__patch *v, size_t n);
/* sk__trap_forget_stuck - drop stuck sites in [@lo, @hi), an object that is
 * being unloaded; returns once no handler can still be reading them. */
void sk__trap_forget_stuck(uintptr_t lo, uintptr_t hi);
/* sk__trap_set_sites - the sorted addresses of all live sites, for traps
 * that arrive after their batch retired. Takes ownership of @addrs. */
void sk__trap_set_sites(uintptr_t *addrs, size_t n);
/* sk__trap_after_fork_child - forget handler readers of the parent's other
 * threads, which do not exist in the child. */
void sk__trap_after_fork_child(void);

/* ---- writer.c ----------------------------------------------------------- */

/* sk__span - a run of site bytes (byte-adjacent sites) written in one call;
 * never covers a byte that is not part of a site. */
struct sk__span {
	uintptr_t addr;
	size_t len;
	const unsigned char *bytes;
	const struct sk__segment *segment;
};

/* sk__writer_ready - probe (once) and return 0, or -EPERM if no writer
 * works in this process. */
int sk__writer_ready(void);
int sk__writer_begin(const struct sk__span *spans, size_t n);
int sk__writer_write(const struct sk__span *spans, size_t n);
int sk__writer_end(const struct sk__span *spans, size_t n);
/* sk__writer_end_serialises - sk__writer_end() interrupts every CPU running
 * the process (mprotect: the TLB shootdown of taking write permission
 * away), which patch.c uses as the last step's core sync. */
bool sk__writer_end_serialises(void);
const char *sk__writer_name(void);
/* After fork: the /proc/self/mem descriptor names the parent's memory. */
void sk__writer_after_fork_child(void);

/* ---- sync.c ------------------------------------------------------------- */

/* sk__sync_init - register for membarrier SYNC_CORE or set up the fallback. */
void sk__sync_init(void);
/* sk__sync_cores - every thread of the process serialises before it runs
 * another user instruction. Return: 0 or -errno. */
int sk__sync_cores(void);
const char *sk__sync_name(void);

/* ---- stats.c ------------------------------------------------------------ */

enum sk__counter {
	SK__C_UPDATES,
	SK__C_BATCHES,
	SK__C_SITES_WRITTEN,
	SK__C_TEXT_WRITES,
	SK__C_CORE_SYNCS,
	SK__C_TRAPS_HANDLED,
	SK__C_TRAPS_CHAINED,
	SK__C_UPDATE_ERRORS,
	SK__C_COUNT
};

void sk__count(enum sk__counter c, uint64_t n); /* async-signal-safe */
void sk__hist_record(enum sk_hist h, uint64_t ns);
uint64_t sk__now_ns(void);

/* sk__warn - one line on stderr, prefixed "statickeys: ". */
void sk__warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* ---- fault injection (tests only) ---------------------------------------- */

enum sk__inject_point {
	SK__INJECT_AFTER_TRAP_WRITE, /* int3 written and synced (aarch64:
					the new instructions written) */
	SK__INJECT_AFTER_TAIL_WRITE, /* bytes 1.. written and synced */
	SK__INJECT_IN_TRAP_HANDLER,  /* a thread is being resumed */
};

#ifdef SK_ENABLE_INJECT
extern void (*volatile sk__inject_hook)(int point);
#define SK_INJECT(point)                                                     \
	do {                                                                 \
		void (*sk__h)(int) = sk__inject_hook;                        \
		if (sk__h)                                                   \
			sk__h(point);                                        \
	} while (0)
#else
#define SK_INJECT(point) ((void)0)
#endif

#endif /* SK_INTERNAL_H */
