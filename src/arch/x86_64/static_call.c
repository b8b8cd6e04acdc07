/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * src/arch/x86_64/static_call.c - x86-64 static-call trampolines.
 *
 * The header (statickeys/static_call.h) assembles each trampoline as 16
 * bytes at a 16-byte boundary:
 *
 *   +0   e9 rel32        jmp: the only bytes an update writes (a 5-byte
 *                        site, changed with the int3 protocol of int3_batch.c)
 *   +5   31 c0           xor eax, eax   \  RET0: jmp +5
 *   +7   c3              ret            /  NULL: jmp +7
 *   +8   ff 25 rel32     jmp *slot(%rip)   far form: jmp +8
 *   +14  53 43           "SC", never executed
 *
 * The jump always stays a jmp rel32 whose destination is where a trapped
 * thread resumes (sk__arch_destination), so the trap handler needs nothing
 * new: the kernel's int3_emulate_jmp, done by setting the pc.  A target
 * within +-2 GiB of the trampoline is jumped to directly (no load, no
 * indirect branch); one beyond, through the slot.
 *
 * An object built for IBT (-fcf-protection) gets the same 16 bytes after
 * an endbr64, at a 32-byte boundary (indirect calls and jumps may land on
 * a trampoline: the header says why).  The runtime knows a trampoline by
 * its jump, and everything above counts from there; one runtime serves
 * objects built either way (a C program built for IBT, a Rust crate not).
 *
 *   +0   f3 0f 1e fa     endbr64
 *   +4   e9 rel32 ...    the 16 bytes above
 *
 * i686 (this folder serves both x86 ABIs): the same jump and returns, and a
 * far form of its own (below).
 */
#include <errno.h>
#include <string.h>

#include "arch/backend.h"

#ifdef __i386__
/*
 * i686: 32 bytes at a 32-byte boundary; rel32 reaches everything, so the
 * far form (+8) only serves calls made before the runtime saw the call:
 *   +8   e8 00000000  call +0      +13  58  pop eax
 *   +14  ff a0 disp32 jmp *disp32(%eax)   (disp32: descriptor - (+13))
 *   +20  53 43        "SC"
 */
#define TRAMP_ALIGN 32u
#define TRAMP_FAR 8
const unsigned sk__arch_call_far = TRAMP_FAR;

void **sk__arch_call_slot(uintptr_t tramp)
{
	const unsigned char *t = (const unsigned char *)tramp;
	static const unsigned char shape[] = { 0x31, 0xc0, 0xc3, 0xe8, 0, 0,
					       0,    0,    0x58, 0xff, 0xa0 };
	int32_t disp;

	if (!tramp || tramp % TRAMP_ALIGN ||
	    memcmp(t + 5, shape, sizeof(shape)) != 0 || t[20] != 'S' ||
	    t[21] != 'C')
		return NULL;
	memcpy(&disp, t + 16, sizeof(disp));
	return (void **)(tramp + 13 + (intptr_t)disp);
}

/* No endbr32 first: Linux gives 32-bit processes neither IBT nor shadow
 * stacks, so the header assembles none. */
uintptr_t sk__arch_call_jump(uintptr_t tramp)
{
	return tramp;
}
#else
#define TRAMP_ALIGN 16u
#define TRAMP_FAR 8
#define ENDBR_LEN 4u
#define ENDBR_ALIGN 32u
const unsigned sk__arch_call_far = TRAMP_FAR;

/* The bytes after the jump, with the far form's displacement left out. */
static bool tail_is_ours(const unsigned char *t)
{
	return t[5] == 0x31 && t[6] == 0xc0 && t[7] == 0xc3 && t[8] == 0xff &&
	       t[9] == 0x25 && t[14] == 'S' && t[15] == 'C';
}

static bool is_endbr64(const unsigned char *t)
{
	return t[0] == 0xf3 && t[1] == 0x0f && t[2] == 0x1e && t[3] == 0xfa;
}

