/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * statickeys/static_call.h - static calls: a call through a function pointer
 * turned into a direct call, re-pointed at run time (the kernel's
 * include/linux/static_call.h).
 *
 *	static int log_plain(const char *m) { ... }
 *	static int log_json(const char *m)  { ... }
 *
 *	SK_DEFINE_STATIC_CALL(log_line, log_plain);
 *
 *	sk_static_call(log_line)("hello");         // a direct call
 *	sk_static_call_update(log_line, log_json); // every later call: log_json
 *
 * Where the runtime patches code (x86-64 Linux and Windows, i686, aarch64
 * and riscv64 Linux) the call site is a direct call to the static call's
 * trampoline, a few bytes of code whose first instruction is a jump to the
 * target: no data load, no indirect branch.  An update rewrites that jump
 * with the protocol of a key flip (x86: int3, 3 core syncs; aarch64 and
 * riscv64: one store), in one batch with keys in sk_commit_calls(), so
 * every call that starts after sk_static_call_update() returns, in any
 * thread, lands in the new target, and a thread that meets the trampoline mid-update lands in
 * the old target or the new one.  A target beyond the jump's reach is
 * reached through a slot the trampoline reads (an indirect jump: the far
 * form, also what the trampoline does before the runtime has seen it).
 * Everywhere else (macOS, FreeBSD, Windows with clang, the portable
 * backend) the call loads the target from the static call's descriptor and
 * calls through it: the same API and guarantees, the cost of a function
 * pointer.
 *
 * A thread still running the old target when the update returns goes on
 * running it: as in the kernel, waiting for such threads is the caller's
 * business.  A target in an object that is unloaded (dlclose) is never left
 * behind: an object registered with statickeys (it includes this header)
 * puts every static call that targets it back to its defined target as it
 * unloads; any other object holding a target is pinned (never unloaded) by
 * the update.  docs/static-calls.md has the whole story.
 */
#ifndef STATICKEYS_STATIC_CALL_H
#define STATICKEYS_STATIC_CALL_H

#include <stddef.h>

#include "statickeys/export.h"
#include "statickeys/object.h"

