/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * src/arch/ppc64le/site.c - 64-bit little-endian Power sites: nop
 * (60000000) or b (48000000 | LI).
 *
 * Power ISA v3.1 Book II, section 1.6 ("Concurrent Modification and
 * Execution of Instructions") lets one thread replace a nop by a branch,
 * or a branch by another, while other threads run it, provided the change
 * is one aligned 32-bit store: a thread then executes the old or the new
 * instruction.  The kernel's own jump labels on powerpc rely on this
 * (arch/powerpc/kernel/jump_label.c).  So the batch is the store protocol
 * (arch/common/store_batch.c):
 *
 *   1. every site: one aligned 32-bit store;
 *   2. every site: __builtin___clear_cache() over its 4 bytes, which is
 *      dcbst (write the data cache block out), sync, icbi (invalidate the
 *      instruction cache block), sync, isync - Book II 1.6's sequence for
 *      making a stored instruction the one fetched;
 *   3. once per batch: membarrier SYNC_CORE, so every CPU running one of
 *      our threads takes a context synchronising interrupt (powerpc has it
 *      since Linux 5.9, ARCH_HAS_MEMBARRIER_SYNC_CORE; rfid back to user
 *      space is context synchronising).
 */

#if defined(__powerpc64__) && defined(__LITTLE_ENDIAN__) && _CALL_ELF == 2
#include "arch/backend.h"

#include <string.h>

const char sk__arch_name[] = "ppc64le";
const unsigned sk__arch_site_size = 4;
/* powerpc invalidates TLBs with broadcast tlbie on most machines (radix
 * and hash alike), interrupting no other CPU: os/linux/sync.c's mprotect
 * fallback serialises no other CPU. */
const bool sk__arch_tlb_ipi_serialises = false;
/* No trap byte is ever written.  0x08 is byte 0 of "trap" (7fe00008,
 * little-endian), a debugger's breakpoint, for messages that look for one. */
const unsigned char sk__arch_trap_byte = 0x08;

#define PPC_NOP 0x60000000u
#define PPC_B 0x48000000u /* b, AA = LK = 0 */
#define PPC_B_MASK 0xfc000003u
#define PPC_B_REACH (1L << 25) /* +-32 MiB */

static uint32_t load32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v)); /* instructions are little-endian here */
	return v;
}

bool sk__arch_reaches(uintptr_t addr, uintptr_t target)
{
	intptr_t off = (intptr_t)(target - addr);

	return off >= -PPC_B_REACH && off < PPC_B_REACH && (off & 3) == 0;
}

void sk__arch_encode(uintptr_t addr, uintptr_t target, bool jump,
		     unsigned char *out)
{
	uint32_t insn = PPC_NOP;

	/* LI: a signed word offset in bits 6..29.  Out of reach is refused
	 * before any write (store_batch.c asks sk__arch_reaches). */
	if (jump)
		insn = PPC_B | ((uint32_t)(target - addr) & 0x03fffffcu);
	memcpy(out, &insn, sizeof(insn));
}

uintptr_t sk__arch_destination(uintptr_t addr, const unsigned char *insn)
{
	uint32_t v = load32(insn);

	if ((v & PPC_B_MASK) != PPC_B)
		return addr + 4;
	/* Sign-extend the 26-bit offset (shift it to the top, then back). */
	return addr + (intptr_t)((int32_t)(v << 6) >> 6);
}

/* Steps 2 and 3 of the store protocol: arch/common/store_cache.c. */

void sk__arch_serialize_self(void)
{
	/* isync discards this CPU's prefetched instructions. */
	__asm__ __volatile__("isync" : : : "memory");
}

#endif /* ppc64le */
