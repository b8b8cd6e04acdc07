/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * src/arch/x86_64/site.c - x86-64 sites: NOP5 (0f 1f 44 00 00) or JMP rel32.
 *
 * This folder serves both x86 ABIs: an i686 build (statickeys/arch/i386.h)
 * uses the same int3 protocol, with the kernel's 32-bit no-op
 * (3e 8d 74 26 00).
 *
 * The int3 protocol in int3_batch.c needs only these facts: a site is 5 bytes,
 * byte 0 can be replaced by int3 (0xcc) and a thread that executes it traps
 * (os/linux/trap_signal.c: SIGTRAP; os/windows/trap_veh.c:
 * EXCEPTION_BREAKPOINT).
 */
#include "arch/backend.h"

#include <string.h>

#ifdef __i386__
const char sk__arch_name[] = "i686";
#else
const char sk__arch_name[] = "x86_64";
#endif
const unsigned sk__arch_site_size = 5;
const bool sk__arch_tlb_ipi_serialises = true;
const unsigned char sk__arch_trap_byte = 0xcc;

#ifdef __i386__
static const unsigned char nop5[5] = { 0x3e, 0x8d, 0x74, 0x26, 0x00 };
#else
static const unsigned char nop5[5] = { 0x0f, 0x1f, 0x44, 0x00, 0x00 };
#endif

void sk__arch_encode(uintptr_t addr, uintptr_t target, bool jump,
		     unsigned char *out)
{
	if (!jump) {
		memcpy(out, nop5, sizeof(nop5));
		return;
	}
	/* rel32 is relative to the end of the 5-byte instruction. */
	int32_t rel = (int32_t)(target - (addr + 5));
	out[0] = 0xe9;
	memcpy(out + 1, &rel, sizeof(rel));
}

uintptr_t sk__arch_destination(uintptr_t addr, const unsigned char *insn)
{
	int32_t rel;

	/* A jmp's or (a static call's call site) a call's target; the call's
	 * return address is pushed by the trap's emulation (patch->push). */
	if (insn[0] != 0xe9 && insn[0] != 0xe8)
		return addr + 5;
	memcpy(&rel, insn + 1, sizeof(rel));
	return addr + 5 + (intptr_t)rel;
}

void sk__arch_serialize_self(void)
{
	unsigned a = 0, b, c = 0, d;

	/* cpuid is architecturally serialising (and a VM exit: only used on
	 * kernels whose membarrier skips the caller). */
	__asm__ __volatile__("cpuid" : "+a"(a), "=b"(b), "+c"(c), "=d"(d)
			     :
			     : "memory");
}