#ifdef __cplusplus
#include <type_traits>
extern "C" {
#endif

/** struct sk_static_call_key - one static call's descriptor (the kernel's
 * struct static_call_key).  Read it with sk_static_call_query(). */
struct sk_static_call_key {
	void *func;          /* the current target (NULL: none) */
	void *initial;       /* the definition's target */
	const char *name;
	void (*tramp)(void); /* the trampoline; NULL: calls load func */
	unsigned magic;      /* SK__STATIC_CALL_MAGIC */
	unsigned flags;      /* SK__STATIC_CALL_* */
	void *runtime;       /* where the trampoline's far form jumps: func,
			      * or (the runtime's) its own NULL return */
};

#define SK__STATIC_CALL_MAGIC 0x5c5ca11u
/* Defined with SK_DEFINE_STATIC_CALL_NULL: NULL is its defined target. */
#define SK__STATIC_CALL_NULL 0x1u
/* Defined with SK_DEFINE_STATIC_CALL_RET0. */
#define SK__STATIC_CALL_RET0 0x2u

/**
 * sk_static_call_return0() - returns 0: the target of a RET0 static call
 * (the kernel's __static_call_return0).  On x86-64 a trampoline pointed at
 * it returns 0 itself (xor eax, eax; ret), without calling it.
 */
SK_API long sk_static_call_return0(void);

/* The runtime's side of the macros below: 0 or -errno. */
SK_API int sk__static_call_update(struct sk_static_call_key *key, void *func);
SK_API void sk__static_call_register(struct sk_static_call_key *key);
SK_API void sk__static_call_unregister(struct sk_static_call_key *key);

/** struct sk_static_call_change - one static call and its new target, for
 * sk_commit_calls() (initialise with SK_STATIC_CALL_CHANGE). */
struct sk_static_call_change {
	struct sk_static_call_key *call;
	void *func;
};

struct sk_key_change;
/**
 * sk_commit_calls() - key changes and static-call updates as one batch: at
 * most 3 core syncs for all of them; when it returns 0 every site and every
 * static call shows its new state, when it fails nothing changed.
 * Return: 0; -EINVAL for an entry that is not a key or a static call, or
 * one named twice with different states or targets; as sk_commit().
 */
SK_API int sk_commit_calls(const struct sk_key_change *keys, size_t nkeys,
			   const struct sk_static_call_change *calls,
			   size_t ncalls);

/**
 * enum sk_call_sites_why - what the runtime found of a static call's call
 * sites (the calls of its trampoline that updates re-point at the target
 * itself, so that a call costs one direct call): see docs/static-calls.md.
 * @SK_CALL_SITES_FOUND: the defining object's file kept the relocations of
 *	its code (linked with -Wl,--emit-relocs): every call of the
 *	trampoline from that object was found and is counted.
 * @SK_CALL_SITES_NO_RELOCS: linked without -Wl,--emit-relocs: its calls go
 *	through the trampoline (a call and a jump), and are not counted.
 * @SK_CALL_SITES_STRIPPED: the file has no symbol table (strip --strip-all
 *	removes the relocations with it): as NO_RELOCS.
 * @SK_CALL_SITES_UNREADABLE: the object's file could not be read (gone,
 *	replaced on disk, over 8192 call sites): as NO_RELOCS.
 * @SK_CALL_SITES_NOT_PATCHED: this build rewrites no call sites: everywhere
 *	but x86-64 Linux (other architectures, Windows, macOS), and the
 *	pointer form and portable backend there.
 * @SK_CALL_SITES_PENDING: not looked for yet, and none counted: call sites
 *	are looked for, and re-pointed, at the static call's first update to
 *	another target (start-up reads no relocation and writes no call
 *	site); until then its calls reach the target through the
 *	trampoline's direct jump.
 * Calls from another object go through its PLT or GOT to the trampoline,
 * whatever the reason says; they are never counted.
 */
enum sk_call_sites_why {
	SK_CALL_SITES_FOUND = 0,
	SK_CALL_SITES_NO_RELOCS = 1,
	SK_CALL_SITES_STRIPPED = 2,
	SK_CALL_SITES_UNREADABLE = 3,
	SK_CALL_SITES_NOT_PATCHED = 4,
	SK_CALL_SITES_PENDING = 5,
};

/** struct sk_static_call_sites - a static call's call sites, as found. */
struct sk_static_call_sites {
	unsigned long direct;     /* direct calls and tail jumps re-pointed
				   * at each target (the trampoline's own
				   * work done at the call site) */
	unsigned long trampoline; /* calls found that still go through the
				   * trampoline: through the GOT, where the
				   * process had threads at the first update
				   * (Rust's calls) */
	int why;                  /* enum sk_call_sites_why */
};

/**
 * sk_static_call_sites_of() - how many of the static call @key's call sites
 * are direct and how many go through its trampoline, and why
 * (sk_static_call_sites(name, out) names it; `skctl calls` shows the same).
 * Return: 0; -EINVAL for a descriptor SK_DEFINE_STATIC_CALL did not make;
 * -ENOENT if one with a trampoline never registered (its object has not
 * run its constructor);
 * as sk_key_enable() when the patch lock cannot be taken.
 */
SK_API int sk_static_call_sites_of(const struct sk_static_call_key *key,
				   struct sk_static_call_sites *out);

#ifdef __cplusplus
}
#endif

/* Trampolines where the runtime patches them (x86-64, i686, aarch64,
 * riscv64, ppc64le, s390x, loongarch64 and Thumb-2 Arm Linux; x86-64
 * Windows), unless the portable backend is in use (SK_NO_ASM_GOTO, as
 * statickeys/branch.h);
 * SK_STATIC_CALL_NO_TRAMPOLINE asks for the pointer form anyway. */
#if defined(__GNUC__) && defined(__x86_64__) && defined(__ELF__) &&          \
	defined(__linux__) && !defined(SK_NO_ASM_GOTO) &&                    \
	!defined(SK_STATIC_CALL_NO_TRAMPOLINE)