/* @jump is where a trampoline's jump would be: at a 16-byte boundary, or
 * 4 bytes into a 32-byte one, after an endbr64.  Either way every byte
 * read lies in one aligned block, on the trampoline's page, so a trap
 * handler may read them for any address it is asked about. */
static bool jump_is_ours(uintptr_t jump)
{
	const unsigned char *t = (const unsigned char *)jump;

	if (!jump)
		return false;
	if (jump % TRAMP_ALIGN == 0)
		return tail_is_ours(t);
	return jump % ENDBR_ALIGN == ENDBR_LEN && is_endbr64(t - ENDBR_LEN) &&
	       tail_is_ours(t);
}

void **sk__arch_call_slot(uintptr_t jump)
{
	int32_t rel;

	if (!jump_is_ours(jump))
		return NULL;
	memcpy(&rel, (const void *)(jump + 10), sizeof(rel));
	return (void **)(jump + 14 + (intptr_t)rel);
}

uintptr_t sk__arch_call_jump(uintptr_t tramp)
{
	if (tramp % ENDBR_ALIGN == 0 && tramp &&
	    is_endbr64((const unsigned char *)tramp) &&
	    jump_is_ours(tramp + ENDBR_LEN))
		return tramp + ENDBR_LEN;
	return tramp;
}
#endif

void sk__arch_call_encode(uintptr_t jump, const void *func, bool ret0,
			  unsigned char *out)
{
	uintptr_t to = (uintptr_t)func, next = jump + 5;
	intptr_t dist = (intptr_t)(to - next);

	if (ret0)
		to = jump + 5;
	else if (!func)
		to = jump + 7;
	else if (dist != (intptr_t)(int32_t)dist)
		to = jump + TRAMP_FAR; /* beyond rel32: the far form */
	sk__arch_encode(jump, to, true, out);
}

const void *sk__arch_call_follow(const void *func)
{
#ifdef __i386__
	return func;
#else
	const unsigned char *f = func, *jmp = func;
	int32_t rel;

	/* jmp *rel32(%rip): 6 bytes; the pointer it reads holds the target.
	 * In a link of IBT objects a PLT entry (.plt.sec) starts with
	 * endbr64, and older binutils give its jump a bnd prefix (f2). */
	if (f && is_endbr64(f))
		jmp = f[ENDBR_LEN] == 0xf2 ? f + ENDBR_LEN + 1 : f + ENDBR_LEN;
	if (!f || jmp[0] != 0xff || jmp[1] != 0x25)
		return func;
	memcpy(&rel, jmp + 2, sizeof(rel));
	const unsigned char *to =
		*(const unsigned char *const *)(jmp + 6 + (intptr_t)rel);
	/* A symbol not bound yet leads to the lazy-binding stub: back into
	 * the entry itself (the push after the jump), or for an IBT entry to
	 * its "endbr64; push $n" in .plt.  Not followed. */
	if (to >= f && to < f + 16)
		return func;
	if (to && is_endbr64(to) && to[ENDBR_LEN] == 0x68)
		return func;
	return to ? to : func;
#endif
}

/* ---- call sites ---------------------------------------------------------
 * A call site is "e8 rel32" (call) or "e9 rel32" (a tail call's jmp),
 * found by the relocation that filled its rel32 (a 32-bit pc-relative one,
 * SK__RELOC_PC32: R_X86_64_PLT32 or PC32 of the trampoline's symbol, as
 * os/elf/text_relocs.c classifies them; addend -4: the field's end is
 * where rel32 counts from).  An update rewrites rel32 alone, with the int3
 * protocol: its first byte is int3 meanwhile, and a thread that meets it
 * is resumed as if it had run the instruction, at the new target, its
 * return address pushed for a call (the kernel's int3_emulate_call); under
 * a shadow stack a call is not emulated but run again once the batch is
 * over (trap.c says why).
 * i686 links keep their relocations' addends in the code (SHT_REL), which
 * os/elf/text_relocs.c does not read: none could be found there, so i686
 * does not look (no file read at start-up), and calls go through the
 * trampoline.
 *
 * A call through the GOT ("ff 15 disp32", "ff 25" for a jump: rustc's
 * call of a function it did not compile, R_X86_64_GOTPCREL, which no
 * linker relaxes: SK__RELOC_GOT_PC32) whose GOT entry holds a trampoline is made the direct
 * call a linker's relaxation of GOTPCRELX would have made, "90 e8 rel32"
 * (the nop first: the return address stays the next instruction's), once,
 * while nothing else can run it (sk__arch_call_site_direct); from then on
 * it is a call site like the others, at its e8. */
