/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * The C debug statements of a process that has Rust ones too: one
 * catalogue, one query language, one sink for both.
 */
#include <stddef.h>
#include <stdio.h>

#include <statickeys.h>

/* Each returns its statement's line. */
__attribute__((noinline)) int c_says(int n)
{
	sk_pr_debug("c says %d\n", n);
	return __LINE__ - 1;
}

__attribute__((noinline)) int c_net(int n)
{
	sk_pr_debug_class("net", "c net %d\n", n);
	return __LINE__ - 1;
}

/* A sink of C's own, for Rust statements: the last message it got. */
static char last[256];

static void c_sink(const struct sk_dyndbg_site *site, const char *msg,
		   size_t len)
{
	snprintf(last, sizeof(last), "%s:%u %.*s", site->function, site->line,
		 (int)len, msg);
}

/* Re-point the sink from C (1: to c_sink, 0: back to stderr). */
int c_sink_set(int on)
{
	return sk_static_call_update(sk_dyndbg_sink,
				     on ? c_sink : sk_dyndbg_sink_stderr);
}

const char *c_sink_last(void)
{
	return last;
}

/* The descriptor's layout as C sees it: its size, then each member's
 * offset (the fields of struct sk_dyndbg_site in order). */
size_t c_site_layout(int what)
{
	switch (what) {
	case 0: return sizeof(struct sk_dyndbg_site);
	case 1: return offsetof(struct sk_dyndbg_site, magic);
	case 2: return offsetof(struct sk_dyndbg_site, line);
	case 3: return offsetof(struct sk_dyndbg_site, file);
	case 4: return offsetof(struct sk_dyndbg_site, function);
	case 5: return offsetof(struct sk_dyndbg_site, format);
	case 6: return offsetof(struct sk_dyndbg_site, cls);
	case 7: return offsetof(struct sk_dyndbg_site, module);
	case 8: return offsetof(struct sk_dyndbg_site, flags);
	}
	return 0;
}