#define SK_HAVE_STATIC_CALL_TRAMPOLINES 1
#elif defined(__GNUC__) && defined(__i386__) && defined(__ELF__) &&        \
	defined(__linux__) && !defined(SK_NO_ASM_GOTO) &&                    \
	!defined(SK_STATIC_CALL_NO_TRAMPOLINE)
#define SK_HAVE_STATIC_CALL_TRAMPOLINES 1
#elif defined(__GNUC__) && defined(__aarch64__) && defined(__ELF__) &&     \
	defined(__linux__) && !defined(SK_NO_ASM_GOTO) &&                    \
	!defined(SK_STATIC_CALL_NO_TRAMPOLINE)
#define SK_HAVE_STATIC_CALL_TRAMPOLINES 1
#elif defined(__GNUC__) && defined(__riscv) && __riscv_xlen == 64 &&       \
	defined(__ELF__) && defined(__linux__) && !defined(SK_NO_ASM_GOTO) && \
	!defined(SK_STATIC_CALL_NO_TRAMPOLINE)
#define SK_HAVE_STATIC_CALL_TRAMPOLINES 1
#elif defined(__GNUC__) && defined(__powerpc64__) &&                      \
	defined(__LITTLE_ENDIAN__) && _CALL_ELF == 2 && defined(__ELF__) &&  \
	defined(__linux__) && !defined(SK_NO_ASM_GOTO) &&                    \
	!defined(SK_STATIC_CALL_NO_TRAMPOLINE)
#define SK_HAVE_STATIC_CALL_TRAMPOLINES 1
#elif defined(__GNUC__) && defined(__loongarch__) &&                       \
	__loongarch_grlen == 64 && defined(__ELF__) && defined(__linux__) &&  \
	!defined(SK_NO_ASM_GOTO) && !defined(SK_STATIC_CALL_NO_TRAMPOLINE)
#define SK_HAVE_STATIC_CALL_TRAMPOLINES 1
#elif defined(__GNUC__) && defined(__s390x__) && defined(__ELF__) &&        \
	defined(__linux__) && !defined(SK_NO_ASM_GOTO) &&                    \
	!defined(SK_STATIC_CALL_NO_TRAMPOLINE)
#define SK_HAVE_STATIC_CALL_TRAMPOLINES 1
#elif defined(__GNUC__) && defined(__arm__) && defined(__thumb2__) &&       \
	defined(__ELF__) && defined(__linux__) && !defined(SK_NO_ASM_GOTO) && \
	!defined(SK_STATIC_CALL_NO_TRAMPOLINE)
#define SK_HAVE_STATIC_CALL_TRAMPOLINES 1
#elif defined(_WIN32) && defined(__x86_64__) && defined(__GNUC__) &&        \
	!defined(__clang__) && defined(__SEH__) && !defined(SK_NO_ASM_GOTO) && \
	!defined(SK_STATIC_CALL_NO_TRAMPOLINE)
/* Windows x86-64 (mingw-w64 GCC, where key sites are patched too). */
#define SK_HAVE_STATIC_CALL_TRAMPOLINES 1
#else
#define SK_HAVE_STATIC_CALL_TRAMPOLINES 0
#endif

#ifdef __cplusplus
#define SK__SC_LINKAGE extern "C"
#define SK__SC_LINKAGE_DEF extern "C"
#else
#define SK__SC_LINKAGE extern
#define SK__SC_LINKAGE_DEF
#endif

/* The names behind a static call @name: its descriptor, its trampoline (a
 * function of the call's type: the call sites' callee; declared, and
 * defined only with trampolines) and a hidden alias of the descriptor that
 * the trampoline's far form reads through. */
#define SK__SC_DESC(name) sk__scd_##name
#define SK__SC_TRAMP(name) sk__sct_##name
/* The exported pointer to the descriptor (SK_EXPORT_STATIC_CALL). */
#define SK__SC_EXPORTED(name) sk__scx_##name

