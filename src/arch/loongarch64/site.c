/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * src/arch/loongarch64/site.c - loongarch64 sites: NOP (03400000) or
 * B offs26.
 *
 * As the kernel's jump labels on LoongArch (arch/loongarch/kernel/
 * jump_label.c: larch_insn_gen_b or larch_insn_gen_nop, then
 * larch_insn_patch_text, one aligned 32-bit store followed by
 * flush_icache_range): every instruction is 4 bytes and naturally aligned,
 * so a NOP <-> B change is one aligned 32-bit store, which a core fetching
 * it sees whole, old or new.  So there is no trap protocol: the batch is
 * the store protocol of src/arch/common/store_batch.c.
 *
 * Instruction fetch: LoongArch keeps the instruction cache coherent with
 * stores in hardware (the kernel's flush_icache_range is "ibar 0", a local
 * instruction barrier, and nothing else); what remains is a core that
 * fetched the old instruction before the store.  "ibar 0" after each store
 * orders this core's fetch (__builtin___clear_cache emits it); once per
 * batch, every other core running our threads is made to take an
 * exception (os/linux/sync.c: membarrier SYNC_CORE where the kernel has
 * it, else the TLB-shootdown IPI of the mprotect sync, which LoongArch
 * Linux sends by IPI: flush_tlb_mm's on_each_cpu_mask), whose return
 * refetches.  One core sync per batch.
 */

#if defined(__loongarch__) && __loongarch_grlen == 64 /* only built there */
#include "arch/backend.h"

#include <string.h>

const char sk__arch_name[] = "loongarch64";
const unsigned sk__arch_site_size = 4;
/* LoongArch Linux flushes other cores' TLB entries by IPI
 * (arch/loongarch/kernel/smp.c, flush_tlb_mm / flush_tlb_range), and the
 * interrupt's return (ERTN) refetches: os/linux/sync.c's mprotect sync
 * reaches every core running the process, which is what it uses where
 * membarrier SYNC_CORE is missing (LoongArch kernels: docs/porting.md). */
const bool sk__arch_tlb_ipi_serialises = true;
/* No trap byte is ever written.  0x00 is byte 0 of BREAK 0 (002a0000),
 * for messages that look for a debugger's breakpoint. */
const unsigned char sk__arch_trap_byte = 0x00;

#define LA_NOP 0x03400000u /* andi $r0, $r0, 0 */
#define LA_B 0x50000000u /* b offs26 */
#define LA_B_MASK 0xfc000000u
#define LA_B_REACH (1L << 27) /* offs26 words: +-128 MiB */

static uint32_t load32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v)); /* instructions are little-endian */
	return v;
}

bool sk__arch_reaches(uintptr_t addr, uintptr_t target)
{
	intptr_t off = (intptr_t)(target - addr);

	return off >= -LA_B_REACH && off < LA_B_REACH && (off & 3) == 0;
}

void sk__arch_encode(uintptr_t addr, uintptr_t target, bool jump,
		     unsigned char *out)
{
	uint32_t insn = LA_NOP;
	uint32_t words = (uint32_t)((intptr_t)(target - addr) >> 2);

	/* offs26 in words, split: offs[15:0] in bits 25..10, offs[25:16] in
	 * bits 9..0.  Out of reach is refused before any write
	 * (store_batch.c asks sk__arch_reaches). */
	if (jump)
		insn = LA_B | ((words & 0xffffu) << 10) |
		       ((words >> 16) & 0x3ffu);
	memcpy(out, &insn, sizeof(insn));
}

uintptr_t sk__arch_destination(uintptr_t addr, const unsigned char *insn)
{
	uint32_t v = load32(insn);

	if ((v & LA_B_MASK) != LA_B)
		return addr + 4;
	uint32_t words = ((v >> 10) & 0xffffu) | ((v & 0x3ffu) << 16);
	/* Sign-extend the 26-bit count (shift it to the top, then back). */
	return addr + (intptr_t)((int32_t)(words << 6) >> 6) * 4;
}

void sk__arch_serialize_self(void)
{
	/* IBAR orders this core's instruction fetch after its stores. */
	__asm__ __volatile__("ibar 0" : : : "memory");
}

/* The kernel's flush_icache_range after each store ("ibar 0"), then one
 * core sync per batch: arch/common/store_cache.c. */

#endif /* loongarch64 */
