/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * statickeys/trace.h - tracepoints in the kernel's shape, on static keys.
 *
 *	// in a header
 *	SK_DECLARE_TRACE(net, rx, SK_TP_PROTO(int len, long seq),
 *			 SK_TP_ARGS(len, seq));
 *	// in one .c file of the object that owns the tracepoint
 *	SK_DEFINE_TRACE(net, rx, SK_TP_PROTO(int len, long seq),
 *			SK_TP_ARGS(len, seq));
 *
 *	sk_trace_net_rx(n, seq);                // one 5-byte NOP while off
 *	SK_TRACE(net, rx, n, expensive(seq));   // arguments evaluated only when on
 *	sk_register_trace_net_rx(probe, data);  // probe(data, len, seq)
 *	sk_unregister_trace_net_rx(probe, data);
 *	if (sk_trace_net_rx_enabled()) ...
 *
 * A tracepoint is a false key named "SYSTEM:NAME" (listed and flipped by
 * skctl, STATICKEYS and STATICKEYS_FILE like any key) plus an array of probe
 * callbacks.  Its call site is one sk_branch_unlikely() site; the "on" path
 * is an out-of-line call to a function the DEFINE file emits, which is also a
 * USDT probe (provider SYSTEM, name NAME, the tracepoint's arguments, with a
 * semaphore) so that bpftrace and perf find it.  The key is reference
 * counted: each registered probe holds a reference, and so does a tracer
 * attached to the USDT probe while the kernel holds its semaphore non-zero
 * (the runtime's semaphore watcher, docs/tracepoints.md).
 *
 * sk_trace_SYSTEM_NAME() is an inline function, as the kernel's
 * trace_NAME(): an argument the compiler can prove free of side effects is
 * computed only on the "on" path; one with side effects (a call, an
 * increment) is evaluated as any function argument is.  SK_TRACE() is the
 * macro form, which evaluates its arguments only when the tracepoint is on.
 *
 * A tracepoint carries 1 to 12 arguments (12 is what a sys/sdt.h note can
 * describe); integers, pointers and anything that converts to them.
 */
#ifndef STATICKEYS_TRACE_H
#define STATICKEYS_TRACE_H

#include <stdbool.h>

#include "statickeys/branch.h"
#include "statickeys/key.h"

/* The USDT note comes from systemtap's sys/sdt.h (Debian systemtap-sdt-dev);
 * without it, or with SK_TRACE_NO_USDT, tracepoints still work but tracers
 * do not see them. */
#if !defined(SK_TRACE_NO_USDT) && defined(__has_include)
#if __has_include(<sys/sdt.h>)
#include <sys/sdt.h>
#define SK__TRACE_HAVE_USDT 1
#endif
#endif

#ifdef __cplusplus
extern "C" {
#endif

/** struct sk_tracepoint_probe - one registered callback and its data. */
struct sk_tracepoint_probe {
	void (*func)(void);
	void *data;
};

/**
 * struct sk_tracepoint - a tracepoint's state; opaque, use the macros.
 * @key:       the tracepoint's key, named "SYSTEM:NAME" (first member: the
 *             site's key operand is the tracepoint itself).
 * @probes:    NULL or a NULL-terminated array, replaced whole on every change
 *             and freed only after every thread that could read it is done.
 * @readers:   threads running the probes, counted by the phase they
 *             entered in (the grace period waits for both).
 * @phase:     which of @readers new firings count in.
 * @semaphore: the USDT semaphore the kernel raises for each attached tracer.
 * @tracer_ref: 1 while the semaphore watcher holds a key reference (2: its
 *             update was refused; retried once the tracers have left).
 * @next:      the runtime's list of defined tracepoints.
 */
struct sk_tracepoint {
	struct sk_key_false key;
	struct sk_tracepoint_probe *probes;
	unsigned long readers[2];
	unsigned int phase;
	int tracer_ref;
	volatile unsigned short *semaphore;
	struct sk_tracepoint *next;
};

SK_API int sk__tracepoint_register(struct sk_tracepoint *tp,
				   void (*func)(void), void *data);
SK_API int sk__tracepoint_unregister(struct sk_tracepoint *tp,
				     void (*func)(void), void *data);
SK_API const struct sk_tracepoint_probe *
sk__tracepoint_enter(struct sk_tracepoint *tp, unsigned int *phase);
SK_API void sk__tracepoint_exit(struct sk_tracepoint *tp, unsigned int phase);
SK_API void sk__tracepoint_add(struct sk_tracepoint *tp);
SK_API void sk__tracepoint_remove(struct sk_tracepoint *tp);

#ifdef __cplusplus
}
#endif

/** SK_TP_PROTO(...) - a tracepoint's parameter list, e.g. (int a, long b). */
#define SK_TP_PROTO(...) __VA_ARGS__
/** SK_TP_ARGS(...) - the same parameters' names, e.g. (a, b). */
#define SK_TP_ARGS(...) __VA_ARGS__

/* Counts 1 to 20 arguments; 13 or more trip the limit below. */
#define SK__TP_NARGS(...)                                                    \
	SK__TP_NARGS_(__VA_ARGS__, 20, 19, 18, 17, 16, 15, 14, 13, 12, 11,   \
		      10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0)
#define SK__TP_NARGS_(_1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12,     \
		      _13, _14, _15, _16, _17, _18, _19, _20, N, ...)        \
	N

