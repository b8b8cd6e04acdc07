/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * src/os/linux/sigmask.c - keep SIGTRAP deliverable in every thread.
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
 *   signal, bsd_signal, sysv_signal       handlers (see sigaction below)
 *
 * musl has no pthread_attr_setsigmask_np, setcontext family, __longjmp_chk,
 * epoll_pwait2, sigblock, sigsetmask or sysv_signal: their wrappers are
 * glibc's only (__GLIBC__).
 *
 * Why it works: the dynamic linker binds every call to the first definition
 * in the program's search order.  Programs list their libraries before the C
 * library, so these definitions come first, for the program and for every
 * library it loads.  In libstatickeys.so they carry the C library's version
 * names (libstatickeys.map), since a reference to pthread_sigmask@GLIBC_2.32
 * only binds to a definition of that version.  In the static library the
 * wrappers are named __wrap_<name> and call __real_<name>: the program is
 * linked with -Wl,--wrap=<name> for each (the Boehm GC's GC_USE_LD_WRAP),
 * which works with or without a dynamic linker (sigmask_probe.c).  --wrap
 * rewrites only the references of the objects being linked, so in a program
 * that links the static library, the shared libraries it loads reach the C
 * library directly (threads_check.c still finds what they block).
 *
 * sigaction (and signal, bsd_signal, sysv_signal, sigset, which glibc
 * implements with its internal sigaction) also counts each change of
 * SIGTRAP's action, so that an update knows whether its SIGTRAP handler is
 * still the installed one without asking the kernel (trap_signal.c).
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

#include "os/linux/sigmask.h"
#include "os/linux/sigmask_probe.h"
#include "support/settings.h"

#define SK_EXPORT __attribute__((visibility("default")))

#ifdef SK_SIGMASK_LD_WRAP
/* Linked with -Wl,--wrap=<name> for each (the static library): the
 * program's calls come to __wrap_<name>, and __real_<name> is the C
 * library's definition. */
#define WRAPPER(name) __wrap_##name
#else
#define WRAPPER(name) name
#endif

/*
 * SK_SIGMASK_STATIC_GLIBC: a fully static glibc program that cannot be
 * linked with --wrap (a Rust program built with crt-static: a library crate
 * cannot give the linker options).  glibc's static library defines most of
 * these names as weak aliases of internal ones (sigaction of __sigaction),
 * so ours take their place and call the internal ones.  The functions it
 * defines under their public name only (ppoll, epoll_pwait, epoll_pwait2,
 * sighold, sigset, __longjmp_chk, pthread_attr_setsigmask_np) cannot be
 * taken over that way and are left out: what they block is found by
 * threads_check.c instead.
 */
/*
 * SK_SIGMASK_STATIC_MUSL: the same for a fully static musl program (Rust's
 * x86_64-unknown-linux-musl), where dlsym() always fails: sigmask_musl.c
 * says what is called instead.  musl's sighold and sigset call our
 * sigprocmask and sigaction, and are not taken over.
 */
#if !defined(SK_SIGMASK_STATIC_GLIBC) && !defined(SK_SIGMASK_STATIC_MUSL)
#define WRAP_PUBLIC_ONLY 1 /* also the functions defined only publicly */
#endif
#if !defined(SK_SIGMASK_STATIC_GLIBC)
#define WRAP_POLLS 1 /* ppoll, epoll_pwait */
#endif

static bool keeping(void)
{
	return sk__sigmask_keeps_sigtrap();
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

/* The C library's definitions: looked up once, or __real_<name>. */
#define REAL(name) real_##name
#ifdef SK_SIGMASK_LD_WRAP
#define DECLARE_REAL(ret, name, ...)                                         \
	ret __real_##name(__VA_ARGS__);                                      \
	static ret (*REAL(name))(__VA_ARGS__) = __real_##name
#else
#define DECLARE_REAL(ret, name, ...)                                         \
	__attribute__((unused)) static ret (*REAL(name))(__VA_ARGS__)
#endif

DECLARE_REAL(int, sigprocmask, int, const sigset_t *, sigset_t *);
DECLARE_REAL(int, pthread_sigmask, int, const sigset_t *, sigset_t *);
DECLARE_REAL(int, sigaction, int, const struct sigaction *, struct sigaction *);
#ifdef __GLIBC__
DECLARE_REAL(int, pthread_attr_setsigmask_np, pthread_attr_t *,
	     const sigset_t *);
DECLARE_REAL(int, setcontext, const ucontext_t *);
DECLARE_REAL(int, swapcontext, ucontext_t *, const ucontext_t *);
#endif
DECLARE_REAL(void, siglongjmp, sigjmp_buf, int);
DECLARE_REAL(void, longjmp, jmp_buf, int);
#ifdef __GLIBC__
DECLARE_REAL(void, __longjmp_chk, sigjmp_buf, int);
#endif
DECLARE_REAL(int, sigsuspend, const sigset_t *);
DECLARE_REAL(int, pselect, int, fd_set *, fd_set *, fd_set *,
	     const struct timespec *, const sigset_t *);
DECLARE_REAL(int, ppoll, struct pollfd *, nfds_t, const struct timespec *,
	     const sigset_t *);
DECLARE_REAL(int, epoll_pwait, int, struct epoll_event *, int, int,
	     const sigset_t *);
#ifdef __GLIBC__
DECLARE_REAL(int, epoll_pwait2, int, struct epoll_event *, int,
	     const struct timespec *, const sigset_t *);
#endif
DECLARE_REAL(int, sighold, int);
DECLARE_REAL(sighandler_t, sigset, int, sighandler_t);
#ifdef __GLIBC__
DECLARE_REAL(int, sigblock, int);
DECLARE_REAL(int, sigsetmask, int);
#endif

#if defined(SK_SIGMASK_LD_WRAP)
static void lookup(void)
{
}
#elif defined(SK_SIGMASK_STATIC_GLIBC)
int __sigprocmask(int, const sigset_t *, sigset_t *);
int __pthread_sigmask(int, const sigset_t *, sigset_t *);
int __sigaction(int, const struct sigaction *, struct sigaction *);
int __setcontext(const ucontext_t *);
int __swapcontext(ucontext_t *, const ucontext_t *);
void __libc_siglongjmp(sigjmp_buf, int);
void __libc_longjmp(jmp_buf, int);
int __sigsuspend(const sigset_t *);
int __pselect(int, fd_set *, fd_set *, fd_set *, const struct timespec *,
	      const sigset_t *);
int __sigblock(int);
int __sigsetmask(int);

static void lookup(void)
{
	REAL(sigprocmask) = __sigprocmask;
	REAL(pthread_sigmask) = __pthread_sigmask;
	REAL(sigaction) = __sigaction;
	REAL(setcontext) = __setcontext;
	REAL(swapcontext) = __swapcontext;
	REAL(siglongjmp) = __libc_siglongjmp;
	REAL(longjmp) = __libc_longjmp;
	REAL(sigsuspend) = __sigsuspend;
	REAL(pselect) = __pselect;
	REAL(sigblock) = __sigblock;
	REAL(sigsetmask) = __sigsetmask;
}
#elif defined(SK_SIGMASK_STATIC_MUSL)
int __sigaction(int, const struct sigaction *, struct sigaction *);
int sk__musl_pthread_sigmask(int, const sigset_t *, sigset_t *);
int sk__musl_sigprocmask(int, const sigset_t *, sigset_t *);
void sk__musl_longjmp(jmp_buf, int);
int sk__musl_sigsuspend(const sigset_t *);
int sk__musl_pselect(int, fd_set *, fd_set *, fd_set *,
		     const struct timespec *, const sigset_t *);
int sk__musl_ppoll(struct pollfd *, nfds_t, const struct timespec *,
		   const sigset_t *);
int sk__musl_epoll_pwait(int, struct epoll_event *, int, int,
			 const sigset_t *);

static void lookup(void)
{
	REAL(sigprocmask) = sk__musl_sigprocmask;
	REAL(pthread_sigmask) = sk__musl_pthread_sigmask;
	REAL(sigaction) = __sigaction;
	REAL(siglongjmp) = sk__musl_longjmp;
	REAL(longjmp) = sk__musl_longjmp;
	REAL(sigsuspend) = sk__musl_sigsuspend;
	REAL(pselect) = sk__musl_pselect;
	REAL(ppoll) = sk__musl_ppoll;
	REAL(epoll_pwait) = sk__musl_epoll_pwait;
}
#else
/* On i386, whose versions start at GLIBC_2.0, the x86-64 names below are
 * not found and dlsym's default version is taken: the same function, each
 * having one version there but pthread_sigmask (asked for as 2.32). */
static void *next_definition(const char *name, const char *version)
{
#ifdef __GLIBC__
	void *f = version ? dlvsym(RTLD_NEXT, name, version) : NULL;
#else
	void *f = NULL; /* no symbol versions */
	(void)version;
#endif

	return f ? f : dlsym(RTLD_NEXT, name);
}

#define LOOKUP(name, version)                                                \
	(REAL(name) = (__typeof__(REAL(name)))next_definition(#name, version))

static void lookup_all(void)
{
	LOOKUP(sigprocmask, "GLIBC_2.2.5");
	LOOKUP(pthread_sigmask, "GLIBC_2.32");
	LOOKUP(sigaction, "GLIBC_2.2.5");
#ifdef __GLIBC__
	LOOKUP(pthread_attr_setsigmask_np, "GLIBC_2.32");
	LOOKUP(setcontext, "GLIBC_2.2.5");
	LOOKUP(swapcontext, "GLIBC_2.2.5");
#endif
	LOOKUP(siglongjmp, "GLIBC_2.2.5");
	LOOKUP(longjmp, "GLIBC_2.2.5");
#ifdef __GLIBC__
	LOOKUP(__longjmp_chk, "GLIBC_2.11");
#endif
	LOOKUP(sigsuspend, "GLIBC_2.2.5");
	LOOKUP(pselect, "GLIBC_2.2.5");
	LOOKUP(ppoll, "GLIBC_2.4");
	LOOKUP(epoll_pwait, "GLIBC_2.6");
#ifdef __GLIBC__
	LOOKUP(epoll_pwait2, "GLIBC_2.35");
#endif
	LOOKUP(sighold, "GLIBC_2.2.5");
	LOOKUP(sigset, "GLIBC_2.2.5");
#ifdef __GLIBC__
	LOOKUP(sigblock, "GLIBC_2.2.5");
	LOOKUP(sigsetmask, "GLIBC_2.2.5");
#endif
}

/*
 * All at once, at the first call of a wrapper that needs the C library, not
 * at start-up: the eighteen lookups are ~20,000 instructions, which a
 * program that never calls one of these functions should not pay.  A
 * wrapper called from a signal handler must not be the first to look its
 * function up (dlsym takes the dynamic linker's lock), and is not: a handler
 * is counted only if it was installed through these wrappers (sigaction,
 * signal, sigset...), whose call looked everything up first.  No
 * pthread_once: a sanitizer runtime calls us while it initialises, when its
 * own pthread_once interceptor cannot run yet; looking up twice is harmless
 * (both find the same definitions).
 */
static void lookup(void)
{
	static int done;

	if (!__atomic_load_n(&done, __ATOMIC_ACQUIRE)) {
		lookup_all();
		__atomic_store_n(&done, 1, __ATOMIC_RELEASE);
	}
}
#endif

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

SK_EXPORT int WRAPPER(sigprocmask)(int how, const sigset_t *set, sigset_t *old)
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

/* Not static: the C library's name for it below is an alias. */
int sk__pthread_sigmask(int how, const sigset_t *set, sigset_t *old)
{
	sigset_t buf;

	sk__sigmask_probe_note();

	if (how != SIG_UNBLOCK)
		set = without_trap(set, &buf);
	/* Only reading the mask (the runtime's own probe, sigmask_probe.c):
	 * the system call, which every C library makes for it, rather than
	 * the first lookup of the C library's functions. */
	if (!set && !REAL(pthread_sigmask))
		return raw_sigprocmask(how, NULL, old) == 0 ? 0 : errno;
	if (!REAL(pthread_sigmask))
		lookup();
	if (!REAL(pthread_sigmask))
		return raw_sigprocmask(how, set, old) == 0 ? 0 : errno;
	return REAL(pthread_sigmask)(how, set, old);
}

/* Programs built against glibc 2.32 and later call pthread_sigmask@GLIBC_2.32,
 * older ones @GLIBC_2.2.5 (GLIBC_2.0 on i386; it then lived in libpthread):
 * define both. */
SK_EXPORT int WRAPPER(pthread_sigmask)(int how, const sigset_t *set,
				       sigset_t *old)
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

#if defined(__GLIBC__) && defined(WRAP_PUBLIC_ONLY)
SK_EXPORT int WRAPPER(pthread_attr_setsigmask_np)(pthread_attr_t *attr,
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
#endif

/* ---- handlers ------------------------------------------------------------- */

/* Called directly by the wrappers below, never through the symbol (which a
 * sanitizer's interceptor may take over): they install as the C library's
 * functions do, past any interposer. */
static int install_action(int sig, const struct sigaction *act,
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
	int r = CALL_REAL(sigaction, sig, act, old);
	/* Counted once the action is in place: a batch that read the count
	 * before this sees a new one at its next look (trap_signal.c). */
	if (r == 0 && act && sig == SIGTRAP)
		sk__sigmask_note_sigtrap_action();
	return r;
}

SK_EXPORT int WRAPPER(sigaction)(int sig, const struct sigaction *act,
				 struct sigaction *old)
{
	return install_action(sig, act, old);
}

/* signal(), bsd_signal() and sysv_signal() install through the C library's
 * internal sigaction, past the wrapper above: install through it instead,
 * with the flags and mask each of them uses in glibc. */
static sighandler_t install(int sig, sighandler_t disp, int flags,
			    bool mask_sig)
{
	struct sigaction act, old;

	memset(&act, 0, sizeof(act));
	act.sa_handler = disp;
	act.sa_flags = flags;
	sigemptyset(&act.sa_mask);
	if (mask_sig && sigaddset(&act.sa_mask, sig) != 0)
		return SIG_ERR;
	if (install_action(sig, &act, &old) != 0)
		return SIG_ERR;
	return old.sa_handler;
}

SK_EXPORT sighandler_t WRAPPER(signal)(int sig, sighandler_t disp)
{
	return install(sig, disp, SA_RESTART, true);
}

SK_EXPORT sighandler_t WRAPPER(bsd_signal)(int sig, sighandler_t disp)
{
	return install(sig, disp, SA_RESTART, true);
}

#ifdef __GLIBC__
SK_EXPORT sighandler_t WRAPPER(sysv_signal)(int sig, sighandler_t disp)
{
	return install(sig, disp, SA_RESETHAND | SA_NODEFER, false);
}
#endif

#ifdef __GLIBC__
/* ---- contexts and jumps ---------------------------------------------------- */

SK_EXPORT int WRAPPER(setcontext)(const ucontext_t *ucp)
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

SK_EXPORT int WRAPPER(swapcontext)(ucontext_t *oucp, const ucontext_t *ucp)
{
	ucontext_t copy;

	if (ucp && keeping() && sigismember(&ucp->uc_sigmask, SIGTRAP)) {
		copy = *ucp;
		sigdelset(&copy.uc_sigmask, SIGTRAP);
		ucp = &copy;
	}
	return CALL_REAL(swapcontext, oucp, ucp);
}
#endif

/* The jump buffer is the caller's own, filled by sigsetjmp; only a mask
 * saved before the runtime was loaded, or inside a SIGTRAP handler, can
 * hold SIGTRAP. */
#ifdef __GLIBC__
#define JB_MASK_SAVED(env) ((env)->__mask_was_saved)
#define JB_MASK(env) ((sigset_t *)&(env)->__saved_mask)
#else /* musl */
#define JB_MASK_SAVED(env) ((env)->__fl)
#define JB_MASK(env) ((sigset_t *)(env)->__ss)
#endif

static void strip_saved_mask(struct __jmp_buf_tag *env)
{
	if (JB_MASK_SAVED(env) && keeping())
		sigdelset(JB_MASK(env), SIGTRAP);
}

/* A jump restores the mask sigsetjmp saved: without SIGTRAP. */
#define WRAP_JUMP(name)                                                      \
	SK_EXPORT void WRAPPER(name)(struct __jmp_buf_tag env[1], int val)            \
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
#if defined(__GLIBC__) && defined(WRAP_PUBLIC_ONLY)
WRAP_JUMP(__longjmp_chk)
#endif

/* ---- masks held while waiting --------------------------------------------- */

SK_EXPORT int WRAPPER(sigsuspend)(const sigset_t *set)
{
	sigset_t buf;

	return CALL_REAL(sigsuspend, without_trap(set, &buf));
}

SK_EXPORT int WRAPPER(pselect)(int n, fd_set *r, fd_set *w, fd_set *e,
		      const struct timespec *timeout, const sigset_t *set)
{
	sigset_t buf;

	return CALL_REAL(pselect, n, r, w, e, timeout, without_trap(set, &buf));
}

#ifdef WRAP_POLLS
SK_EXPORT int WRAPPER(ppoll)(struct pollfd *fds, nfds_t n, const struct timespec *timeout,
		    const sigset_t *set)
{
	sigset_t buf;

	return CALL_REAL(ppoll, fds, n, timeout, without_trap(set, &buf));
}

SK_EXPORT int WRAPPER(epoll_pwait)(int fd, struct epoll_event *ev, int max, int timeout,
			  const sigset_t *set)
{
	sigset_t buf;

	return CALL_REAL(epoll_pwait, fd, ev, max, timeout,
			 without_trap(set, &buf));
}
#endif

#if defined(__GLIBC__) && defined(WRAP_PUBLIC_ONLY)
SK_EXPORT int WRAPPER(epoll_pwait2)(int fd, struct epoll_event *ev, int max,
			   const struct timespec *timeout, const sigset_t *set)
{
	sigset_t buf;

	return CALL_REAL(epoll_pwait2, fd, ev, max, timeout,
			 without_trap(set, &buf));
}
#endif

/* ---- the old System V and BSD calls --------------------------------------- */

#ifdef WRAP_PUBLIC_ONLY
SK_EXPORT int WRAPPER(sighold)(int sig)
{
	if (sig == SIGTRAP && keeping())
		return 0;
	return CALL_REAL(sighold, sig);
}

SK_EXPORT sighandler_t WRAPPER(sigset)(int sig, sighandler_t disp)
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
	sighandler_t r = REAL(sigset)(sig, disp);
	if (r == SIG_ERR)
		return r;
	/* The C library installed @disp past our sigaction: install it
	 * again through it, which keeps SIGTRAP out of the handler's mask. */
	if (disp != SIG_HOLD && disp != SIG_DFL && disp != SIG_IGN) {
		struct sigaction cur;
		if (CALL_REAL(sigaction, sig, NULL, &cur) == 0)
			(void)install_action(sig, &cur, NULL);
	}
	return r;
}
#endif

#ifdef __GLIBC__
#define TRAP_BIT (1 << (SIGTRAP - 1)) /* sigmask(SIGTRAP) */

SK_EXPORT int WRAPPER(sigblock)(int mask)
{
	return CALL_REAL(sigblock, keeping() ? mask & ~TRAP_BIT : mask);
}

SK_EXPORT int WRAPPER(sigsetmask)(int mask)
{
	return CALL_REAL(sigsetmask, keeping() ? mask & ~TRAP_BIT : mask);
}
#endif

/* ---- set-up ----------------------------------------------------------------- */

void sk__sigmask_lookup(void)
{
	lookup();
}

void sk__sigmask_ready(void)
{
	/* keeping() may first run inside a sanitizer's start-up, where it must
	 * not print: the warning for a bad value is given here.  The C
	 * library's functions are looked up later (lookup()). */
	(void)sk__setting(SK__SETTING_KEEP_SIGTRAP);
}
