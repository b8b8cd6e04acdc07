/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * src/arch/arm/site.c - 32-bit Arm sites (ARMv7, Thumb-2 code): NOP.W
 * (f3af 8000) or B.W (encoding T4), 4 bytes at a 4-byte boundary.
 *
 * The Arm architecture lets one thread replace an instruction that others
 * execute, without them stopping, only for a short list of instructions
 * and only in one store: ARMv7-A/R ARM (DDI 0406C.d), A3.5.4
 * "Concurrent modification and execution of instructions" names B, BL, NOP,
 * BKPT, SVC, HVC and SMC, in Thumb state their 16-bit forms and the 32-bit
 * B, BL and NOP.W, where the 32-bit instruction is written by one
 * word-aligned store, so that both its halfwords change at once; other
 * threads then run the old instruction or the new one.  A 32-bit Thumb
 * instruction straddling two words is the case the rule leaves
 * UNPREDICTABLE, and cannot arise here: the site header puts every site at
 * a 4-byte boundary (statickeys/arch/arm.h).  So there is no trap protocol:
 * the batch is the store protocol of src/arch/common/store_batch.c.
 *
 * (The kernel's own arm jump labels still stop the machine to patch,
 * arch/arm/kernel/patch.c's stop_machine: it also runs ARMv6 and Arm-state
 * kernels, where the rule above is narrower.  User space on ARMv7 needs
 * only what A3.5.4 asks.)
 *
 * Cache maintenance: after each store, __builtin___clear_cache, which on
 * 32-bit Arm Linux is libgcc's __clear_cache, the kernel's cacheflush
 * system call (DCCMVAU, ICIMVAU over the range, DSB, ISB; broadcast to the
 * inner-shareable domain on ARMv7 SMP).  Then once per batch every other
 * CPU running our threads takes a context synchronisation event:
 * membarrier SYNC_CORE, which 32-bit Arm kernels have
 * (ARCH_HAS_MEMBARRIER_SYNC_CORE: the IPI's exception return is the event;
 * os/linux/sync.c, and its fallback where a kernel lacks it).
 */

#if defined(__arm__) /* only built for 32-bit Arm (src/sources.txt) */
#include "arch/backend.h"

#include <string.h>

const char sk__arch_name[] = "arm";
const unsigned sk__arch_site_size = 4;
/* ARMv7 SMP kernels invalidate other CPUs' TLB entries with broadcast TLB
 * maintenance (the inner-shareable TLBI operations), not an IPI, so
 * os/linux/sync.c's mprotect fallback serialises no other CPU. */
const bool sk__arch_tlb_ipi_serialises = false;
/* No trap byte is ever written.  0x01 is byte 0 of the Thumb breakpoint
 * gdb uses on arm Linux (0xde01, little-endian), for messages that look
 * for one. */
const unsigned char sk__arch_trap_byte = 0x01;

#define T2_NOP_W 0x8000f3afu /* f3af 8000: halfwords in memory order */
#define T2_B_W 0x9000f000u   /* f000 9000 */
#define T2_B_W_MASK 0xd000f800u
#define T2_B_REACH (1L << 24) /* imm25 in halfwords: +-16 MiB */

/* A 32-bit Thumb instruction as one little-endian word: its first
 * halfword in bits 0-15, its second in 16-31. */
static uint32_t load32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

bool sk__arch_reaches(uintptr_t addr, uintptr_t target)
{
	/* B.W is relative to the site plus 4 (the Thumb pc). */
	intptr_t off = (intptr_t)(target - (addr + 4));

	return addr % 4 == 0 && (off & 1) == 0 && off >= -T2_B_REACH &&
	       off < T2_B_REACH;
}

void sk__arch_encode(uintptr_t addr, uintptr_t target, bool jump,
		     unsigned char *out)
{
	uint32_t insn = T2_NOP_W;

	/* As the kernel's __arm_gen_branch_thumb2: S:I1:I2:imm10:imm11:'0',
	 * with J1 = NOT(I1) XOR S and J2 = NOT(I2) XOR S.  A jump out of
	 * reach is refused before any write (store_batch.c asks
	 * sk__arch_reaches). */
	if (jump) {
		uint32_t off = (uint32_t)(target - (addr + 4));
		uint32_t s = (off >> 24) & 1u, i1 = (off >> 23) & 1u;
		uint32_t i2 = (off >> 22) & 1u;
		uint32_t j1 = (i1 ^ 1u) ^ s, j2 = (i2 ^ 1u) ^ s;
		uint32_t first = 0xf000u | (s << 10) | ((off >> 12) & 0x3ffu);
		uint32_t second = 0x9000u | (j1 << 13) | (j2 << 11) |
				  ((off >> 1) & 0x7ffu);
		insn = first | (second << 16);
	}
	memcpy(out, &insn, sizeof(insn));
}

uintptr_t sk__arch_destination(uintptr_t addr, const unsigned char *insn)
{
	uint32_t v = load32(insn);

	if ((v & T2_B_W_MASK) != T2_B_W)
		return addr + 4;
	uint32_t first = v & 0xffffu, second = v >> 16;
	uint32_t s = (first >> 10) & 1u;
	uint32_t i1 = ((second >> 13) & 1u) ^ 1u ^ s;
	uint32_t i2 = ((second >> 11) & 1u) ^ 1u ^ s;
	uint32_t off = (s << 24) | (i1 << 23) | (i2 << 22) |
		       ((first & 0x3ffu) << 12) | ((second & 0x7ffu) << 1);
	/* Sign-extend the 25-bit offset (shift it to the top, then back). */
	return addr + 4 + (intptr_t)((int32_t)(off << 7) >> 7);
}

void sk__arch_serialize_self(void)
{
	/* ISB is the context synchronisation event for this CPU. */
	__asm__ __volatile__("isb" : : : "memory");
}

/* Steps 2 and 3 of the store protocol (above): arch/common/store_cache.c. */

#endif /* __arm__ */
