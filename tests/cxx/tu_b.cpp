/* SPDX-License-Identifier: MIT OR Apache-2.0 */
// tu_b.cpp - the second file: the same templates and inline function (their
// COMDAT copies are merged by the linker, site entries with them), one site
// of its own.
#include "keys.hpp"

__attribute__((noinline)) static bool b_unlikely()
{
	if (statickeys::unlikely<app::tracing>())
		return true;
	return false;
}

static bool b_likely()
{
	return generic_likely<app::tracing>();
}

tracing_sites tu_b_sites()
{
	return { "tu_b.cpp", &app::tracing, b_unlikely, b_likely,
		 inline_tracing_site };
}

bool tu_b_pool_debug()
{
	return generic_unlikely<Pool::debug>();
}

static statickeys::key_false file_local{"tu_b_local"};

bool tu_b_local_site()
{
	return generic_unlikely<file_local>();
}

statickeys::key_false &tu_b_local_key()
{
	return file_local;
}
