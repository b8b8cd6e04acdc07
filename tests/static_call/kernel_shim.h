/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* kernel_shim.h - the kernel macros a ported self-test uses besides static
 * calls: init calls run as constructors (after the runtime's, priority 101),
 * WARN_ON counts and prints, kernel_shim_summary() reports. */
#ifndef KERNEL_SHIM_H
#define KERNEL_SHIM_H

#include <stdio.h>

#define __init
#define __initdata
#define ARRAY_SIZE(a) ((int)(sizeof(a) / sizeof((a)[0])))
#define early_initcall(fn)                                                   \
	__attribute__((constructor(200))) static void fn##_ctor(void)        \
	{                                                                    \
		(void)fn();                                                  \
	}

static int kernel_shim_warnings, kernel_shim_checks;
#define WARN_ON(cond)                                                        \
	({                                                                   \
		int warn_ = !!(cond);                                        \
		kernel_shim_checks++;                                        \
		if (warn_) {                                                 \
			kernel_shim_warnings++;                              \
			fprintf(stderr, "%s:%d: WARN_ON(%s)\n", __FILE__,    \
				__LINE__, #cond);                            \
		}                                                            \
		warn_;                                                       \
	})

static inline int kernel_shim_summary(void)
{
	printf("%d checks, %d warnings\n", kernel_shim_checks,
	       kernel_shim_warnings);
	return kernel_shim_warnings || kernel_shim_checks < 10;
}

#endif
