/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * tests/objects/two_runtimes.c - the misuse "one runtime per process" warns
 * about: this program links the static library without exporting it
 * (-Wl,--exclude-libs,ALL) and loads a plugin linked with the shared one.
 * The shared copy registers the plugin and libsko_a; their sites name the
 * program's keys, which the static copy registered: the shared copy must
 * say so on stderr while dlopen() runs.
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "../check.h"
#include "keys.h"

SK_DEFINE_KEY_FALSE(exe_key_false);
SK_DEFINE_KEY_TRUE(exe_key_true);

__attribute__((noinline)) static unsigned own_sites(void)
{
	return SKO_SITES(exe_key_false);
}

/* Run dlopen(@path) with stderr going to a file; return what was written. */
static void *dlopen_capturing(const char *path, char *out, size_t size)
{
	char name[] = "/tmp/sko_two_runtimes_XXXXXX";
	int fd = mkstemp(name), saved = dup(2);

	CHECK(fd >= 0 && saved >= 0, "temporary file for stderr");
	fflush(stderr);
	dup2(fd, 2);
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	ssize_t n = pread(fd, out, size - 1, 0);
	out[n > 0 ? n : 0] = '\0';
	close(fd);
	unlink(name);
	return h;
}

int main(void)
{
	char err[4096];

	CHECK(sk_key_enable(&exe_key_false) == 0 && own_sites() == PROBE_ON,
	      "the program's runtime flips its own sites");
	void *h = dlopen_capturing(SKO_PLUGIN1, err, sizeof(err));
	CHECK(h != NULL, "dlopen: %s", h ? "" : dlerror());
	printf("stderr during dlopen: %s", err);
	CHECK(strstr(err, "another copy of the statickeys runtime") != NULL,
	      "the second runtime warned");
	CHECK(strstr(err, "exe_key_") != NULL, "naming a program key");
	if (h)
		dlclose(h);
	return check_summary();
}
