/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * src/os/linux/sigmask_musl.c - what musl's own mask functions do, for a
 * fully static musl program whose wrappers took their names.
 *
 * sigmask.c finds the C library's definitions with dlsym(RTLD_NEXT).  A
 * fully static musl program has no dynamic linker: musl's dlsym() there is a
 * stub that always fails, so every wrapper found nothing to call and
 * failed.  This is how Rust builds for x86_64-unknown-linux-musl by default
 * (crt-static, musl's libc.a bundled with the standard library), and a
 * library crate cannot give that link the -Wl,--wrap options the C static
 * library uses: Rust's start-up signal(SIGPIPE, ...) reached our signal(),
 * got SIG_ERR, and the program aborted before main.
 *
 * In a static link our definitions come first and take the public names;
 * musl's object files that define only those names are never linked.  So,
 * like SK_SIGMASK_STATIC_GLIBC, sigmask.c calls musl's internal names where
 * musl has them (__sigaction, which sigaction is a weak alias of), and this
 * file does what musl's function does where it has none: pthread_sigmask and
 * sigprocmask (one system call), longjmp and siglongjmp (a register reload;
 * musl restores a saved mask in sigsetjmp's return path, not in the jump).
 * These are musl's x86-64 definitions (src/thread/pthread_sigmask.c,
 * src/signal/sigprocmask.c, src/setjmp/x86_64/longjmp.s), whose behaviour
 * and jmp_buf layout are musl's ABI.
 *
 * sigsuspend, pselect, ppoll and epoll_pwait are musl's system calls made
 * through __syscall_cp, musl's internal entry that makes them cancellation
 * points, as musl's own do (src/signal/sigsuspend.c, src/select/pselect.c,
 * src/select/ppoll.c, src/linux/epoll.c).  musl's sighold, sigset and
 * sigrelse call sigprocmask and sigaction, which reach the wrappers.
 */
#if defined(SK_SIGMASK_STATIC_MUSL) && defined(__x86_64__)
#include <errno.h>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>


/* musl's own signals (32 to 34: timer, cancel, synccall): sigaddset refuses
 * them, so no set the program builds holds them; musl hides them from the
 * old mask it reports. */
#define MUSL_INTERNAL_SIGNALS 0x380000000ull

int sk__musl_pthread_sigmask(int how, const sigset_t *set, sigset_t *old)
{
	uint64_t word;

	if (set && (unsigned)how - SIG_BLOCK > 2U)
		return EINVAL;
	/* The kernel's sigset is 8 bytes (_NSIG / 8 in the kernel's terms);
	 * musl's sigset_t is larger, and its first word is the kernel's. */
	if (syscall(SYS_rt_sigprocmask, how, set, old, sizeof(word)) != 0)
		return errno;
	if (old) {
		memcpy(&word, old, sizeof(word));
		word &= ~MUSL_INTERNAL_SIGNALS;
		memcpy(old, &word, sizeof(word));
	}
	return 0;
}

int sk__musl_sigprocmask(int how, const sigset_t *set, sigset_t *old)
{
	int r = sk__musl_pthread_sigmask(how, set, old);

	if (!r)
		return 0;
	errno = r;
	return -1;
}

/* musl's internal system call entries (hidden in libc.a, which a static
 * link reaches): a cancellation point, and the conversion of a negative
 * errno result to -1 and errno. */
long __syscall_cp(long nr, long a, long b, long c, long d, long e, long f);
long __syscall_ret(unsigned long r);

int sk__musl_sigsuspend(const sigset_t *set)
{
	return (int)__syscall_ret((unsigned long)__syscall_cp(
		SYS_rt_sigsuspend, (long)set, 8, 0, 0, 0, 0));
}

int sk__musl_pselect(int n, fd_set *r, fd_set *w, fd_set *e,
		     const struct timespec *timeout, const sigset_t *set)
{
	/* The kernel may write the time left into it: a copy, as musl's. */
	struct timespec left = timeout ? *timeout : (struct timespec){ 0 };
	long mask_arg[2] = { (long)set, 8 };

	return (int)__syscall_ret((unsigned long)__syscall_cp(
		SYS_pselect6, n, (long)r, (long)w, (long)e,
		timeout ? (long)&left : 0, (long)mask_arg));
}

int sk__musl_ppoll(struct pollfd *fds, nfds_t n,
		   const struct timespec *timeout, const sigset_t *set)
{
	struct timespec left = timeout ? *timeout : (struct timespec){ 0 };

	return (int)__syscall_ret((unsigned long)__syscall_cp(
		SYS_ppoll, (long)fds, (long)n, timeout ? (long)&left : 0,
		(long)set, 8, 0));
}

int sk__musl_epoll_pwait(int fd, struct epoll_event *ev, int max, int timeout,
			 const sigset_t *set)
{
	return (int)__syscall_ret((unsigned long)__syscall_cp(
		SYS_epoll_pwait, fd, (long)ev, max, timeout, (long)set, 8));
}

/* longjmp(env, val): jmp_buf holds rbx, rbp, r12-r15, rsp, rip; a val of 0
 * returns 1. */
__asm__(".text\n"
	".globl sk__musl_longjmp\n"
	".hidden sk__musl_longjmp\n"
	".type sk__musl_longjmp,@function\n"
	"sk__musl_longjmp:\n"
	"	xor %eax,%eax\n"
	"	cmp $1,%esi\n"
	"	adc %esi,%eax\n"
	"	mov (%rdi),%rbx\n"
	"	mov 8(%rdi),%rbp\n"
	"	mov 16(%rdi),%r12\n"
	"	mov 24(%rdi),%r13\n"
	"	mov 32(%rdi),%r14\n"
	"	mov 40(%rdi),%r15\n"
	"	mov 48(%rdi),%rsp\n"
	"	jmp *56(%rdi)\n"
	".size sk__musl_longjmp, .-sk__musl_longjmp\n");
#endif
