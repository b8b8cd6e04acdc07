/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * env_state.c - STATICKEYS="name=1,other=0" applied before main and at
 * dlopen; bad text gives one warning per problem and never stops the
 * program.
 *
 * The test runs itself again as a child for each environment (the state is
 * applied before main, so only a fresh process can show it), reads the
 * child's stdout (what its sites did at the start of main, and after
 * loading a plugin) and its stderr (the warnings), and checks both.
 */
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <statickeys.h>

#include "../check.h"

SK_DEFINE_KEY_FALSE(env_on);
SK_DEFINE_KEY_TRUE(env_off);
SK_DECLARE_KEY_FALSE(lib_key);
bool lib_site(void);

__attribute__((noinline)) static int site_on(void)
{
	return sk_branch_unlikely(&env_on) ? 1 : 0;
}
__attribute__((noinline)) static int site_off(void)
{
	return sk_branch_likely(&env_off) ? 1 : 0;
}
__attribute__((noinline)) static int site_lib(void)
{
	return sk_branch_unlikely(&lib_key) ? 1 : 0;
}

/* The child: print what the sites do first thing in main, then after
 * loading the plugin. */
static int child(const char *plugin)
{
	printf("env_on=%d env_off=%d lib_key=%d/%d", site_on(), site_off(),
	       site_lib(), lib_site() ? 1 : 0);
	void *h = dlopen(plugin, RTLD_NOW | RTLD_LOCAL);
	bool (*psite)(void) = h ? (bool (*)(void))dlsym(h, "plugin_site") : NULL;
	printf(" plugin_key=%d\n", psite ? (int)psite() : -1);
	return 0;
}

struct run {
	char out[4096], err[4096];
	int status;
};

static void read_all(int fd, char *buf, size_t cap)
{
	size_t n = 0;
	ssize_t r;
	while (n + 1 < cap && (r = read(fd, buf + n, cap - n - 1)) > 0)
		n += (size_t)r;
	buf[n] = '\0';
}

static void run_child(const char *plugin, const char *statickeys,
		      struct run *res)
{
	int out[2], err[2];
	if (pipe(out) || pipe(err))
		abort();
	pid_t pid = fork();
	if (pid == 0) {
		dup2(out[1], 1);
		dup2(err[1], 2);
		if (statickeys)
			setenv("STATICKEYS", statickeys, 1);
		else
			unsetenv("STATICKEYS");
		unsetenv("STATICKEYS_CONTROL");
		/* Only warnings are counted here; the audit lines of these
		 * changes are config_file.c's subject. */
		setenv("STATICKEYS_AUDIT", "off", 1);
		execl("/proc/self/exe", "env_state", "--child", plugin,
		      (char *)NULL);
		_exit(127);
	}
	close(out[1]);
	close(err[1]);
	read_all(out[0], res->out, sizeof(res->out));
	read_all(err[0], res->err, sizeof(res->err));
	close(out[0]);
	close(err[0]);
	waitpid(pid, &res->status, 0);
}

static int count_lines(const char *s)
{
	int n = 0;
	for (; *s; s++)
		n += *s == '\n';
	return n;
}

/* Run with @env; expect @out on stdout and @nwarn warning lines, each of
 * @words[i] appearing in the warnings. */
static void expect(const char *plugin, const char *env, const char *out,
		   int nwarn, const char *const *words)
{
	struct run r;
	run_child(plugin, env, &r);
	printf("STATICKEYS=\"%s\":\n  %s  %d warning line(s)\n%s", env ? env : "(unset)",
	       r.out, count_lines(r.err), r.err);
	CHECK(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0,
	      "[%s] child exited normally (status %d)", env, r.status);
	CHECK(strcmp(r.out, out) == 0, "[%s] sites: got \"%s\", want \"%s\"",
	      env, r.out, out);
	CHECK(count_lines(r.err) == nwarn, "[%s] %d warning lines, want %d",
	      env, count_lines(r.err), nwarn);
	for (int i = 0; words && words[i]; i++)
		CHECK(strstr(r.err, words[i]) != NULL,
		      "[%s] warnings mention \"%s\"", env, words[i]);
}

#define DEFAULTS "env_on=0 env_off=1 lib_key=0/0 plugin_key=0\n"

int main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "--child") == 0)
		return child(argv[2]);
	if (argc != 2) {
		fprintf(stderr, "usage: %s PLUGIN.so\n", argv[0]);
		return 2;
	}
	const char *p = argv[1];
	expect(p, NULL, DEFAULTS, 0, NULL);
	expect(p, "", DEFAULTS, 0, NULL);
	expect(p, "env_on=1,env_off=0,lib_key=1",
	       "env_on=1 env_off=0 lib_key=1/1 plugin_key=0\n", 0, NULL);
	expect(p, " env_on = on , env_off=false,, lib_key=yes ,",
	       "env_on=1 env_off=0 lib_key=1/1 plugin_key=0\n", 0, NULL);
	expect(p, "env_on=1,env_on=0", DEFAULTS, 0, NULL);
	/* A plugin's key: unknown before main, applied at dlopen. */
	expect(p, "plugin_key=1", "env_on=0 env_off=1 lib_key=0/0 plugin_key=1\n",
	       1, (const char *const[]){ "plugin_key", NULL });
	expect(p, "libctl_names_plugin.so:plugin_key=1,env_on=1",
	       "env_on=1 env_off=1 lib_key=0/0 plugin_key=1\n", 1,
	       (const char *const[]){ "libctl_names_plugin.so:plugin_key", NULL });
	/* Malformed entries: one warning each; the good ones still apply. */
	expect(p, "env_on=2,=1,garbage,env_off=off,lib_key=1",
	       "env_on=0 env_off=0 lib_key=1/1 plugin_key=0\n", 3,
	       (const char *const[]){ "env_on=2", "\"=1\"", "garbage", NULL });
	expect(p, "\x01\x02;;=,,,", DEFAULTS, 1,
	       (const char *const[]){ "??;;=", NULL });
	expect(p, "a b=1", DEFAULTS, 1, (const char *const[]){ "a b", NULL });
	return check_summary();
}
