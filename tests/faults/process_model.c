/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * process_model.c - what PostgreSQL <= 15's postmaster does inside signal
 * handlers, and the rest of "fork and exit from anywhere":
 *
 * 1. fork_in_handlers: SIGUSR1 and SIGCHLD handlers fork children that
 *    never return from the handler; each child updates keys (enable,
 *    disable, inc/dec, a commit), checks its sites after each update,
 *    checks its statistics are its own (it starts at 0), and exits from
 *    the handler.  Meanwhile another parent thread flips keys, so forks
 *    meet updates in progress.  No child may print "statickeys:".
 * 2. reload_in_sighup: a SIGHUP handler flips keys (a configuration
 *    reload) while another thread runs the sites and checks every run that
 *    did not overlap a flip.
 * 3. siglongjmp_after_update: a handler updates a key and leaves by
 *    siglongjmp; the lock is free afterwards, for this thread and another.
 * 4. fork_inside_own_update: a handler that interrupted this thread's own
 *    update (injected after the int3 write) forks; another thread runs the
 *    sites and a third one updates another key meanwhile.  The parent's
 *    update completes and no two updates ever hold the lock at once; the
 *    child finds every site of the key whole (running them all takes no
 *    trap), in the new direction, and its own updates are refused with
 *    -EDEADLK while it is still inside that handler.
 * 5. exit_from_sigchld: the process exits from its SIGCHLD handler (the
 *    postmaster's shutdown): exit status 0, no message.
 * 6. exit_inside_own_update: exit() from a handler that interrupted this
 *    thread's update says so, accurately.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdbool.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <statickeys.h>

#include "../../src/internal.h"
#include "../check.h"
#include "../repeat.h"
#include "../wait_for.h"

SK_DEFINE_KEY_FALSE(work_key);  /* flipped by children and handlers */
SK_DEFINE_KEY_FALSE(busy_key);  /* flipped by another parent thread */
SK_DEFINE_KEY_TRUE(ref_key);    /* inc/dec from children */
SK_DEFINE_KEY_FALSE(cut_key);   /* only a cut child tries it */

#define NSITES 8

__attribute__((noinline)) static int work_sites_on(void)
{
	int n = 0;
	REP4(if (sk_branch_unlikely(&work_key)) n++;
	     if (sk_branch_likely(&work_key)) n++;)
	return n;
}

__attribute__((noinline)) static int busy_sites_on(void)
{
	int n = 0;
	REP4(if (sk_branch_unlikely(&busy_key)) n++;
	     if (sk_branch_likely(&busy_key)) n++;)
	return n;
}

static bool want_sites(bool on)
{
	return work_sites_on() == (on ? NSITES : 0);
}

/* Does the backend patch code?  The portable one tests a flag at each
 * site: no batch, and no point inside one for a handler to interrupt. */
static bool patching(void)
{
	struct sk_stats st;

	sk_stats_get(&st);
	return strcmp(st.backend, "portable") != 0;
}

/* ---- children: no CHECK counts survive them; they say and exit 1 ------- */

static int child_failed;

#define CHILD_CHECK(cond, ...)                                               \
	do {                                                                 \
		if (!(cond)) {                                               \
			fprintf(stderr, "child %d: %s:%d: ", (int)getpid(),  \
				__FILE__, __LINE__);                         \
			fprintf(stderr, __VA_ARGS__);                        \
			fputc('\n', stderr);                                 \
			child_failed = 1;                                    \
		}                                                            \
	} while (0)

/* A child's whole life, run inside the handler that forked it. */
__attribute__((noreturn)) static void child_main(void)
{
	struct sk_stats st;
	struct sk_key_change on[] = { SK_KEY_CHANGE(&work_key, true) };

	sk_stats_get(&st);
	CHILD_CHECK(st.updates == 0 && st.batches == 0,
		    "inherited statistics: %llu updates, %llu batches",
		    (unsigned long long)st.updates,
		    (unsigned long long)st.batches);
	for (int i = 0; i < 4; i++) {
		int r = sk_key_enable(&work_key);
		CHILD_CHECK(r == 0 && want_sites(true), "enable: %d", r);
		r = sk_key_disable(&work_key);
		CHILD_CHECK(r == 0 && want_sites(false), "disable: %d", r);
	}
	int r = sk_commit(on, 1);
	CHILD_CHECK(r == 0 && want_sites(true), "commit: %d", r);
	r = sk_key_dec(&ref_key);
	CHILD_CHECK(r == 0 && !sk_key_enabled(&ref_key), "dec: %d", r);
	r = sk_key_inc(&ref_key);
	CHILD_CHECK(r == 0 && sk_key_enabled(&ref_key), "inc: %d", r);
	sk_stats_get(&st);
	/* ref_key has no site: its two updates write nothing; the portable
	 * backend writes no code at all. */
	unsigned want_batches = patching() ? 9 : 0;
	CHILD_CHECK(st.updates == 11 && st.batches == want_batches,
		    "its own statistics: %llu updates, %llu batches, want 11 "
		    "and %u",
		    (unsigned long long)st.updates,
		    (unsigned long long)st.batches, want_batches);
	/* exit(), not _exit(): destructors unregister every object from
	 * inside the handler, as PostgreSQL's proc_exit() does. */
	exit(child_failed);
}

static volatile sig_atomic_t forks_left;

/* Each handler keeps errno for the code it interrupted, as the
 * postmaster's do (save_errno). */
static void fork_child_in_handler(int sig)
{
	int saved_errno = errno;

	(void)sig;
	if (forks_left <= 0)
		return;
	forks_left--;
	fflush(NULL); /* what the parent printed is not printed again */
	pid_t pid = fork();
	if (pid == 0)
		child_main(); /* never returns into the handler's caller */
	errno = saved_errno;
}

static int busy_stop;

static void *busy_flipper(void *arg)
{
	(void)arg;
	for (unsigned i = 0; !__atomic_load_n(&busy_stop, __ATOMIC_ACQUIRE); i++) {
		int r = i & 1 ? sk_key_disable(&busy_key)
			      : sk_key_enable(&busy_key);
		CHECK(r == 0 && busy_sites_on() == (i & 1 ? 0 : NSITES),
		      "busy flip %u returned %d", i, r);
	}
	return NULL;
}

/* Under ThreadSanitizer (tests/faults/sanitize.sh) its background thread
 * blocks every signal and STATICKEYS_BLOCKED_SIGTRAP=warn says so at each
 * child's first update: that line is expected there, and nothing else. */
static bool only_background_warnings(const char *out)
{
	/* That line is printed only under STATICKEYS_BLOCKED_SIGTRAP=warn. */
	for (const char *line = out; *line;) {
		const char *end = strchr(line, '\n');
		size_t len = end ? (size_t)(end - line) : strlen(line);
		char one[1024];
		snprintf(one, sizeof(one), "%.*s", (int)len, line);
		if (!strstr(one, "blocks SIGTRAP; updating anyway"))
			return false;
		line += len + (end != NULL);
	}
	return true;
}

/* Collect every child; the stderr of all of them arrives through @err,
 * which is also ours until @saved is put back. */
static void reap_children(int expected, int err_fd, int saved,
			  const char *what)
{
	int reaped = 0, ok = 0;
	pid_t pid;
	int status;

	while (reaped < expected && (pid = waitpid(-1, &status, 0)) > 0) {
		reaped++;
		ok += WIFEXITED(status) && WEXITSTATUS(status) == 0;
	}
	static char out[1 << 16]; /* a pipe's capacity */
	ssize_t n = 0, r;
	while ((size_t)n < sizeof(out) - 1 &&
	       (r = read(err_fd, out + n, sizeof(out) - 1 - (size_t)n)) > 0)
		n += r;
	out[n] = '\0';
	dup2(saved, 2);
	CHECK(reaped == expected && ok == expected,
	      "%s: %d of %d children reaped, %d passed", what, reaped, expected,
	      ok);
	CHECK(n <= 0 || only_background_warnings(out),
	      "%s: children printed: %s", what, out);
}

/* Children's stderr goes to a pipe the parent reads when they are done
 * (its write end kept in *@w). */
static int redirect_stderr(int *saved, int *w)
{
	int p[2];

	CHECK(pipe2(p, O_NONBLOCK) == 0, "pipe");
	fflush(stderr);
	*saved = dup(2);
	dup2(p[1], 2);
	*w = p[1];
	return p[0];
}

static void restore_stderr(int saved)
{
	dup2(saved, 2);
	close(saved);
}

static void fork_in_handlers(void)
{
	const int rounds = 40;
	pthread_t t;
	int saved, err_w, err = redirect_stderr(&saved, &err_w);

	signal(SIGUSR1, fork_child_in_handler);
	signal(SIGCHLD, SIG_DFL);
	pthread_create(&t, NULL, busy_flipper, NULL);
	forks_left = rounds;
	for (int i = 0; i < rounds; i++) {
		raise(SIGUSR1); /* the postmaster's "start a worker" */
		usleep(500);
	}
	__atomic_store_n(&busy_stop, 1, __ATOMIC_RELEASE);
	pthread_join(t, NULL);
	reap_children(rounds, err, saved, "SIGUSR1 forks");
	dup2(err_w, 2);

	/* SIGCHLD handler: each exit starts the next worker. */
	__atomic_store_n(&busy_stop, 0, __ATOMIC_RELEASE);
	sigset_t chld, old;
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	pthread_sigmask(SIG_BLOCK, &chld, &old); /* only this thread takes it */
	pthread_create(&t, NULL, busy_flipper, NULL);
	forks_left = rounds;
	signal(SIGCHLD, fork_child_in_handler);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	raise(SIGCHLD);
	/* Signals that arrive together are delivered once (ThreadSanitizer,
	 * which defers handlers, merges them often): a chain that stalls
	 * for 20 ms is started again, from a new SIGCHLD.  Each child updates
	 * keys 11 times: on a loaded machine (or under a sanitizer) the chain
	 * may take long; it is waited for, 60 s at most. */
	int last = forks_left;
	struct wait_for w = wait_for_begin();
	for (int i = 0; forks_left > 0 && !wait_for_expired(&w); i++) {
		usleep(1000);
		if (i % 20 == 19) {
			if (forks_left == last)
				raise(SIGCHLD);
			last = forks_left;
		}
	}
	signal(SIGCHLD, SIG_DFL);
	__atomic_store_n(&busy_stop, 1, __ATOMIC_RELEASE);
	pthread_join(t, NULL);
	CHECK(forks_left == 0, "SIGCHLD chain stopped with %d forks left "
	      "after %.0f s", (int)forks_left, wait_for_elapsed(&w));
	reap_children(rounds - forks_left, err, saved, "SIGCHLD forks");
	restore_stderr(saved);
	close(err);
	close(err_w);
	sk_key_disable(&work_key);
	printf("fork_in_handlers: %d children forked in SIGUSR1 and %d in "
	       "SIGCHLD handlers, each updated keys 11 times\n", rounds, rounds);
}

/* ---- 2. a configuration reload in SIGHUP -------------------------------- */

static unsigned long reload_seq; /* odd while a reload flips */
static int reload_state;
static int reader_stop, reader_started;
static unsigned long reader_checked;

static void on_sighup(int sig)
{
	int saved_errno = errno;

	(void)sig;
	__atomic_fetch_add(&reload_seq, 1, __ATOMIC_ACQ_REL);
	int on = !__atomic_load_n(&reload_state, __ATOMIC_RELAXED);
	struct sk_key_change ch[] = { SK_KEY_CHANGE(&work_key, on),
				      SK_KEY_CHANGE(&busy_key, on) };
	int r = sk_commit(ch, 2);
	CHECK(r == 0, "commit from the SIGHUP handler returned %d", r);
	if (r == 0)
		__atomic_store_n(&reload_state, on, __ATOMIC_RELEASE);
	__atomic_fetch_add(&reload_seq, 1, __ATOMIC_ACQ_REL);
	errno = saved_errno;
}

static void *reader(void *arg)
{
	(void)arg;
	__atomic_store_n(&reader_started, 1, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&reader_stop, __ATOMIC_ACQUIRE)) {
		unsigned long s1 = __atomic_load_n(&reload_seq, __ATOMIC_ACQUIRE);
		int want = __atomic_load_n(&reload_state, __ATOMIC_ACQUIRE);
		int a = work_sites_on(), b = busy_sites_on();
		unsigned long s2 = __atomic_load_n(&reload_seq, __ATOMIC_ACQUIRE);
		if (s1 == s2 && !(s1 & 1)) {
			CHECK(a == (want ? NSITES : 0) && b == a,
			      "reader saw %d and %d sites on, want %s", a, b,
			      want ? "all" : "none");
			__atomic_fetch_add(&reader_checked, 1,
					   __ATOMIC_RELAXED);
		}
	}
	return NULL;
}

