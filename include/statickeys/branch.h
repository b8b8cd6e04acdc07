/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * statickeys/branch.h - testing a key: sk_branch_likely / sk_branch_unlikely.
 *
 *	if (sk_branch_unlikely(&key)) { rarely wanted work }
 *	if (sk_branch_likely(&key))   { usually wanted work }
 *
 * Each use is a site: one instruction chosen at compile time from the key's
 * type and the hint (see the truth table in statickeys/key.h), rewritten at
 * run time when the key changes.  "unlikely" makes the off path the
 * fall-through, "likely" the on path.  The argument must be the address of a
 * key defined with SK_DEFINE_KEY_TRUE/FALSE: anything else, including a
 * plain struct sk_key, fails to compile.
 */
#ifndef STATICKEYS_BRANCH_H
#define STATICKEYS_BRANCH_H

#include "statickeys/key.h"
#include "statickeys/object.h"

/*
 * The architecture: its site header (SK__ARCH_BRANCH) and the one for
 * kernel-style keys that statickeys/linux.h includes (SK__ARCH_SLOT_HEADER,
 * SK__ARCH_BRANCH_SLOT).  A port adds one branch here.  Sites are patched
 * in ELF objects and in x86-64 Windows ones built by mingw-w64 gcc with
 * its SEH unwind directives (__SEH__, the default: arch/asm_goto.h needs
 * them to return to the function's section).  Every other architecture,
 * object format (macOS) and compiler (clang for Windows), a Windows build
 * with -fno-asynchronous-unwind-tables, and any build with SK_NO_ASM_GOTO
 * (the portable backend's builds define it) test the key's state instead
 * (arch/generic.h); the runtime keeps that state on every backend, so such
 * files and patched ones mix in one program.
 */
#if defined(__ELF__) ||                                                      \
	(defined(_WIN32) && defined(__x86_64__) && defined(__SEH__) &&       \
	 !defined(__clang__))
#define SK__FORMAT_PATCHED 1
#endif
#if !defined(__GNUC__) || defined(SK_NO_ASM_GOTO) || !defined(SK__FORMAT_PATCHED)
#define SK__ARCH_SLOT_HEADER 0
#elif defined(__x86_64__)
#include "statickeys/arch/x86_64.h"
#define SK__ARCH_SLOT_HEADER "statickeys/arch/x86_64_slot.h"
#elif defined(__i386__)
#include "statickeys/arch/i386.h"
#define SK__ARCH_SLOT_HEADER "statickeys/arch/i386_slot.h"
#elif defined(__riscv) && __riscv_xlen == 64
#include "statickeys/arch/riscv64.h"
#define SK__ARCH_SLOT_HEADER "statickeys/arch/riscv64_slot.h"
#elif defined(__aarch64__)
#include "statickeys/arch/aarch64.h"
#define SK__ARCH_SLOT_HEADER "statickeys/arch/aarch64_slot.h"
#elif defined(__powerpc64__) && defined(__LITTLE_ENDIAN__) && _CALL_ELF == 2
#include "statickeys/arch/ppc64le.h"
#define SK__ARCH_SLOT_HEADER "statickeys/arch/ppc64le_slot.h"
#elif defined(__s390x__)
#include "statickeys/arch/s390x.h"
#define SK__ARCH_SLOT_HEADER "statickeys/arch/s390x_slot.h"
#elif defined(__loongarch__) && __loongarch_grlen == 64
#include "statickeys/arch/loongarch64.h"
#define SK__ARCH_SLOT_HEADER "statickeys/arch/loongarch64_slot.h"
#elif defined(__arm__) && defined(__thumb2__) /* Arm state: generic.h */
#include "statickeys/arch/arm.h"
#define SK__ARCH_SLOT_HEADER "statickeys/arch/arm_slot.h"
#else
#define SK__ARCH_SLOT_HEADER 0
#endif

#include "statickeys/arch/generic.h"
#ifdef SK__ARCH_BRANCH
#define SK_HAVE_PATCHED_SITES 1
#define SK__BRANCH SK__ARCH_BRANCH
#else
#define SK_HAVE_PATCHED_SITES 0
#define SK__BRANCH SK__GENERIC_BRANCH
#endif

/* The key's initial state (its type) as an integer constant expression. */
#ifdef __cplusplus
template <typename T> struct sk__key_traits; /* only keys have traits */
template <> struct sk__key_traits<struct sk_key_true *> {
	static constexpr int initial = 1;
};
template <> struct sk__key_traits<struct sk_key_false *> {
	static constexpr int initial = 0;
};
#define SK__INITIAL(x) (sk__key_traits<decltype(x)>::initial)
#else
#define SK__INITIAL(x)                                                       \
	(__extension__ _Generic((x), struct sk_key_true *: 1,                \
				struct sk_key_false *: 0))
#endif

/*
 * The site jumps when (enabled ^ branch); it starts as a jump when
 * (initial ^ branch).  "likely" is true when the site does not jump.
 */
/** sk_branch_likely() - true when the key is on; the on path falls through. */
#define sk_branch_likely(x)                                                  \
	__builtin_expect(!SK__BRANCH(&(x)->key, 1, SK__INITIAL(x) ^ 1), 1)
/** sk_branch_unlikely() - true when the key is on; the off path falls through. */
#define sk_branch_unlikely(x)                                                \
	__builtin_expect(SK__BRANCH(&(x)->key, 0, SK__INITIAL(x) ^ 0), 0)

#endif /* STATICKEYS_BRANCH_H */
