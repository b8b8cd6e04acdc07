/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * src/internal.h - every private interface of the runtime, for white-box
 * tests and benchmarks (the fault-injection hook, the batch limit, ...).
 * The runtime's own files include only their layer's header (runtime.c).
 */
#ifndef SK_INTERNAL_H
#define SK_INTERNAL_H

#include "control/control.h"
#include "core/core.h"
#include "os/os.h"
#include "support/inject.h"
#include "support/mem.h"
#include "support/message.h"
#include "support/settings.h"
#include "support/stats.h"
#if defined(__x86_64__) || defined(__i386__)
#include "arch/x86_64/x86_64.h"
#endif

#endif /* SK_INTERNAL_H */
