/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * statickeys/linux.h - the Linux kernel's static-key API, unchanged.
 *
 * Code written for the kernel (or shared with it) compiles as is, in C and
 * C++, on the same sites and runtime as the native API: keys flip while
 * other threads run the sites, every site of a key changes in one batch, and
 * keys defined with DEFINE_STATIC_KEY_* are named in sk_keys_snapshot() and
 * skctl like SK_DEFINE_KEY_* keys.  Both generations of the kernel API:
 *
 * The 2012 API (Documentation/static-keys.txt of Linux 3.3 to 4.2):
 *
 *	struct static_key key = STATIC_KEY_INIT_FALSE;
 *	if (static_key_false(&key))	// unlikely: true when the key is on
 *		do_unlikely_code();
 *	static_key_slow_inc(&key);	// make the branch true (refcounted)
 *	static_key_slow_dec(&key);	// and false again
 *
 * Today's API (include/linux/jump_label.h since 4.3):
 *
 *	DEFINE_STATIC_KEY_FALSE(key);
 *	if (static_branch_unlikely(&key))
 *		do_unlikely_code();
 *	static_branch_enable(&key);
 *
 * As the kernel documents, a struct static_key nobody initialised is a false
 * key: a zeroed global works, and so does a key embedded in another global
 * struct (the tracepoint pattern, static_key_false(&__tracepoint_x.key)).
 * The native sk_key types keep refusing zeroed memory; only these types,
 * through their own sites (SK__SITE_LINUX_KEY) and calls, accept it.
 *
 * Differences from the kernel, all at the edges:
 * - static_key_slow_inc() / static_branch_inc() return true on success, as
 *   in today's kernel (false where the kernel's gives up at INT_MAX, and
 *   for every other refusal).  The calls the kernel declares void return 0
 *   or a negative errno here (see statickeys/key.h: -EDEADLK from a signal
 *   handler, -EBUSY, -ERANGE for a dec below zero...); code that ignores
 *   the result is unaffected.  For the errno of an inc, use the native call:
 *   sk_key_inc(sk_static_key(&key)).
 * - static_key_count() reads 1, not -1, while the first enable is patching.
 * - Keys of the 2012 API (STATIC_KEY_INIT_*, zeroed keys) and the elements
 *   of DEFINE_STATIC_KEY_ARRAY_* have no name of their own: the initialiser
 *   cannot know it.  Such a key is named as its first site in the object
 *   that defines it spells it ("old_key", "__tracepoint_foo.key",
 *   "keys[2]"); a key with no site in its own object has no name and does
 *   not appear in snapshots or skctl, but works in every other way.
 * - The branch macros need the key's address to be a link-time constant,
 *   as the kernel's do; they are macros, not inline functions, so that this
 *   holds at -O0 too.
 * - In C++ only DEFINE_STATIC_KEY_ARRAY_FALSE exists (C++ has no range
 *   designators; its keys are zeroed, which is false).
 */
#ifndef STATICKEYS_LINUX_H
#define STATICKEYS_LINUX_H

#include <stdbool.h>

#include "statickeys/branch.h"
#include "statickeys/dyndbg.h"
#include "statickeys/key.h"
#include "statickeys/static_call.h"

#if SK_HAVE_PATCHED_SITES
#include SK__ARCH_SLOT_HEADER /* chosen by statickeys/branch.h */
#endif
#if SK_HAVE_PATCHED_SITES
/* Sites of kernel-style keys name their key through their own slot (an
 * embedded key has no symbol of its own), with the key's spelling as a name
 * for keys that have none, and accept zeroed keys. */
#define SK__LINUX_BRANCH(keyp, name, branch, jump)                           \
	SK__ARCH_BRANCH_SLOT(keyp, name, (branch) | SK__SITE_LINUX_KEY, jump)
#else
#define SK__LINUX_BRANCH(keyp, name, branch, jump)                           \
	SK__GENERIC_BRANCH(keyp, branch, jump)
#endif

/**
 * struct static_key - the kernel's untyped key; all-zero memory is a false key.
 * Treat it as opaque, as in the kernel.
 */
struct static_key {
	struct sk_key sk__key;
};

/** struct static_key_true - a key that starts enabled (DEFINE_STATIC_KEY_TRUE). */
struct static_key_true {
	struct static_key key;
};

