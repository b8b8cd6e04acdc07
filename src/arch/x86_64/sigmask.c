/*
 * src/arch/x86_64/sigmask.c - keep SIGTRAP deliverable in every thread.
 *
 * While a batch runs, the first byte of each changing site is int3.  A thread
 * that executes it with SIGTRAP blocked is not given to our handler: the
 * kernel resets SIGTRAP to its default action and kills the process
 * (force_sig_info_to_task).  Threaded servers routinely block every signal
 * (sigfillset + pthread_sigmask in main, inherited by the workers, one thread
 * in sigwait or a signalfd), so refusing updates in that case would make the
 * library useless to them.
 *
 * So, like glibc for its own internal signals (SIGCANCEL, SIGSETXID) and the
 * Boehm GC for its suspend signal, the runtime defines the C library's
 * mask-setting functions itself and removes SIGTRAP from every mask they
 * would install, then calls the C library's function (found with
 * dlsym(RTLD_NEXT)).  Every other signal is blocked exactly as asked, and the
 * old mask each call reports is the real one.  The paths covered:
 *
 *   sigprocmask, pthread_sigmask          the thread's mask
 *   sigaction                             sa_mask of every handler
 *   pthread_attr_setsigmask_np            a new thread's first mask
 *   setcontext, swapcontext               uc_sigmask
 *   siglongjmp, longjmp, __longjmp_chk    the mask sigsetjmp saved
 *   sigsuspend, pselect, ppoll,           the mask held while waiting,
 *   epoll_pwait, epoll_pwait2             which handlers run under
 *   sighold, sigset(SIG_HOLD), sigblock, sigsetmask   (the old APIs)
 *
 * Why it works: the dynamic linker binds every call to the first definition
 * in the program's search order.  Programs list their libraries before the C
 * library, so these definitions come first, for the program and for every
 * library it loads.  In libstatickeys.so they carry the C library's version
 * names (libstatickeys.map), since a reference to pthread_sigmask@GLIBC_2.32
 * only binds to a definition of that version.  In the static library this
 * file is pulled in by threads_check.c, and the program's own definitions
 * come first anyway.
 *
 * What it cannot see: masks set by raw system calls, by the C library
 * internally (briefly, in pthread_create and posix_spawn, and for good in its
 * timer and AIO helper threads, which run no sites), and masks that threads
 * set before the runtime was loaded with dlopen (its definitions then come
 * after the C library's and are never called).  threads_check.c looks for
 * those; sk__sigmask_wrappers_active() tells it whether it may trust us.
 *
 * STATICKEYS_KEEP_SIGTRAP=0 turns this off for programs that truly need
 * SIGTRAP blocked: masks are then honoured as given, and an update is refused
 * while a thread blocks SIGTRAP (STATICKEYS_BLOCKED_SIGTRAP).
 *
 * Every wrapper is async-signal-safe (the C library's functions they call
 * are, where they are): the real functions are looked up once, before main,
 * from a constructor.
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <sys/syscall.h>
#include <poll.h>
#include <ucontext.h>
#include <unistd.h>

#include "arch/x86_64/x86_64.h"

#define SK_EXPORT __attribute__((visibility("default")))

/* -1: not decided yet; 0: masks honoured as given; 1: SIGTRAP kept out. */
static int keep = -1;

static bool keeping(void)
{
	int k = __atomic_load_n(&keep, __ATOMIC_RELAXED);

	if (k < 0) {
		/* Only before our constructor (another library's constructor
		 * setting a mask): the environment is readable by then. */
		const char *env = secure_getenv("STATICKEYS_KEEP_SIGTRAP");
		k = !(env && strcmp(env, "0") == 0);
		__atomic_store_n(&keep, k, __ATOMIC_RELAXED);
	}
	return k;
}

/* @set without SIGTRAP, in @buf, or @set itself when nothing is to strip. */
static const sigset_t *without_trap(const sigset_t *set, sigset_t *buf)
{
	if (!set || !keeping() || !sigismember(set, SIGTRAP))
		return set;
	*buf = *set;
	sigdelset(buf, SIGTRAP);
	return buf;
}

/* The C library's definitions, looked up once.  Fully static programs
 * (`-static`, no dynamic linker) are not supported: there the mask calls
 * fall back to the system call and the others fail with ENOSYS. */
#define REAL(name) real_##name
#define DECLARE_REAL(ret, name, ...) static ret (*REAL(name))(__VA_ARGS__)

DECLARE_REAL(int, sigprocmask, int, const sigset_t *, sigset_t *);
DECLARE_REAL(int, pthread_sigmask, int, const sigset_t *, sigset_t *);
DECLARE_REAL(int, sigaction, int, const struct sigaction *, struct sigaction *);
DECLARE_REAL(int, pthread_attr_setsigmask_np, pthread_attr_t *,
	     const sigset_t *);
