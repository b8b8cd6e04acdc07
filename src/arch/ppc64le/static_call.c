/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * src/arch/ppc64le/static_call.c - the static-call half of the contract
 * (arch/backend.h) for the ELFv2 trampoline of
 * statickeys/arch/ppc64le_static_call.h:
 *
 *   +0   mflr r0; bcl 20,31,1f; 1: mflr r12; mtlr r0
 *   +16  addis r2,r12,(.TOC.-1b)@ha; addi r2,r2,(.TOC.-1b)@l
 *   +24  b <dest>                     the jump: the only word written
 *   +28  li r3,0                      RET0: b +4
 *   +32  blr                          NULL: b +8
 *   +36  addis r12,r2,desc@toc@ha     far form: b +12 (or nop, with
 *   +40  ld r12,desc@toc@l(r12)        "ld r12,desc@toc@l(r2)")
 *   +44  cmpldi r12,0; beqlr          no target: return (a thread that
 *                                     took the old jump here while an
 *                                     update set none reads NULL)
 *   +52  mtctr r12
 *   +56  bctr
 *   +60  "SC" 0 0                     signature
 *
 * At the jump r2 holds the trampoline's own object's TOC.  A target that
 * computes that same TOC at its global entry (addis r2,r12 / addi r2,r2,
 * or the lis r2 form ld makes of it in a non-PIC link) is jumped to at its
 * local entry point, 8 bytes on; every other target (another object's, a
 * function without a TOC of its own, a PLT or global-entry stub) goes
 * through the far form, which enters it as an indirect call does, with
 * r12 = its address.  The caller restores its own r2 afterwards (the
 * trampoline is ".localentry 1").  The jump changes as a key's site does:
 * one aligned store, then the batch's sync (store_batch.c).  The
 * trampoline is not arch/common/store_trampoline.c's: its jump is not at
 * its start, and a near target is entered past its TOC set-up.
 */
#if defined(__powerpc64__) && defined(__LITTLE_ENDIAN__) && _CALL_ELF == 2
#include <string.h>

#include "arch/backend.h"

#define TRAMP_ALIGN 64u
#define TRAMP_JUMP 24 /* from the trampoline */
#define JUMP_RET0 4   /* from the jump */
#define JUMP_RET 8
#define JUMP_FAR 12

const unsigned sk__arch_call_far = JUMP_FAR;

static uint32_t word(const void *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v)); /* little-endian, as the CPU reads it */
	return v;
}

/* Fields of a D-form instruction. */
#define OPCD(i) ((i) >> 26)
#define RT(i) (((i) >> 21) & 31u)
#define RA(i) (((i) >> 16) & 31u)
#define SI(i) ((intptr_t)(int16_t)((i) & 0xffffu))
#define OP_ADDI 14u
#define OP_ADDIS 15u
#define OP_LD 58u

/* The TOC that "addis r2,rA,hi; addi r2,r2,lo" at @p computes, rA being
 * r12 = @r12 or 0 (lis); 0 if @at is not that pair. */
static uintptr_t toc_of_pair(const void *at, uintptr_t r12)
{
	const unsigned char *p = at;
	uint32_t a = word(p);
	uint32_t b = word(p + 4);

	if (OPCD(a) != OP_ADDIS || RT(a) != 2 || OPCD(b) != OP_ADDI ||
	    RT(b) != 2 || RA(b) != 2)
		return 0;
	uintptr_t base = RA(a) == 12 ? r12 : RA(a) == 0 ? 0 : 1;
	if (base == 1)
		return 0;
	return base + (uintptr_t)(SI(a) * 65536) + (uintptr_t)SI(b);
}

uintptr_t sk__arch_call_jump(uintptr_t tramp)
{
	return tramp + TRAMP_JUMP;
}

/* The trampoline's own TOC, from its +16 pair (r12 = tramp + 8). */
static uintptr_t own_toc(uintptr_t jump)
{
	uintptr_t tramp = jump - TRAMP_JUMP;

	return toc_of_pair((const unsigned char *)tramp + 16, tramp + 8);
}

void **sk__arch_call_slot(uintptr_t jump)
{
	uintptr_t tramp = jump - TRAMP_JUMP;
	const unsigned char *t = (const unsigned char *)tramp;

	if (!jump || tramp % TRAMP_ALIGN != 0 ||
	    word(t) != 0x7c0802a6u ||      /* mflr r0 */
	    word(t + 4) != 0x429f0005u ||  /* bcl 20,31,+4 */
	    word(t + 8) != 0x7d8802a6u ||  /* mflr r12 */
	    word(t + 12) != 0x7c0803a6u || /* mtlr r0 */
	    word(t + 28) != 0x38600000u || /* li r3,0 */
	    word(t + 32) != 0x4e800020u || /* blr */
	    word(t + 44) != 0x282c0000u || /* cmpldi r12,0 */
	    word(t + 48) != 0x4d820020u || /* beqlr */
	    word(t + 52) != 0x7d8903a6u || /* mtctr r12 */
	    word(t + 56) != 0x4e800420u || /* bctr */
	    t[60] != 'S' || t[61] != 'C')
		return NULL;
	uintptr_t toc = own_toc(jump);
	uint32_t hi = word(t + 36);
	uint32_t ld = word(t + 40);
	if (!toc || OPCD(ld) != OP_LD || RT(ld) != 12 || (ld & 3u) != 0)
		return NULL;
	intptr_t off = SI(ld); /* DS field: the low 2 bits are 0 (checked) */
	if (hi == 0x60000000u && RA(ld) == 2) /* ld's "addis -> nop" */
		return (void **)(toc + (uintptr_t)off);
	if (OPCD(hi) != OP_ADDIS || RT(hi) != 12 || RA(hi) != 2 ||
	    RA(ld) != 12)
		return NULL;
	return (void **)(toc + (uintptr_t)(SI(hi) * 65536) + (uintptr_t)off);
}

void sk__arch_call_encode(uintptr_t jump, const void *func, bool ret0,
			  unsigned char *out)
{
	uintptr_t f = (uintptr_t)func;
	uintptr_t to = jump + JUMP_FAR;

	if (ret0)
		to = jump + JUMP_RET0;
	else if (!func)
		to = jump + JUMP_RET;
	else if (own_toc(jump) && toc_of_pair(func, f) == own_toc(jump) &&
		 sk__arch_reaches(jump, f + 8))
		to = f + 8; /* same TOC: its local entry point */
	sk__arch_encode(jump, to, true, out);
}

const void *sk__arch_call_follow(const void *func)
{
	return func; /* the far form enters stubs as they expect */
}

#endif /* ppc64le */
