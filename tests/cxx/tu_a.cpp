/* SPDX-License-Identifier: MIT OR Apache-2.0 */
// tu_a.cpp - the first file of the test program with sites on the keys.
#include "keys.hpp"

static bool a_unlikely()
{
	return generic_unlikely<app::tracing>();
}

static bool a_likely()
{
	return generic_likely<app::tracing>();
}

tracing_sites tu_a_sites()
{
	return { "tu_a.cpp", &app::tracing, a_unlikely, a_likely,
		 inline_tracing_site };
}

bool tu_a_fast_path()
{
	return generic_likely<app::fast_path>();
}

// A file-local key; tu_b.cpp has one with the same C++ name (the same
// symbol, _ZL10file_local, in both files) but another key name.
static statickeys::key_false file_local{"tu_a_local"};

bool tu_a_local_site()
{
	return generic_unlikely<file_local>();
}

statickeys::key_false &tu_a_local_key()
{
	return file_local;
}
