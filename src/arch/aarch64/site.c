/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * src/arch/aarch64/site.c - aarch64 sites: NOP (d503201f) or B imm26.
 *
 * The Arm architecture lists B and NOP among the instructions that one
 * thread may replace by the other while other threads execute them
 * ("concurrent modification and execution", ARM ARM B2.2.5): a thread sees
 * either the old or the new instruction, never a mixture, provided the
 * change is one aligned 32-bit store.  So there is no trap protocol here
 * (arch/common/store_batch.c).  The trap functions (arch/common/no_traps.c)
 * exist only to satisfy the contract; no trap handler is installed on
 * aarch64.
 */

#if defined(__aarch64__) /* only built for aarch64 (src/CMakeLists.txt) */
#include "arch/backend.h"

#include <string.h>

const char sk__arch_name[] = "aarch64";
const unsigned sk__arch_site_size = 4;
/* arm64 invalidates TLBs with broadcast TLBI: no IPI, so os/linux/sync.c's
 * mprotect fallback interrupts no other CPU (docs/porting.md). */
const bool sk__arch_tlb_ipi_serialises = false;
/* No trap byte is ever written on aarch64.  0x00 is byte 0 of BRK #0, the
 * breakpoint a debugger would put there, for messages that look for one. */
const unsigned char sk__arch_trap_byte = 0x00;

#define A64_NOP 0xd503201fu
#define A64_B 0x14000000u
#define A64_B_MASK 0xfc000000u

static uint32_t load32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v)); /* instructions are little-endian */
	return v;
}

void sk__arch_encode(uintptr_t addr, uintptr_t target, bool jump,
		     unsigned char *out)
{
	uint32_t insn = A64_NOP;

	/* imm26 counts words from the B itself: +-128 MiB, always enough for
	 * a label in the same function as the site. */
	if (jump)
		insn = A64_B | ((uint32_t)((intptr_t)(target - addr) >> 2) &
				0x03ffffffu);
	memcpy(out, &insn, sizeof(insn));
}

uintptr_t sk__arch_destination(uintptr_t addr, const unsigned char *insn)
{
	uint32_t v = load32(insn);

	if ((v & A64_B_MASK) != A64_B)
		return addr + 4;
	/* Sign-extend imm26 (shift it to the top, then back down). */
	int32_t words = (int32_t)(v << 6) >> 6;
	return addr + (intptr_t)words * 4;
}

bool sk__arch_reaches(uintptr_t addr, uintptr_t target)
{
	intptr_t off = (intptr_t)(target - addr);

	return off >= -(1L << 27) && off < (1L << 27); /* B: +-128 MiB */
}

/* Steps 2 and 3 of the store protocol: arch/common/store_cache.c. */

void sk__arch_serialize_self(void)
{
	/* ISB is the context synchronisation event for this CPU. */
	__asm__ __volatile__("isb" : : : "memory");
}

#endif /* __aarch64__ */
