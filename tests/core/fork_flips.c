/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * fork_flips.c - fork while other threads flip keys.
 *
 * The runtime takes the patch lock around fork(), so a child never inherits
 * code in the middle of a batch.  Each child checks that every site agrees
 * with its copy of the key, flips the key itself (through its own
 * /proc/self/mem, not the parent's), checks again, and exits.
 *
 * First, a fork before any update, while the process has one thread and
 * the runtime has opened nothing: the child's first update must write the
 * child's code only.
 */
#include <pthread.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <statickeys.h>

#include "../check.h"
#include "../repeat.h"

SK_DEFINE_KEY_FALSE(fork_key);

#define NSITES 64

__attribute__((noinline)) static int sites_on(void)
{
	int n = 0;
	REP16(if (sk_branch_unlikely(&fork_key)) n++;
	      if (sk_branch_likely(&fork_key)) n++;
	      if (sk_branch_unlikely(&fork_key)) n++;
	      if (sk_branch_likely(&fork_key)) n++;)
	return n;
}

static int stop;

static void *flipper(void *arg)
{
	(void)arg;
	while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE)) {
		sk_key_enable(&fork_key);
		sk_key_disable(&fork_key);
	}
	return NULL;
}

/* Exit code: 0 all good, 1 sites disagree with the key, 2 flip failed. */
static int child(void)
{
	int want = sk_key_enabled(&fork_key) ? NSITES : 0;
	if (sites_on() != want)
		return 1;
	if (sk_key_enabled(&fork_key) ? sk_key_disable(&fork_key)
				      : sk_key_enable(&fork_key))
		return 2;
	want = NSITES - want;
	return sites_on() == want ? 0 : 1;
}

/* Fork a child that runs child(); its wait status. */
static int forked_child(void)
{
	int status;
	pid_t pid = fork();

	if (pid == 0)
		_exit(child());
	waitpid(pid, &status, 0);
	return status;
}

/* Before any update and any second thread: the child flips its key, the
 * parent's sites stay as they are. */
static void fork_before_any_update(void)
{
	int status = forked_child();

	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	      "child of a process that never updated: status %#x", status);
	CHECK(!sk_key_enabled(&fork_key) && sites_on() == 0,
	      "the child's update left the parent's sites alone");
}

int main(void)
{
	pthread_t t;
	int forks = 200, bad = 0;

	fork_before_any_update();
	pthread_create(&t, NULL, flipper, NULL);
	for (int i = 0; i < forks; i++) {
		int status = forked_child();
		CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		      "child %d: status %#x (1: sites disagree, 2: flip failed)",
		      i, status);
		bad += !(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	}
	__atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
	pthread_join(t, NULL);
	CHECK(sk_key_enable(&fork_key) == 0 && sites_on() == NSITES,
	      "parent flips after the forks");
	printf("%d forks during flips, %d bad children\n", forks, bad);
	return check_summary();
}
