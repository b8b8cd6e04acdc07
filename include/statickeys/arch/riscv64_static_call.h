/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * include/statickeys/arch/riscv64_static_call.h - a static call's trampoline
 * on riscv64 (the runtime's side: src/arch/riscv64/static_call.c).
 */
#ifndef STATICKEYS_ARCH_RISCV64_STATIC_CALL_H
#define STATICKEYS_ARCH_RISCV64_STATIC_CALL_H

#include "statickeys/arch/static_call_asm.h"

/*
 * riscv64: 32 bytes at a 32-byte boundary, never compressed or relaxed.
 *   +0   jal x0, <dest>           the only word an update rewrites (one
 *                                 aligned store, as a key's site)
 *   +4   addi a0, x0, 0           RET0 lands here
 *   +8   jalr x0, 0(ra)           NULL lands here
 *   +12  auipc t1 / ld t1 / jr t1 the far form: beyond JAL's +-1 MiB, and
 *                                 before the runtime has seen the call
 *   +24  'S' 'C' 0 0, 0           signature, never executed
 */
#define SK__SC_DEFINE_TRAMP(name)                                            \
	SK__SC_TRAMP_ASM(name, "32", "32",                                    \
		".option push\n\t.option norvc\n\t.option norelax\n\t"       \
		".4byte 0x00c0006f\n\t"                                       \
		".4byte 0x00000513\n\t"                                       \
		".4byte 0x00008067\n"                                          \
		"1:\n\t"                                                       \
		"auipc t1, %pcrel_hi(sk__scl_" #name " + " SK__SC_FAR_SLOT     \
		")\n\t"                                                       \
		"ld t1, %pcrel_lo(1b)(t1)\n\t"                                 \
		"jr t1\n\t"                                                    \
		".byte 0x53, 0x43, 0, 0\n\t"                                  \
		".4byte 0\n\t"                                                 \
		".option pop\n\t")

#endif /* STATICKEYS_ARCH_RISCV64_STATIC_CALL_H */