/** struct static_key_false - a key that starts disabled (DEFINE_STATIC_KEY_FALSE). */
struct static_key_false {
	struct static_key key;
};

/* ---- definitions --------------------------------------------------------- */

#define STATIC_KEY_INIT_TRUE { SK__KEY_INIT(1, 0, 0) }
#define STATIC_KEY_INIT_FALSE { SK__KEY_INIT(0, 0, 0) }
#define STATIC_KEY_INIT STATIC_KEY_INIT_FALSE
#define STATIC_KEY_TRUE_INIT { STATIC_KEY_INIT_TRUE }
#define STATIC_KEY_FALSE_INIT { STATIC_KEY_INIT_FALSE }

/* Listed in the object's "sk_keys" section like SK_DEFINE_KEY_* keys, so the
 * key has its name in snapshots and skctl even without a site. */
#define SK__LINUX_LISTING(name)                                              \
	static struct sk_key *const sk__keyref_##name                        \
		__attribute__((SK__KEYS_SECTION_ATTR)) = &(name).key.sk__key \
		SK__KEY_LISTING_KEEP(sk__keyref_##name)

#define SK__LINUX_DEFINE(type, name, init)                                   \
	struct type name = { { SK__KEY_INIT(init, #name, 0) } };             \
	SK__LINUX_LISTING(name)

/** DEFINE_STATIC_KEY_TRUE(name) - a global key that starts enabled. */
#define DEFINE_STATIC_KEY_TRUE(name) SK__LINUX_DEFINE(static_key_true, name, 1)
/** DEFINE_STATIC_KEY_FALSE(name) - a global key that starts disabled. */
#define DEFINE_STATIC_KEY_FALSE(name) SK__LINUX_DEFINE(static_key_false, name, 0)
/* The kernel's __ro_after_init variants: the key itself stays writable. */
#define DEFINE_STATIC_KEY_TRUE_RO(name) DEFINE_STATIC_KEY_TRUE(name)
#define DEFINE_STATIC_KEY_FALSE_RO(name) DEFINE_STATIC_KEY_FALSE(name)
/** DECLARE_STATIC_KEY_TRUE/FALSE(name) - a key defined in another file. */
#define DECLARE_STATIC_KEY_TRUE(name) extern struct static_key_true name
#define DECLARE_STATIC_KEY_FALSE(name) extern struct static_key_false name
#define DECLARE_STATIC_KEY_TRUE_RO(name) DECLARE_STATIC_KEY_TRUE(name)
#define DECLARE_STATIC_KEY_FALSE_RO(name) DECLARE_STATIC_KEY_FALSE(name)

/*
 * DEFINE_STATIC_KEY_MAYBE(CONFIG_X, name), DECLARE_STATIC_KEY_MAYBE and
 * static_branch_maybe(CONFIG_X, &name): a true key and a likely branch when
 * IS_ENABLED(CONFIG_X), else false and unlikely.  They need IS_ENABLED()
 * expanding to a bare 0 or 1 (pasted onto a name: an expression such as
 * ((x) != 0) does not compile), as the kernel's <linux/kconfig.h> (or the
 * ported code's own shim) defines it; this header does not define it.
 */
#define SK__LINUX_PASTE2(a, b) a##b
#define SK__LINUX_PASTE(a, b) SK__LINUX_PASTE2(a, b)
#define SK__LINUX_DEFINE_MAYBE_1(name) DEFINE_STATIC_KEY_TRUE(name)
#define SK__LINUX_DEFINE_MAYBE_0(name) DEFINE_STATIC_KEY_FALSE(name)
#define SK__LINUX_DECLARE_MAYBE_1(name) DECLARE_STATIC_KEY_TRUE(name)
#define SK__LINUX_DECLARE_MAYBE_0(name) DECLARE_STATIC_KEY_FALSE(name)
#define DEFINE_STATIC_KEY_MAYBE(cfg, name)                                   \
	SK__LINUX_PASTE(SK__LINUX_DEFINE_MAYBE_, IS_ENABLED(cfg))(name)
#define DECLARE_STATIC_KEY_MAYBE(cfg, name)                                  \
	SK__LINUX_PASTE(SK__LINUX_DECLARE_MAYBE_, IS_ENABLED(cfg))(name)

/** DEFINE_STATIC_KEY_ARRAY_TRUE/FALSE(name, count) - arrays of keys, each
 * named after its sites ("name[2]"). */
#ifdef __cplusplus
#define DEFINE_STATIC_KEY_ARRAY_FALSE(name, count)                           \
	struct static_key_false name[count] = {}
#else
#define DEFINE_STATIC_KEY_ARRAY_TRUE(name, count)                            \
	struct static_key_true name[count] = {                               \
		[0 ...(count)-1] = { { SK__KEY_INIT(1, 0, 0) } }         \
	}
#define DEFINE_STATIC_KEY_ARRAY_FALSE(name, count)                           \
	struct static_key_false name[count] = {                              \
		[0 ...(count)-1] = { { SK__KEY_INIT(0, 0, 0) } }         \
	}
#endif

/* ---- calls ---------------------------------------------------------------- */

/* The runtime's key, after giving a zeroed key the magic of a false key
 * (the runtime does the same when it first meets one of the key's sites). */
static inline struct sk_key *sk__linux_key(struct static_key *key)
{
	unsigned int zero = 0;

	if (__atomic_load_n(&key->sk__key.magic, __ATOMIC_RELAXED) == 0)
		__atomic_compare_exchange_n(&key->sk__key.magic, &zero,
					    SK__KEY_MAGIC, false,
					    __ATOMIC_RELAXED, __ATOMIC_RELAXED);
	return &key->sk__key;
}

/** static_key_slow_inc() - take a reference: the branch is true while held.
 * Return: true on success, as the kernel's (false: refused, nothing changed). */
static inline bool static_key_slow_inc(struct static_key *key)
{
	return sk__key_inc(sk__linux_key(key)) == 0;
}

/** static_key_slow_dec() - drop a reference: false when the last one goes. */
static inline int static_key_slow_dec(struct static_key *key)
{
	return sk__key_dec(sk__linux_key(key));
}

/** static_key_enable() - make the branch true; a no-op if it is. */
static inline int static_key_enable(struct static_key *key)
{
	return sk__key_enable(sk__linux_key(key));
}

/** static_key_disable() - make the branch false; -EBUSY if references are held. */
static inline int static_key_disable(struct static_key *key)
{
	return sk__key_disable(sk__linux_key(key));
}

/** static_key_count() - the key's reference count. */
static inline int static_key_count(struct static_key *key)
{
	return sk__key_count(sk__linux_key(key));
}

/* No CPU hotplug lock in a process: the _cpuslocked forms are the same. */
#define static_key_slow_inc_cpuslocked(k) static_key_slow_inc(k)
#define static_key_slow_dec_cpuslocked(k) static_key_slow_dec(k)
#define static_key_enable_cpuslocked(k) static_key_enable(k)
#define static_key_disable_cpuslocked(k) static_key_disable(k)

/* Keys are ready before any constructor runs; kept for code that calls it. */
#define static_key_initialized true
static inline void jump_label_init(void) {}

/* static_key_enabled() takes any of the three key types, as in the kernel. */
#ifdef __cplusplus
static inline struct static_key *sk__linux_untyped(struct static_key *k) { return k; }
static inline struct static_key *sk__linux_untyped(struct static_key_true *k) { return &k->key; }
static inline struct static_key *sk__linux_untyped(struct static_key_false *k) { return &k->key; }
#define SK__LINUX_UNTYPED(x) sk__linux_untyped(x)
#else
#define SK__LINUX_UNTYPED(x)                                                 \
	(__extension__ _Generic((x),                                         \
		struct static_key *: (struct static_key *)(void *)(x),       \
		struct static_key_true *: (struct static_key *)(void *)(x),  \
		struct static_key_false *: (struct static_key *)(void *)(x)))
#endif

/**
 * sk_static_key() - the native key behind a kernel-style one (any of the three
 * types), for sk_commit(), sk_stats and the rest of the native API.
 */
#define sk_static_key(x) sk__linux_key(SK__LINUX_UNTYPED(x))

/** static_key_enabled() - whether the branch is true now. */
#define static_key_enabled(x) (static_key_count(SK__LINUX_UNTYPED(x)) > 0)

/* ---- branches: the 2012 API ----------------------------------------------- */

/*
 * Only struct static_key has the member sk__key, so anything else fails to
 * compile.  The key's initial state is not known where the site is compiled
 * (it is in the initialiser, possibly in another file), so like the kernel's
 * each site is compiled for the state its name suggests and the runtime
 * corrects it when it registers the object, before any constructor runs:
 * static_key_false() assumes a false key (a NOP), static_key_true() a true
 * one (also a NOP, that falls into the true path).
 */
/** static_key_false() - true when the key is on; the off path falls through. */
#define static_key_false(x)                                                  \
	__builtin_expect(SK__LINUX_BRANCH(&(x)->sk__key, #x, 0, 0), 0)
/** static_key_true() - true when the key is on; the on path falls through. */
#define static_key_true(x)                                                   \
	__builtin_expect(!SK__LINUX_BRANCH(&(x)->sk__key, #x, 1, 0), 1)

/* ---- branches: today's API ------------------------------------------------- */

/* The key's initial state from its type; a plain struct static_key (or
 * anything else) fails to compile, as in the kernel. */
#ifdef __cplusplus
template <typename T> struct sk__linux_traits; /* only typed keys */
template <> struct sk__linux_traits<struct static_key_true *> {
	static constexpr int initial = 1;
};
template <> struct sk__linux_traits<struct static_key_false *> {
	static constexpr int initial = 0;
};
#define SK__LINUX_INITIAL(x) (sk__linux_traits<decltype(x)>::initial)
#else
#define SK__LINUX_INITIAL(x)                                                 \
	(__extension__ _Generic((x), struct static_key_true *: 1,            \
				struct static_key_false *: 0))
#endif

/** static_branch_likely() - true when the key is on; the on path falls through. */
#define static_branch_likely(x)                                              \
	__builtin_expect(!SK__LINUX_BRANCH(&(x)->key.sk__key, #x, 1,           \
					   SK__LINUX_INITIAL(x) ^ 1), 1)
/** static_branch_unlikely() - true when the key is on; the off path falls through. */
#define static_branch_unlikely(x)                                            \
	__builtin_expect(SK__LINUX_BRANCH(&(x)->key.sk__key, #x, 0,            \
					  SK__LINUX_INITIAL(x) ^ 0), 0)

#define static_branch_maybe(config, x)                                       \
	(IS_ENABLED(config) ? static_branch_likely(x)                        \
			    : static_branch_unlikely(x))

#define static_branch_inc(x) static_key_slow_inc(&(x)->key)
#define static_branch_dec(x) static_key_slow_dec(&(x)->key)
#define static_branch_enable(x) static_key_enable(&(x)->key)
#define static_branch_disable(x) static_key_disable(&(x)->key)
#define static_branch_inc_cpuslocked(x) static_key_slow_inc(&(x)->key)
#define static_branch_dec_cpuslocked(x) static_key_slow_dec(&(x)->key)
#define static_branch_enable_cpuslocked(x) static_key_enable(&(x)->key)
#define static_branch_disable_cpuslocked(x) static_key_disable(&(x)->key)

/* ==== Static calls (the kernel's include/linux/static_call.h) ============
 * The kernel's spellings over statickeys/static_call.h: the same
 * trampolines and guarantees.  static_call_update() returns the int of
 * sk_static_call_update() (the kernel's returns nothing: a caller that
 * ignores it, as the kernel's do, compiles unchanged).  As in the kernel,
 * a static call is its object's own until an EXPORT_ form (after its
 * definition) lets other objects call it (_TRAMP) or call and update it;
 * _GPL is the same as without. */
#define STATIC_CALL_KEY(name) SK__SC_KEY(name)
#define STATIC_CALL_TRAMP(name) SK__SC_TRAMP(name)
#define DECLARE_STATIC_CALL(name, func) SK_DECLARE_STATIC_CALL(name, func)
#define DEFINE_STATIC_CALL(name, func) SK_DEFINE_STATIC_CALL(name, func)
#define DEFINE_STATIC_CALL_NULL(name, func)                                  \
	SK_DEFINE_STATIC_CALL_NULL(name, func)
#define DEFINE_STATIC_CALL_RET0(name, func)                                  \
	SK_DEFINE_STATIC_CALL_RET0(name, func)
#define static_call(name) sk_static_call(name)
#define static_call_mod(name) sk_static_call(name)
#define static_call_ro(name) sk_static_call(name)
#define static_call_cond(name) (void)sk_static_call_cond(name)
#define static_call_update(name, func) sk_static_call_update(name, func)
#define static_call_query(name) ((void *)sk__static_call_load(&SK__SC_KEY(name)))
#define __static_call_return0 sk_static_call_return0
#define EXPORT_STATIC_CALL(name) SK_EXPORT_STATIC_CALL(name)
#define EXPORT_STATIC_CALL_GPL(name) SK_EXPORT_STATIC_CALL(name)
#define EXPORT_STATIC_CALL_TRAMP(name) SK_EXPORT_STATIC_CALL_TRAMP(name)
#define EXPORT_STATIC_CALL_TRAMP_GPL(name) SK_EXPORT_STATIC_CALL_TRAMP(name)

/* ==== Dynamic debug (the kernel's include/linux/dynamic_debug.h) =========
 * The kernel's spellings over statickeys/dyndbg.h, as under
 * CONFIG_DYNAMIC_DEBUG: each statement its own descriptor and key, off by
 * default, switched by sk_dyndbg_query() and skctl debug.
 *
 *	#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt	// before the include
 *	#include <statickeys/linux.h>
 *	pr_debug("queue %d\n", q);
 *	print_hex_dump_debug("pkt: ", DUMP_PREFIX_OFFSET, 16, 1, buf, len, true);
 *
 *	DEFINE_DYNAMIC_DEBUG_METADATA(descriptor, fmt);	// as drivers do
 *	if (DYNAMIC_DEBUG_BRANCH(descriptor) && ratelimit_ok())
 *		__dynamic_pr_debug(&descriptor, pr_fmt(fmt), ...);
 *
 * As in the kernel, pr_fmt(fmt) (defined before this header, else fmt
 * itself) is what a statement prints, and the bare fmt is its descriptor's
 * format, which the catalogue shows and `format` queries match.  pr_fmt may
 * add arguments ("%s: " fmt, __func__), as the kernel's users do.
 * Differences from the kernel:
 * - pr_debug() and dynamic_pr_debug() take the format and at most 62
 *   arguments (standard C has no `, ##__VA_ARGS__`: the arguments are
 *   counted instead; a 63rd does not compile);
 * - a hex dump's rows take the statement's decorations (flags m, f, s, l,
 *   t), as sk_print_hex_dump_debug()'s do; DUMP_PREFIX_ADDRESS prints the
 *   address itself, in hexadecimal, where the kernel's %p hashes it;
 * - a non-constant prefix_str is printed, but the descriptor's format is
 *   "hexdump" (the kernel's choice too);
 * - the descriptor is a struct sk_dyndbg_site, not a struct _ddebug; use
 *   it only through these macros. */
#ifndef pr_fmt
#define pr_fmt(fmt) fmt
#endif

/* The kernel's DUMP_PREFIX_* (include/linux/printk.h). */
enum { DUMP_PREFIX_NONE, DUMP_PREFIX_ADDRESS, DUMP_PREFIX_OFFSET };

/* The first argument, and the others with a leading comma (nothing when
 * there is one): pr_fmt(first) must come between them. */
#define SK__LINUX_FIRST(...) SK__DYNDBG_FIRST(__VA_ARGS__, "")
#define SK__LINUX_REST(...)                                                  \
	SK__LINUX_PASTE(SK__LINUX_REST_, SK__LINUX_COUNT(__VA_ARGS__))       \
	(__VA_ARGS__)
#define SK__LINUX_REST_1(first)
#define SK__LINUX_REST_N(first, ...) , __VA_ARGS__
#define SK__LINUX_COUNT(...) /* 1, or N for 2 to 63 */                    \
	SK__LINUX_64TH(__VA_ARGS__, N, N, N, N, N, N, N, N, N, N, N, N, N, N, \
		       N, N, N, N, N, N, N, N, N, N, N, N, N, N, N, N, N, N,  \
		       N, N, N, N, N, N, N, N, N, N, N, N, N, N, N, N, N, N,  \
		       N, N, N, N, N, N, N, N, N, N, N, N, 1, -)
#define SK__LINUX_64TH(a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12,    \
		       a13, a14, a15, a16, a17, a18, a19, a20, a21, a22, a23, \
		       a24, a25, a26, a27, a28, a29, a30, a31, a32, a33, a34, \
		       a35, a36, a37, a38, a39, a40, a41, a42, a43, a44, a45, \
		       a46, a47, a48, a49, a50, a51, a52, a53, a54, a55, a56, \
		       a57, a58, a59, a60, a61, a62, a63, a64, ...)           \
	a64

/* The descriptor's key listing, referred to on Windows from the enabled
 * path as sk_pr_debug()'s is (statickeys/dyndbg.h's SK__DYNDBG_KEEP); the
 * branch is then a GNU statement expression, as the kernel's C is. */
#ifdef _WIN32
#define SK__LINUX_DD_KEEP(name)                                              \
	&&__extension__({                                                    \
		__asm__ volatile("" : : "r"(&sk__dd_ref_##name));            \
		1;                                                           \
	})
#else
#define SK__LINUX_DD_KEEP(name)
#endif

/**
 * DEFINE_DYNAMIC_DEBUG_METADATA() - a statement's descriptor @name, in a
 * function, with @fmt as its format (a string literal); off by default.
 */
#define DEFINE_DYNAMIC_DEBUG_METADATA(name, fmt)                             \
	static struct sk_dyndbg_site name = SK__DYNDBG_INIT(0, fmt);         \
	SK__DYNDBG_LISTING(name, sk__dd_ref_##name)
/** DYNAMIC_DEBUG_BRANCH() - true while @descriptor's statement is on. */
#define DYNAMIC_DEBUG_BRANCH(descriptor)                                     \
	(sk_branch_unlikely(&(descriptor).key) SK__LINUX_DD_KEEP(descriptor))
/** __dynamic_pr_debug() - print through @descriptor (a pointer to it). */
#define __dynamic_pr_debug(...) SK__DYNDBG_CALL(__VA_ARGS__)

/** dynamic_pr_debug(fmt, ...) - a debug statement printing pr_fmt(fmt). */
#define dynamic_pr_debug(...)                                                \
	SK__DYNDBG_SITE(0, SK__LINUX_FIRST(__VA_ARGS__),                     \
			SK__DYNDBG_CALL(&sk__dd_site,                        \
					pr_fmt(SK__LINUX_FIRST(__VA_ARGS__)) \
					SK__LINUX_REST(__VA_ARGS__)))
/** pr_debug(fmt, ...) - the same (the kernel's, under CONFIG_DYNAMIC_DEBUG). */
#define pr_debug(...) dynamic_pr_debug(__VA_ARGS__)

/* The descriptor's format: the prefix where the compiler knows it, else
 * "hexdump", as the kernel's dynamic_hex_dump() chooses. */
#define SK__LINUX_HEX_FORMAT(prefix_str)                                     \
	(__builtin_constant_p(prefix_str) ? (prefix_str) : "hexdump")
/**
 * print_hex_dump_debug() - a hex dump statement, the kernel's
 * print_hex_dump() when on: @prefix_str, then per @prefix_type the address
 * (DUMP_PREFIX_ADDRESS), the offset (_OFFSET) or nothing (_NONE); @rowsize
 * 16 or 32 bytes a row (else 16); @groupsize 1, 2, 4 or 8 bytes a group,
 * each printed as a number in the machine's byte order (else, and in a row
 * whose length is no multiple of it, 1); @ascii: the ASCII column.  Each row
 * is one message through sk_dyndbg_sink.
 */
#define print_hex_dump_debug(prefix_str, prefix_type, rowsize, groupsize,    \
			     buf, len, ascii)                                \
	SK__DYNDBG_SITE(0, SK__LINUX_HEX_FORMAT(prefix_str),                 \
			sk__dyndbg_hex_dump(&sk__dd_site, (prefix_str),      \
					    (prefix_type), (rowsize),        \
					    (groupsize), (buf), (len),       \
					    (ascii)))
/** print_hex_dump_bytes() - the same, 16 bytes a row, 1 a group, ASCII. */
#define print_hex_dump_bytes(prefix_str, prefix_type, buf, len)              \
	print_hex_dump_debug(prefix_str, prefix_type, 16, 1, buf, len, true)

#endif /* STATICKEYS_LINUX_H */