#define OP_CALL 0xe8
#define OP_JMP 0xe9
#define OP_NOP 0x90
#define OP_INDIRECT 0xff
#define MODRM_CALL_RIP 0x15 /* ff /2, disp32(%rip) */
#define MODRM_JMP_RIP 0x25  /* ff /4, disp32(%rip) */
const unsigned sk__arch_call_site_before = sizeof(void *) == 8 ? 1 : 0;
const unsigned sk__arch_call_site_got_before = sizeof(void *) == 8 ? 2 : 0;

enum sk__call_reloc sk__arch_call_reloc(enum sk__os_reloc_kind kind,
					int64_t addend)
{
	if (sizeof(void *) != 8 || addend != -4)
		return SK__CALL_NONE;
	if (kind == SK__RELOC_PC32)
		return SK__CALL_DIRECT;
	if (kind == SK__RELOC_GOT_PC32)
		return SK__CALL_GOT;
	return SK__CALL_NONE;
}

bool sk__arch_call_site(uintptr_t field, uintptr_t *site, uintptr_t *dest)
{
	unsigned char op = *(const unsigned char *)(field - 1);
	int32_t rel;

	if (op != OP_CALL && op != OP_JMP)
		return false;
	memcpy(&rel, (const void *)field, sizeof(rel));
	*site = field - 1;
	*dest = field + 4 + (uintptr_t)(intptr_t)rel;
	return true;
}

bool sk__arch_call_site_got(uintptr_t field, uintptr_t *dest)
{
	const unsigned char *op = (const unsigned char *)(field - 2);
	int32_t disp;

	if (op[0] != OP_INDIRECT ||
	    (op[1] != MODRM_CALL_RIP && op[1] != MODRM_JMP_RIP))
		return false;
	memcpy(&disp, (const void *)field, sizeof(disp));
	memcpy(dest, (const void *)(field + 4 + (uintptr_t)(intptr_t)disp),
	       sizeof(*dest));
	return true;
}

int sk__arch_call_site_direct(uintptr_t field)
{
	const unsigned char *op = (const unsigned char *)(field - 2);
	uintptr_t dest;

	if (!sk__arch_call_site_got(field, &dest))
		return -EINVAL;
	intptr_t dist = (intptr_t)(dest - (field + 4));
	int32_t rel = (int32_t)dist;
	if (dist != (intptr_t)rel)
		return -ERANGE;
	unsigned char insn[6] = { OP_NOP,
				  op[1] == MODRM_CALL_RIP ? OP_CALL : OP_JMP };
	memcpy(insn + 2, &rel, sizeof(rel));
	struct sk__span span = { .addr = field - 2, .len = sizeof(insn),
				 .bytes = insn };
	int r = sk__os_writer_ready();
	if (r == 0)
		r = sk__os_writer_begin(&span, 1);
	if (r)
		return r;
	r = sk__os_writer_write(&span, 1);
	int e = sk__os_writer_end(&span, 1);
	return r ? r : e;
}

bool sk__arch_call_site_encode(uintptr_t site, const unsigned char *old,
			       uintptr_t to, unsigned char *out)
{
	intptr_t dist = (intptr_t)(to - (site + 5));
	int32_t rel = (int32_t)dist;

	if (dist != (intptr_t)rel || (old[0] != OP_CALL && old[0] != OP_JMP))
		return false;
	out[0] = old[0];
	memcpy(out + 1, &rel, sizeof(rel));
	return true;
}

uintptr_t sk__arch_call_site_return(uintptr_t site, const unsigned char *insn)
{
	return insn[0] == OP_CALL ? site + 5 : 0;
}
