/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * fork_exec.c - new processes made while keys are being flipped.
 *
 * 1. fork() while another thread is in the middle of a batch: the injection
 *    hook holds the batch open (int3 in every changing site) until the
 *    forking thread has called fork().  The runtime's fork handler waits for
 *    the batch, so the child must find every site whole and matching its
 *    key, and must be able to flip the key itself.
 * 2. posix_spawn() from a thread while others flip keys and run sites: every
 *    child (this program, "spawned" mode) flips a key and exits 0.
 * 3. execv() from a thread while a batch is held open: the whole process is
 *    replaced mid-update; the new image starts clean and flips keys.
 */
#include <errno.h>
#include <pthread.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <statickeys.h>

#include "../../src/internal.h"
#include "../check.h"
#include "../repeat.h"
#include "../wait_for.h"

SK_DEFINE_KEY_FALSE(proc_key);

#define NSITES 64

__attribute__((noinline)) static int sites_on(void)
{
	int n = 0;
	REP16(if (sk_branch_unlikely(&proc_key)) n++;
	      if (sk_branch_likely(&proc_key)) n++;
	      if (sk_branch_unlikely(&proc_key)) n++;
	      if (sk_branch_likely(&proc_key)) n++;)
	return n;
}

/* Flip the key both ways, checking the sites each time. Return: failures. */
static int flip_and_check(void)
{
	int bad = 0;

	for (int i = 0; i < 2; i++) {
		bool on = sk_key_enabled(&proc_key);
		int r = on ? sk_key_disable(&proc_key) : sk_key_enable(&proc_key);
		bad += r != 0;
		bad += sites_on() != (on ? 0 : NSITES);
	}
	return bad;
}

static int child_main(void)
{
	int bad = sites_on() != (sk_key_enabled(&proc_key) ? NSITES : 0);

	return bad + flip_and_check() ? 1 : 0;
}

static int stop_readers, hold, batch_open, forking, hook_returned;
static int update_returned; /* without a batch: nothing to fork into */
static char *self_path;

static int readers_started;

static void *reader(void *arg)
{
	(void)arg;
	__atomic_fetch_add(&readers_started, 1, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&stop_readers, __ATOMIC_ACQUIRE))
		(void)sites_on();
	return NULL;
}

static void hook(int point)
{
	if (point != SK__INJECT_AFTER_TRAP_WRITE ||
	    !__atomic_exchange_n(&hold, 0, __ATOMIC_ACQ_REL))
		return;
	__atomic_store_n(&batch_open, 1, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&forking, __ATOMIC_ACQUIRE))
		usleep(100);
	usleep(5000); /* let fork() reach the runtime's prepare handler */
	__atomic_store_n(&hook_returned, 1, __ATOMIC_RELEASE);
}

static void *forker(void *arg)
{
	pid_t *pid = arg;

	while (!__atomic_load_n(&batch_open, __ATOMIC_ACQUIRE))
		if (__atomic_load_n(&update_returned, __ATOMIC_ACQUIRE))
			return NULL;
		else
			usleep(100);
	__atomic_store_n(&forking, 1, __ATOMIC_RELEASE);
	*pid = fork();
	if (*pid == 0) {
		sk__inject_hook = NULL;
		/* The snapshot must postdate the held batch. */
		_exit(!hook_returned ? 3 : child_main());
	}
	return NULL;
}

static void fork_mid_update(int rounds)
{
	for (int i = 0; i < rounds; i++) {
		pthread_t t;
		pid_t pid = -1;
		int status = -1;

		batch_open = forking = hook_returned = update_returned = 0;
		__atomic_store_n(&hold, 1, __ATOMIC_RELEASE);
		/* Update once it runs (wait_for.h, start_thread()). */
		start_thread(&t, NULL, forker, &pid);
		int r = sk_key_enabled(&proc_key) ? sk_key_disable(&proc_key)
						  : sk_key_enable(&proc_key);
		__atomic_store_n(&update_returned, 1, __ATOMIC_RELEASE);
		pthread_join(t, NULL);
		CHECK(r == 0, "update with a fork waiting returned %d", r);
		CHECK(pid > 0, "fork failed: %s", strerror(errno));
		if (pid > 0)
			waitpid(pid, &status, 0);
		CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		      "child forked mid-update: status 0x%x (3: forked inside "
		      "the batch; 1: sites or flips wrong)", status);
	}
}

