/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * tests/dyndbg/config.c - dynamic debug from STATICKEYS_FILE: "dyndbg =
 * QUERY" lines (docs/dynamic-debug.md, docs/fleet.md), the form the etcd
 * sync writes for a key named dyndbg.  The test writes the file, then runs
 * itself with STATICKEYS_FILE naming it and STATICKEYS_AUDIT=stderr (its
 * stderr a file it reads back):
 *
 *   - the start-up version's query applies before main(), audited as the
 *     file's line;
 *   - a new version's new lines apply, each as a commit, to the program and
 *     to a plugin as it loads (a module query);
 *   - a line a new version keeps as it was changes nothing, so a change
 *     made since (here by sk_dyndbg_query, as by skctl debug) stays;
 *   - a version with a query that does not parse applies nothing, and the
 *     message names the file, the line and the word.
 */
#include <dlfcn.h>
#include <statickeys.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../check.h"
#include "../wait_for.h"
#include "catalogue.h"

__attribute__((noinline)) static void early(void) { sk_pr_debug("early\n"); }
__attribute__((noinline)) static void late(void) { sk_pr_debug("late\n"); }

static char conf[512], errfile[512];

/* A version of the file: a new file renamed over it. */
static void write_version(const char *text)
{
	char tmp[600];

	snprintf(tmp, sizeof(tmp), "%s.tmp", conf);
	FILE *f = fopen(tmp, "w");
	CHECK(f && fputs(text, f) >= 0 && fclose(f) == 0, "wrote %s", tmp);
	CHECK(rename(tmp, conf) == 0, "renamed over %s", conf);
}

/* Whether this process's stderr (a file) holds @needle. */
static bool said(const char *needle)
{
	FILE *f = fopen(errfile, "r");
	char buf[1 << 16];
	size_t n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;

	if (f)
		fclose(f);
	buf[n] = '\0';
	return strstr(buf, needle) != NULL;
}

static bool flags_are(const char *func, const char *want)
{
	char f[16];

	return strcmp(flags_of(func, f), want) == 0;
}

static int child(const char *plugin)
{
	char needle[700], f[16];

	early();
	late();
	CHECK(flags_are("early", "p"), "start-up: early's flags are %s",
	      flags_of("early", f));
	CHECK(flags_are("late", "_"), "start-up: late's are %s",
	      flags_of("late", f));
	snprintf(needle, sizeof(needle), "file %s:2: dyndbg:", conf);
	CHECK(said(needle), "an audit line names the file's line: %s", needle);

	write_version("# version 2\ndyndbg = func early +p\n"
		      "dyndbg = func late +pl\n"
		      "dyndbg = module libdyndbg_plugin +p\n");
	WAIT_FOR(flags_are("late", "pl"), "version 2's new line applied");
	CHECK(flags_are("early", "p"), "early's kept: %s", flags_of("early", f));
	void *h = dlopen(plugin, RTLD_NOW);
	CHECK(h && flags_are("dd_plugin_say", "p"), "the plugin's statement "
	      "as it loaded: %s", flags_of("dd_plugin_say", f));
	if (h)
		dlclose(h);

	/* Changed since, as skctl debug would: a version that keeps the
	 * line as it was leaves the change alone. */
	CHECK(sk_dyndbg_query("func early -p") == 1, "early off by a query");
	write_version("# version 3\ndyndbg = func early +p\n"
		      "dyndbg = func late +pl\n"
		      "dyndbg = module libdyndbg_plugin +p\n"
		      "dyndbg = func late +t\n");
	WAIT_FOR(flags_are("late", "plt"), "version 3's new line applied");
	CHECK(flags_are("early", "_"), "the unchanged line left early off: %s",
	      flags_of("early", f));

	/* A bad query: nothing of the version applies. */
	write_version("# version 4\ndyndbg = func late -t\n"
		      "dyndbg = fnc late -p\n");
	snprintf(needle, sizeof(needle), "%s:3: dyndbg: query 1, byte 1: "
		 "unknown keyword", conf);
	WAIT_FOR(said(needle), "the refusal names the line and the word: %s",
		 needle);
	CHECK(flags_are("late", "plt"), "nothing of the bad version applied: "
	      "%s", flags_of("late", f));
	return check_summary();
}

int main(int argc, char **argv)
{
	char dir[] = "/tmp/sk_dyndbg_config_XXXXXX";

	if (argc == 3 && !strcmp(argv[1], "child")) {
		snprintf(conf, sizeof(conf), "%s", getenv("STATICKEYS_FILE"));
		snprintf(errfile, sizeof(errfile), "%s", getenv("SK_TEST_ERR"));
		return child(argv[2]);
	}
	if (argc != 2)
		return 2;
	CHECK(mkdtemp(dir) != NULL, "a directory for the file");
	snprintf(conf, sizeof(conf), "%s/keys.conf", dir);
	snprintf(errfile, sizeof(errfile), "%s/stderr", dir);
	write_version("# version 1\ndyndbg = func early +p\n");
	pid_t pid = fork();
	if (pid == 0) {
		freopen(errfile, "w", stderr);
		setenv("STATICKEYS_FILE", conf, 1);
		setenv("STATICKEYS_AUDIT", "stderr", 1);
		setenv("SK_TEST_ERR", errfile, 1);
		execl("/proc/self/exe", "dyndbg_config", "child", argv[1],
		      (char *)0);
		_exit(127);
	}
	int status = -1;
	waitpid(pid, &status, 0);
	FILE *f = fopen(errfile, "r");
	char buf[1 << 16];
	size_t n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;
	buf[n] = '\0';
	if (f)
		fclose(f);
	fputs(buf, stdout);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	      "the program run with STATICKEYS_FILE passed (status 0x%x)",
	      status);
	unlink(errfile);
	unlink(conf);
	rmdir(dir);
	return check_summary();
}
