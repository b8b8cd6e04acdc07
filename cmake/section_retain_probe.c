/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* Does the assembler know the "R" (SHF_GNU_RETAIN) section flag?  The
 * statickeys headers use it for the site tables (see statickeys/key.h). */
int main(void)
{
	__asm__(".pushsection sk_probe, \"a?R\"\n\t.popsection");
	return 0;
}
