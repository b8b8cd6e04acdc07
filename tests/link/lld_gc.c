/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * tests/link/lld_gc.c - sites and key listings survive lld --gc-sections.
 *
 * lld (clang -fuse-ld=lld, and every Rust link) does not count the linker's
 * __start_/__stop_ symbols as references to a section, so with
 * --gc-sections it drops "sk_sites" and "sk_keys" unless they carry
 * SHF_GNU_RETAIN.  Without it this program still links and runs, its keys
 * just never reach their sites: each check below would fail.  Built with
 * -ffunction-sections -fdata-sections -fuse-ld=lld -Wl,--gc-sections, once
 * with the static runtime and once with the shared one plus a library, and
 * with GNU ld's -z start-stop-gc, which follows the same rule.
 */
#include <statickeys.h>

#include "../check.h"

SK_DEFINE_KEY_FALSE(lld_off);
SK_DEFINE_KEY_TRUE(lld_on);
SK_DEFINE_KEY_FALSE(lld_no_sites); /* only the "sk_keys" listing names it */

#ifdef LLD_WITH_LIB
int lld_lib_site(void);
int lld_lib_flip(int on);
#endif

__attribute__((noinline)) static int off_unlikely(void)
{
	return sk_branch_unlikely(&lld_off) ? 1 : 0;
}

__attribute__((noinline)) static int off_likely(void)
{
	return sk_branch_likely(&lld_off) ? 1 : 0;
}

__attribute__((noinline)) static int on_unlikely(void)
{
	return sk_branch_unlikely(&lld_on) ? 1 : 0;
}

static void check_sites(int off, int on, const char *when)
{
	CHECK(off_unlikely() == off, "%s: unlikely site of lld_off says %d",
	      when, off);
	CHECK(off_likely() == off, "%s: likely site of lld_off says %d", when,
	      off);
	CHECK(on_unlikely() == on, "%s: site of lld_on says %d", when, on);
}

int main(void)
{
	check_sites(0, 1, "initial");
	CHECK(sk_key_enable(&lld_off) == 0, "enable lld_off");
	CHECK(sk_key_disable(&lld_on) == 0, "disable lld_on");
	check_sites(1, 0, "after flip");
	CHECK(sk_key_disable(&lld_off) == 0, "disable lld_off");
	CHECK(sk_key_enable(&lld_on) == 0, "enable lld_on");
	check_sites(0, 1, "after flip back");

	struct sk_stats st;
	CHECK(sk_stats_get(&st) == 0 && st.sites_written == 6,
	      "4 updates rewrote 2+1+2+1 sites (got %llu)",
	      (unsigned long long)st.sites_written);
	CHECK(sk_key_find("lld_no_sites") == &lld_no_sites.key,
	      "a key without sites is found by name (its listing survived)");
#ifdef LLD_WITH_LIB
	CHECK(lld_lib_site() == 0, "library site off");
	CHECK(lld_lib_flip(1) == 0 && lld_lib_site() == 1,
	      "library key reaches the library's site");
	CHECK(lld_lib_flip(0) == 0 && lld_lib_site() == 0,
	      "library key flips back");
#endif
	printf("lld --gc-sections: sites and key listings kept\n");
	return check_summary();
}
