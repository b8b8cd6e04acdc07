// SPDX-License-Identifier: MIT OR Apache-2.0
// cxx_api.cpp - the C++ front end (statickeys.hpp) on Windows: inline keys
// of both types listed under their names (the assembler-written listing of
// statickeys.hpp, PE variant), their sites in an inline function and in
// templates follow enable/disable/inc/dec, misuse throws std::system_error,
// key_guard holds a reference.  Built twice: as is and with --gc-sections
// (the listing must survive it).
#include <cerrno>
#include <cstring>
#include <system_error>

#include <statickeys.hpp>

#include "../check.h"

namespace app {
inline SK_CONSTINIT statickeys::key_false tracing{"cxx_tracing",
						  "a header-only inline key"};
inline SK_CONSTINIT statickeys::key_true fast_path{"cxx_fast_path"};
} // namespace app

__attribute__((noinline)) inline bool tracing_site()
{
	return statickeys::unlikely<app::tracing>();
}

template <auto &Key> __attribute__((noinline)) bool generic_likely()
{
	return statickeys::likely<Key>();
}

int main()
{
	CHECK(sk_key_find("cxx_tracing") == app::tracing.native() &&
		      sk_key_find("cxx_fast_path") == app::fast_path.native(),
	      "both keys are listed under their names");
	CHECK(!tracing_site() && generic_likely<app::fast_path>(),
	      "the defined states");
	app::tracing.enable();
	app::fast_path.disable();
	CHECK(tracing_site() && !generic_likely<app::fast_path>(),
	      "the sites follow enable and disable");
	app::tracing.disable();
	app::fast_path.enable();
	CHECK(!tracing_site() && generic_likely<app::fast_path>(), "and back");
	{
		statickeys::key_guard g{app::tracing};
		CHECK(tracing_site(), "a key_guard holds the key on");
	}
	CHECK(!tracing_site(), "its destructor drops the reference");
	int code = 0;
	try {
		app::tracing.dec();
	} catch (const std::system_error &e) {
		code = e.code().value();
	}
	CHECK(code == ERANGE, "dec below zero throws ERANGE (%d: %s)", code,
	      std::strerror(code));
#if SK_HAVE_PATCHED_SITES
	struct sk_stats s;
	sk_stats_get(&s);
	CHECK(std::strcmp(s.backend, "x86_64") == 0 && s.sites_written == 6,
	      "patched: %s, %llu sites written (6 updates of one site)", s.backend,
	      (unsigned long long)s.sites_written);
#endif
	return check_summary();
}