#ifdef __cplusplus
#define SK__TP_STATIC_ASSERT static_assert
#else
#define SK__TP_STATIC_ASSERT __extension__ _Static_assert
#endif

#define SK__TP(sys, name) sk__tp_##sys##_##name
#define SK__TP_ON(sys, name) sk__trace_##sys##_##name##_on
#define SK__TP_SEM(sys, name) sk__tp_##sys##_##name##_semaphore

/**
 * SK_DECLARE_TRACE() - declare tracepoint SYSTEM:NAME and its calls.
 * @sys:   the system (USDT provider): a C identifier.
 * @name:  the event: a C identifier.
 * @proto: SK_TP_PROTO(parameters), 1 to 12 of them.
 * @args:  SK_TP_ARGS(their names).
 */
#define SK_DECLARE_TRACE(sys, name, proto, args)                             \
	SK__TP_STATIC_ASSERT(SK__TP_NARGS(args) <= 12,                       \
			     "tracepoint " #sys ":" #name " has more than "  \
			     "12 arguments, the most a USDT probe "         \
			     "(sys/sdt.h) can carry");                       \
	/* What SK_DEFINE_TRACE looks for first: a definition without its \
	 * declaration fails naming what is missing. */                     \
	enum { sk_trace_##sys##_##name##_needs_SK_DECLARE_TRACE_first = 1 }; \
	/* Exported even under -fvisibility=hidden, as the kernel's         \
	 * EXPORT_TRACEPOINT_SYMBOL: other objects fire it too. */           \
	extern struct sk_tracepoint SK__TP(sys, name)                        \
		__attribute__((visibility("default")));                      \
	__attribute__((visibility("default"))) void SK__TP_ON(sys, name)(proto); \
	/** sk_trace_SYSTEM_NAME() - fire: one NOP while off. */             \
	__attribute__((always_inline, unused)) static inline void            \
		sk_trace_##sys##_##name(proto)                               \
	{                                                                    \
		if (sk_branch_unlikely(&SK__TP(sys, name).key))              \
			SK__TP_ON(sys, name)(args);                          \
	}                                                                    \
	/** sk_trace_SYSTEM_NAME_enabled() - whether the tracepoint is on. */\
	__attribute__((always_inline, unused)) static inline bool            \
		sk_trace_##sys##_##name##_enabled(void)                      \
	{                                                                    \
		return sk_branch_unlikely(&SK__TP(sys, name).key);           \
	}                                                                    \
	/** sk_register_trace_SYSTEM_NAME() - call probe(data, args...) on   \
	 * every firing; takes a reference on the key.  Return: 0, -EEXIST, \
	 * -EDEADLK from inside a probe, -ENOMEM, or a key update's error. */\
	__attribute__((unused)) static inline int                            \
		sk_register_trace_##sys##_##name(                            \
			void (*probe)(void *, proto), void *data)            \
	{                                                                    \
		return sk__tracepoint_register(                              \
			&SK__TP(sys, name),                                  \
			SK__FN_CAST(void (*)(void), probe), data);           \
	}                                                                    \
	/** sk_unregister_trace_SYSTEM_NAME() - remove a probe; once it      \
	 * returns 0 the probe is never called again.  Return: 0, -ENOENT,  \
	 * -EDEADLK from inside a probe. */                                  \
	__attribute__((unused)) static inline int                            \
		sk_unregister_trace_##sys##_##name(                          \
			void (*probe)(void *, proto), void *data)            \
	{                                                                    \
		return sk__tracepoint_unregister(                            \
			&SK__TP(sys, name),                                  \
			SK__FN_CAST(void (*)(void), probe), data);           \
	}                                                                    \
	typedef void (*sk__tp_probe_##sys##_##name##_t)(void *, proto)

/** SK_TRACE() - fire SYSTEM:NAME, evaluating the arguments only when on. */
#define SK_TRACE(sys, name, ...)                                             \
	do {                                                                 \
		if (sk_branch_unlikely(&SK__TP(sys, name).key))              \
			SK__TP_ON(sys, name)(__VA_ARGS__);                   \
	} while (0)

#ifdef SK__TRACE_HAVE_USDT
#if defined(__x86_64__)
/*
 * x86-64: the probe is a 5-byte NOP (0f 1f 44 00 00) with the stack pointer
 * moved below the 128-byte red zone around it.  Linux turns a uprobe on that
 * NOP into a call to its uprobe trampoline after the first hit (0.9 us per
 * event instead of 2.5-3.1 us through int3, docs/tracepoints.md); the call
 * pushes a return address and the trampoline saves registers below the
 * stack pointer, which is why libbpf stopped emitting a bare 5-byte NOP: it
 * would overwrite what a function keeps in its red zone.  Here they land
 * below it.  The arguments are registers or constants ("nr", never memory
 * addressed from %rsp), so the note's operands stay true while %rsp is
 * moved.  A kernel that does not optimize this NOP takes the int3 path, as
 * for sys/sdt.h's 1-byte NOP.  tests/trace/red_zone.c checks both claims
 * with bpftrace attached.
 */
#define SK__SDT_SITE                                                         \
	"lea -128(%%rsp), %%rsp\n"                                           \
	"990: .byte 0x0f, 0x1f, 0x44, 0x00, 0x00\n"                          \
	"lea 128(%%rsp), %%rsp\n"
/* sys/sdt.h's _SDT_ARG (size and type as 0xSSTT) with "nr" for "nor". */
#ifdef __cplusplus
#define SK__INT(x) static_cast<int>(x)
#else
#define SK__INT(x) ((int)(x))
#endif
#define SK__SDT_ARG(n, x)                                                    \
	[_SDT_S##n] "n"((_SDT_ARGSIGNED(x) ? -1 : 1) *                       \
			(-(SK__INT(_SDT_ARGSIZE(x)) << 8) +                  \
			 (-(0x7f & __builtin_classify_type(x))))),           \
	[_SDT_A##n] "nr"(_SDT_ARGVAL(x))
#define SK__SDT_OPERANDS_1(a1) SK__SDT_ARG(1, a1)
#define SK__SDT_OPERANDS_2(a1, a2) SK__SDT_OPERANDS_1(a1), SK__SDT_ARG(2, a2)
#define SK__SDT_OPERANDS_3(a1, a2, a3)                                       \
	SK__SDT_OPERANDS_2(a1, a2), SK__SDT_ARG(3, a3)
#define SK__SDT_OPERANDS_4(a1, a2, a3, a4)                                   \
	SK__SDT_OPERANDS_3(a1, a2, a3), SK__SDT_ARG(4, a4)
#define SK__SDT_OPERANDS_5(a1, a2, a3, a4, a5)                               \
	SK__SDT_OPERANDS_4(a1, a2, a3, a4), SK__SDT_ARG(5, a5)
#define SK__SDT_OPERANDS_6(a1, a2, a3, a4, a5, a6)                           \
	SK__SDT_OPERANDS_5(a1, a2, a3, a4, a5), SK__SDT_ARG(6, a6)
#define SK__SDT_OPERANDS_7(a1, a2, a3, a4, a5, a6, a7)                       \
	SK__SDT_OPERANDS_6(a1, a2, a3, a4, a5, a6), SK__SDT_ARG(7, a7)
#define SK__SDT_OPERANDS_8(a1, a2, a3, a4, a5, a6, a7, a8)                   \
	SK__SDT_OPERANDS_7(a1, a2, a3, a4, a5, a6, a7), SK__SDT_ARG(8, a8)
#define SK__SDT_OPERANDS_9(a1, a2, a3, a4, a5, a6, a7, a8, a9)               \
	SK__SDT_OPERANDS_8(a1, a2, a3, a4, a5, a6, a7, a8), SK__SDT_ARG(9, a9)
#define SK__SDT_OPERANDS_10(a1, a2, a3, a4, a5, a6, a7, a8, a9, a10)         \
	SK__SDT_OPERANDS_9(a1, a2, a3, a4, a5, a6, a7, a8, a9),              \
		SK__SDT_ARG(10, a10)
#define SK__SDT_OPERANDS_11(a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11)    \
	SK__SDT_OPERANDS_10(a1, a2, a3, a4, a5, a6, a7, a8, a9, a10),        \
		SK__SDT_ARG(11, a11)
#define SK__SDT_OPERANDS_12(a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11,    \
			    a12)                                             \
	SK__SDT_OPERANDS_11(a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11),   \
		SK__SDT_ARG(12, a12)
#define SK__SDT_OPERANDS(n) SK__SDT_OPERANDS_##n
#else
/* Elsewhere sys/sdt.h's own site: its NOP and its operands. */
#define SK__SDT_SITE _SDT_ASM_1(990: _SDT_NOP)
#define SK__SDT_OPERANDS(n) _SDT_ASM_OPERANDS_##n
#endif
/*
 * The USDT note, as sys/sdt.h's _SDT_PROBE writes it, with the semaphore's
 * address given here rather than through _SDT_HAS_SEMAPHORES (which would
 * make every other sys/sdt.h probe of the file need a semaphore too).
 */
#define SK__SDT_BODY(provider, name, n)                                      \
	SK__SDT_SITE                                                         \
	_SDT_DEF_MACROS                                                      \
	_SDT_ASM_3(.pushsection .note.stapsdt, _SDT_ASM_AUTOGROUP, "note")   \
	_SDT_ASM_1(.balign 4)                                                \
	_SDT_ASM_3(.4byte 992f-991f, 994f-993f, _SDT_NOTE_TYPE)              \
	_SDT_ASM_1(991: .asciz _SDT_NOTE_NAME)                               \
	_SDT_ASM_1(992: .balign 4)                                           \
	_SDT_ASM_1(993: _SDT_ASM_ADDR 990b)                                  \
	_SDT_ASM_1(_SDT_ASM_ADDR _.stapsdt.base)                             \
	_SDT_ASM_1(_SDT_ASM_ADDR SK__TP_SEM(provider, name))                 \
	_SDT_ASM_STRING(provider)                                            \
	_SDT_ASM_STRING(name)                                                \
	_SDT_ASM_ARGS(n)                                                     \
	_SDT_ASM_SUBSTR(\x00)                                                \
	_SDT_UNDEF_MACROS                                                    \
	_SDT_ASM_1(994: .balign 4)                                           \
	_SDT_ASM_1(.popsection)
#define SK__SDT_PROBE_(provider, name, n, arglist)                           \
	do {                                                                 \
		__asm__ __volatile__(SK__SDT_BODY(provider, name, n)         \
				     ::SK__SDT_OPERANDS(n) arglist);         \
		__asm__ __volatile__(_SDT_ASM_BASE);                         \
	} while (0)
#define SK__SDT_PROBE_N(provider, name, n, ...)                              \
	SK__SDT_PROBE_(provider, name, n, (__VA_ARGS__))
#define SK__SDT_PROBE(provider, name, ...)                                   \
	SK__SDT_PROBE_N(provider, name, SK__TP_NARGS(__VA_ARGS__),           \
			__VA_ARGS__)
/* The semaphore: 16 bits the kernel raises per attached tracer (uprobe
 * ref_ctr_offset), in .probes as sys/sdt.h's dtrace-generated headers put
 * them; hidden, so a library's semaphore is its own. */
#define SK__TP_SEMAPHORE_DEF(sys, name)                                      \
	__attribute__((visibility("hidden"), used, section(".probes")))      \
	volatile unsigned short SK__TP_SEM(sys, name)
#define SK__TP_SEMAPHORE_PTR(sys, name) (&SK__TP_SEM(sys, name))
#else
#define SK__SDT_PROBE(provider, name, ...) ((void)0)
#define SK__TP_SEMAPHORE_DEF(sys, name)                                      \
	extern int sk__tp_##sys##_##name##_no_usdt
#ifdef __cplusplus
#define SK__TP_SEMAPHORE_PTR(sys, name)                                      \
	static_cast<volatile unsigned short *>(nullptr)
#else
#define SK__TP_SEMAPHORE_PTR(sys, name) ((volatile unsigned short *)0)
#endif
#endif

#ifdef __cplusplus
#define SK__TP_EXTERN_C extern "C"
#else
#define SK__TP_EXTERN_C
#endif

/**
 * SK_DEFINE_TRACE() - define tracepoint SYSTEM:NAME, in one file of one
 * object, with SK_DECLARE_TRACE's arguments.  Defined twice, the link fails
 * naming sk__tp_SYSTEM_NAME.
 */
#define SK_DEFINE_TRACE(sys, name, proto, args)                              \
	SK__TP_STATIC_ASSERT(                                                \
		sk_trace_##sys##_##name##_needs_SK_DECLARE_TRACE_first,      \
		"SK_DEFINE_TRACE(" #sys ", " #name ", ...) needs "           \
		"SK_DECLARE_TRACE(" #sys ", " #name ", ...) before it");     \
	SK__TP_SEMAPHORE_DEF(sys, name);                                     \
	struct sk_tracepoint SK__TP(sys, name) = {                           \
		{ SK__KEY_INIT(0, #sys ":" #name, "tracepoint") },           \
		0, { 0, 0 }, 0, 0, SK__TP_SEMAPHORE_PTR(sys, name), 0 };     \
	static struct sk_key *const sk__tpkeyref_##sys##_##name              \
		__attribute__((SK__KEYS_SECTION_ATTR)) =             \
			&SK__TP(sys, name).key.key;                          \
	/* The "on" path: the USDT probe, then every registered probe. */    \
	__attribute__((noinline, cold)) void SK__TP_ON(sys, name)(proto)     \
	{                                                                    \
		unsigned int phase_;                                         \
		const struct sk_tracepoint_probe *p_;                        \
		SK__SDT_PROBE(sys, name, args);                              \
		p_ = sk__tracepoint_enter(&SK__TP(sys, name), &phase_);      \
		for (; p_ && p_->func; p_++)                                 \
			SK__FN_CAST(sk__tp_probe_##sys##_##name##_t,         \
				    p_->func)(p_->data, args);               \
		sk__tracepoint_exit(&SK__TP(sys, name), phase_);             \
	}                                                                    \
	/* After the object's sites are registered (101): the watcher may   \
	 * take a key reference as soon as the tracepoint is listed. */      \
	__attribute__((constructor(102), used)) static void                  \
		sk__tp_ctor_##sys##_##name(void)                             \
	{                                                                    \
		sk__tracepoint_add(&SK__TP(sys, name));                      \
	}                                                                    \
	__attribute__((destructor(102), used)) static void                   \
		sk__tp_dtor_##sys##_##name(void)                             \
	{                                                                    \
		sk__tracepoint_remove(&SK__TP(sys, name));                   \
	}                                                                    \
	typedef int sk__tp_defined_##sys##_##name##_t

#endif /* STATICKEYS_TRACE_H */