/*
 * Which object's static call a name means (ELF).  A static call binds
 * within its own object, as a key does: two shared objects that each embed
 * a component with a static call of the same name (their symbols hidden or
 * not) each keep their own descriptor and trampoline, both hidden.  Another
 * object reaches a static call only where its defining object exports it
 * (SK_EXPORT_STATIC_CALL), and then one definition serves all.  Both cases
 * take one spelling, SK_DECLARE_STATIC_CALL in a shared header, and the
 * linker tells them apart: the declaration names the descriptor as a weak
 * hidden symbol, which is this object's own wherever the object defines the
 * static call, and NULL elsewhere (a weak reference resolves to 0 when
 * nothing in the object defines it); there, the exported pointer is used.
 * In the defining object the choice folds away at compile time.
 */
#if defined(__ELF__)
#define SK__SC_DECL_DESC(name)                                               \
	SK__SC_LINKAGE struct sk_static_call_key SK__SC_DESC(name)           \
		__attribute__((weak, visibility("hidden")));                 \
	SK__SC_LINKAGE struct sk_static_call_key *const SK__SC_EXPORTED(name) \
		__attribute__((weak))
static inline struct sk_static_call_key *
sk__static_call_pick(struct sk_static_call_key *own,
		     struct sk_static_call_key *const *exported)
{
	return own ? own : exported ? *exported : NULL;
}
#define SK__SC_KEYREF(name)                                                  \
	sk__static_call_pick(&SK__SC_DESC(name), &SK__SC_EXPORTED(name))
#else
/* PE and Mach-O (two-level namespace): an object's references to its own
 * symbols never bind to another object's; the descriptor is exported as
 * before (an importer names it). */
#define SK__SC_DECL_DESC(name)                                               \
	SK__SC_LINKAGE struct sk_static_call_key SK__SC_DESC(name)
#define SK__SC_KEYREF(name) (&SK__SC_DESC(name))
#endif
/* The descriptor of static call @name, as an lvalue. */
#define SK__SC_KEY(name) (*SK__SC_KEYREF(name))

/**
 * SK_DECLARE_STATIC_CALL(name, func) - a static call defined in another
 * file or object, of @func's type (in a header).  Another object's static
 * call must be exported by its definer (SK_EXPORT_STATIC_CALL): calling an
 * unexported one fails to link (its trampoline is hidden), and updating
 * it returns -EINVAL.
 */
#define SK_DECLARE_STATIC_CALL(name, func)                                   \
	SK__SC_DECLARE_FN(name, __typeof__(func))
/**
 * SK_DECLARE_STATIC_CALL_TYPE(name, type) - the same, of @type, a pointer
 * to function type (a method table's member: `__typeof__(m.xMalloc)`, or a
 * typedef of one).  Every define and declare form has a _TYPE spelling.
 */
#define SK_DECLARE_STATIC_CALL_TYPE(name, type)                              \
	SK__SC_DECLARE_FN(name, SK__SC_FN_OF(type))

/* The function type that pointer type @type points to. */
#ifdef __cplusplus
#define SK__SC_FN_OF(ptr_type) std::remove_pointer<ptr_type>::type
#else
#define SK__SC_FN_OF(ptr_type) __typeof__(*(ptr_type)0)
#endif
/* The declarations behind a static call @name of function type @fn. */
#define SK__SC_DECLARE_FN(name, fn)                                          \
	SK__SC_DECL_DESC(name);                                              \
	SK__SC_LINKAGE fn SK__SC_TRAMP(name)

/* The trampoline: its frame in the object format, and the architecture's
 * instructions (include/statickeys/arch/<arch>_static_call.h). */
#if SK_HAVE_STATIC_CALL_TRAMPOLINES && defined(__i386__)
#include "statickeys/arch/i386_static_call.h"
#elif SK_HAVE_STATIC_CALL_TRAMPOLINES && defined(__riscv)
#include "statickeys/arch/riscv64_static_call.h"
#elif SK_HAVE_STATIC_CALL_TRAMPOLINES && defined(__aarch64__)
#include "statickeys/arch/aarch64_static_call.h"
#elif SK_HAVE_STATIC_CALL_TRAMPOLINES && defined(__powerpc64__)
#include "statickeys/arch/ppc64le_static_call.h"
#elif SK_HAVE_STATIC_CALL_TRAMPOLINES && defined(__loongarch__)
#include "statickeys/arch/loongarch64_static_call.h"
#elif SK_HAVE_STATIC_CALL_TRAMPOLINES && defined(__arm__)
#include "statickeys/arch/arm_static_call.h"
#elif SK_HAVE_STATIC_CALL_TRAMPOLINES && defined(__s390x__)
#include "statickeys/arch/s390x_static_call.h"
#elif SK_HAVE_STATIC_CALL_TRAMPOLINES
#include "statickeys/arch/x86_64_static_call.h"
#else
#define SK__SC_DEFINE_TRAMP(name)                                            \
	SK__SC_LINKAGE struct sk_static_call_key sk__scl_##name
