/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * secure_env.c - a set-user-ID program ignores the STATICKEYS* environment.
 *
 * Whoever starts a set-user-ID program chooses its environment; if
 * STATICKEYS=guard=1 were obeyed there, an unprivileged user could turn on
 * any code path a privileged program guards with a key.  The runtime reads
 * its variables with secure_getenv(), which returns nothing in such a
 * process (AT_SECURE).
 *
 * As root, this program copies itself into a private directory and runs
 * the copy with STATICKEYS=guard=1 twice: as a plain program (the key must
 * start on: the variable works) and set-user-ID to another user (the key
 * must stay off).  The same again with STATICKEYS_FILE naming a file that
 * says "guard = 1".  The copy reports the key's state in its exit status.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <statickeys.h>

#include "../check.h"

SK_DEFINE_KEY_FALSE(guard);

#define NOBODY 65534

/* Exit status of the copy: 10 + key on, +2 if running with AT_SECURE. */
static int report(void)
{
	bool site = sk_branch_unlikely(&guard);

	return 10 + (sk_key_enabled(&guard) && site) +
	       (getauxval(AT_SECURE) ? 2 : 0);
}

static int copy_file(const char *from, const char *to)
{
	char buf[65536];
	int in = open(from, O_RDONLY), out = open(to, O_WRONLY | O_CREAT, 0755);
	ssize_t n;

	if (in < 0 || out < 0)
		return -1;
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)n) != n)
			return -1;
	close(in);
	return close(out);
}

static int run(const char *path, const char *env)
{
	char *argv[] = { (char *)path, (char *)"report", NULL };
	char *envp[] = { (char *)env, NULL };
	int status = -1;
	pid_t pid = fork();

	if (pid == 0) {
		execve(path, argv, envp);
		_exit(1);
	}
	waitpid(pid, &status, 0);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

int main(int argc, char **argv)
{
	char dir[] = "/tmp/sk-secure-env-XXXXXX", path[64], conf[64], env[96];

	(void)argv;
	if (argc > 1)
		return report();
	if (geteuid() != 0)
		skip_test("needs root to make a set-user-ID copy of itself");
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
	skip_test("sanitizer run-times cannot start set-user-ID: the "
		  "process's /proc files then belong to root");
#endif
	if (!mkdtemp(dir))
		skip_test("cannot make a directory in /tmp");
	chmod(dir, 0755);
	snprintf(path, sizeof(path), "%s/secure_env", dir);
	CHECK(copy_file("/proc/self/exe", path) == 0, "copying itself failed");
	snprintf(conf, sizeof(conf), "%s/keys.conf", dir);
	FILE *f = fopen(conf, "w");
	if (f) {
		fputs("guard = 1\n", f);
		fclose(f);
	}
	snprintf(env, sizeof(env), "STATICKEYS_FILE=%s", conf);

	int plain = run(path, "STATICKEYS=guard=1");
	CHECK(plain == 11, "plain copy: status %d, want 11 (key on from "
	      "STATICKEYS)", plain);
	int plain_file = run(path, env);
	CHECK(plain_file == 11, "plain copy: status %d, want 11 (key on from "
	      "STATICKEYS_FILE)", plain_file);
	int r = chown(path, NOBODY, NOBODY);
	r |= chmod(path, 04755);
	int suid = r == 0 ? run(path, "STATICKEYS=guard=1") : -1;
	int suid_file = r == 0 ? run(path, env) : -1;
	unlink(path);
	unlink(conf);
	rmdir(dir);
	if (suid == 10)
		skip_test("the set-user-ID bit had no effect here (nosuid?)");
	if (suid < 10 || suid > 13)
		skip_test("the set-user-ID copy could not start (its libraries "
			  "must be readable by uid 65534)");
	CHECK(suid == 12, "set-user-ID copy: status %d, want 12 (AT_SECURE, "
	      "key off despite STATICKEYS=guard=1)", suid);
	CHECK(suid_file == 12, "set-user-ID copy: status %d, want 12 (key off "
	      "despite STATICKEYS_FILE)", suid_file);
	return check_summary();
}
