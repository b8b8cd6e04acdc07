/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * statickeys.h - Linux kernel style static keys for multi-threaded programs.
 *
 *	#include <statickeys.h>
 *
 *	SK_DEFINE_KEY_FALSE(tracing);
 *
 *	void hot_path(void)
 *	{
 *		if (sk_branch_unlikely(&tracing))   // one 5-byte NOP while off
 *			trace_event();
 *	}
 *
 *	sk_key_enable(&tracing);   // rewrites every site, other threads running
 *
 * Link with -lstatickeys (pkg-config: statickeys).  See README.md.
 */
#ifndef STATICKEYS_H
#define STATICKEYS_H

#include "statickeys/key.h"
#include "statickeys/branch.h"
#include "statickeys/stats.h"
#include "statickeys/config.h"
#include "statickeys/commit.h"
#include "statickeys/registry.h"
#include "statickeys/control.h"
#include "statickeys/static_call.h"
#include "statickeys/dyndbg.h"

#endif /* STATICKEYS_H */