#define SK__SC_TRAMP_ADDR(name) SK__TO_FN(void (*)(void), 0)
#endif

/* The descriptor: hidden on ELF (each object its own: above), exported
 * only through SK_EXPORT_STATIC_CALL's pointer.  PE and Mach-O export it as
 * before. */
#if defined(__ELF__)
#define SK__SC_KEY_ATTR used, visibility("hidden")
#elif defined(__APPLE__)
#define SK__SC_KEY_ATTR used, visibility("default")
#else
#define SK__SC_KEY_ATTR used
#endif

/* The descriptor, its trampoline, and the constructor and destructor that
 * tell the runtime (which turns the trampoline into the direct jump). */
#define SK__SC_DEFINE(name, fn, target, flags)                               \
	SK__SC_DECLARE_FN(name, fn);                                  \
	__attribute__((SK__SC_KEY_ATTR)) struct sk_static_call_key            \
		SK__SC_DESC(name) = {                                         \
		SK__FN_PTR(target), SK__FN_PTR(target),                        \
		#name,                                                         \
		SK__SC_TRAMP_ADDR(name), SK__STATIC_CALL_MAGIC, (flags),       \
		SK__FN_PTR(target) };                                          \
	SK__SC_DEFINE_TRAMP(name);                                           \
	__attribute__((constructor(101), used)) static void                  \
		sk__scr_##name(void)                                         \
	{                                                                    \
		sk__static_call_register(&SK__SC_DESC(name));                \
	}                                                                    \
	__attribute__((destructor(101), used)) static void                   \
		sk__scu_##name(void)                                         \
	{                                                                    \
		sk__static_call_unregister(&SK__SC_DESC(name));              \
	}                                                                    \
	SK__SC_LINKAGE struct sk_static_call_key SK__SC_DESC(name)

/**
 * SK_EXPORT_STATIC_CALL(name) - after SK_DEFINE_STATIC_CALL*(name, ...), at
 * file scope: other objects may call and update static call @name (they
 * declare it with SK_DECLARE_STATIC_CALL); the kernel's EXPORT_STATIC_CALL.
 * Without it a static call is its object's alone, so that two objects
 * embedding the same code each keep their own.
 * SK_EXPORT_STATIC_CALL_TRAMP(name) - other objects may call it, not
 * update it (the kernel's EXPORT_STATIC_CALL_TRAMP).
 */
#if defined(__ELF__) && SK_HAVE_STATIC_CALL_TRAMPOLINES
/* The trampoline made protected: .hidden above, and the last visibility
 * directive for a symbol is the one the assembler keeps. */
