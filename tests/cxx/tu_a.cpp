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
