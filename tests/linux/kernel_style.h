/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * kernel_style.h - what the kernel-style code in kernel_style.c exports to
 * the test driver: its keys, and one function per site.
 */
#ifndef SK_TESTS_KERNEL_STYLE_H
#define SK_TESTS_KERNEL_STYLE_H

#include <statickeys/linux.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The tracepoint pattern: a key embedded in another global struct. */
struct tracepoint {
	const char *name;
	struct static_key key;
	unsigned long hits;
};

/* 2012 API */
extern struct static_key old_false;          /* STATIC_KEY_INIT_FALSE */
extern struct static_key old_true;           /* STATIC_KEY_INIT_TRUE */
extern struct static_key old_zeroed;         /* never initialised */
extern struct tracepoint __tracepoint_sched; /* initialised, embedded */
extern struct tracepoint __tracepoint_irq;   /* zeroed, embedded */

/* Today's API */
DECLARE_STATIC_KEY_FALSE(new_false);
DECLARE_STATIC_KEY_TRUE(new_true);
DECLARE_STATIC_KEY_FALSE(new_refcounted);
extern struct static_key_false new_array[3];
extern struct static_key_true maybe_on;   /* DEFINE_STATIC_KEY_MAYBE, set */
extern struct static_key_false maybe_off; /* DEFINE_STATIC_KEY_MAYBE, unset */

/* One site per function, so each can be run from any thread. */
typedef bool (*site_fn)(void);
struct kernel_site {
	const char *what;
	struct static_key *key; /* whose state the site must show */
	site_fn run;
};
extern const struct kernel_site kernel_sites[];
extern const unsigned kernel_nsites;

#ifdef __cplusplus
}
#endif

#endif
