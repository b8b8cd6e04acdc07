/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * tests/objects/index.c - the site index: sites read in place, indexed by
 * key at the first update, looked up in place by the trap handler.
 *
 *	objects_site_index
 *
 * The program holds 100,000 sites of ski_many and 10 of ski_late, in address
 * order; a plugin (index_plugin.c) holds 1,000 more sites of ski_late in a
 * table that is not in address order.  Checked:
 *   - registration allocates nothing per site; the first update of a key
 *     allocates less than 8 bytes per site;
 *   - every one of the 100,000 sites follows its key, both ways;
 *   - ski_late, first updated long after start-up and after the plugin was
 *     loaded, reaches its sites in both objects, the unsorted table too;
 *   - a trap that arrives after its batch retired ("late") at a site of
 *     either table is resumed at the site; at an address that is no site,
 *     or at a site of an unloaded plugin, it goes to the program's own
 *     SIGTRAP handler.  (The handler is called the way the kernel would, with
 *     a trap's siginfo and context: a real late trap needs the thread to be
 *     preempted between its int3 and the signal.)
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <malloc.h>
#include <signal.h>
#include <string.h>
#include <ucontext.h>

#include "../../src/internal.h"
#include "../check.h"
#include "index_sites.h"

#define MANY 100000
#define LATE 10
#define PLUGIN_HALF 500

SK_DEFINE_KEY_FALSE(ski_many);
SK_DEFINE_KEY_FALSE(ski_late);

SKI_SORTED_SITES(ski_many_sites, ski_many, 100000);
SKI_SORTED_SITES(ski_late_sites, ski_late, 10);
extern const unsigned char ski_many_sites[], ski_late_sites[];

static volatile sig_atomic_t own_traps;

static void own_trap_handler(int sig)
{
	(void)sig;
	own_traps++;
}

static size_t heap_in_use(void)
{
	struct mallinfo2 m = mallinfo2();

	return m.uordblks + m.hblkhd;
}

/* Sites @first[0..n) all show the jump (to the next instruction) or NOP5. */
static bool sites_show(const unsigned char *first, size_t n, bool jump)
{
	static const unsigned char nop5[5] = { 0x0f, 0x1f, 0x44, 0x00, 0x00 };
	static const unsigned char jmp0[5] = { 0xe9, 0x00, 0x00, 0x00, 0x00 };

	for (size_t i = 0; i < n; i++)
		if (memcmp(first + 5 * i, jump ? jmp0 : nop5, 5) != 0)
			return false;
	return true;
}

/* The plugin's sites: 500 from its symbol on, 500 after its "ret". */
static bool plugin_sites_show(const unsigned char *first, bool jump)
{
	return sites_show(first, PLUGIN_HALF, jump) &&
	       sites_show(first + 5 * PLUGIN_HALF + 1, PLUGIN_HALF, jump);
}

/* Whether the registered object holding @p has its table in address order:
 * 1 or 0, -1 while the trap handler has not needed to know (read under the
 * lock, as the registry is). */
static int table_ascends(const void *p)
{
	CHECK(sk__lock() == 0, "lock");
	const struct sk__object *o = sk__object_of((uintptr_t)p);
	int ascends = o ? o->sorted : -2;
	sk__unlock();
	CHECK(o != NULL, "an object holds %p", p);
	return ascends;
}

/* Deliver a late trap at @site to the installed handler; where it resumes
 * the thread, or 0 if it passed the trap on. */
static uintptr_t late_trap_at(const void *site)
{
	struct sigaction cur;
	siginfo_t info;
	ucontext_t uc;
	int before = own_traps;

	memset(&info, 0, sizeof(info));
	info.si_signo = SIGTRAP;
	info.si_code = SI_KERNEL;
	getcontext(&uc);
	uc.uc_mcontext.gregs[REG_RIP] = (greg_t)((uintptr_t)site + 1);
	sigaction(SIGTRAP, NULL, &cur);
	CHECK(cur.sa_flags & SA_SIGINFO, "the runtime's handler is installed");
	if (!(cur.sa_flags & SA_SIGINFO))
		return 0;
	cur.sa_sigaction(SIGTRAP, &info, &uc);
	return own_traps != before ? 0 : (uintptr_t)uc.uc_mcontext.gregs[REG_RIP];
}

