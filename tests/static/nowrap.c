/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * nowrap.c - a fully static program linked without the runtime's wrap
 * options: it starts, its first update is refused with -ENOTSUP and a
 * message naming the link line that fixes it, its sites keep their state,
 * and it goes on running (no abort, no kill).
 */
#include <errno.h>
#include <stdio.h>

#include <statickeys.h>

SK_DEFINE_KEY_FALSE(key);

__attribute__((noinline)) static int site(void)
{
	return sk_branch_unlikely(&key) ? 1 : 0;
}

int main(void)
{
	int r = sk_key_enable(&key);

	printf("sk_key_enable: %d, site: %d\n", r, site());
	if (r != -ENOTSUP || site() != 0 || sk_key_enabled(&key))
		return 1;
	return 0;
}
