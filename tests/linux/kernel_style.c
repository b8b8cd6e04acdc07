/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * kernel_style.c - code written as for the kernel, compiled unchanged
 * against <statickeys/linux.h> (as C, and as C++ by kernel_style_cxx.cpp).
 * Every form of site the two kernel APIs allow, on every kind of key.
 */
#include "kernel_style.h"

/* ---- the 2012 API ---------------------------------------------------------- */

struct static_key old_false = STATIC_KEY_INIT_FALSE;
struct static_key old_true = STATIC_KEY_INIT_TRUE;
struct static_key old_zeroed; /* "a key that is not initialised is false" */

#define DEFINE_TRACE(name)                                                   \
	struct tracepoint __tracepoint_##name = { #name, STATIC_KEY_INIT_FALSE, 0 }
DEFINE_TRACE(sched);
struct tracepoint __tracepoint_irq; /* all zero, key included */

/* As the kernel's trace_##name() did from 2012 to 2015.  The site also
 * counts in this thread's own counter, which is what tracepoint_sched()
 * reads: the shared one also moves when another thread that took the
 * branch before a flip got to its increment only after it (a late hit is
 * that thread's, not a site of this one running the old code). */
static __thread unsigned long thread_hits;

#define DECLARE_TRACE_SITE(name)                                             \
	static inline void trace_##name(void)                                \
	{                                                                    \
		if (static_key_false(&__tracepoint_##name.key)) {            \
			__atomic_fetch_add(&__tracepoint_##name.hits, 1,     \
					   __ATOMIC_RELAXED);                \
			thread_hits++;                                       \
		}                                                            \
	}
DECLARE_TRACE_SITE(sched)
DECLARE_TRACE_SITE(irq)

#define NOINLINE __attribute__((noinline))

static NOINLINE bool old_false_unlikely(void)
{
	if (static_key_false(&old_false))
		return true;
	return false;
}

static NOINLINE bool old_false_likely(void)
{
	if (static_key_true(&old_false))
		return true;
	return false;
}

static NOINLINE bool old_true_unlikely(void)
{
	return static_key_false(&old_true);
}

static NOINLINE bool old_true_likely(void)
{
	return static_key_true(&old_true);
}

static NOINLINE bool old_zeroed_unlikely(void)
{
	return static_key_false(&old_zeroed);
}

static NOINLINE bool old_zeroed_likely(void)
{
	return static_key_true(&old_zeroed);
}

static NOINLINE bool tracepoint_sched(void)
{
	unsigned long before = thread_hits;

	trace_sched();
	return thread_hits != before;
}

static NOINLINE bool tracepoint_irq(void)
{
	/* Only this thread counts with this site; others may count too, so
	 * look at the branch itself as well as the side effect. */
	trace_irq();
	return static_key_false(&__tracepoint_irq.key);
}

/* ---- today's API ------------------------------------------------------------ */

DEFINE_STATIC_KEY_FALSE(new_false);
DEFINE_STATIC_KEY_TRUE(new_true);
static DEFINE_STATIC_KEY_TRUE(new_static_true); /* file-local, as in drivers */
DEFINE_STATIC_KEY_FALSE_RO(new_refcounted);
DEFINE_STATIC_KEY_ARRAY_FALSE(new_array, 3);

/* The kernel's kconfig test, as ported code brings it along. */
#define CONFIG_FEATURE_ON 1
#define SK_TEST_PLACEHOLDER_1 0,
#define sk_test_second(ignored, val, ...) val
#define sk_test_defined(x) sk_test_defined2(SK_TEST_PLACEHOLDER_##x)
#define sk_test_defined2(arg1_or_junk) sk_test_second(arg1_or_junk 1, 0)
#define IS_ENABLED(option) sk_test_defined(option)

DEFINE_STATIC_KEY_MAYBE(CONFIG_FEATURE_ON, maybe_on);
DEFINE_STATIC_KEY_MAYBE(CONFIG_FEATURE_OFF, maybe_off);

static NOINLINE bool maybe_on_branch(void)
{
	return static_branch_maybe(CONFIG_FEATURE_ON, &maybe_on);
}

static NOINLINE bool maybe_off_branch(void)
{
	return static_branch_maybe(CONFIG_FEATURE_OFF, &maybe_off);
}

static NOINLINE bool new_false_unlikely(void)
{
	if (static_branch_unlikely(&new_false))
		return true;
	return false;
}

static NOINLINE bool new_false_likely(void)
{
	return static_branch_likely(&new_false);
}

static NOINLINE bool new_true_unlikely(void)
{
	return static_branch_unlikely(&new_true);
}

static NOINLINE bool new_true_likely(void)
{
	return static_branch_likely(&new_true);
}

static NOINLINE bool new_static_true_likely(void)
{
	return static_branch_likely(&new_static_true);
}

static NOINLINE bool new_refcounted_unlikely(void)
{
	return static_branch_unlikely(&new_refcounted);
}

static NOINLINE bool new_array_1_unlikely(void)
{
	return static_branch_unlikely(&new_array[1]);
}

static NOINLINE bool new_array_2_likely(void)
{
	return static_branch_likely(&new_array[2]);
}

const struct kernel_site kernel_sites[] = {
	{ "static_key_false(&old_false)", &old_false, old_false_unlikely },
	{ "static_key_true(&old_false)", &old_false, old_false_likely },
	{ "static_key_false(&old_true)", &old_true, old_true_unlikely },
	{ "static_key_true(&old_true)", &old_true, old_true_likely },
	{ "static_key_false(&old_zeroed)", &old_zeroed, old_zeroed_unlikely },
	{ "static_key_true(&old_zeroed)", &old_zeroed, old_zeroed_likely },
	{ "trace_sched()", &__tracepoint_sched.key, tracepoint_sched },
	{ "trace_irq() (zeroed tracepoint)", &__tracepoint_irq.key,
	  tracepoint_irq },
	{ "static_branch_unlikely(&new_false)", &new_false.key,
	  new_false_unlikely },
	{ "static_branch_likely(&new_false)", &new_false.key,
	  new_false_likely },
	{ "static_branch_unlikely(&new_true)", &new_true.key,
	  new_true_unlikely },
	{ "static_branch_likely(&new_true)", &new_true.key, new_true_likely },
	{ "static_branch_likely(&new_static_true)", &new_static_true.key,
	  new_static_true_likely },
	{ "static_branch_unlikely(&new_refcounted)", &new_refcounted.key,
	  new_refcounted_unlikely },
	{ "static_branch_maybe(CONFIG_FEATURE_ON, &maybe_on)", &maybe_on.key,
	  maybe_on_branch },
	{ "static_branch_maybe(CONFIG_FEATURE_OFF, &maybe_off)", &maybe_off.key,
	  maybe_off_branch },
	{ "static_branch_unlikely(&new_array[1])", &new_array[1].key,
	  new_array_1_unlikely },
	{ "static_branch_likely(&new_array[2])", &new_array[2].key,
	  new_array_2_likely },
};
const unsigned kernel_nsites = sizeof(kernel_sites) / sizeof(kernel_sites[0]);
