/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * all_peer.c - a program with other keys than skdemo's (peer_only, and
 * tracing as skdemo has), serving its control socket until SIGTERM, for
 * the `skctl --all` tests: a key that only some processes have.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <statickeys.h>

SK_DEFINE_KEY_FALSE_DESC(peer_only, "a key only this program has");
SK_DEFINE_KEY_FALSE_DESC(tracing, "the same name as skdemo's key");

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

int main(void)
{
	struct sigaction sa = { .sa_handler = on_signal };
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	/* Already serving when STATICKEYS_CONTROL=PATH is set. */
	int r = sk_control_start(NULL);
	if (r && r != -EALREADY) {
		fprintf(stderr, "all_peer: control socket: %s\n", strerror(-r));
		return 1;
	}
	while (!stop)
		pause();
	sk_control_stop();
	return sk_branch_unlikely(&peer_only) ? 0 : 0;
}
