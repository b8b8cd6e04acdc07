/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* tests/dyndbg/server.c - a program for skctl debug: two statements run
 * every 10 ms until it is killed (its control socket: STATICKEYS_CONTROL). */
#include <statickeys.h>
#include <time.h>

static void tick(unsigned n) { sk_pr_debug("tick %u\n", n); }
static void tock(unsigned n) { sk_pr_debug("tock %u\n", n); }

int main(void)
{
	const struct timespec pause = { 0, 10 * 1000 * 1000 };

	for (unsigned n = 0;; n++) {
		tick(n);
		tock(n);
		nanosleep(&pause, NULL);
	}
}
