/* SPDX-License-Identifier: MIT OR Apache-2.0 */
// keys.hpp - header-only keys, as a C++ library would define them: inline
// variables in a namespace, a class's static member, and sites in inline
// functions and templates.  Included by two files of the test program, by a
// shared library it links and by a plugin it loads.
#ifndef SK_TESTS_CXX_KEYS_HPP
#define SK_TESTS_CXX_KEYS_HPP

#include <statickeys.hpp>

namespace app {
inline SK_CONSTINIT statickeys::key_false tracing{"cxx_tracing",
						  "a header-only inline key"};
inline SK_CONSTINIT statickeys::key_true fast_path{"cxx_fast_path"};
} // namespace app

struct Pool {
	static inline SK_CONSTINIT statickeys::key_false debug{"Pool::debug"};
};

// A site in an inline function: each object keeps one copy (noinline, so
// that the count of sites per object is exact).
__attribute__((noinline)) inline bool inline_tracing_site()
{
	return statickeys::unlikely<app::tracing>();
}

// Sites in templates over keys.
template <auto &Key> __attribute__((noinline)) bool generic_unlikely()
{
	return statickeys::unlikely<Key>();
}
template <auto &Key> __attribute__((noinline)) bool generic_likely()
{
	return statickeys::likely<Key>();
}

// What each object exports to the test: its sites of app::tracing, and the
// address it binds app::tracing to.
struct tracing_sites {
	const char *object;
	statickeys::key_false *key;
	bool (*unlikely_site)();
	bool (*likely_site)();
	bool (*inline_site)();
};

// The test program's two files.
tracing_sites tu_a_sites();
tracing_sites tu_b_sites();
bool tu_a_fast_path();
bool tu_b_pool_debug();
bool tu_a_local_site();
bool tu_b_local_site();
statickeys::key_false &tu_a_local_key();
statickeys::key_false &tu_b_local_key();

// The linked shared library.
extern "C" tracing_sites shared_lib_sites();

#endif
