/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * statickeys/key.h - static key objects and the calls that flip them.
 *
 * A static key is a global object with a reference count.  Code tests it with
 * sk_branch_likely()/sk_branch_unlikely() (statickeys/branch.h); each such test
 * is a "site", one 5-byte instruction that is either a no-op or a jump.  The
 * calls below change the count and, when the key's on/off state changes,
 * rewrite every site of the key in every loaded object, safely, while other
 * threads may be executing them.
 *
 * Truth table (as in the kernel's jump_label.h):
 *
 *	type \ branch	|  likely (1)		|  unlikely (0)
 *   -----------------------+-----------------------+--------------------
 *	true key (1)	|  NOP			|  JMP
 *	false key (0)	|  JMP			|  NOP
 *
 *   instruction = (enabled ^ branch) ? JMP : NOP
 *
 * A key's type is its *initial* state, a compile-time fact, so the instruction
 * emitted by the compiler is already right before any run-time code runs.
 * The two types are distinct structs, so a branch macro given anything else
 * fails to compile.
 *
 * Reference counting follows the kernel: sk_key_inc()/sk_key_dec() nest;
 * sk_key_enable()/sk_key_disable() are idempotent and meant for keys that are
 * not reference counted.  Every call returns 0 or a negative errno and never
 * leaves a key's count and its sites in disagreement.
 */
#ifndef STATICKEYS_KEY_H
#define STATICKEYS_KEY_H

#include <stdbool.h>

#include "statickeys/export.h"
#include "statickeys/section.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Written into every key by the SK_DEFINE_* macros; a key without it (zeroed
 * or uninitialised memory) was not defined by them and is refused with
 * -EINVAL.  A byte-for-byte copy keeps the magic but has no sites: updating
 * it changes only its own count. */
#define SK__KEY_MAGIC 0x534b0000u
#define SK__KEY_MAGIC_MASK 0xffff0000u
#define SK__KEY_INIT_TRUE 0x1u

/**
 * struct sk_key - the untyped part every static key shares.
 * @enabled:     reference count, accessed atomically; -1 while the first
 *               enable of the key is patching its sites (reads as enabled).
 * @magic:       SK__KEY_MAGIC | SK__KEY_INIT_TRUE for keys that start on;
 *               bits 1-15 are set by the runtime that registers the key's
 *               object (to notice a second copy of the runtime).
 * @name:        the key's name, by default its C identifier.
 * @description: an optional one-line description, or NULL.
 *
 * Treat it as opaque: use the sk_key_*() calls.
 */
struct sk_key {
	int enabled;
	unsigned int magic;
	const char *name;
	const char *description;
};

/** struct sk_key_true - a key that starts enabled. */
struct sk_key_true {
	struct sk_key key;
};

/** struct sk_key_false - a key that starts disabled. */
struct sk_key_false {
	struct sk_key key;
};

#define SK__KEY_INIT(init, name_, desc_)                                     \
	{                                                                    \
		(init), SK__KEY_MAGIC | (init), (name_), (desc_)             \
	}

/*
 * Every key defined with these macros is also listed in the "sk_keys" section
 * of its object, so the runtime can find keys that have no sites and look
 * keys up by name.
 */
