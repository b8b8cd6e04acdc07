/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * src/arch/common/store_trampoline.h - the static-call trampoline of the
 * store-protocol architectures (aarch64, riscv64, loongarch64, arm), whose
 * layout they share
 * (statickeys/static_call.h), 32 bytes at a 32-byte boundary:
 *
 *   +0   jump to <dest>       the only word an update writes (one aligned
 *                             store, as a key's site: store_batch.c)
 *   +4   "return 0"           RET0: jump +4
 *   +8   return               NULL: jump +8
 *   +12  load the slot's      far form: jump +12 (beyond the jump's reach,
 *   +16  address and target,  and every call before the runtime saw the
 *   +20  branch to it         static call)
 *   +24  "SC" 0 0, 0          signature, never executed
 *
 * store_trampoline.c gives the contract's encode, follow and far offset;
 * each architecture's static_call.c decodes its far form's slot, after
 * sk__store_tramp_shape() has checked the rest.
 */
#ifndef SK_ARCH_COMMON_STORE_TRAMPOLINE_H
#define SK_ARCH_COMMON_STORE_TRAMPOLINE_H

#include "arch/backend.h"

/* sk__store_tramp_word - the instruction word at @p (little-endian). */
uint32_t sk__store_tramp_word(const unsigned char *p);

/* sk__store_tramp_shape - @tramp is aligned and holds the architecture's
 * @ret0 (+4), @ret (+8) and far branch @br (+20) words and the signature;
 * its +12 and +16 words are left to the caller. */
bool sk__store_tramp_shape(uintptr_t tramp, uint32_t ret0, uint32_t ret,
			   uint32_t br);

#endif /* SK_ARCH_COMMON_STORE_TRAMPOLINE_H */