static void reload_in_sighup(void)
{
	pthread_t t;
	sigset_t hup, old;

	struct sk_key_change off[] = { SK_KEY_CHANGE(&work_key, false),
				       SK_KEY_CHANGE(&busy_key, false) };
	CHECK(sk_commit(off, 2) == 0, "keys off before the reloads");
	sigemptyset(&hup);
	sigaddset(&hup, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &hup, &old); /* the reader never takes it */
	pthread_create(&t, NULL, reader, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	signal(SIGHUP, on_sighup);
	/* The reloads take ~100 ms: the reader must be running by then (a
	 * thread no core has run yet has every signal blocked, and a commit
	 * that waited ~1 s for it would be refused), and have checked between
	 * reloads (a loaded machine may keep it off a core for longer: more
	 * reloads, for at most 60 s). */
	WAIT_FOR(__atomic_load_n(&reader_started, __ATOMIC_ACQUIRE),
		 "the reader thread started");
	unsigned reloads = 0;
	struct wait_for w = wait_for_begin();
	for (int i = 0; i < 200 || (!__atomic_load_n(&reader_checked,
						     __ATOMIC_RELAXED) &&
				    !wait_for_expired(&w)); i++) {
		kill(getpid(), SIGHUP);
		usleep(200);
		reloads++;
	}
	__atomic_store_n(&reader_stop, 1, __ATOMIC_RELEASE);
	pthread_join(t, NULL);
	signal(SIGHUP, SIG_DFL);
	CHECK(reader_checked > 0, "the reader checked nothing in %u reloads "
	      "(%.0f s)", reloads, wait_for_elapsed(&w));
	printf("reload_in_sighup: %u reloads, %lu reader runs checked\n",
	       reloads, reader_checked);
	CHECK(sk_commit(off, 2) == 0, "keys off after the reloads");
}

/* ---- 3. siglongjmp out of a handler after an update there ---------------- */

static sigjmp_buf jump;
static volatile int jumped_update = 1;

static void update_and_jump(int sig)
{
	(void)sig;
	jumped_update = sk_key_enable(&work_key);
	siglongjmp(jump, 1);
}

static void *other_thread_update(void *arg)
{
	(void)arg;
	return (void *)(intptr_t)sk_key_disable(&work_key);
}

static void siglongjmp_after_update(void)
{
	signal(SIGUSR2, update_and_jump);
	if (sigsetjmp(jump, 1) == 0)
		raise(SIGUSR2);
	signal(SIGUSR2, SIG_DFL);
	CHECK(jumped_update == 0 && want_sites(true),
	      "update before the jump returned %d", jumped_update);
	pthread_t t;
	void *r;
	pthread_create(&t, NULL, other_thread_update, NULL);
	pthread_join(t, &r);
	CHECK(r == NULL && want_sites(false),
	      "another thread's update after the jump returned %d",
	      (int)(intptr_t)r);
	CHECK(sk_key_enable(&work_key) == 0 && sk_key_disable(&work_key) == 0,
	      "this thread's updates after the jump");
}

/* ---- 4. fork from a handler that interrupted this thread's update ------- */

static volatile pid_t cut_child;

static void cut_child_main(void)
{
	struct sk_stats st;

	/* Every site runs without a trap: none holds int3 any more.  The cut
	 * batch was work_key's enable: finished, so every site shows it. */
	int on = work_sites_on();
	sk_stats_get(&st);
	CHILD_CHECK(on == NSITES, "%d of %d sites on", on, NSITES);
	CHILD_CHECK(st.traps_handled == 0, "%llu traps in the child",
		    (unsigned long long)st.traps_handled);
	int r = sk_key_enable(&cut_key);
	CHILD_CHECK(r == -EDEADLK, "an update inside the cut update's handler "
		    "returned %d, want -EDEADLK", r);
	_exit(child_failed);
}

static void fork_in_update_handler(int sig)
{
	int saved_errno = errno;

	(void)sig;
	fflush(NULL);
	pid_t pid = fork();
	if (pid == 0)
		cut_child_main();
	cut_child = pid;
	errno = saved_errno;
}

static pthread_t updater; /* the hook is global: only its update forks */

static void raise_in_update(int point)
{
	if (point == SK__INJECT_AFTER_TRAP_WRITE &&
	    pthread_equal(pthread_self(), updater) && cut_child == 0)
		raise(SIGUSR2);
}

static int runner_stop;

static void *runner(void *arg)
{
	(void)arg;
	while (!__atomic_load_n(&runner_stop, __ATOMIC_ACQUIRE)) {
		(void)work_sites_on();
		(void)busy_sites_on();
	}
	return NULL;
}

static void fork_inside_own_update(void)
{
	const int rounds = 50;
	pthread_t run, flip;
	int children_ok = 0;

	signal(SIGUSR2, fork_in_update_handler);
	updater = pthread_self();
	cut_child = -1; /* not armed */
	/* Set before the other threads start, cleared after they end: they
	 * read it in their own updates (the hook itself acts only here). */
	sk__inject_hook = raise_in_update;
	__atomic_store_n(&busy_stop, 0, __ATOMIC_RELEASE);
	/* Update once both run (wait_for.h, start_thread()): the flipper
	 * updates once it runs, the runner is running by then. */
	start_thread(&run, NULL, runner, NULL);
	start_thread(&flip, NULL, busy_flipper, NULL);
	for (int i = 0; i < rounds; i++) {
		cut_child = 0;
		int r = sk_key_enable(&work_key);
		CHECK(r == 0 && want_sites(true),
		      "round %d: the interrupted update returned %d", i, r);
		CHECK(cut_child > 0, "round %d: no child was forked", i);
		int status;
		if (cut_child > 0 && waitpid(cut_child, &status, 0) == cut_child)
			children_ok += WIFEXITED(status) &&
				       WEXITSTATUS(status) == 0;
		cut_child = -1;
		CHECK(sk_key_disable(&work_key) == 0 && want_sites(false),
		      "round %d: disable", i);
	}
	__atomic_store_n(&busy_stop, 1, __ATOMIC_RELEASE);
	__atomic_store_n(&runner_stop, 1, __ATOMIC_RELEASE);
	pthread_join(flip, NULL);
	pthread_join(run, NULL);
	sk__inject_hook = NULL;
	signal(SIGUSR2, SIG_DFL);
	CHECK(children_ok == rounds, "%d of %d children found their sites "
	      "whole", children_ok, rounds);
	printf("fork_inside_own_update: %d forks from a handler inside an "
	       "update, with a thread running sites and one flipping another "
	       "key\n", rounds);
}

/* ---- 5, 6: exit from handlers (in a child each, to see its stderr) ------ */

static void exit_in_handler(int sig)
{
	(void)sig;
	exit(0);
}

static void raise_usr2_once(int point)
{
	if (point == SK__INJECT_AFTER_TRAP_WRITE) {
		sk__inject_hook = NULL;
		raise(SIGUSR2);
	}
}

/* Run @body in a child with stderr on a pipe; return what it printed. */
static int run_child(void (*body)(void), char *out, size_t len)
{
	int p[2];

	CHECK(pipe(p) == 0, "pipe");
	fflush(NULL);
	pid_t pid = fork();
	if (pid == 0) {
		dup2(p[1], 2);
		body();
		_exit(3);
	}
	close(p[1]);
	size_t got = 0;
	ssize_t n;
	while (got + 1 < len && (n = read(p[0], out + got, len - 1 - got)) > 0)
		got += (size_t)n;
	out[got] = '\0';
	close(p[0]);
	int status = 0;
	waitpid(pid, &status, 0);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* As the postmaster: SIGCHLD is taken only while it waits (its select()),
 * never inside fork(), whose lock glibc's exit() would wait for. */
static void exit_from_sigchld_body(void)
{
	sigset_t chld, waiting;

	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	sigprocmask(SIG_BLOCK, &chld, &waiting);
	sigdelset(&waiting, SIGCHLD);
	signal(SIGCHLD, exit_in_handler);
	fflush(NULL);
	if (fork() == 0)
		_exit(0);
	for (;;)
		sigsuspend(&waiting);
}

static void exit_inside_update_body(void)
{
	signal(SIGUSR2, exit_in_handler);
	sk__inject_hook = raise_usr2_once;
	(void)sk_key_enable(&work_key);
}

static void exits_from_handlers(void)
{
	char out[2048];

	int code = run_child(exit_from_sigchld_body, out, sizeof(out));
	CHECK(code == 0 && out[0] == '\0',
	      "exit from SIGCHLD: status %d, printed: %s", code, out);

	if (!patching())
		return;
	code = run_child(exit_inside_update_body, out, sizeof(out));
	CHECK(code == 0, "exit inside an update: status %d", code);
	CHECK(strstr(out, "interrupted this thread's key update") != NULL,
	      "exit inside an update printed: %s", out);
}

int main(void)
{
	fork_in_handlers();
	reload_in_sighup();
	siglongjmp_after_update();
	if (patching()) {
		fork_inside_own_update();
	} else {
		printf("SKIPPED fork_inside_own_update and exit_inside_own_update: "
		       "the portable backend writes no code, so no handler can "
		       "interrupt a batch\n");
	}
	exits_from_handlers();
	return check_summary();
}
