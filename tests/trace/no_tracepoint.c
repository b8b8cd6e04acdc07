/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * tests/trace/no_tracepoint.c - a program that uses keys but defines no
 * tracepoint has no watcher thread: one thread, before and after updates.
 */
#include <dirent.h>
#include <statickeys.h>

#include "../check.h"

SK_DEFINE_KEY_FALSE(plain_key);

static int threads(void)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	int n = 0;
	while (d && (e = readdir(d)))
		n += e->d_name[0] != '.';
	if (d)
		closedir(d);
	return n;
}

int main(void)
{
	CHECK(threads() == 1, "one thread at start: %d", threads());
	CHECK(sk_key_enable(&plain_key) == 0, "enable");
	CHECK(sk_branch_unlikely(&plain_key), "on");
	CHECK(sk_key_disable(&plain_key) == 0, "disable");
	CHECK(threads() == 1, "one thread after updates: %d", threads());
	return check_summary();
}