DECLARE_REAL(int, setcontext, const ucontext_t *);
DECLARE_REAL(int, swapcontext, ucontext_t *, const ucontext_t *);
DECLARE_REAL(void, siglongjmp, sigjmp_buf, int);
DECLARE_REAL(void, longjmp, jmp_buf, int);
DECLARE_REAL(void, __longjmp_chk, sigjmp_buf, int);
DECLARE_REAL(int, sigsuspend, const sigset_t *);
DECLARE_REAL(int, pselect, int, fd_set *, fd_set *, fd_set *,
	     const struct timespec *, const sigset_t *);
DECLARE_REAL(int, ppoll, struct pollfd *, nfds_t, const struct timespec *,
	     const sigset_t *);
DECLARE_REAL(int, epoll_pwait, int, struct epoll_event *, int, int,
	     const sigset_t *);
DECLARE_REAL(int, epoll_pwait2, int, struct epoll_event *, int,
	     const struct timespec *, const sigset_t *);
DECLARE_REAL(int, sighold, int);
DECLARE_REAL(sighandler_t, sigset, int, sighandler_t);
DECLARE_REAL(int, sigblock, int);
DECLARE_REAL(int, sigsetmask, int);

/* On i386, whose versions start at GLIBC_2.0, the x86-64 names below are
 * not found and dlsym's default version is taken: the same function, each
 * having one version there but pthread_sigmask (asked for as 2.32). */
static void *next_definition(const char *name, const char *version)
{
	void *f = version ? dlvsym(RTLD_NEXT, name, version) : NULL;

	return f ? f : dlsym(RTLD_NEXT, name);
}

