/*
 * bench/sites.c - finding and running the generated sites.
 */
#include "sites.h"

const struct site_group *site_group_by_sites(size_t n)
{
	static const struct site_group *const all[] = {
		upd1_groups, upd56_groups, upd1000_groups, upd10000_groups,
	};

	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		if (all[i]->n == n)
			return all[i];
	return 0;
}

void site_group_run(const struct site_group *g)
{
	for (size_t i = 0; i < g->n; i++)
		g->fn[i]();
}
