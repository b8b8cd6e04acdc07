/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * bench/sites.h - keys with many real sites, for the update experiments.
 *
 * The sources are generated at build time (gen_sites.cmake): each site is
 * `if (sk_branch_unlikely(&key)) counter++` in a function of its own, so a
 * 10000-site key really has 10000 distinct 5-byte instructions spread over
 * ~200 KiB of text, as sites of a widely used key would be.
 */
#ifndef BENCH_SITES_H
#define BENCH_SITES_H

#include <stddef.h>

struct sk_key;

/* struct site_group - one key and the functions that hold its sites. */
struct site_group {
	const char *name;
	struct sk_key *key;
	void (*const *fn)(void); /* calling fn[i] executes site i */
	size_t n;
	unsigned long *counter; /* incremented by every site taken */
};

/* One key each with 1, 56, 1000 and 10000 sites (update latency, traps). */
extern const struct site_group upd1_groups[1];
extern const struct site_group upd56_groups[1];
extern const struct site_group upd1000_groups[1];
extern const struct site_group upd10000_groups[1];
/* The same, spread: each site function in its own 4 KiB page, over eight
 * source files (gen_sites.cmake ALIGN). */
extern const struct site_group spread56_groups[1];
extern const struct site_group spread1000_groups[1];
/* 64 keys of 8 sites each (multi-key commit). */
extern const struct site_group multi_groups[64];
/* 9 keys of 56 sites each (lock hold and wait): up to 8 updaters' own
 * keys, and LOCK_FAST_KEY for the fast-path threads. */
#define LOCK_UPDATER_KEYS 8
#define LOCK_FAST_KEY 8
extern const struct site_group lock_groups[9];

/* site_group_by_sites - the upd* (packed) group with @n sites, or NULL. */
const struct site_group *site_group_by_sites(size_t n);
/* site_group_by_layout - "packed" (upd*) or "spread" group with @n sites,
 * or NULL if there is none. */
const struct site_group *site_group_by_layout(size_t n, const char *layout);

/* bench_no_traps_reason - NULL where a flip makes threads that run a
 * changing site trap (the x86 int3 protocol), else why none ever does; the
 * trap experiments skip with it. */
const char *bench_no_traps_reason(void);

/* site_group_run - execute every site of @g once. */
void site_group_run(const struct site_group *g);

#endif /* BENCH_SITES_H */
