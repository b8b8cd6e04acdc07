/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * sktrace_demo - a program with a tracepoint to attach tracers to.
 *
 *	sktrace_demo [-n REQUESTS] [-i MILLISECONDS]
 *
 * It "serves" one request every -i milliseconds (default 100) and fires the
 * tracepoint demo:request(id, bytes) for each; once a second it prints how
 * many requests it served and whether the tracepoint is on (read from a
 * site, not from the runtime).  While nothing traces it, the tracepoint is
 * one 5-byte NOP.  In another terminal:
 *
 *	bpftrace -p $(pidof sktrace_demo) \
 *	    -e 'usdt:./sktrace_demo:demo:request { @bytes = hist(arg1); }'
 *
 * turns it on within 50 ms of attaching and off when bpftrace exits;
 * `skctl -p PID set demo:request=1` or STATICKEYS=demo:request=1 turn it on
 * too.  With SKTRACE_DEMO_PROBE set, the demo registers a probe of its own
 * that prints every 10th request.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include <statickeys/trace.h>

SK_DECLARE_TRACE(demo, request, SK_TP_PROTO(long id, int bytes),
		 SK_TP_ARGS(id, bytes));
SK_DEFINE_TRACE(demo, request, SK_TP_PROTO(long id, int bytes),
		SK_TP_ARGS(id, bytes));

static void print_probe(void *data, long id, int bytes)
{
	(void)data;
	if (id % 10 == 0)
		printf("  probe: request %ld, %d bytes\n", id, bytes);
}

int main(int argc, char **argv)
{
	long requests = -1, interval_ms = 100;
	int opt;

	while ((opt = getopt(argc, argv, "n:i:")) != -1) {
		if (opt == 'n')
			requests = atol(optarg);
		else if (opt == 'i')
			interval_ms = atol(optarg);
		else {
			fprintf(stderr, "usage: %s [-n REQUESTS] "
					"[-i MILLISECONDS]\n", argv[0]);
			return 2;
		}
	}
	if (getenv("SKTRACE_DEMO_PROBE"))
		sk_register_trace_demo_request(print_probe, NULL);
	printf("sktrace_demo %d: tracepoint demo:request\n", (int)getpid());
	fflush(stdout);
	struct timespec pause = { interval_ms / 1000,
				  (interval_ms % 1000) * 1000000L };
	long per_second = interval_ms > 0 ? 1000 / interval_ms : 1000;
	for (long id = 0; requests < 0 || id < requests; id++) {
		sk_trace_demo_request(id, (int)(id * 37 % 1500));
		if (per_second > 0 && id % per_second == 0) {
			printf("served %ld requests; tracepoint %s\n", id + 1,
			       sk_trace_demo_request_enabled() ? "on" : "off");
			fflush(stdout);
		}
		nanosleep(&pause, NULL);
	}
	return 0;
}
