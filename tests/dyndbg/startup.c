/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * tests/dyndbg/startup.c - STATICKEYS_DYNDBG, the kernel's dyndbg=: applied
 * before main() (a constructor's statement already prints, decorated) and
 * to a plugin as it loads; a text that does not parse is warned about,
 * naming the word, and changes nothing.  The test runs itself twice with
 * the variable set (good, bad).
 */
#include <dlfcn.h>
#include <statickeys.h>
#include <stdlib.h>
#include <sys/wait.h>

#include "../check.h"
#include "capture.h"
#include "catalogue.h"

static void early(void) { sk_pr_debug("before main\n"); }
static void late(void) { sk_pr_debug("in main\n"); }

static char early_out[256];

__attribute__((constructor)) static void before_main(void)
{
	struct capture c;

	capture_begin(&c);
	early();
	capture_end(&c, early_out, sizeof(early_out));
}

static int child(const char *mode, const char *plugin)
{
	char f[16];
	bool good = !strcmp(mode, "good");

	late();
	CHECK(!strcmp(early_out, good ? "early: before main\n" : ""),
	      "%s: the constructor's statement printed \"%s\"", mode, early_out);
	CHECK(!strcmp(flags_of("early", f), good ? "pf" : "_"),
	      "%s: early's flags are %s", mode, f);
	CHECK(!strcmp(flags_of("late", f), "_"), "%s: late's are %s", mode, f);
	void *h = dlopen(plugin, RTLD_NOW);
	CHECK(h, "dlopen %s", plugin);
	CHECK(!strcmp(flags_of("dd_plugin_say", f), good ? "p" : "_"),
	      "%s: the plugin's statement, as it loaded: %s", mode, f);
	if (h)
		dlclose(h);
	return check_summary();
}

/* Run this program in @mode with STATICKEYS_DYNDBG=@text; its stderr. */
static int run(const char *mode, const char *text, const char *plugin,
	       char *err, size_t errlen)
{
	int p[2], status;

	if (pipe(p) != 0)
		return -1;
	pid_t pid = fork();
	if (pid == 0) {
		dup2(p[1], 2);
		setenv("STATICKEYS_DYNDBG", text, 1);
		execl("/proc/self/exe", "dyndbg_startup", mode, plugin, (char *)0);
		_exit(127);
	}
	close(p[1]);
	size_t n = 0;
	ssize_t r;
	while (n + 1 < errlen && (r = read(p[0], err + n, errlen - 1 - n)) > 0)
		n += (size_t)r;
	err[n] = '\0';
	close(p[0]);
	waitpid(pid, &status, 0);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

int main(int argc, char **argv)
{
	char err[4096];

	if (argc == 3)
		return child(argv[1], argv[2]);
	if (argc != 2)
		return 2;
	int r = run("good", "func early +pf;\nmodule libdyndbg_plugin +p",
		    argv[1], err, sizeof(err));
	CHECK(r == 0, "with a good STATICKEYS_DYNDBG: exit %d\n%s", r, err);
	r = run("bad", "func early +pf; module libdyndbg_plugin +p; lin 3 +p",
		argv[1], err, sizeof(err));
	CHECK(r == 0, "with a bad STATICKEYS_DYNDBG: exit %d\n%s", r, err);
	CHECK(strstr(err, "STATICKEYS_DYNDBG: query 3, byte 45: unknown keyword"),
	      "the warning names the query, the byte and the word:\n%s", err);
	printf("STATICKEYS_DYNDBG applied before main and to a plugin; a bad "
	       "one refused whole\n");
	return check_summary();
}
