/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * tests/faults/seccomp_filter.h - real seccomp filters that take away what
 * the runtime relies on, built as raw BPF (no library needed).
 *
 *	struct denial d = { .membarrier = ENOSYS };
 *	deny_install(&d, false);   // this thread and, with tsync, all threads
 *
 * Each field is the errno the matching system call fails with (0: allowed):
 *   membarrier   every membarrier() call (core sync, its registration)
 *   pwrite       every pwrite64() (the /proc/self/mem writer)
 *   rwx          mprotect()/pkey_mprotect() asking for PROT_WRITE|PROT_EXEC
 *                together (the mprotect writer; what SELinux execmem refuses)
 * Filters stay for the life of the process and are inherited across fork
 * and exec.
 */
#ifndef SK_TESTS_FAULTS_SECCOMP_FILTER_H
#define SK_TESTS_FAULTS_SECCOMP_FILTER_H

#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

/* The filter applies to this build's system call table only. */
#if defined(__i386__)
#define DENY_AUDIT_ARCH AUDIT_ARCH_I386
#elif defined(__aarch64__)
#define DENY_AUDIT_ARCH AUDIT_ARCH_AARCH64
#elif defined(__riscv) && __riscv_xlen == 64
#define DENY_AUDIT_ARCH AUDIT_ARCH_RISCV64
#else
#define DENY_AUDIT_ARCH AUDIT_ARCH_X86_64
#endif

struct denial {
	int membarrier, pwrite, rwx;
};

#define DENY_LD(off) BPF_STMT(BPF_LD | BPF_W | BPF_ABS, (off))
#define DENY_ERRNO(e) BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ((e) & 0xffff))
#define DENY_ALLOW BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)
#define DENY_IF_NR(nr, e)                                                    \
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (nr), 0, 1), DENY_ERRNO(e)

/* Return: 0 or -errno (seccomp unavailable, or refused). */
static inline int deny_install(const struct denial *d, int all_threads)
{
	/* Deny only what is asked: a value of 0 would match nothing useful,
	 * so unused rules compare against an impossible syscall number. */
	const unsigned none = 0xffffffffu;
	unsigned mb = d->membarrier ? __NR_membarrier : none;
	unsigned pw = d->pwrite ? __NR_pwrite64 : none;
	unsigned mp = d->rwx ? __NR_mprotect : none;
	unsigned pk = d->rwx ? __NR_pkey_mprotect : none;
	struct sock_filter f[] = {
		DENY_LD(offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, DENY_AUDIT_ARCH, 1, 0),
		DENY_ALLOW,
		DENY_LD(offsetof(struct seccomp_data, nr)),
		DENY_IF_NR(mb, d->membarrier),
		DENY_IF_NR(pw, d->pwrite),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, mp, 1, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, pk, 0, 4),
		DENY_LD(offsetof(struct seccomp_data, args[2])),
		BPF_STMT(BPF_ALU | BPF_AND | BPF_K, PROT_WRITE | PROT_EXEC),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, PROT_WRITE | PROT_EXEC, 0, 1),
		DENY_ERRNO(d->rwx),
		DENY_ALLOW,
	};
	struct sock_fprog prog = { sizeof(f) / sizeof(f[0]), f };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
		return -errno;
	if (syscall(__NR_seccomp, SECCOMP_SET_MODE_FILTER,
		    all_threads ? SECCOMP_FILTER_FLAG_TSYNC : 0, &prog) != 0)
		return -errno;
	return 0;
}

#endif /* SK_TESTS_FAULTS_SECCOMP_FILTER_H */
