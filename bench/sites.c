/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * bench/sites.c - finding and running the generated sites.
 */
#include <string.h>

#include <statickeys.h>

#include "sites.h"

const char *bench_no_traps_reason(void)
{
	struct sk_stats s;

	if (sk_stats_get(&s) != 0 || !SK_HAVE_PATCHED_SITES ||
	    strcmp(s.backend, "portable") == 0)
		return "the portable backend patches no code: sites test an "
		       "atomic flag and never trap";
#if !defined(__x86_64__) && !defined(__i386__)
	return "only x86's int3 protocol traps; this architecture changes a "
	       "site with one store (docs/porting.md)";
#else
	return NULL;
#endif
}

const struct site_group *site_group_by_sites(size_t n)
{
	static const struct site_group *const all[] = {
		upd1_groups, upd56_groups, upd1000_groups,
#if !SK_BENCH_NO_10K /* built only for the report (Release: bench/CMakeLists.txt) */
		upd10000_groups,
#endif
	};

	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		if (all[i]->n == n)
			return all[i];
	return 0;
}

const struct site_group *site_group_by_layout(size_t n, const char *layout)
{
	static const struct site_group *const spread[] = {
		spread56_groups, spread1000_groups,
	};

	if (!layout || strcmp(layout, "packed") == 0)
		return site_group_by_sites(n);
	if (strcmp(layout, "spread") != 0)
		return 0;
	for (size_t i = 0; i < sizeof(spread) / sizeof(spread[0]); i++)
		if (spread[i]->n == n)
			return spread[i];
	return 0;
}

void site_group_run(const struct site_group *g)
{
	for (size_t i = 0; i < g->n; i++)
		g->fn[i]();
}