#define SK__SC_EXPORT_TRAMP(name)                                            \
	__asm__(".protected sk__sct_" #name)
#else
#define SK__SC_EXPORT_TRAMP(name)                                            \
	SK__SC_LINKAGE struct sk_static_call_key SK__SC_DESC(name)
#endif
#if defined(__ELF__)
/* A pointer, not the descriptor itself: a program's copy relocation of an
 * exported descriptor would leave the defining object updating another
 * copy than the program's. */
#define SK_EXPORT_STATIC_CALL(name)                                          \
	SK__SC_EXPORT_TRAMP(name);                                           \
	SK__SC_LINKAGE_DEF __attribute__((visibility("default"), used))       \
	struct sk_static_call_key *const SK__SC_EXPORTED(name) =              \
		&SK__SC_DESC(name)
#else
#define SK_EXPORT_STATIC_CALL(name)                                          \
	SK__SC_LINKAGE struct sk_static_call_key SK__SC_DESC(name)
#endif
#define SK_EXPORT_STATIC_CALL_TRAMP(name) SK__SC_EXPORT_TRAMP(name)

/** SK_DEFINE_STATIC_CALL(name, func) - a static call of @func's type,
 * calling @func until updated. */
#define SK_DEFINE_STATIC_CALL(name, func)                                    \
	SK__SC_DEFINE(name, __typeof__(func), func, 0)
/*
 * SK__SC_NULL_CHECK(name) - a _NULL static call returns void.  Called with
 * sk_static_call() before it has a target, one that returns a value would
 * return whatever the return register held (its trampoline is a bare
 * return, as the kernel's is); C++ can tell from the type and refuses it
 * at compile time: such a call is _RET0 (0 until updated).  C cannot tell
 * a function's return type without its arguments: docs/static-calls.md.
 */
#ifdef __cplusplus
template <class F> struct sk__sc_returns_void : std::false_type {};
template <class R, class... A>
struct sk__sc_returns_void<R(A...)> : std::is_void<R> {};
template <class R, class... A>
struct sk__sc_returns_void<R(A..., ...)> : std::is_void<R> {};
#if defined(__cpp_noexcept_function_type)
template <class R, class... A>
struct sk__sc_returns_void<R(A...) noexcept> : std::is_void<R> {};
template <class R, class... A>
struct sk__sc_returns_void<R(A..., ...) noexcept> : std::is_void<R> {};
#endif
#define SK__SC_NULL_CHECK(name)                                              \
	static_assert(sk__sc_returns_void<decltype(SK__SC_TRAMP(name))>::value,  \
		      "SK_DEFINE_STATIC_CALL_NULL(" #name "): its type returns a "  \
		      "value, which sk_static_call() would return unset "    \
		      "before the first update: use SK_DEFINE_STATIC_CALL_RET0 " \
		      "(0 until updated)")
#else
#define SK__SC_NULL_CHECK(name)                                              \
	SK__SC_LINKAGE struct sk_static_call_key SK__SC_DESC(name)
#endif
/** SK_DEFINE_STATIC_CALL_NULL(name, func) - of @func's type, with no target
 * (sk_static_call_cond() calls nothing; sk_static_call() must not be used
 * until it has one). */
#define SK_DEFINE_STATIC_CALL_NULL(name, func)                               \
	SK__SC_DEFINE(name, __typeof__(func), 0, SK__STATIC_CALL_NULL);      \
	SK__SC_NULL_CHECK(name)
/** SK_DEFINE_STATIC_CALL_RET0(name, func) - of @func's type, returning 0
 * (sk_static_call_return0) until updated. */
#define SK_DEFINE_STATIC_CALL_RET0(name, func)                               \
	SK__SC_DEFINE(name, __typeof__(func), sk_static_call_return0,        \
		      SK__STATIC_CALL_RET0)

/*
 * The same from a type: @type is a pointer to function type, for calls
 * that have no function to take the type from (a method table's members):
 *
 *	struct mem_methods { void *(*xMalloc)(int); void (*xFree)(void *); };
 *	SK_DEFINE_STATIC_CALL_RET0_TYPE(mem_malloc,
 *		__typeof__(((struct mem_methods *)0)->xMalloc));
 *	typedef void (*free_fn)(void *);
 *	SK_DEFINE_STATIC_CALL_TYPE(mem_free, free_fn, free);
 *
 * SK_DEFINE_STATIC_CALL_TYPE also checks that @func is of @type.
 */
#define SK_DEFINE_STATIC_CALL_TYPE(name, type, func)                         \
	SK__SC_DEFINE(name, SK__SC_FN_OF(type), func, 0);                    \
	SK__SC_TARGET_CHECK(name, func)
#define SK_DEFINE_STATIC_CALL_NULL_TYPE(name, type)                          \
	SK__SC_DEFINE(name, SK__SC_FN_OF(type), 0, SK__STATIC_CALL_NULL);    \
	SK__SC_NULL_CHECK(name)
#define SK_DEFINE_STATIC_CALL_RET0_TYPE(name, type)                          \
	SK__SC_DEFINE(name, SK__SC_FN_OF(type), sk_static_call_return0,      \
		      SK__STATIC_CALL_RET0)

/* The call's target, loaded (the pointer form). */
static inline void *sk__static_call_load(const struct sk_static_call_key *k)
{
	return __atomic_load_n(&k->func, __ATOMIC_RELAXED);
}
/* A function that does nothing: the pointer form's sk_static_call_cond()
 * of a static call with no target (the kernel's __static_call_nop). */
static inline void sk__static_call_nop(void)
{
}
static inline void *
sk__static_call_load_cond(const struct sk_static_call_key *k)
{
	void *f = sk__static_call_load(k);

	/* A function as void *, as the descriptor holds every target: what
	 * POSIX (dlsym) guarantees and ISO C does not, hence __extension__
	 * (-Wpedantic in the users' builds). */
	return f ? f : SK__FN_PTR(&sk__static_call_nop);
}

/**
 * sk_static_call(name)(args...) - call the static call's current target.
 * sk_static_call_cond(name)(args...) - the same for a function returning
 * void, which calls nothing while the static call has no target.
 */
#if SK_HAVE_STATIC_CALL_TRAMPOLINES
#define sk_static_call(name) (SK__SC_TRAMP(name))
#define sk_static_call_cond(name) (SK__SC_TRAMP(name))
#else
#define sk_static_call(name)                                                 \
	SK__TO_FN(__typeof__(&SK__SC_TRAMP(name)),                            \
		  sk__static_call_load(SK__SC_KEYREF(name)))
#define sk_static_call_cond(name)                                            \
	SK__TO_FN(__typeof__(&SK__SC_TRAMP(name)),                            \
		  sk__static_call_load_cond(SK__SC_KEYREF(name)))
#endif

/** sk_static_call_query(name) - the current target (NULL: none), of the
 * call's pointer type. */
#define sk_static_call_query(name)                                           \
	SK__TO_FN(__typeof__(&SK__SC_TRAMP(name)),                            \
		  sk__static_call_load(SK__SC_KEYREF(name)))

/** sk_static_call_sites(name, out) - sk_static_call_sites_of() for static
 * call @name. */
#define sk_static_call_sites(name, out)                                      \
	sk_static_call_sites_of(SK__SC_KEYREF(name), (out))

/*
 * SK__SC_CHECKED(name, f) - @f as void *, if it is a function of the static
 * call's type, NULL (a void pointer, as the kernel's callers pass it and
 * (void *)__static_call_return0) or sk_static_call_return0; anything else
 * does not compile.
 */
#ifdef __cplusplus
/* What sk_static_call_update() takes, as the void * the runtime takes. */
template <class F> static inline void *sk__sc_as_pointer(F f)
{
	return reinterpret_cast<void *>(f); /* a function, or NULL's 0 */
}
static inline void *sk__sc_as_pointer(void *p)
{
	return p;
}
static inline void *sk__sc_as_pointer(std::nullptr_t)
{
	return nullptr;
}
template <class Want, class Got> static inline void *sk__sc_checked(Got f)
{
	/* Convertible: the same type, or a noexcept function of it (C++17:
	 * glibc's functions are noexcept). */
	static_assert(std::is_convertible<Got, Want>::value ||
			      std::is_same<Got, void *>::value ||
			      std::is_same<Got, std::nullptr_t>::value ||
			      std::is_same<Got, long (*)(void)>::value ||
			      std::is_integral<Got>::value,
		      "sk_static_call_update: not a function of this static "
		      "call (its type differs)");
	return sk__sc_as_pointer(f);
}
#define SK__SC_CHECKED(name, f)                                              \
	sk__sc_checked<decltype(&SK__SC_TRAMP(name))>(f)
#else
#define SK__SC_TYPE_IS(t, f)                                                 \
	__builtin_types_compatible_p(t, __typeof__(1 ? (f) : (f)))
#define SK__SC_CHECKED(name, f)                                              \
	(__extension__({                                                     \
		_Static_assert(SK__SC_TYPE_IS(__typeof__(&SK__SC_TRAMP(name)), \
					      f) ||                            \
				       SK__SC_TYPE_IS(void *, f) ||            \
				       SK__SC_TYPE_IS(long (*)(void), f),      \
			       "sk_static_call_update: " #f " is not a "       \
			       "function of this static call (its type "       \
			       "differs)");                                    \
		(void *)(f);                                                 \
	}))
#endif

/**
 * sk_static_call_update(name, func) - re-point the static call at @func (of
 * its type; NULL for a static call used with sk_static_call_cond();
 * sk_static_call_return0).  Return: 0, or -errno with nothing changed
 * (-EBUSY: a thread cannot take the update's trap, as for keys; -EILSEQ:
 * another tool wrote over the trampoline; -EINVAL: NULL for a static call
 * that is neither _NULL nor RET0 is allowed, as in the kernel, and only
 * sk_static_call_cond() may then be used).
 */
#define sk_static_call_update(name, func)                                    \
	sk__static_call_update(SK__SC_KEYREF(name), SK__SC_CHECKED(name, func))

/**
 * SK_STATIC_CALL_TARGET(name, func, "label") - at file scope: @func is one
 * of static call @name's alternatives, which the control plane lists under
 * "label" and switches to (`skctl call NAME=label`): it switches a static
 * call only among the targets its program named this way.  @func must be of
 * the call's type (checked at compile time).
 */
struct sk_static_call_target {
	struct sk_static_call_key *call;
	void *func;
	const char *label;
	unsigned magic; /* SK__STATIC_CALL_MAGIC */
	struct sk_static_call_target *next; /* the runtime's */
};
#ifdef __cplusplus
extern "C" {
#endif
SK_API void sk__static_call_target_add(struct sk_static_call_target *t);
SK_API void sk__static_call_target_remove(struct sk_static_call_target *t);
#ifdef __cplusplus
}
#define SK__SC_TARGET_CHECK(name, func)                                      \
	static_assert(std::is_convertible<decltype(&(func)),                   \
					  decltype(&SK__SC_TRAMP(name))>::value, \
		      "SK_STATIC_CALL_TARGET: " #func " is not a function "     \
		      "of this static call (its type differs)")
#else
#define SK__SC_TARGET_CHECK(name, func)                                      \
	__extension__ _Static_assert(SK__SC_TYPE_IS(__typeof__(&SK__SC_TRAMP(name)), func),  \
		       "SK_STATIC_CALL_TARGET: " #func " is not a function "    \
		       "of this static call (its type differs)")
#endif
#define SK__SC_PASTE2(a, b) a##b
#define SK__SC_PASTE(a, b) SK__SC_PASTE2(a, b)
#define SK__SC_TARGET(name, func, label, id)                                 \
	SK__SC_TARGET_CHECK(name, func);                                     \
	static struct sk_static_call_target id = {                          \
		0, SK__FN_PTR(&(func)), label,                                 \
		SK__STATIC_CALL_MAGIC, 0 };                                    \
	__attribute__((constructor(102), used)) static void                  \
		SK__SC_PASTE(id, _add)(void)                                 \
	{                                                                    \
		id.call = SK__SC_KEYREF(name); /* another object's: at run time */ \
		sk__static_call_target_add(&id);                             \
	}                                                                    \
	__attribute__((destructor(102), used)) static void                   \
		SK__SC_PASTE(id, _remove)(void)                              \
	{                                                                    \
		sk__static_call_target_remove(&id);                          \
	}                                                                    \
	SK__SC_LINKAGE struct sk_static_call_key SK__SC_DESC(name)
#define SK_STATIC_CALL_TARGET(name, func, label)                             \
	SK__SC_TARGET(name, func, label, SK__SC_PASTE(sk__sctg_, __COUNTER__))

/** SK_STATIC_CALL_CHANGE(name, func) - an initializer for struct
 * sk_static_call_change (sk_commit_calls), type-checked likewise. */
#define SK_STATIC_CALL_CHANGE(name, func)                                    \
	{ SK__SC_KEYREF(name), SK__SC_CHECKED(name, func) }

#endif /* STATICKEYS_STATIC_CALL_H */
