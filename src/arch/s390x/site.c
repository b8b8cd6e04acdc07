/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * src/arch/s390x/site.c - IBM Z sites: brcl 0,label (c0 04 off32) or
 * brcl 15,label (c0 f4 off32).
 *
 * A site is a 6-byte instruction, aligned to 2 only, so no store the CPU
 * makes at once covers it.  But its two forms carry the same offset (the
 * "yes" label's) and differ in byte 1 alone, the condition mask: the
 * kernel's own jump labels on s390 change exactly that (jump_label.c's
 * brcl 0/15 with the offset kept).  One byte is stored by one store, so a
 * CPU fetching the instruction while another thread rewrites it reads the
 * old mask or the new one with the unchanged bytes around it: a valid
 * instruction either way.  With both writers only that byte is written:
 * the mprotect writer stores the bytes that differ (os/writer_common.c);
 * /proc/self/mem's copy may rewrite the others with their own values.  So
 * a batch of key sites is the store protocol (batch.c), with no cache
 * maintenance (z/Architecture keeps instruction fetch coherent with
 * stores) and one core sync per batch: a CPU that fetched the old mask
 * before the store runs it until it serialises, which every interruption
 * does (Principles of Operation, "CPU Serialization"); membarrier's IPIs
 * (os/linux/sync.c) are interruptions.  A static call's trampoline, whose
 * jump changes its offset too, takes batch.c's three steps.
 */

#if defined(__s390x__) /* only built for s390x */
#include "arch/backend.h"

const char sk__arch_name[] = "s390x";
const unsigned sk__arch_site_size = 6;
/* s390 invalidates TLB entries with IPTE/IDTE, broadcast by the hardware:
 * no IPI, so os/linux/sync.c's mprotect fallback serialises no other CPU. */
const bool sk__arch_tlb_ipi_serialises = false;
/* No trap byte is ever written.  0x00 is byte 0 of the 2-byte breakpoint
 * debuggers use on s390 (0x0001), for messages that look for one. */
const unsigned char sk__arch_trap_byte = 0x00;

#define BRCL 0xc0u
#define BRCL_NEVER 0x04u  /* mask 0, RIL op 4 */
#define BRCL_ALWAYS 0xf4u /* mask 15 */

bool sk__arch_reaches(uintptr_t addr, uintptr_t target)
{
	intptr_t off = (intptr_t)(target - addr);

	/* A signed 32-bit count of halfwords: +-4 GiB. */
	return (off & 1) == 0 && off / 2 >= INT32_MIN && off / 2 <= INT32_MAX;
}

void sk__arch_encode(uintptr_t addr, uintptr_t target, bool jump,
		     unsigned char *out)
{
	uint32_t half = (uint32_t)((intptr_t)(target - addr) / 2);

	/* Both forms name the target, so they differ in the mask alone. */
	out[0] = BRCL;
	out[1] = jump ? BRCL_ALWAYS : BRCL_NEVER;
	out[2] = (unsigned char)(half >> 24);
	out[3] = (unsigned char)(half >> 16);
	out[4] = (unsigned char)(half >> 8);
	out[5] = (unsigned char)half;
}

uintptr_t sk__arch_destination(uintptr_t addr, const unsigned char *insn)
{
	if (insn[0] != BRCL || insn[1] != BRCL_ALWAYS)
		return addr + 6;
	int32_t half = (int32_t)((uint32_t)insn[2] << 24 |
				 (uint32_t)insn[3] << 16 |
				 (uint32_t)insn[4] << 8 | insn[5]);
	return addr + (intptr_t)half * 2;
}

void sk__arch_serialize_self(void)
{
	/* bcr 15,0: serialises this CPU (the kernel's fallback for bcr 14,0,
	 * which needs the fast-BCR-serialization facility). */
	__asm__ __volatile__("bcr 15,0" : : : "memory");
}

/* Once per batch: this CPU, then every CPU running our threads. */
int sk__arch_sync_batch(uintptr_t lo, uintptr_t hi)
{
	(void)lo;
	(void)hi;
	sk__arch_serialize_self();
	return sk__os_sync_cores();
}

#endif /* __s390x__ */
