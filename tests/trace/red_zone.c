/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * tests/trace/red_zone.c - a tracer attached to our USDT probe never writes
 * below the probing function's stack pointer (the 128-byte red zone), and
 * counts every event.  red_zone.sh runs it under bpftrace.
 *
 *	trace_red_zone EVENTS
 *
 * One asm block fills the 16 words below %rsp with a pattern, runs the
 * probe site exactly as trace.h's SK__SDT_BODY emits it (provider sktrz,
 * name ours), and copies the 16 words out; C then counts the words that
 * changed.  The same is done for a bare 5-byte NOP probe (sktrz:bare: what
 * libbpf emitted before 2026, with no stack move around it), the negative
 * control: on a kernel that turns a uprobe on a 5-byte NOP into a call, the
 * call's return address lands in the red zone, which shows that this test
 * sees such writes.  This file is built with -mno-red-zone, so the compiler
 * keeps nothing below %rsp that the fill could overwrite.
 *
 * Prints "ready PID", waits (30 s at most) for both semaphores to rise, fires
 * EVENTS events of each, then "changed ours N bare M", whether the kernel
 * mapped its uprobe trampoline ("trampoline yes|no"), and "done"; then fires
 * sktrz:done (the tracer's cue to leave).  Exit 0, 2 if nobody attached,
 * 77 where the form under test is not built (not x86-64, no sys/sdt.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <statickeys/trace.h>

#if !defined(SK__TRACE_HAVE_USDT) || !defined(__x86_64__)
int main(void)
{
	printf("SKIPPED: the red-zone-safe probe site is x86-64's, with "
	       "sys/sdt.h\n");
	return 77;
}
#else

SK__TP_SEMAPHORE_DEF(sktrz, ours);
SK__TP_SEMAPHORE_DEF(sktrz, bare);
SK__TP_SEMAPHORE_DEF(sktrz, done);
/* _.stapsdt.base, which the notes name (SK__SDT_PROBE emits it likewise). */
__asm__(_SDT_ASM_BASE);

#define RZ_WORDS 16
#define RZ_PATTERN 0x5aa5c33cf00fe11eUL

/* Fill the red zone with the pattern (t: a scratch register). */
#define RZ_FILL                                                              \
	"movabs $0x5aa5c33cf00fe11e, %[t]\n"                                 \
	"mov %[t], -8(%%rsp)\n mov %[t], -16(%%rsp)\n"                       \
	"mov %[t], -24(%%rsp)\n mov %[t], -32(%%rsp)\n"                      \
	"mov %[t], -40(%%rsp)\n mov %[t], -48(%%rsp)\n"                      \
	"mov %[t], -56(%%rsp)\n mov %[t], -64(%%rsp)\n"                      \
	"mov %[t], -72(%%rsp)\n mov %[t], -80(%%rsp)\n"                      \
	"mov %[t], -88(%%rsp)\n mov %[t], -96(%%rsp)\n"                      \
	"mov %[t], -104(%%rsp)\n mov %[t], -112(%%rsp)\n"                    \
	"mov %[t], -120(%%rsp)\n mov %[t], -128(%%rsp)\n"
#define RZ_COPY1(i) "mov -" #i "*8(%%rsp), %[t]\n mov %[t], " #i "*8-8(%[out])\n"
/* Copy the 16 words below %rsp to out[0..15] (out[0] the highest). */
#define RZ_COPY                                                              \
	RZ_COPY1(1) RZ_COPY1(2) RZ_COPY1(3) RZ_COPY1(4) RZ_COPY1(5)          \
	RZ_COPY1(6) RZ_COPY1(7) RZ_COPY1(8) RZ_COPY1(9) RZ_COPY1(10)         \
	RZ_COPY1(11) RZ_COPY1(12) RZ_COPY1(13) RZ_COPY1(14) RZ_COPY1(15)     \
	RZ_COPY1(16)

static int changed(const unsigned long *w)
{
	int n = 0;
	for (int i = 0; i < RZ_WORDS; i++)
		n += w[i] != RZ_PATTERN;
	return n;
}

/* fire_NAME(arg): one event of sktrz:NAME, with the site SK__SDT_SITE is
 * where the macro is used; the words of the red zone that changed. */
#define RZ_FIRE(name)                                                        \
	static __attribute__((noinline)) int fire_##name(long arg)           \
	{                                                                    \
		unsigned long w[RZ_WORDS], t;                                \
		__asm__ __volatile__(RZ_FILL SK__SDT_BODY(sktrz, name, 1)    \
					     RZ_COPY                         \
				     : [t] "=&r"(t)                          \
				     : [out] "r"(w),                         \
				       SK__SDT_OPERANDS(1)(arg)              \
				     : "memory");                            \
		return changed(w);                                           \
	}

/* Our site, from trace.h. */
RZ_FIRE(ours)

/* The control: the same note, a bare 5-byte NOP as the site. */
#undef SK__SDT_SITE
#define SK__SDT_SITE "990: .byte 0x0f, 0x1f, 0x44, 0x00, 0x00\n"
RZ_FIRE(bare)

static __attribute__((noinline)) void fire_done(long arg)
{
	__asm__ __volatile__(SK__SDT_BODY(sktrz, done, 1)
			     ::SK__SDT_OPERANDS(1)(arg));
}

static int trampoline_mapped(void)
{
	char line[512];
	int found = 0;
	FILE *f = fopen("/proc/self/maps", "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		found |= strstr(line, "[uprobes-trampoline]") != NULL;
	fclose(f);
	return found;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 20000;
	long ours = 0, bare = 0;

	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	for (int i = 0; !(SK__TP_SEM(sktrz, ours) && SK__TP_SEM(sktrz, bare) &&
			  SK__TP_SEM(sktrz, done)); i++) {
		if (i == 6000) {
			printf("nobody attached in 30 s\n");
			return 2;
		}
		usleep(5000);
	}
	for (long i = 0; i < n; i++) {
		ours += fire_ours(i) != 0;
		bare += fire_bare(i) != 0;
	}
	printf("changed ours %ld bare %ld of %ld events each\n", ours, bare, n);
	printf("trampoline %s\n", trampoline_mapped() ? "yes" : "no");
	printf("done\n");
	fflush(stdout);
	fire_done(n);
	return 0;
}
#endif
