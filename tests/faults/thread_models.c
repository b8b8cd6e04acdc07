/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * thread_models.c - keys flip while threads that block every signal run
 * their sites, in each way a program can block them.
 *
 * Workers block all signals (by the method the case names) and execute 32
 * sites of one key in a loop; the main thread flips the key back and forth.
 * Every update must return 0, the process must survive (a worker that met a
 * changing site's int3 with SIGTRAP blocked would be killed by the kernel),
 * and a worker's pass over the sites that began and ended with no update in
 * flight must see every site in the direction of the last update that
 * returned.  Each worker also checks that its mask really holds every other
 * signal it asked for: the runtime removes SIGTRAP and nothing else.
 *
 * Cases (argv[1]; all when absent):
 *   inherited          main blocks every signal, then creates the workers
 *                      (the sigwait server; a thread in sigwait() serves
 *                      SIGUSR1 meanwhile)
 *   pthread_sigmask    each worker blocks in itself
 *   sigprocmask        each worker, with sigprocmask(SIG_SETMASK)
 *   attr_sigmask       created with pthread_attr_setsigmask_np(all)
 *   ucontext           sites run on a context whose uc_sigmask is full
 *                      (makecontext + swapcontext)
 *   siglongjmp         a full mask saved by sigsetjmp while SIGTRAP was
 *                      blocked past the wrappers, restored by siglongjmp
 *   handler_sa_mask    sites run in a handler installed with a full sa_mask
 *   handler_sigsuspend sites run in a handler that interrupts sigsuspend()
 *                      with a full mask
 *   dlopen_after       threads created and blocked before a plugin with its
 *                      own key and sites is dlopen()ed; they then run them
 *   fork_spawn         blocked workers fork() and posix_spawn() during flips
 *   exec_blocked       a program started with SIGTRAP blocked (masks survive
 *                      exec) has it unblocked before main, other signals not
 *
 * SK_TORTURE_SECONDS sets each case's duration (default 1); the flips then
 * go on until the workers have checked MIN_CHECKED passes in each direction
 * (60 s more at most: a loaded machine may keep them off a core), and the
 * flips start once every worker runs.  Run by ctest with each writer and
 * with the fallback core sync.
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include <statickeys.h>

#include "../check.h"
#include "../repeat.h"
#include "../wait_for.h"

SK_DEFINE_KEY_FALSE(model_key);

#define NSITES 32
#define NWORKERS 3
/* Checked passes a case needs in each direction of the key, at least. */
#define MIN_CHECKED 4

extern char **environ;

__attribute__((noinline)) static int sites_on(void)
{
	int n = 0;
	REP16(if (sk_branch_unlikely(&model_key)) n++;
	      if (sk_branch_likely(&model_key)) n++;)
	return n;
}

/* The key's sites as seen by a worker: set for the plugin case. */
static int (*volatile run_sites)(void) = sites_on;
static struct sk_key_false *volatile flipped = &model_key;

/* Even: no update in flight, and the key is on iff (seq / 2) is odd. */
static unsigned long seq;
static int stop;
static unsigned long passes, checked;
static unsigned long checked_dir[2]; /* checked passes with the key off, on */

static bool expected_on(unsigned long s)
{
	return (s / 2) & 1;
}

/* One pass over the sites; checked when no update overlapped it. */
static void pass_once(void)
{
	unsigned long s1 = __atomic_load_n(&seq, __ATOMIC_ACQUIRE);
	int on = __atomic_load_n(&run_sites, __ATOMIC_ACQUIRE)();
	unsigned long s2 = __atomic_load_n(&seq, __ATOMIC_ACQUIRE);

	if (s1 == s2 && !(s1 & 1)) {
		int want = expected_on(s1) ? NSITES : 0;
		CHECK(on == want, "%d of %d sites on after update %lu returned, "
		      "want %d", on, NSITES, s1 / 2, want);
		__atomic_fetch_add(&checked_dir[expected_on(s1)], 1,
				   __ATOMIC_RELAXED);
		__atomic_fetch_add(&checked, 1, __ATOMIC_RELEASE);
	}
	__atomic_fetch_add(&passes, 1, __ATOMIC_RELAXED);
}

static bool stopping(void)
{
	return __atomic_load_n(&stop, __ATOMIC_ACQUIRE);
}

/* Every signal the C library lets a program block, except SIGTRAP, must
 * be blocked in this thread now.  i386's glibc sets a context's mask with
 * the old sigprocmask system call, which covers signals 1-32 only: real-time
 * signals keep the mask they had (glibc's own limit, with or without us). */
static void check_all_but_trap_blocked(const char *how)
{
	sigset_t cur;
	bool rt = true;

	syscall(SYS_rt_sigprocmask, SIG_BLOCK, NULL, &cur, _NSIG / 8);
#ifdef __i386__
	rt = strcmp(how, "swapcontext") != 0;
#endif
	CHECK(!sigismember(&cur, SIGTRAP), "%s: SIGTRAP is blocked", how);
	CHECK(sigismember(&cur, SIGUSR1) && sigismember(&cur, SIGINT) &&
	      sigismember(&cur, SIGTERM) && (!rt || sigismember(&cur, SIGRTMAX)),
	      "%s: other signals are not all blocked", how);
}

static double seconds(void)
{
	const char *env = getenv("SK_TORTURE_SECONDS");
	double s = env ? atof(env) : 1.0;

	return s > 0 ? s : 1.0;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static unsigned long checked_since(const unsigned long c0[2], int on)
{
	return __atomic_load_n(&checked_dir[on], __ATOMIC_ACQUIRE) - c0[on];
}

/*
 * Flip the key for the case's duration, and on until the workers have
 * checked MIN_CHECKED passes in each direction; every update must return 0.
 * After each flip this waits for a worker pass to check the new direction:
 * a little (2 ms) while the case's time runs, then until one has.  The
 * verdict needs the workers to have run between flips, so it waits for
 * that, not for a time: at most 60 s past the case's time, then fails
 * saying so.
 */
static void flip_for_a_while(void)
{
	double end = now() + seconds();
	struct wait_for w = wait_for_begin();
	unsigned long flips = 0, c0[2];
	bool enough = false, timed = true;
	int r = 0;

	c0[0] = __atomic_load_n(&checked_dir[0], __ATOMIC_ACQUIRE);
	c0[1] = __atomic_load_n(&checked_dir[1], __ATOMIC_ACQUIRE);
	for (;;) {
		enough = checked_since(c0, 0) >= MIN_CHECKED &&
			 checked_since(c0, 1) >= MIN_CHECKED;
		if (timed && now() >= end) {
			timed = false;
			w = wait_for_begin();
		}
		if (!timed && (enough || wait_for_expired(&w)))
			break;
		bool on = !expected_on(__atomic_load_n(&seq, __ATOMIC_RELAXED));
		__atomic_fetch_add(&seq, 1, __ATOMIC_ACQ_REL);
		r = on ? sk_key_enable(&flipped->key)
		       : sk_key_disable(&flipped->key);
		CHECK(r == 0, "update %lu returned %d", flips, r);
		__atomic_fetch_add(&seq, 1, __ATOMIC_ACQ_REL);
		flips++;
		if (r)
			break;
		/* Wait for a worker pass to check this direction. */
		unsigned long c = __atomic_load_n(&checked, __ATOMIC_ACQUIRE);
		for (int i = 0; c == __atomic_load_n(&checked, __ATOMIC_ACQUIRE) &&
				(timed ? i < 100 : !wait_for_expired(&w)); i++)
			usleep(20);
	}
	struct sk_stats st;
	sk_stats_get(&st);
	printf("  %lu flips, %lu + %lu checked passes (key off + on) of %d "
	       "sites (%lu traps resumed so far)\n", flips,
	       checked_since(c0, 0), checked_since(c0, 1), NSITES,
	       (unsigned long)st.traps_handled);
	CHECK(r || enough, "after %lu flips, %.0f s past the case's time, the "
	      "workers had checked %lu passes with the key off and %lu with it "
	      "on, want %d of each: no worker ran a pass between updates",
	      flips, timed ? 0.0 : wait_for_elapsed(&w), checked_since(c0, 0),
	      checked_since(c0, 1), MIN_CHECKED);
}

static void start_workers(pthread_t *t, const pthread_attr_t *attr,
			  void *(*fn)(void *))
{
	__atomic_store_n(&stop, 0, __ATOMIC_RELEASE);
	/* Flip once they all run (wait_for.h, start_thread()). */
	for (int i = 0; i < NWORKERS; i++)
		start_thread(&t[i], attr, fn, NULL);
}

static void stop_workers(pthread_t *t)
{
	__atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
	for (int i = 0; i < NWORKERS; i++)
		pthread_join(t[i], NULL);
	/* Leave the key off for the next case. */
	if (expected_on(__atomic_load_n(&seq, __ATOMIC_ACQUIRE))) {
		__atomic_fetch_add(&seq, 2, __ATOMIC_ACQ_REL);
		CHECK(sk_key_disable(&flipped->key) == 0, "final disable");
	}
}

/* ---- masks set by the thread itself or inherited ------------------------- */

static void *run_until_stopped(void *how)
{
	check_all_but_trap_blocked(how ? how : "inherited");
	while (!stopping())
		pass_once();
	return NULL;
}

static void *self_pthread_sigmask(void *arg)
{
	sigset_t all;

	(void)arg;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	return run_until_stopped("pthread_sigmask");
}

static void *self_sigprocmask(void *arg)
{
	sigset_t all;

	(void)arg;
	sigfillset(&all);
	sigprocmask(SIG_SETMASK, &all, NULL);
	return run_until_stopped("sigprocmask");
}

static void run_simple(void *(*fn)(void *))
{
	pthread_t t[NWORKERS];

	start_workers(t, NULL, fn);
	flip_for_a_while();
	stop_workers(t);
}

static void case_pthread_sigmask(void)
{
	run_simple(self_pthread_sigmask);
}

static void case_sigprocmask(void)
{
	run_simple(self_sigprocmask);
}

/* The sigwait server: main blocks everything, workers inherit it, one
 * thread takes the signals with sigwait(). */
static int usr1_seen;

static void *sigwait_thread(void *arg)
{
	sigset_t set;
	int sig;

	(void)arg;
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigaddset(&set, SIGUSR2);
	while (sigwait(&set, &sig) == 0 && sig == SIGUSR1)
		__atomic_fetch_add(&usr1_seen, 1, __ATOMIC_RELAXED);
	return NULL;
}

static void *inherited_worker(void *arg)
{
	(void)arg;
	return run_until_stopped(NULL);
}

static void case_inherited(void)
{
	sigset_t all, old;
	pthread_t t[NWORKERS], waiter;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	check_all_but_trap_blocked("main after pthread_sigmask");
	start_thread(&waiter, NULL, sigwait_thread, NULL);
	start_workers(t, NULL, inherited_worker);
	kill(getpid(), SIGUSR1);
	flip_for_a_while();
	stop_workers(t);
	kill(getpid(), SIGUSR2);
	pthread_join(waiter, NULL);
	CHECK(usr1_seen == 1, "the sigwait thread took SIGUSR1 %d times",
	      usr1_seen);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

/* Not in musl (the musl variant leaves these two models out, saying so):
 * pthread_attr_setsigmask_np and the setcontext family are glibc's. */
#ifdef __GLIBC__
static void case_attr_sigmask(void)
{
	pthread_attr_t attr;
	pthread_t t[NWORKERS];
	sigset_t all;

	sigfillset(&all);
	pthread_attr_init(&attr);
	CHECK(pthread_attr_setsigmask_np(&attr, &all) == 0,
	      "pthread_attr_setsigmask_np");
	start_workers(t, &attr, inherited_worker);
	flip_for_a_while();
	stop_workers(t);
	pthread_attr_destroy(&attr);
}

/* ---- contexts and jumps --------------------------------------------------- */

static __thread ucontext_t caller_ctx;

static void context_body(void)
{
	check_all_but_trap_blocked("swapcontext");
	while (!stopping())
		pass_once();
	/* returns to caller_ctx through uc_link */
}

static void *ucontext_worker(void *arg)
{
	static __thread char stack[256 * 1024];
	ucontext_t ctx;

	(void)arg;
	getcontext(&ctx);
	ctx.uc_stack.ss_sp = stack;
	ctx.uc_stack.ss_size = sizeof(stack);
	ctx.uc_link = &caller_ctx;
	sigfillset(&ctx.uc_sigmask);
	makecontext(&ctx, context_body, 0);
	swapcontext(&caller_ctx, &ctx);
	return NULL;
}

static void case_ucontext(void)
{
	run_simple(ucontext_worker);
}

#endif /* __GLIBC__ */

static void *siglongjmp_worker(void *arg)
{
	sigjmp_buf env;
	sigset_t all, old;

	(void)arg;
	/* Save a full mask, SIGTRAP included, past the wrappers (as a mask
	 * saved before the runtime was loaded would be), then go back to
	 * the normal mask and jump: the restored mask must not hold SIGTRAP. */
	sigfillset(&all);
	syscall(SYS_rt_sigprocmask, SIG_BLOCK, &all, &old, _NSIG / 8);
	if (sigsetjmp(env, 1) == 0) {
		syscall(SYS_rt_sigprocmask, SIG_SETMASK, &old, NULL, _NSIG / 8);
		siglongjmp(env, 1);
	}
	return run_until_stopped("siglongjmp");
}

static void case_siglongjmp(void)
{
	run_simple(siglongjmp_worker);
}

/* ---- sites in signal handlers ---------------------------------------------- */

static pthread_t handler_threads[NWORKERS];
static int sender_stop;
static int handler_workers_done; /* workers that saw the stop */

static void sites_in_handler(int sig)
{
	(void)sig;
	int saved = errno;
	for (int i = 0; i < 20; i++)
		pass_once();
	errno = saved;
}

static void install_full_mask_handler(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = sites_in_handler;
	sigfillset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
	struct sigaction got;
	sigaction(SIGUSR1, NULL, &got);
	CHECK(!sigismember(&got.sa_mask, SIGTRAP) &&
	      sigismember(&got.sa_mask, SIGINT),
	      "installed sa_mask: SIGTRAP kept out, the rest kept in");
}

static void *handler_idle_worker(void *arg)
{
	(void)arg;
	while (!stopping())
		usleep(200); /* interrupted by SIGUSR1, which runs the sites */
	__atomic_fetch_add(&handler_workers_done, 1, __ATOMIC_RELEASE);
	return NULL;
}

static void *handler_sigsuspend_worker(void *arg)
{
	sigset_t all_but_usr1, usr1, old;

	(void)arg;
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &usr1, &old);
	sigfillset(&all_but_usr1);
	sigdelset(&all_but_usr1, SIGUSR1);
	while (!stopping())
		sigsuspend(&all_but_usr1);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	__atomic_fetch_add(&handler_workers_done, 1, __ATOMIC_RELEASE);
	return NULL;
}

static void *signal_sender(void *arg)
{
	(void)arg;
	while (!__atomic_load_n(&sender_stop, __ATOMIC_ACQUIRE)) {
		for (int i = 0; i < NWORKERS; i++)
			pthread_kill(handler_threads[i], SIGUSR1);
		usleep(100);
	}
	return NULL;
}

static void run_with_handler(void *(*fn)(void *))
{
	pthread_t sender;

	install_full_mask_handler();
	__atomic_store_n(&sender_stop, 0, __ATOMIC_RELEASE);
	__atomic_store_n(&handler_workers_done, 0, __ATOMIC_RELEASE);
	start_workers(handler_threads, NULL, fn);
	start_thread(&sender, NULL, signal_sender, NULL);
	flip_for_a_while();
	/* Workers waiting in sigsuspend() need signals until they end, and a
	 * thread may be signalled only until it is joined (musl's
	 * pthread_kill() of a joined thread touches freed memory): the
	 * sender stops first, and this thread wakes them until they are done. */
	__atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
	__atomic_store_n(&sender_stop, 1, __ATOMIC_RELEASE);
	pthread_join(sender, NULL);
	while (__atomic_load_n(&handler_workers_done, __ATOMIC_ACQUIRE) <
	       NWORKERS) {
		for (int i = 0; i < NWORKERS; i++)
			pthread_kill(handler_threads[i], SIGUSR1);
		usleep(100);
	}
	stop_workers(handler_threads);
	signal(SIGUSR1, SIG_IGN);
}

static void case_handler_sa_mask(void)
{
	run_with_handler(handler_idle_worker);
}

static void case_handler_sigsuspend(void)
{
	run_with_handler(handler_sigsuspend_worker);
}

/* ---- a plugin loaded after the threads blocked their signals -------------- */

static int started_blocked;

static void *early_blocked_worker(void *arg)
{
	sigset_t all;

	(void)arg;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	__atomic_fetch_add(&started_blocked, 1, __ATOMIC_RELEASE);
	while (!stopping() &&
	       __atomic_load_n(&run_sites, __ATOMIC_ACQUIRE) == sites_on)
		usleep(100);
	return run_until_stopped("blocked before dlopen");
}

static void case_dlopen_after(void)
{
	pthread_t t[NWORKERS];
	char path[4096];
	const char *dir = getenv("SK_PLUGIN_DIR");

#ifdef SK_TEST_STATIC_RUNTIME
	/* The plugin links the shared runtime: two runtimes in one process,
	 * which is not supported (docs/shared-objects.md, "One runtime per process"). */
	printf("  skipped here: the static-runtime build cannot load a "
	       "plugin linked with the shared runtime\n");
	return;
#endif
	__atomic_store_n(&started_blocked, 0, __ATOMIC_RELEASE);
	start_workers(t, NULL, early_blocked_worker);
	WAIT_FOR(__atomic_load_n(&started_blocked, __ATOMIC_ACQUIRE) ==
			 NWORKERS,
		 "the %d workers blocked every signal (%d did)", NWORKERS,
		 __atomic_load_n(&started_blocked, __ATOMIC_ACQUIRE));
	snprintf(path, sizeof(path), "%s/libfaults_model_plugin.so",
		 dir ? dir : ".");
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	CHECK(h != NULL, "dlopen %s: %s", path, dlerror());
	if (!h) {
		stop_workers(t);
		return;
	}
	flipped = dlsym(h, "plugin_key");
	int (*fn)(void) = (int (*)(void))dlsym(h, "plugin_sites_on");
	CHECK(flipped && fn, "plugin symbols");
	__atomic_store_n(&run_sites, fn, __ATOMIC_RELEASE);
	flip_for_a_while();
	stop_workers(t);
	__atomic_store_n(&run_sites, sites_on, __ATOMIC_RELEASE);
	flipped = &model_key;
	dlclose(h);
}

/* ---- fork and posix_spawn from blocked threads ----------------------------- */

static void *forking_worker(void *arg)
{
	sigset_t all;
	unsigned n = 0;

	(void)arg;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	while (!stopping()) {
		pass_once();
		if (++n % 64)
			continue;
		pid_t pid;
		if (n % 128) {
			/* The child sees whole sites in one direction. */
			pid = fork();
			if (pid == 0) {
				int on = __atomic_load_n(&run_sites,
							 __ATOMIC_ACQUIRE)();
				_exit(on == 0 || on == NSITES ? 0 : 1);
			}
		} else {
			char *argv[] = { "true", NULL };
			if (posix_spawnp(&pid, "true", NULL, NULL, argv,
					 environ) != 0)
				pid = -1;
		}
		int status = 0;
		CHECK(pid > 0, "fork/posix_spawn failed");
		if (pid > 0) {
			waitpid(pid, &status, 0);
			CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0,
			      "child ended with status %#x", status);
		}
	}
	return NULL;
}

static void case_fork_spawn(void)
{
	run_simple(forking_worker);
}

/* ---- a program started with SIGTRAP blocked ------------------------------ */

/* In the re-executed copy: what main finds. */
static int started_blocked_child(void)
{
	sigset_t cur;

	syscall(SYS_rt_sigprocmask, SIG_BLOCK, NULL, &cur, _NSIG / 8);
	return !sigismember(&cur, SIGTRAP) && sigismember(&cur, SIGUSR2) ? 0 : 1;
}

static void case_exec_blocked(void)
{
	sigset_t both, old;
	pid_t pid = fork();

	if (pid == 0) {
		/* Past the wrappers, as a parent without this library would. */
		sigemptyset(&both);
		sigaddset(&both, SIGTRAP);
		sigaddset(&both, SIGUSR2);
		syscall(SYS_rt_sigprocmask, SIG_BLOCK, &both, &old, _NSIG / 8);
		setenv("SK_MODELS_CHILD", "1", 1);
		char *argv[] = { "faults_thread_models", NULL };
		execve("/proc/self/exe", argv, environ);
		_exit(3);
	}
	int status = 0;
	waitpid(pid, &status, 0);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	      "started with SIGTRAP and SIGUSR2 blocked: main found SIGTRAP "
	      "still blocked or SIGUSR2 unblocked (status %#x)", status);
}

int main(int argc, char **argv)
{
	if (getenv("SK_MODELS_CHILD"))
		return started_blocked_child();
	static const struct check_case cases[] = {
		{ "inherited", case_inherited },
		{ "pthread_sigmask", case_pthread_sigmask },
		{ "sigprocmask", case_sigprocmask },
#ifdef __GLIBC__
		{ "attr_sigmask", case_attr_sigmask },
		{ "ucontext", case_ucontext },
#endif
		{ "siglongjmp", case_siglongjmp },
		{ "handler_sa_mask", case_handler_sa_mask },
		{ "handler_sigsuspend", case_handler_sigsuspend },
		{ "dlopen_after", case_dlopen_after },
		{ "fork_spawn", case_fork_spawn },
		{ "exec_blocked", case_exec_blocked },
	};
	int r = check_run_cases(cases, sizeof(cases) / sizeof(cases[0]), argc,
				argv);

	printf("%lu passes over the sites, %lu checked\n",
	       __atomic_load_n(&passes, __ATOMIC_RELAXED),
	       __atomic_load_n(&checked, __ATOMIC_RELAXED));
	return r;
}
