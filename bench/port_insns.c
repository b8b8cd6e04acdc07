/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * bench/port_insns.c - what experiment 15 (bench/port_insns.py)
 * disassembles for each port: one key's site on its path while the key is
 * off, and one static call, each beside the same code without statickeys.
 * Compiled, never run (qemu's timings mean nothing); -O2 -fPIC.
 */
#include <statickeys.h>

SK_DEFINE_KEY_FALSE(port_feature);

int port_target(int x);

SK_DEFINE_STATIC_CALL(port_call, port_target);

/* The baseline: what the function is without its site. */
int port_plain(int x)
{
	return x;
}

/* One site of an off key: its path is port_plain's plus the site.  The
 * "yes" side calls nothing, so that no port's compiler sets up a frame or
 * a GOT pointer for it on the off path (that is the call's cost, not the
 * site's). */
int port_off(int x)
{
	if (sk_branch_unlikely(&port_feature))
		return x + 1;
	return x;
}

/* The baseline of a call: a direct tail call. */
int port_direct(int x)
{
	return port_target(x);
}

/* A static call: a tail call to the trampoline, whose jump leads on. */
int port_static_call(int x)
{
	return sk_static_call(port_call)(x);
}
