/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * src/arch/riscv64/site.c - riscv64 sites: NOP (00000013) or JAL x0, imm20.
 *
 * Like aarch64 (src/arch/aarch64/site.c) and as the kernel's own jump labels
 * on riscv (arch/riscv/kernel/jump_label.c): a site is one naturally
 * aligned 32-bit instruction (statickeys/arch/riscv64.h assembles it with
 * ".option norvc", never compressed), and changing NOP <-> JAL is one
 * aligned 32-bit store, which a concurrently fetching hart sees whole, old
 * or new.  So there is no trap protocol: the batch is the store protocol of
 * src/arch/common/store_batch.c, with the instruction fetch made coherent
 * by icache.c.  The trap functions only satisfy the contract.
 */

#if defined(__riscv) && __riscv_xlen == 64 /* only built for riscv64 */
#include "arch/backend.h"

#include <string.h>

const char sk__arch_name[] = "riscv64";
const unsigned sk__arch_site_size = 4;
/* riscv shoots TLBs down by IPI or SBI call, and neither makes a hart
 * refetch instructions (only fence.i does): os/linux/sync.c's mprotect
 * fallback serialises no other hart. */
const bool sk__arch_tlb_ipi_serialises = false;
/* No trap byte is ever written.  0x73 is byte 0 of EBREAK, for messages that
 * look for a debugger's breakpoint. */
const unsigned char sk__arch_trap_byte = 0x73;

#define RV_NOP 0x00000013u /* addi x0, x0, 0 */
#define RV_JAL_X0 0x0000006fu /* jal x0 (rd = 0), before the immediate */
#define RV_JAL_X0_MASK 0x00000fffu /* opcode and rd */
#define RV_JAL_REACH (1L << 20) /* +-1 MiB */

static uint32_t load32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v)); /* instructions are little-endian */
	return v;
}

bool sk__arch_reaches(uintptr_t addr, uintptr_t target)
{
	intptr_t off = (intptr_t)(target - addr);

	return off >= -RV_JAL_REACH && off < RV_JAL_REACH && (off & 1) == 0;
}

void sk__arch_encode(uintptr_t addr, uintptr_t target, bool jump,
		     unsigned char *out)
{
	uint32_t insn = RV_NOP;
	uint32_t off = (uint32_t)(target - addr);

	/* The J-type immediate, scattered as imm[20|10:1|11|19:12] over bits
	 * 31..12.  Out of reach is refused before any write (store_batch.c
	 * asks sk__arch_reaches). */
	if (jump)
		insn = RV_JAL_X0 | (((off >> 20) & 1u) << 31) |
		       (((off >> 1) & 0x3ffu) << 21) |
		       (((off >> 11) & 1u) << 20) | (off & 0xff000u);
	memcpy(out, &insn, sizeof(insn));
}

uintptr_t sk__arch_destination(uintptr_t addr, const unsigned char *insn)
{
	uint32_t v = load32(insn);

	if ((v & RV_JAL_X0_MASK) != RV_JAL_X0)
		return addr + 4;
	uint32_t off = (((v >> 31) & 1u) << 20) | (((v >> 21) & 0x3ffu) << 1) |
		       (((v >> 20) & 1u) << 11) | (v & 0xff000u);
	/* Sign-extend the 21-bit offset (shift it to the top, then back). */
	return addr + (intptr_t)((int32_t)(off << 11) >> 11);
}

void sk__arch_serialize_self(void)
{
	/* fence.i orders this hart's instruction fetch after its stores. */
	__asm__ __volatile__("fence.i" : : : "memory");
}

/* Each store_batch.c write needs nothing more here: icache.c makes the
 * whole batch visible at once (one system call, not one per site). */
void sk__arch_flush_site(uintptr_t addr, size_t len)
{
	(void)addr;
	(void)len;
}

#endif /* riscv64 */
