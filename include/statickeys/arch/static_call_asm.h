/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * include/statickeys/arch/static_call_asm.h - the frame of a static call's
 * trampoline in each object format (ELF, PE): its section, symbol and size;
 * the architecture's header (<arch>_static_call.h) gives the instructions.
 * Included by statickeys/static_call.h only where it has trampolines.
 */
#ifndef STATICKEYS_ARCH_STATIC_CALL_ASM_H
#define STATICKEYS_ARCH_STATIC_CALL_ASM_H

/*
 * SK__SC_TRAMP_ASM(name, align, size, body) - the trampoline's symbol
 * sk__sct_<name> around @body, the architecture's instructions (below), and
 * the hidden alias of the descriptor that its far form reads.  Hidden on
 * ELF, so that each object calls its own (a direct call, never through the
 * PLT); SK_EXPORT_STATIC_CALL makes it protected: other objects' calls then
 * go through their PLT to it (as the kernel's modules call exported
 * trampolines), and the defining object's stay direct.
 */
#ifdef _WIN32
/* PE: no visibility (nothing is preempted), COFF's own symbol type, and no
 * section stack: the trampoline's section, then back to .text (GCC does not
 * rely on the section a file-scope asm leaves: it names the section of each
 * function and variable it emits after one). */
#define SK__SC_ALIAS_ATTR
#define SK__SC_BEGIN(name, align)                                            \
	".section .text$sk_static_call,\"xr\"\n\t"                             \
	".balign " align "\n\t"                                               \
	".globl sk__sct_" #name "\n\t"                                        \
	".def sk__sct_" #name "; .scl 2; .type 32; .endef\n"                  \
	"sk__sct_" #name ":\n\t"
#define SK__SC_END(name, size) ".text"
#else
/* SK__SC_ISA - what the label needs before it: Thumb-2 marks the symbol a
 * Thumb function (statickeys/arch/arm_static_call.h), nothing elsewhere. */
#ifndef SK__SC_ISA
#define SK__SC_ISA ""
#endif
#define SK__SC_ALIAS_ATTR visibility("hidden"),
#define SK__SC_BEGIN(name, align)                                            \
	".pushsection .text.sk_static_call,\"ax\",%progbits\n\t"              \
	".balign " align "\n\t"                                               \
	".globl sk__sct_" #name "\n\t"                                        \
	".hidden sk__sct_" #name "\n\t"                                       \
	".type sk__sct_" #name ",%function\n\t"                               \
	SK__SC_ISA                                                           \
	"sk__sct_" #name ":\n\t"
#define SK__SC_END(name, size)                                               \
	".size sk__sct_" #name ", " size "\n\t"                               \
	".popsection"
#endif
/* SK__SC_FAR_SLOT - the offset in the descriptor of what the far form jumps
 * to (struct sk_static_call_key's runtime field): never NULL once the
 * runtime has seen the call, so a thread that took the jump to the far form
 * before an update to NULL returns instead of jumping to 0. */
#if defined(__LP64__) || defined(_WIN64)
#define SK__SC_FAR_SLOT "40"
#else
#define SK__SC_FAR_SLOT "24"
#endif
#define SK__SC_TRAMP_ASM(name, align, size, body)                            \
	SK__SC_LINKAGE struct sk_static_call_key sk__scl_##name               \
		__attribute__((alias("sk__scd_" #name), SK__SC_ALIAS_ATTR      \
			       used));                                         \
	__asm__(SK__SC_BEGIN(name, align) body SK__SC_END(name, size))
#define SK__SC_TRAMP_ADDR(name) SK__FN_CAST(void (*)(void), &SK__SC_TRAMP(name))

#endif /* STATICKEYS_ARCH_STATIC_CALL_ASM_H */
