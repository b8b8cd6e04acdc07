/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* A program built against an installed statickeys. Exit 0 when a key flips
 * its site both ways. */
#include <statickeys.h>
#include <stdio.h>

SK_DEFINE_KEY_FALSE(installed_key);

__attribute__((noinline)) static int site(void)
{
	return sk_branch_unlikely(&installed_key);
}

int main(void)
{
	int ok = site() == 0;
	ok &= sk_key_enable(&installed_key) == 0 && site() == 1;
	ok &= sk_key_disable(&installed_key) == 0 && site() == 0;
	printf("installed library: %s\n", ok ? "works" : "BROKEN");
	return ok ? 0 : 1;
}
