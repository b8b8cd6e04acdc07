/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * src/control/startup_end.c - the end of start-up, for the control server.
 *
 * The server starts with the first object that registers (runtime.c),
 * usually a library: constructors run dependencies first, so the
 * program's own object registers last.  A request that arrived in between
 * would be told "no key" of a key the program defines (issue 39: skctl
 * --all against `postgres --boot`).  runtime.c says when the program has
 * registered; until then, for at most SK__STARTUP_WAIT_MS after start-up
 * began, the server holds a request back (server.c, wait_for_startup).
 * The bound is for a program that defines no keys of its own: it never
 * registers, and after the bound its requests are answered as they come.
 *
 * Two words, written once each: the program's threads only ever store a
 * flag here, and never wait for the server.
 */
#include <stdbool.h>
#include <stdint.h>

#include "control/control.h"
#include "support/stats.h"

static bool program_registered;
static uint64_t begun_ns; /* 0: start-up was not marked */

void sk__control_startup_begin(void)
{
	/* | 1: never 0, which means "not marked". */
	__atomic_store_n(&begun_ns, sk__now_ns() | 1, __ATOMIC_RELEASE);
}

void sk__control_program_registered(void)
{
	__atomic_store_n(&program_registered, true, __ATOMIC_RELEASE);
}

long sk__control_startup_left_ms(void)
{
	uint64_t begun = __atomic_load_n(&begun_ns, __ATOMIC_ACQUIRE);

	if (!begun || __atomic_load_n(&program_registered, __ATOMIC_ACQUIRE))
		return 0;
	uint64_t waited_ms = (sk__now_ns() - begun) / 1000000u;
	return waited_ms >= SK__STARTUP_WAIT_MS
		       ? 0
		       : (long)(SK__STARTUP_WAIT_MS - waited_ms);
}
