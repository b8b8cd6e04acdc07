/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * refuse_site.c - a breakpoint on a site itself: the update is refused,
 * names the site, and changes nothing.
 *
 * A debugger's or uprobe's int3 is written (through /proc/self/mem, as gdb
 * and the kernel do) over the first byte of one of key a's three sites.
 * Then a commit of keys a and b must fail with -EILSEQ, print the site's
 * address, function, object and the bytes found, and leave every site of
 * both keys exactly as it was, both keys off.  Key b alone still updates;
 * once the breakpoint is removed, so does a.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include <statickeys.h>

#include "../check.h"
#include "../faults/capture.h"

SK_DEFINE_KEY_FALSE(a);
SK_DEFINE_KEY_FALSE(b);

#define SITE_FN(name, key)                                                   \
	__attribute__((noinline, aligned(16))) int name(void)                \
	{                                                                    \
		if (sk_branch_unlikely(&key))                                \
			return 1;                                            \
		return 0;                                                    \
	}
SITE_FN(a_site0, a) SITE_FN(a_site1, a) SITE_FN(a_site2, a)
SITE_FN(b_site0, b) SITE_FN(b_site1, b)
static int (*const fns[5])(void) = { a_site0, a_site1, a_site2, b_site0,
				     b_site1 };

static int mem_fd;

static void poke(void *addr, unsigned char v)
{
	CHECK(pwrite(mem_fd, &v, 1, (off_t)(uintptr_t)addr) == 1,
	      "write through /proc/self/mem");
}

int main(void)
{
	unsigned char before[5][5];
	struct capture c;
	unsigned char *bp = (unsigned char *)a_site1;

	mem_fd = open("/proc/self/mem", O_RDWR | O_CLOEXEC);
	if (mem_fd < 0)
		skip_test("/proc/self/mem cannot be opened for writing");
	for (int i = 0; i < 5; i++) {
		const unsigned char *s = (const unsigned char *)fns[i];
		CHECK(s[0] == 0x0f && s[1] == 0x1f,
		      "function %d starts with its site (NOP5)", i);
	}
	unsigned char orig = bp[0];
	poke(bp, 0xcc); /* the breakpoint, on a_site1's site */
	for (int i = 0; i < 5; i++)
		memcpy(before[i], (const void *)fns[i], 5);

	struct sk_key_change both[] = { SK_KEY_CHANGE(&a, true),
					SK_KEY_CHANGE(&b, true) };
	capture_begin(&c);
	int r = sk_commit(both, 2);
	capture_end(&c);
	CHECK(r == -EILSEQ, "commit over a breakpoint returns -EILSEQ (got %d)", r);
	CHECK(strstr(c.text, "a_site1+0x0") != NULL,
	      "message names the function: %s", c.text);
	CHECK(strstr(c.text, "refuse_site") != NULL ||
		      strstr(c.text, "coexist_refuse") != NULL,
	      "message names the object: %s", c.text);
	CHECK(strstr(c.text, "cc 1f 44 00 00") != NULL,
	      "message shows the bytes found: %s", c.text);
	CHECK(strstr(c.text, "breakpoint") != NULL,
	      "message says what an int3 there means: %s", c.text);
	char addr[32];
	snprintf(addr, sizeof(addr), "%p", (void *)bp);
	CHECK(strstr(c.text, addr) != NULL, "message has the address %s", addr);
	for (int i = 0; i < 5; i++)
		CHECK(memcmp(before[i], (const void *)fns[i], 5) == 0,
		      "site %d unchanged after the refused commit", i);
	CHECK(!sk_key_enabled(&a.key) && !sk_key_enabled(&b.key),
	      "both keys still off");
	CHECK(a_site0() == 0 && a_site2() == 0 && b_site0() == 0 &&
		      b_site1() == 0,
	      "every site still takes the off path");

	capture_begin(&c);
	r = sk_key_enable(&a);
	capture_end(&c);
	CHECK(r == -EILSEQ, "enabling a alone is refused too (got %d)", r);
	CHECK(memcmp(before[0], (const void *)fns[0], 5) == 0 &&
		      memcmp(before[2], (const void *)fns[2], 5) == 0,
	      "a's other sites unchanged");

	CHECK(sk_key_enable(&b) == 0, "key b, without breakpoints, updates");
	CHECK(b_site0() == 1 && b_site1() == 1, "b's sites now take the on path");

	poke(bp, orig); /* the debugger removes its breakpoint */
	CHECK(sk_key_enable(&a) == 0, "a updates once the breakpoint is gone");
	CHECK(a_site0() == 1 && a_site1() == 1 && a_site2() == 1,
	      "a's sites take the on path");
	CHECK(sk_key_disable(&a) == 0 && sk_key_disable(&b) == 0, "and back");
	return check_summary();
}
