/* SPDX-License-Identifier: MIT OR Apache-2.0 */
// comdat_main.cpp - one site survives COMDAT folding, and it is patched.
#include "comdat_inline.h"
#include "../check.h"

SK_DEFINE_KEY_FALSE(comdat_key);

int main()
{
	struct sk_stats a, b;

	CHECK(!comdat_site() && !comdat_site_from_other_file(), "starts off");
	sk_stats_get(&a);
	CHECK(sk_key_enable(&comdat_key) == 0, "enable");
	sk_stats_get(&b);
	CHECK(comdat_site() && comdat_site_from_other_file(),
	      "both callers see the key on");
	/* Built at -O0, so the inline function stays out of line: one copy
	 * survives, with exactly one site.  An entry left behind by the
	 * discarded copy would point at no valid site and fail the enable. */
	CHECK(b.sites_written - a.sites_written == 1,
	      "exactly one site written (%lu)",
	      (unsigned long)(b.sites_written - a.sites_written));
	CHECK(sk_key_disable(&comdat_key) == 0 && !comdat_site() &&
		      !comdat_site_from_other_file(),
	      "disable");
	return check_summary();
}