static void many_sites_follow_their_key(size_t heap_at_start)
{
	CHECK(heap_at_start < MANY, "registration allocated %zu bytes for "
	      "%d sites (nothing per site expected)", heap_at_start, MANY);
	CHECK(table_ascends(ski_many_sites) == -1,
	      "registration did not read the table's order");
	size_t before = heap_in_use();
	CHECK(sk_key_enable(&ski_many) == 0, "enable ski_many");
	CHECK(table_ascends(ski_many_sites) == 1,
	      "the program's table is in address order");
	size_t grown = heap_in_use() - before;
	CHECK(grown < 8 * (MANY + LATE), "first update allocated %zu bytes "
	      "for %d sites (< 8 per site expected)", grown, MANY + LATE);
	CHECK(sites_show(ski_many_sites, MANY, true), "all %d sites jump", MANY);
	CHECK(sites_show(ski_late_sites, LATE, false), "ski_late's did not move");
	CHECK(sk_key_disable(&ski_many) == 0, "disable ski_many");
	CHECK(sites_show(ski_many_sites, MANY, false), "all %d sites are NOP5",
	      MANY);
}

static void late_key_reaches_unsorted_plugin(const unsigned char *plugin)
{
	CHECK(table_ascends(plugin) == 0,
	      "the plugin's table is not in address order");
	CHECK(sk_key_enable(&ski_late) == 0, "enable ski_late");
	CHECK(sites_show(ski_late_sites, LATE, true), "program's sites jump");
	CHECK(plugin_sites_show(plugin, true), "plugin's 1000 sites jump");
	CHECK(sk_key_disable(&ski_late) == 0, "disable ski_late");
	CHECK(sites_show(ski_late_sites, LATE, false), "program's sites NOP5");
	CHECK(plugin_sites_show(plugin, false), "plugin's 1000 sites NOP5");
}

static void late_traps_resolved_in_place(const unsigned char *plugin)
{
	const unsigned char *last = ski_many_sites + 5 * (MANY - 1);
	const unsigned char *odd = plugin + 5 * PLUGIN_HALF + 1 + 5 * 7;

	CHECK(late_trap_at(ski_many_sites) == (uintptr_t)ski_many_sites,
	      "late trap at the first of 100,000 sites resumed there");
	CHECK(late_trap_at(last) == (uintptr_t)last,
	      "late trap at the last of 100,000 sites resumed there");
	CHECK(late_trap_at(odd) == (uintptr_t)odd,
	      "late trap at a site of the unsorted table resumed there");
	CHECK(late_trap_at(plugin + 5 * 3) == (uintptr_t)(plugin + 5 * 3),
	      "late trap at another site of the unsorted table");
	CHECK(late_trap_at(ski_many_sites + 2) == 0,
	      "an address inside a site is not a site: passed on");
	CHECK(late_trap_at(plugin + 5 * PLUGIN_HALF) == 0,
	      "the plugin's ret is not a site: passed on");
}

int main(void)
{
	size_t heap_at_start = heap_in_use();

	signal(SIGTRAP, own_trap_handler);
	many_sites_follow_their_key(heap_at_start);
	void *h = dlopen(SKI_PLUGIN, RTLD_NOW | RTLD_LOCAL);
	CHECK(h != NULL, "dlopen: %s", h ? "" : dlerror());
	const unsigned char *plugin = h ? dlsym(h, "ski_plugin_sites") : NULL;
	CHECK(plugin != NULL, "the plugin's sites");
	if (!plugin)
		return check_summary();
	late_key_reaches_unsorted_plugin(plugin);
	late_traps_resolved_in_place(plugin);
	uintptr_t gone = (uintptr_t)plugin + 5 * 3;
	dlclose(h);
	CHECK(late_trap_at((const void *)gone) == 0,
	      "a site of the unloaded plugin is no site any more: passed on");
	printf("checked %d + %d sites in the program, %d in an unsorted "
	       "plugin, 7 late traps\n", MANY, LATE, 2 * PLUGIN_HALF);
	return check_summary();
}
