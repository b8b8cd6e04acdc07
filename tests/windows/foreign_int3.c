/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * foreign_int3.c - code another tool wrote on Windows: a debugger's
 * breakpoint (int3, written with WriteProcessMemory as debuggers do) on a
 * site makes its key's update fail with -EILSEQ before anything is written,
 * and stays; one on the byte after a site survives the site's updates
 * (exact writes: only the site's own 5 bytes are written).  Nothing here
 * runs a site while a foreign int3 is in it.
 */
#include <windows.h>

#include <errno.h>
#include <string.h>

#include <statickeys.h>

#include "../check.h"

SK_DEFINE_KEY_FALSE(foreign_key);

__attribute__((noinline)) static int site(void)
{
	return sk_branch_unlikely(&foreign_key) ? 1 : 0;
}

/* The one site of this program, from its site table. */
static unsigned char *site_address(void)
{
	for (const struct sk__site_entry *e = SK__SITES_START;
	     e < SK__SITES_STOP; e++)
		if (e->code)
			return (unsigned char *)&e->code + e->code;
	return NULL;
}

static void poke(unsigned char *addr, unsigned char byte)
{
	SIZE_T n = 0;

	CHECK(WriteProcessMemory(GetCurrentProcess(), addr, &byte, 1, &n) &&
		      n == 1,
	      "WriteProcessMemory at %p", (void *)addr);
	FlushInstructionCache(GetCurrentProcess(), addr, 1);
}

int main(void)
{
	unsigned char *s = site_address();

	CHECK(s != NULL && s[0] == 0x0f, "the site is a NOP5 (%02x)",
	      s ? s[0] : 0);
	if (!s)
		return check_summary();

	/* A breakpoint on the site. */
	poke(s, 0xcc);
	CHECK(sk_key_enable(&foreign_key) == -EILSEQ,
	      "an update over a debugger's int3: -EILSEQ");
	CHECK(!sk_key_enabled(&foreign_key) && s[0] == 0xcc,
	      "the key stays off, the int3 stays");
	poke(s, 0x0f);
	CHECK(sk_key_enable(&foreign_key) == 0 && site() == 1 && s[0] == 0xe9,
	      "the breakpoint removed: the update goes through");
	CHECK(sk_key_disable(&foreign_key) == 0 && site() == 0, "and back");

	/* A breakpoint on the instruction after the site. */
	unsigned char after = s[5];
	poke(s + 5, 0xcc);
	CHECK(sk_key_enable(&foreign_key) == 0 && s[0] == 0xe9 &&
		      s[5] == 0xcc,
	      "the site's update left the next byte alone (%02x)", s[5]);
	CHECK(sk_key_disable(&foreign_key) == 0 && s[5] == 0xcc,
	      "both ways");
	poke(s + 5, after);
	CHECK(site() == 0, "the site runs as before");
	return check_summary();
}