#define LOOKUP(name, version)                                                \
	(REAL(name) = (__typeof__(REAL(name)))next_definition(#name, version))

static void lookup_all(void)
{
	LOOKUP(sigprocmask, "GLIBC_2.2.5");
	LOOKUP(pthread_sigmask, "GLIBC_2.32");
	LOOKUP(sigaction, "GLIBC_2.2.5");
	LOOKUP(pthread_attr_setsigmask_np, "GLIBC_2.32");
	LOOKUP(setcontext, "GLIBC_2.2.5");
	LOOKUP(swapcontext, "GLIBC_2.2.5");
	LOOKUP(siglongjmp, "GLIBC_2.2.5");
	LOOKUP(longjmp, "GLIBC_2.2.5");
	LOOKUP(__longjmp_chk, "GLIBC_2.11");
	LOOKUP(sigsuspend, "GLIBC_2.2.5");
	LOOKUP(pselect, "GLIBC_2.2.5");
	LOOKUP(ppoll, "GLIBC_2.4");
	LOOKUP(epoll_pwait, "GLIBC_2.6");
	LOOKUP(epoll_pwait2, "GLIBC_2.35");
	LOOKUP(sighold, "GLIBC_2.2.5");
	LOOKUP(sigset, "GLIBC_2.2.5");
	LOOKUP(sigblock, "GLIBC_2.2.5");
	LOOKUP(sigsetmask, "GLIBC_2.2.5");
}

/* Before main: a wrapper called from a signal handler must not be the first
 * to look its function up (dlsym takes the dynamic linker's lock).  No
 * pthread_once: a sanitizer runtime calls us while it initialises, when its
 * own pthread_once interceptor cannot run yet; looking up twice is harmless
 * (both find the same definitions). */
static void lookup(void)
{
	static int done;

	if (!__atomic_load_n(&done, __ATOMIC_ACQUIRE)) {
		lookup_all();
		__atomic_store_n(&done, 1, __ATOMIC_RELEASE);
	}
}

#define CALL_REAL(name, ...)                                                 \
	__extension__({                                                      \
		if (!REAL(name))                                             \
			lookup();                                            \
		REAL(name) ? REAL(name)(__VA_ARGS__)                         \
			   : (errno = ENOSYS, -1);                           \
	})

/* ---- the thread's mask --------------------------------------------------- */

/* Without a C library to call (a static program): the system call, leaving
 * out the two signals the C library reserves for itself, as it does. */
static int raw_sigprocmask(int how, const sigset_t *set, sigset_t *old)
{
	sigset_t copy;

	if (set) {
		copy = *set;
		sigdelset(&copy, SIGRTMIN - 2); /* SIGCANCEL */
		sigdelset(&copy, SIGRTMIN - 1); /* SIGSETXID */
		set = &copy;
	}
	return (int)syscall(SYS_rt_sigprocmask, how, set, old, _NSIG / 8);
}

SK_EXPORT int sigprocmask(int how, const sigset_t *set, sigset_t *old)
{
	sigset_t buf;

	if (how != SIG_UNBLOCK)
		set = without_trap(set, &buf);
	if (!REAL(sigprocmask))
		lookup();
	if (!REAL(sigprocmask))
		return raw_sigprocmask(how, set, old);
	return REAL(sigprocmask)(how, set, old);
}

/* Calls that reached sk__pthread_sigmask() while sk__sigmask_wrappers_active()
 * was watching (any thread's call proves the same thing). */
static int probing;
static unsigned long probe_hits;

/* Not static: the C library's name for it below is an alias. */
int sk__pthread_sigmask(int how, const sigset_t *set, sigset_t *old)
{
	sigset_t buf;

	if (__atomic_load_n(&probing, __ATOMIC_RELAXED))
		__atomic_fetch_add(&probe_hits, 1, __ATOMIC_RELAXED);

	if (how != SIG_UNBLOCK)
		set = without_trap(set, &buf);
	if (!REAL(pthread_sigmask))
		lookup();
	if (!REAL(pthread_sigmask))
		return raw_sigprocmask(how, set, old) == 0 ? 0 : errno;
	return REAL(pthread_sigmask)(how, set, old);
}

/* Programs built against glibc 2.32 and later call pthread_sigmask@GLIBC_2.32,
 * older ones @GLIBC_2.2.5 (GLIBC_2.0 on i386; it then lived in libpthread):
 * define both. */
SK_EXPORT int pthread_sigmask(int how, const sigset_t *set, sigset_t *old)
	__attribute__((alias("sk__pthread_sigmask")));
#if defined(SK_SIGMASK_SYMVER) && defined(__i386__)
__asm__(".symver sk__pthread_sigmask_2_2_5, pthread_sigmask@GLIBC_2.0");
#elif defined(SK_SIGMASK_SYMVER)
__asm__(".symver sk__pthread_sigmask_2_2_5, pthread_sigmask@GLIBC_2.2.5");
#endif
#ifdef SK_SIGMASK_SYMVER
SK_EXPORT int sk__pthread_sigmask_2_2_5(int how, const sigset_t *set,
					 sigset_t *old)
{
	return sk__pthread_sigmask(how, set, old);
}
#endif

SK_EXPORT int pthread_attr_setsigmask_np(pthread_attr_t *attr,
					  const sigset_t *set)
{
	sigset_t buf;

	set = without_trap(set, &buf);
	if (!REAL(pthread_attr_setsigmask_np))
		lookup();
	if (!REAL(pthread_attr_setsigmask_np))
		return ENOSYS;
	return REAL(pthread_attr_setsigmask_np)(attr, set);
}

/* ---- handlers ------------------------------------------------------------- */

SK_EXPORT int sigaction(int sig, const struct sigaction *act,
			struct sigaction *old)
{
	struct sigaction copy;

	/* A handler running with SIGTRAP in its mask would be killed at a
	 * changing site.  The kernel still blocks a SIGTRAP handler's own
	 * signal while it runs (unless SA_NODEFER): that is the program's
	 * choice of handler, not of mask. */
	if (act && keeping() && sigismember(&act->sa_mask, SIGTRAP)) {
		copy = *act;
		sigdelset(&copy.sa_mask, SIGTRAP);
		act = &copy;
	}
	return CALL_REAL(sigaction, sig, act, old);
}

/* ---- contexts and jumps ---------------------------------------------------- */

SK_EXPORT int setcontext(const ucontext_t *ucp)
{
	ucontext_t copy;

	/* A copy keeps uc_mcontext.fpregs pointing at the original's
	 * floating-point state, which stays valid: the caller owns it. */
	if (ucp && keeping() && sigismember(&ucp->uc_sigmask, SIGTRAP)) {
		copy = *ucp;
		sigdelset(&copy.uc_sigmask, SIGTRAP);
		ucp = &copy;
	}
	return CALL_REAL(setcontext, ucp);
}

SK_EXPORT int swapcontext(ucontext_t *oucp, const ucontext_t *ucp)
{
	ucontext_t copy;

	if (ucp && keeping() && sigismember(&ucp->uc_sigmask, SIGTRAP)) {
		copy = *ucp;
		sigdelset(&copy.uc_sigmask, SIGTRAP);
		ucp = &copy;
	}
	return CALL_REAL(swapcontext, oucp, ucp);
}

/* The jump buffer is the caller's own, filled by sigsetjmp; only a mask
 * saved before the runtime was loaded, or inside a SIGTRAP handler, can
 * hold SIGTRAP. */
static void strip_saved_mask(struct __jmp_buf_tag *env)
{
	if (env->__mask_was_saved && keeping())
		sigdelset((sigset_t *)&env->__saved_mask, SIGTRAP);
}

#define WRAP_JUMP(name)                                                      \
	SK_EXPORT void name(struct __jmp_buf_tag env[1], int val)            \
	{                                                                    \
		strip_saved_mask(env);                                       \
		if (!REAL(name))                                             \
			lookup();                                            \
		if (REAL(name))                                              \
			REAL(name)(env, val);                                \
		abort(); /* no C library to jump with */                    \
	}

WRAP_JUMP(siglongjmp)
WRAP_JUMP(longjmp)
WRAP_JUMP(__longjmp_chk)

/* ---- masks held while waiting --------------------------------------------- */

SK_EXPORT int sigsuspend(const sigset_t *set)
{
	sigset_t buf;

	return CALL_REAL(sigsuspend, without_trap(set, &buf));
}

SK_EXPORT int pselect(int n, fd_set *r, fd_set *w, fd_set *e,
		      const struct timespec *timeout, const sigset_t *set)
{
	sigset_t buf;

	return CALL_REAL(pselect, n, r, w, e, timeout, without_trap(set, &buf));
}

SK_EXPORT int ppoll(struct pollfd *fds, nfds_t n, const struct timespec *timeout,
		    const sigset_t *set)
{
	sigset_t buf;

	return CALL_REAL(ppoll, fds, n, timeout, without_trap(set, &buf));
}

SK_EXPORT int epoll_pwait(int fd, struct epoll_event *ev, int max, int timeout,
			  const sigset_t *set)
{
	sigset_t buf;

	return CALL_REAL(epoll_pwait, fd, ev, max, timeout,
			 without_trap(set, &buf));
}

SK_EXPORT int epoll_pwait2(int fd, struct epoll_event *ev, int max,
			   const struct timespec *timeout, const sigset_t *set)
{
	sigset_t buf;

	return CALL_REAL(epoll_pwait2, fd, ev, max, timeout,
			 without_trap(set, &buf));
}

/* ---- the old System V and BSD calls --------------------------------------- */

SK_EXPORT int sighold(int sig)
{
	if (sig == SIGTRAP && keeping())
		return 0;
	return CALL_REAL(sighold, sig);
}

SK_EXPORT sighandler_t sigset(int sig, sighandler_t disp)
{
	if (!REAL(sigset))
		lookup();
	if (!REAL(sigset)) {
		errno = ENOSYS;
		return SIG_ERR;
	}
	if (sig == SIGTRAP && disp == SIG_HOLD && keeping()) {
		/* Report the disposition, as sigset(SIG_HOLD) does, hold
		 * nothing. */
		struct sigaction cur;
		if (CALL_REAL(sigaction, sig, NULL, &cur) != 0)
			return SIG_ERR;
		return cur.sa_handler;
	}
	return REAL(sigset)(sig, disp);
}

#define TRAP_BIT (1 << (SIGTRAP - 1)) /* sigmask(SIGTRAP) */

SK_EXPORT int sigblock(int mask)
{
	return CALL_REAL(sigblock, keeping() ? mask & ~TRAP_BIT : mask);
}

SK_EXPORT int sigsetmask(int mask)
{
	return CALL_REAL(sigsetmask, keeping() ? mask & ~TRAP_BIT : mask);
}

/* ---- set-up ----------------------------------------------------------------- */

bool sk__sigmask_wrappers_active(void)
{
	/* Ours are in effect if the program's calls reach them.  Ask the way
	 * the program does, through the first definition in the global search
	 * order, and see whether the call arrives here: it may be ours, or a
	 * sanitizer's interceptor that passes it on to ours (dlsym(RTLD_NEXT)
	 * from the sanitizer runtime finds us), or, when the runtime was
	 * loaded late by dlopen, the C library's, which never calls us. */
	static int active = -1;

	if (active < 0) {
		int (*first)(int, const sigset_t *, sigset_t *) =
			(int (*)(int, const sigset_t *, sigset_t *))dlsym(
				RTLD_DEFAULT, "pthread_sigmask");
		sigset_t cur;
		__atomic_store_n(&probing, 1, __ATOMIC_SEQ_CST);
		if (first)
			first(SIG_BLOCK, NULL, &cur);
		__atomic_store_n(&probing, 0, __ATOMIC_SEQ_CST);
		active = keeping() &&
			 __atomic_load_n(&probe_hits, __ATOMIC_SEQ_CST) > 0;
	}
	return active;
}

bool sk__sigmask_keeps_sigtrap(void)
{
	return keeping();
}

/* Priority 101 (with the objects' registration): before ordinary
 * constructors, which may already set masks or start threads. */
__attribute__((constructor(101))) static void sigmask_init(void)
{
	lookup();
	(void)keeping();
	/* A program started with SIGTRAP blocked (an inherited mask survives
	 * exec) would keep it in this thread and every thread it creates. */
	if (sk__sigmask_wrappers_active()) {
		sigset_t trap;
		sigemptyset(&trap);
		sigaddset(&trap, SIGTRAP);
		raw_sigprocmask(SIG_UNBLOCK, &trap, NULL);
	}
}
