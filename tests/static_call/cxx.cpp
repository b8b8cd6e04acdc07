// SPDX-License-Identifier: MIT OR Apache-2.0
// cxx.cpp - static calls from C++: the C macros (with C++ functions as
// targets, in a namespace), the typed handle (update() only takes the
// call's type: tests/static_call/misuse_cases.c covers the C++ refusal of
// the C macros; a wrong type for static_call::update is a plain overload
// error), errors as exceptions and error codes, the RET0 target, a commit
// with a key.
#include <statickeys.hpp>

#include <system_error>
#include <type_traits>

#include "../check.h"

namespace app {
int plain(int x) { return x; }
int doubled(int x) { return 2 * x; }
struct counter {
	static int hits;
	static void hit() { hits++; }
};
int counter::hits;
} // namespace app

SK_DEFINE_STATIC_CALL(scale, app::plain);
SK_DEFINE_STATIC_CALL_NULL(on_event, app::counter::hit);
SK_DEFINE_STATIC_CALL_RET0(limit, app::plain);
/* Exported from C++ (for plugins of this program): the same spelling as C. */
SK_EXPORT_STATIC_CALL(scale);
SK_DEFINE_KEY_FALSE(verbose);

int main()
{
	CHECK(sk_static_call(scale)(21) == 21, "defined target");
	auto handle = SK_STATIC_CALL_REF(scale);
	static_assert(std::is_same_v<decltype(handle),
				     statickeys::static_call<int(int)>>,
		      "the handle has the call's type");
	handle.update(app::doubled);
	CHECK(sk_static_call(scale)(21) == 42, "after update()");
	CHECK(handle.query() == &app::doubled, "query()");
	CHECK(handle(5) == 10, "a call through the handle");

	std::error_code ec;
	handle.update(app::plain, ec);
	CHECK(!ec && sk_static_call(scale)(3) == 3, "update(f, ec)");

	sk_static_call_cond(on_event)();
	CHECK(app::counter::hits == 0, "no target: nothing called");
	auto ev = SK_STATIC_CALL_REF(on_event);
	ev.update(&app::counter::hit);
	sk_static_call_cond(on_event)();
	CHECK(app::counter::hits == 1, "a static member function as target");
	ev.update(nullptr);
	sk_static_call_cond(on_event)();
	CHECK(app::counter::hits == 1, "nullptr: no target again");

	CHECK(sk_static_call(limit)(9) == 0, "RET0 at first");
	auto lim = SK_STATIC_CALL_REF(limit);
	lim.update(app::doubled);
	CHECK(sk_static_call(limit)(9) == 18, "RET0 call re-pointed");
	lim.update_return0();
	CHECK(sk_static_call(limit)(9) == 0 &&
		      reinterpret_cast<void *>(lim.query()) ==
			      reinterpret_cast<void *>(&sk_static_call_return0),
	      "update_return0(): returns 0 again, and query() says so");

	statickeys::commit_calls({ SK_KEY_CHANGE(&verbose, true) },
				 { handle.change(app::doubled) });
	CHECK(sk_key_enabled(&verbose) && sk_static_call(scale)(4) == 8,
	      "commit_calls");

	sk_static_call_key bogus{};
	statickeys::static_call<int(int)> bad(bogus);
	bool threw = false;
	try {
		bad.update(app::plain);
	} catch (const std::system_error &e) {
		threw = e.code() == std::errc::invalid_argument;
	}
	CHECK(threw, "an invalid descriptor throws EINVAL");
	return check_summary();
}
