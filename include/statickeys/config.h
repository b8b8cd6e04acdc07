/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * statickeys/config.h - choosing how code is written and batched.
 *
 * Defaults come from the environment at the first update:
 *   STATICKEYS_WRITER=procmem|mprotect   (default procmem)
 * "procmem" writes through /proc/self/mem, so code pages are never mapped
 * writable; "mprotect" makes the touched pages writable+executable for the
 * duration of one batch (faster for large updates, needs RWX to be allowed).
 * If the chosen writer does not work here, the other one is tried.
 */
#ifndef STATICKEYS_CONFIG_H
#define STATICKEYS_CONFIG_H

#include <stddef.h>

#include "statickeys/export.h"

#ifdef __cplusplus
extern "C" {
#endif

/** enum sk_writer - the ways the runtime can write code. */
enum sk_writer {
	SK_WRITER_PROCMEM = 0,
	SK_WRITER_MPROTECT = 1,
};

/**
 * sk_config_set_writer() - use @writer for the following updates.
 * Return: 0, or -ENOTSUP if that writer does not work in this process
 * (the current writer stays in use), -EINVAL for an unknown value.
 */
SK_API int sk_config_set_writer(int writer);

/**
 * sk_config_set_batch_limit() - at most @max_sites sites per int3 batch.
 * @max_sites: 0 for no limit (the default).  1 reproduces the kernel's
 * pre-2019 behaviour of one full protocol (3 core syncs) per site; it exists
 * for benchmarks and tests.
 * Return: 0.
 */
SK_API int sk_config_set_batch_limit(size_t max_sites);

#ifdef __cplusplus
}
#endif

#endif /* STATICKEYS_CONFIG_H */