#define SK__KEY_LISTING(name)                                                \
	static struct sk_key *const sk__keyref_##name __attribute__((        \
		SK__KEYS_SECTION_ATTR)) = &(name).key                        \
		SK__KEY_LISTING_KEEP(sk__keyref_##name)

#define SK__DEFINE_KEY(type, name, init, desc)                               \
	struct type name = { SK__KEY_INIT(init, #name, desc) };              \
	SK__KEY_LISTING(name)

/** SK_DEFINE_KEY_FALSE(name) - define a global key that starts disabled. */
#define SK_DEFINE_KEY_FALSE(name) SK__DEFINE_KEY(sk_key_false, name, 0, 0)
/** SK_DEFINE_KEY_TRUE(name) - define a global key that starts enabled. */
#define SK_DEFINE_KEY_TRUE(name) SK__DEFINE_KEY(sk_key_true, name, 1, 0)
/** SK_DEFINE_KEY_FALSE_DESC(name, desc) - the same, with a description. */
#define SK_DEFINE_KEY_FALSE_DESC(name, desc)                                 \
	SK__DEFINE_KEY(sk_key_false, name, 0, desc)
/** SK_DEFINE_KEY_TRUE_DESC(name, desc) - the same, with a description. */
#define SK_DEFINE_KEY_TRUE_DESC(name, desc)                                  \
	SK__DEFINE_KEY(sk_key_true, name, 1, desc)

/** SK_DECLARE_KEY_FALSE(name) - declare a key defined in another file. */
#define SK_DECLARE_KEY_FALSE(name) extern struct sk_key_false name
/** SK_DECLARE_KEY_TRUE(name) - declare a key defined in another file. */
#define SK_DECLARE_KEY_TRUE(name) extern struct sk_key_true name

/*
 * The calls take a typed key (&name) and pass its embedded struct sk_key to
 * the runtime; the _Generic / overload keeps the type check of the kernel API.
 */
SK_API int sk__key_enable(struct sk_key *key);
SK_API int sk__key_disable(struct sk_key *key);
SK_API int sk__key_inc(struct sk_key *key);
SK_API int sk__key_dec(struct sk_key *key);
SK_API bool sk__key_enabled(const struct sk_key *key);
SK_API int sk__key_count(const struct sk_key *key);

#ifdef __cplusplus
}
static inline struct sk_key *sk__untyped(struct sk_key_true *k) { return &k->key; }
static inline struct sk_key *sk__untyped(struct sk_key_false *k) { return &k->key; }
static inline const struct sk_key *sk__untyped(const struct sk_key_true *k) { return &k->key; }
static inline const struct sk_key *sk__untyped(const struct sk_key_false *k) { return &k->key; }
static inline struct sk_key *sk__untyped(struct sk_key *k) { return k; }
static inline const struct sk_key *sk__untyped(const struct sk_key *k) { return k; }
#define SK__UNTYPED(x) sk__untyped(x)
#else
/* A pointer to a struct converts to a pointer to its first member (C11
 * 6.7.2.1p15); _Generic only decides which types are accepted. */
/* __extension__: a user's C99 build with -Wpedantic gets no warning. */
#define SK__UNTYPED(x)                                                       \
	(__extension__ _Generic((x),                                         \
		struct sk_key_true *: (struct sk_key *)(void *)(x),          \
		struct sk_key_false *: (struct sk_key *)(void *)(x),         \
		struct sk_key *: (struct sk_key *)(void *)(x)))
#endif

/**
 * sk_key_enable() - turn a key on; a no-op if it is already on.
 * @k: &name of a key defined with SK_DEFINE_KEY_*.
 *
 * Return: 0; -EINVAL if @k is not a defined key; -EDEADLK if called from a
 * signal handler or while this thread is already inside an update; -EBUSY
 * if another thread blocks SIGTRAP (it would die at a changing site; the
 * message names it); -EPERM/-EIO if no way to write code works (see
 * docs/operations.md, "What can go wrong and what happens").
 */
#define sk_key_enable(k) sk__key_enable(SK__UNTYPED(k))
/**
 * sk_key_disable() - turn a key off; a no-op if it is already off.
 *
 * Return: 0; -EBUSY if the key holds more than one sk_key_inc() reference
 * (disable would break their owners' expectations; balance them with
 * sk_key_dec()); other errors as sk_key_enable().
 */
#define sk_key_disable(k) sk__key_disable(SK__UNTYPED(k))
/**
 * sk_key_inc() - take a reference; the key is on while any reference is held.
 *
 * Return: 0; -EOVERFLOW if the count is already INT_MAX (no change).
 */
#define sk_key_inc(k) sk__key_inc(SK__UNTYPED(k))
/**
 * sk_key_dec() - drop a reference; the key turns off when the last one goes.
 *
 * Return: 0; -ERANGE if the count is already zero (no change).
 */
#define sk_key_dec(k) sk__key_dec(SK__UNTYPED(k))
/** sk_key_enabled() - whether the key is on (an update in progress reads as on). */
#define sk_key_enabled(k) sk__key_enabled(SK__UNTYPED(k))
/** sk_key_count() - the key's reference count (1 while its first enable runs). */
#define sk_key_count(k) sk__key_count(SK__UNTYPED(k))

#endif /* STATICKEYS_KEY_H */
