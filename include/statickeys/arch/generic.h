/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * statickeys/arch/generic.h - the portable fallback: an atomic load and test.
 *
 * Used where the compiler lacks "asm goto" or the architecture has no site
 * implementation, or when SK_NO_ASM_GOTO is defined.  The API and semantics
 * are the same; a check costs a relaxed load, a compare and a branch instead
 * of one no-op.  The key reads as on from the moment an enable starts, so a
 * fallback site may turn on slightly before patched sites do; it never turns
 * on later than they do.
 */
#ifndef STATICKEYS_ARCH_GENERIC_H
#define STATICKEYS_ARCH_GENERIC_H

#define SK__GENERIC_ENABLED(keyp)                                            \
	(__atomic_load_n(&(keyp)->enabled, __ATOMIC_RELAXED) != 0)

/*
 * Same contract as SK__ARCH_BRANCH: true when the site would jump.  A weak
 * key that no object defines has a null address; its sites keep their
 * compiled direction (@jump), as patched sites do, instead of reading
 * through null.  The compiler folds the test away for every other key (the
 * integer cast keeps -Waddress quiet about it).
 */
#ifdef __cplusplus
#define SK__GENERIC_ADDR(keyp) reinterpret_cast<__UINTPTR_TYPE__>(keyp)
#else
#define SK__GENERIC_ADDR(keyp) ((__UINTPTR_TYPE__)(keyp))
#endif
/* No casts to bool: in C++ a user's -Wold-style-cast or -Wuseless-cast
 * would see them (branch and jump may be bool already). */
#define SK__GENERIC_BRANCH(keyp, branch, jump)                               \
	(SK__GENERIC_ADDR(keyp) != 0                                         \
		 ? SK__GENERIC_ENABLED(keyp) != !!(branch)                   \
		 : !!(jump))

#endif /* STATICKEYS_ARCH_GENERIC_H */
