/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * tests/objects/stuck.c - sites left trapped by a failed update are
 * forgotten when their plugin unloads.
 *
 *	sko_stuck
 *
 * An update of exe_key_false is stopped right after its int3 bytes went in
 * (injection hook) and the runtime's /proc/self/mem descriptor is replaced
 * by a read-only one, so the rest of the batch and its rollback both fail:
 * the sites keep their int3 and the trap handler emulates them along their
 * old direction for good.  The plugin holding some of them is then
 * dlclose()d, and a page of fresh code is mapped where one of its sites
 * was, holding an int3 of its own.  That int3 must reach the program's own
 * SIGTRAP handler (the runtime chains to it), not be "resumed" as the
 * unloaded site.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../../src/internal.h"
#include "../check.h"
#include "../wait_for.h"
#include "keys.h"

static volatile sig_atomic_t own_traps;

/* The program's own breakpoint handler: count, and carry on after int3. */
static void own_trap_handler(int sig)
{
	(void)sig;
	own_traps++;
}

/* The descriptor the runtime opened on /proc/self/mem, or -1. */
static int find_mem_fd(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int found = -1;
	char link[300], target[256];

	while (d && (e = readdir(d)) != NULL) {
		snprintf(link, sizeof(link), "/proc/self/fd/%s", e->d_name);
		ssize_t n = readlink(link, target, sizeof(target) - 1);
		if (n <= 4)
			continue;
		target[n] = '\0';
		if (strcmp(target + n - 4, "/mem") == 0)
			found = atoi(e->d_name);
	}
	if (d)
		closedir(d);
	return found;
}

static void break_writer(int point)
{
	if (point != SK__INJECT_AFTER_TRAP_WRITE)
		return;
	int fd = find_mem_fd(), ro = open("/dev/null", O_RDONLY);
	CHECK(fd >= 0 && ro >= 0 && dup2(ro, fd) == fd,
	      "replaced the runtime's /proc/self/mem descriptor (%d)", fd);
	close(ro);
}

/* Map fresh code over @site's old page: int3; ret at @site itself. */
static void (*fresh_code_at(uintptr_t site))(void)
{
	long page = sysconf(_SC_PAGESIZE);
	uintptr_t base = site & ~(uintptr_t)(page - 1);
	unsigned char *p = mmap((void *)base, (size_t)page,
				PROT_READ | PROT_WRITE | PROT_EXEC,
				MAP_PRIVATE | MAP_ANONYMOUS |
					MAP_FIXED_NOREPLACE,
				-1, 0);

	if (p == MAP_FAILED || (uintptr_t)p != base)
		skip_test("the unloaded plugin's page was reused already; "
			  "cannot place fresh code there");
	memset(p, 0xc3, (size_t)page); /* ret everywhere */
	p[site - base] = 0xcc;          /* int3, then ret */
	return (void (*)(void))site;
}

int main(void)
{
	if (getenv("STATICKEYS_WRITER") &&
	    strcmp(getenv("STATICKEYS_WRITER"), "procmem") != 0)
		skip_test("this test breaks the /proc/self/mem writer");
	signal(SIGTRAP, own_trap_handler);
	become_threaded(); /* a failure mid-protocol: a threaded process's */
	void *h = dlopen(SKO_UNLOAD_MARK, RTLD_NOW | RTLD_LOCAL);
	CHECK(h != NULL, "dlopen: %s", h ? "" : dlerror());
	sko_probe_fn probe = h ? (sko_probe_fn)dlsym(h, SKO_PLUGIN_PROBE) : NULL;
	if (!probe)
		return check_summary();
	uintptr_t site = 0;
	CHECK(sk__lock() == 0, "lock");
	for (struct sk__object *o = sk__objects; o; o = o->next)
		if ((uintptr_t)probe >= o->lo && (uintptr_t)probe < o->hi &&
		    o->nsites)
			site = sk__entry_code(sk__object_entry(o, 0));
	sk__unlock();
	CHECK(site != 0, "found a site of the plugin");

	sk__inject_hook = break_writer;
	int r = sk_key_enable(&exe_key_false);
	sk__inject_hook = NULL;
	CHECK(r < 0, "the update failed (%d)", r);
	CHECK(!sk_key_enabled(&exe_key_false), "the key kept its old state");
	CHECK(*(volatile unsigned char *)site == 0xcc,
	      "the plugin's site is stuck with its int3");
	CHECK(probe(SKO_EXE_FALSE) == PROBE_OFF,
	      "stuck sites are emulated along their old direction");
	CHECK(sko_exe_probe(SKO_EXE_FALSE) == PROBE_OFF,
	      "so are the program's");
	CHECK(own_traps == 0, "no trap reached the program's handler yet");

	CHECK(dlclose(h) == 0, "dlclose");
	void (*code)(void) = fresh_code_at(site);
	code();
	CHECK(own_traps == 1, "the new int3 reached the program's own handler "
			      "(%d)", (int)own_traps);
	return check_summary();
}