/*
 * glibc's posix_spawn blocks every signal in the spawning thread until the
 * child has called exec, so an update may be refused with -EBUSY if that
 * takes longer than the runtime waits; that is the documented outcome, and
 * counted.  Any other error is a failure.
 */
static void *flipper(void *arg)
{
	unsigned long *busy = arg;

	while (!__atomic_load_n(&stop_readers, __ATOMIC_ACQUIRE)) {
		bool on = sk_key_enabled(&proc_key);
		int r = on ? sk_key_disable(&proc_key) : sk_key_enable(&proc_key);
		if (r == -EBUSY)
			(*busy)++;
		else
			CHECK(r == 0, "flip during spawns returned %d", r);
		usleep(200);
	}
	return NULL;
}

static void spawn_during_updates(int children)
{
	pthread_t t;
	unsigned long busy = 0;
	char *argv[] = { self_path, (char *)"spawned", NULL };
	int ok = 0;

	pthread_create(&t, NULL, flipper, &busy);
	for (int i = 0; i < children; i++) {
		pid_t pid;
		int status = -1;
		int r = posix_spawn(&pid, self_path, NULL, NULL, argv, environ);
		CHECK(r == 0, "posix_spawn failed: %s", strerror(r));
		if (r == 0 && waitpid(pid, &status, 0) == pid &&
		    WIFEXITED(status) && WEXITSTATUS(status) == 0)
			ok++;
	}
	__atomic_store_n(&stop_readers, 1, __ATOMIC_RELEASE);
	pthread_join(t, NULL);
	__atomic_store_n(&stop_readers, 0, __ATOMIC_RELEASE);
	CHECK(ok == children, "%d of %d spawned children flipped keys and "
	      "exited 0", ok, children);
	printf("posix_spawn: %d children ok; %lu updates refused while a "
	       "spawn blocked all signals\n", ok, busy);
}

static void *execer(void *arg)
{
	char *argv[] = { self_path, (char *)"after-exec", NULL };

	(void)arg;
	__atomic_fetch_add(&readers_started, 1, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&batch_open, __ATOMIC_ACQUIRE))
		usleep(100);
	execv(self_path, argv);
	_exit(4);
}

/* In a child: hold a batch open and exec from another thread meanwhile. */
static void exec_mid_update(int rounds)
{
	for (int i = 0; i < rounds; i++) {
		int status = -1;
		pid_t pid = fork();
		if (pid == 0) {
			pthread_t t, rd;
			readers_started = 0; /* counts this child's threads */
			pthread_create(&rd, NULL, reader, NULL);
			pthread_create(&t, NULL, execer, NULL);
			/* A thread still starting up has every signal blocked
			 * (glibc, sanitizers): wait, or the update is refused. */
			while (__atomic_load_n(&readers_started,
					       __ATOMIC_ACQUIRE) < 2)
				usleep(100);
			__atomic_store_n(&hold, 1, __ATOMIC_RELEASE);
			forking = 0; /* the hook waits: exec ends it */
			if (sk_key_enabled(&proc_key))
				(void)sk_key_disable(&proc_key);
			else
				(void)sk_key_enable(&proc_key);
			_exit(5); /* exec should have replaced us */
		}
		waitpid(pid, &status, 0);
		CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		      "exec mid-update: status 0x%x (4: exec failed; 5: the "
		      "update finished first; 1: new image wrong)", status);
	}
}

int main(int argc, char **argv)
{
	pthread_t rd;

	if (argc > 1)
		return child_main(); /* "spawned" or "after-exec" */
	self_path = argv[0];
	sk__inject_hook = hook;
	start_thread(&rd, NULL, reader, NULL);
	fork_mid_update(10);
	spawn_during_updates(20);
	exec_mid_update(5);
	__atomic_store_n(&stop_readers, 1, __ATOMIC_RELEASE);
	pthread_join(rd, NULL);
	return check_summary();
}
