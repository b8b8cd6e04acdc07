/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * as_needed.c - linked with -Wl,--as-needed against the library, a program
 * that defines no keys and calls nothing of statickeys' API still has the
 * library loaded, because its pthread_sigmask() call binds to the
 * library's wrapper (the library interposes the C library's mask
 * functions).  So the wrapper is in effect: blocking every signal leaves
 * SIGTRAP deliverable.
 *
 * Checked: libstatickeys is among the loaded objects; after
 * pthread_sigmask(SIG_BLOCK, everything), the kernel's view of this
 * thread's mask (/proc/thread-self/status, SigBlk) has SIGTRAP clear.
 */
#define _GNU_SOURCE
#include <link.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "../check.h"

static int find_library(struct dl_phdr_info *info, size_t size, void *found)
{
	(void)size;
	if (strstr(info->dlpi_name, "libstatickeys"))
		*(int *)found = 1;
	return 0;
}

/* The blocked mask as the kernel has it (SigBlk, hexadecimal). */
static unsigned long long kernel_blocked(void)
{
	char line[256];
	unsigned long long mask = 0;
	FILE *f = fopen("/proc/thread-self/status", "r");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "SigBlk: %llx", &mask) == 1)
			break;
	if (f)
		fclose(f);
	return mask;
}

int main(void)
{
	int loaded = 0;
	sigset_t all;

	dl_iterate_phdr(find_library, &loaded);
	CHECK(loaded, "libstatickeys is loaded (--as-needed kept it)");
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	unsigned long long blocked = kernel_blocked();
	printf("--as-needed: libstatickeys %s; SigBlk after blocking "
	       "everything: %016llx\n", loaded ? "loaded" : "dropped", blocked);
	CHECK(!(blocked & (1ull << (SIGTRAP - 1))) && (blocked & 1),
	      "SIGTRAP stays unblocked, SIGHUP is blocked: %016llx", blocked);
	return check_summary();
}
