/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * src/support/inject.c - the tests' fault-injection hook (inject.h,
 * SK_INJECT): a pointer the tests fill, in the statickeys_inject build only.
 */
#include "support/inject.h"

#ifdef SK_ENABLE_INJECT
void (*volatile sk__inject_hook)(int point);
#endif
