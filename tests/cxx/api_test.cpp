/* SPDX-License-Identifier: MIT OR Apache-2.0 */
// api_test.cpp - the C++ API (statickeys.hpp), with GoogleTest: compile-time
// facts, branches, errors both ways, the RAII guard, batches, names, a
// header-only inline key used from two files, a linked shared library and a
// dlopen'd plugin, flips while other threads run the sites, and no
// allocation on the fast paths.
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <signal.h>

#include <atomic>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>
#include <thread>
#include <vector>

#include "keys.hpp"

// ---- operator new counting, for the no-allocation test -------------------

static std::atomic<unsigned long> news{ 0 };

__attribute__((noinline)) void *operator new(std::size_t n)
{
	news.fetch_add(1, std::memory_order_relaxed);
	if (void *p = std::malloc(n ? n : 1))
		return p;
	throw std::bad_alloc();
}
__attribute__((noinline)) void operator delete(void *p) noexcept { std::free(p); }
__attribute__((noinline)) void operator delete(void *p, std::size_t) noexcept { std::free(p); }

// ---- helpers ---------------------------------------------------------------

// A count of patched sites or batches: none where sites test a flag (the
// portable backend), and the same behaviours are checked through the sites.
#define PATCHED(n) (SK_HAVE_PATCHED_SITES ? (n) : 0)

using statickeys::key_false;
using statickeys::key_guard;
using statickeys::key_true;

// Every site of app::tracing in every object, with where it is.
static std::vector<tracing_sites> all_tracing_sites(void *plugin = nullptr)
{
	std::vector<tracing_sites> v{ tu_a_sites(), tu_b_sites(),
				      shared_lib_sites() };
	if (plugin) {
		auto fn = reinterpret_cast<tracing_sites (*)()>(
			dlsym(plugin, "plugin_sites"));
		if (fn)
			v.push_back(fn());
	}
	return v;
}

// Each site's answer equals the key's state.
static void expect_tracing_sites(bool on, const std::vector<tracing_sites> &v,
				 const char *when)
{
	for (const auto &s : v) {
		EXPECT_EQ(s.unlikely_site(), on) << s.object << ": unlikely site " << when;
		EXPECT_EQ(s.likely_site(), on) << s.object << ": likely site " << when;
		EXPECT_EQ(s.inline_site(), on) << s.object << ": inline function's site " << when;
	}
}

struct key_view {
	bool found = false;
	int copies = 0;
	sk_key_info info{}; // its strings are gone with the snapshot: use these
	std::string name, description;
};

static key_view snapshot_of(const char *name)
{
	key_view r;
	sk_key_info *v;
	size_t n;
	if (sk_keys_snapshot(&v, &n) != 0)
		return r;
	for (size_t i = 0; i < n; i++) {
		if (std::strcmp(v[i].identifier, name) != 0)
			continue;
		r.copies++;
		r.found = true;
		r.info = v[i];
		r.info.name = r.info.identifier = r.info.description = r.info.object = nullptr;
		r.name = v[i].name;
		r.description = v[i].description;
	}
	sk_keys_snapshot_free(v);
	return r;
}

// ---- compile-time facts ------------------------------------------------------

TEST(CxxKeyTypes, CompileTimeFacts)
{
	static_assert(key_true::initially_on && !key_false::initially_on);
	static_assert(statickeys::is_key_v<key_false> && statickeys::is_key_v<const key_true>);
	static_assert(!statickeys::is_key_v<int> && !statickeys::is_key_v<sk_key>);
	// A copy or a moved-from key would have no sites.
	static_assert(!std::is_copy_constructible_v<key_false>);
	static_assert(!std::is_move_constructible_v<key_false>);
	static_assert(!std::is_copy_assignable_v<key_true>);
	// Constant initialisation: a key is a literal type with nothing to
	// destroy, so it is ready before any constructor runs.
	static_assert(std::is_trivially_destructible_v<key_false>);
	constexpr key_true literal{ "literal", "constexpr-constructible" };
	static_assert(literal.name()[0] == 'l' && literal.description()[0] == 'c');
	// noexcept where true.
	std::error_code ec;
	static_assert(noexcept(statickeys::unlikely<app::tracing>()));
	static_assert(noexcept(statickeys::likely<app::fast_path>()));
	static_assert(noexcept(app::tracing.enabled()) && noexcept(app::tracing.count()));
	static_assert(noexcept(app::tracing.enable(ec)) && noexcept(app::tracing.dec(ec)));
	static_assert(!noexcept(app::tracing.enable()) && !noexcept(app::tracing.dec()));
	static_assert(noexcept(key_guard(app::tracing, ec)) && !noexcept(key_guard(app::tracing)));
	static_assert(std::is_nothrow_move_constructible_v<key_guard>);
	static_assert(!std::is_copy_constructible_v<key_guard>);
	SUCCEED() << "checked by static_assert at compile time";
}

// ---- branches and calls --------------------------------------------------------

TEST(CxxKeys, InitialStatesFollowTheTypes)
{
	EXPECT_FALSE(app::tracing.enabled());
	EXPECT_TRUE(app::fast_path.enabled());
	EXPECT_EQ(app::fast_path.count(), 1);
	EXPECT_FALSE(Pool::debug.enabled());
	EXPECT_TRUE(tu_a_fast_path());
	EXPECT_FALSE(tu_b_pool_debug());
	expect_tracing_sites(false, all_tracing_sites(), "initially");
}

TEST(CxxKeys, EnableAndDisableFlipEverySite)
{
	auto sites = all_tracing_sites();
	app::tracing.enable();
	expect_tracing_sites(true, sites, "after enable()");
	app::tracing.disable();
	expect_tracing_sites(false, sites, "after disable()");

	app::fast_path.disable();
	EXPECT_FALSE(tu_a_fast_path());
	app::fast_path.set(true);
	EXPECT_TRUE(tu_a_fast_path());

	Pool::debug.inc();
	EXPECT_TRUE(tu_b_pool_debug());
	Pool::debug.dec();
	EXPECT_FALSE(tu_b_pool_debug());
}

TEST(CxxKeys, ErrorsAreExceptionsOrErrorCodesAtTheCallersChoice)
{
	// dec at zero: -ERANGE in C.
	try {
		app::tracing.dec();
		ADD_FAILURE() << "dec() at zero did not throw";
	} catch (const std::system_error &e) {
		EXPECT_EQ(e.code(), std::errc::result_out_of_range) << e.what();
	}
	std::error_code ec = std::make_error_code(std::errc::io_error);
	app::tracing.dec(ec);
	EXPECT_EQ(ec, std::errc::result_out_of_range);

	// disable while two references are held: -EBUSY.
	app::tracing.inc(ec);
	EXPECT_FALSE(ec) << "success clears the error_code";
	app::tracing.inc();
	EXPECT_THROW(app::tracing.disable(), std::system_error);
	app::tracing.disable(ec);
	EXPECT_EQ(ec, std::errc::device_or_resource_busy);
	EXPECT_EQ(app::tracing.count(), 2) << "a refused call changes nothing";
	app::tracing.dec();
	app::tracing.dec(ec);
	EXPECT_FALSE(ec);
	expect_tracing_sites(false, all_tracing_sites(), "after balanced inc/dec");
}

// ---- the guard ------------------------------------------------------------------

static key_guard trace_for_caller()
{
	return key_guard{ app::tracing };
}

TEST(CxxKeyGuard, HoldsAReferenceForItsScope)
{
	auto sites = all_tracing_sites();
	{
		key_guard outer{ app::tracing };
		EXPECT_TRUE(outer.owns());
		expect_tracing_sites(true, sites, "inside a guard");
		{
			key_guard inner{ app::tracing };
			EXPECT_EQ(app::tracing.count(), 2);
		}
		EXPECT_EQ(app::tracing.count(), 1);
		expect_tracing_sites(true, sites, "after the inner guard");
	}
	EXPECT_EQ(app::tracing.count(), 0);
	expect_tracing_sites(false, sites, "after the outer guard");

	// Moved out of a function: one reference, transferred.
	{
		key_guard g = trace_for_caller();
		EXPECT_EQ(app::tracing.count(), 1);
		key_guard h{ std::move(g) };
		EXPECT_FALSE(g.owns());
		EXPECT_TRUE(h.owns());
		EXPECT_EQ(app::tracing.count(), 1);
		std::error_code ec;
		h.reset(ec);
		EXPECT_FALSE(ec);
		EXPECT_FALSE(h.owns());
		EXPECT_EQ(app::tracing.count(), 0);
	}
	EXPECT_EQ(app::tracing.count(), 0);
	// A guard on a key that starts on adds to its reference.
	{
		key_guard g{ app::fast_path };
		EXPECT_EQ(app::fast_path.count(), 2);
	}
	EXPECT_EQ(app::fast_path.count(), 1);
}

static std::error_code handler_ec;
static bool handler_owned = false;

static void guard_in_handler(int)
{
	key_guard g{ Pool::debug, handler_ec };
	handler_owned = g.owns();
}

TEST(CxxKeyGuard, AGuardWorksInASignalHandler)
{
	// A handler that interrupted no update updates like any caller: the
	// guard owns its reference inside the handler and gives it back when
	// the handler's scope ends.
	struct sigaction sa{}, old{};
	sa.sa_handler = guard_in_handler;
	sigaction(SIGUSR1, &sa, &old);
	raise(SIGUSR1);
	sigaction(SIGUSR1, &old, nullptr);
	EXPECT_FALSE(handler_ec);
	EXPECT_TRUE(handler_owned);
	EXPECT_EQ(Pool::debug.count(), 0);
	EXPECT_FALSE(tu_b_pool_debug());
}

// ---- batches and names --------------------------------------------------------------

TEST(CxxCommit, SeveralKeysInOneBatch)
{
	sk_stats before{}, after{};
	sk_stats_get(&before);
	statickeys::commit({ app::tracing.change(true), Pool::debug.change(true),
			     app::fast_path.change(false) });
	sk_stats_get(&after);
	EXPECT_EQ(after.batches - before.batches, PATCHED(1u))
		<< "three keys, one batch";
	expect_tracing_sites(true, all_tracing_sites(), "after commit");
	EXPECT_TRUE(tu_b_pool_debug());
	EXPECT_FALSE(tu_a_fast_path());
	std::error_code ec;
	statickeys::commit({ app::tracing.change(false), Pool::debug.change(false),
			     app::fast_path.change(true) },
			   ec);
	EXPECT_FALSE(ec);
	// The same key twice with different states: -EINVAL, nothing changes.
	statickeys::commit({ app::tracing.change(true), app::tracing.change(false) }, ec);
	EXPECT_EQ(ec, std::errc::invalid_argument);
	EXPECT_THROW(statickeys::commit({ app::tracing.change(true),
					  app::tracing.change(false) }),
		     std::system_error);
	expect_tracing_sites(false, all_tracing_sites(), "after a refused commit");
}

TEST(CxxNames, KeysAreListedUnderTheirNames)
{
	EXPECT_EQ(sk_key_find("cxx_tracing"), app::tracing.native());
	EXPECT_EQ(sk_key_find("Pool::debug"), Pool::debug.native());
	EXPECT_EQ(sk_key_find("cxx_fast_path"), app::fast_path.native());
	key_view v = snapshot_of("cxx_tracing");
	ASSERT_TRUE(v.found);
	EXPECT_EQ(v.description, "a header-only inline key");
	EXPECT_EQ(v.name, "cxx_tracing") << "one key: the name needs no qualifying";
}

TEST(CxxNames, FileLocalKeysWithTheSameSymbolAreTwoListedKeys)
{
	key_false &a = tu_a_local_key(), &b = tu_b_local_key();
	ASSERT_NE(&a, &b);
	EXPECT_EQ(sk_key_find("tu_a_local"), a.native());
	EXPECT_EQ(sk_key_find("tu_b_local"), b.native());
	a.enable();
	EXPECT_TRUE(tu_a_local_site());
	EXPECT_FALSE(tu_b_local_site()) << "the other file's key is another key";
	b.enable();
	a.disable();
	EXPECT_FALSE(tu_a_local_site());
	EXPECT_TRUE(tu_b_local_site());
	b.disable();
}

static key_false listed_without_sites{ "cxx_listed_without_sites" };

TEST(CxxNames, AKeyWithoutSitesIsListedByList)
{
	statickeys::list<listed_without_sites>();
	EXPECT_EQ(sk_key_find("cxx_listed_without_sites"), listed_without_sites.native());
}

// ---- one header-only key across objects -------------------------------------------

// Sites of app::tracing in each object.  Program: generic_unlikely<>,
// generic_likely<> (one COMDAT copy for both files), b_unlikely,
// inline_tracing_site (one copy), and this file's site in
// FastPathsDoNotAllocate = 5.  Built at -O0 the branch templates are not
// inlined: the program keeps one copy of unlikely<app::tracing>() and one
// of likely<app::tracing>(), one site each, which every caller runs.  The
// library and the plugin (always optimised): two sites of their own and
// their copy of the inline function = 3.
#ifdef SK_TEST_O0
static constexpr size_t program_sites = PATCHED(2);
#else
static constexpr size_t program_sites = PATCHED(5);
#endif
static constexpr size_t library_sites = PATCHED(3);

TEST(CxxHeaderOnlyKey, OneKeyWithSitesInBothFilesAndTheSharedLibrary)
{
	auto sites = all_tracing_sites();
	for (const auto &s : sites)
		EXPECT_EQ(s.key, &app::tracing) << s.object << " binds another copy of the key";
	key_view v = snapshot_of("cxx_tracing");
	ASSERT_TRUE(v.found);
	EXPECT_EQ(v.copies, 1) << "listed once, by one object";
	EXPECT_EQ(v.info.nsites, program_sites + library_sites)
		<< "every object's table registered once";
	EXPECT_EQ(v.info.nobjects, PATCHED(2u));
	for (int round = 0; round < 4; round++) {
		bool on = !(round & 1);
		app::tracing.set(on);
		expect_tracing_sites(on, all_tracing_sites(), "after a flip");
	}
}

TEST(CxxHeaderOnlyKey, ADlopenedPluginJoinsTheSameKey)
{
	app::tracing.enable(); // the plugin's sites are patched as it loads
	void *plugin = dlopen(SK_CXX_PLUGIN_PATH, RTLD_NOW | RTLD_LOCAL);
	ASSERT_NE(plugin, nullptr) << dlerror();
	auto sites = all_tracing_sites(plugin);
	ASSERT_EQ(sites.size(), 4u);
	EXPECT_EQ(sites.back().key, &app::tracing)
		<< "the plugin's inline key binds to the program's";
	expect_tracing_sites(true, sites, "in a plugin loaded while on");
	key_view v = snapshot_of("cxx_tracing");
	EXPECT_EQ(v.copies, 1);
	EXPECT_EQ(v.info.nsites, program_sites + 2 * library_sites)
		<< "the plugin's sites added";
	EXPECT_EQ(v.info.nobjects, PATCHED(3u));
	app::tracing.disable();
	expect_tracing_sites(false, sites, "after disable with the plugin");
	EXPECT_EQ(dlclose(plugin), 0);
	v = snapshot_of("cxx_tracing");
	EXPECT_EQ(v.info.nsites, program_sites + library_sites)
		<< "the plugin's sites went with it";
}

// ---- flips while other threads run the sites ----------------------------------------

TEST(CxxKeys, FlipsWhileOtherThreadsRunEverySite)
{
	auto sites = all_tracing_sites();
	std::atomic<unsigned long> seq{ 0 }, checked{ 0 }, wrong{ 0 };
	std::atomic<bool> stop{ false };
	std::atomic<int> started{ 0 };
	auto runner = [&] {
		unsigned long c = 0, w = 0;
		started.fetch_add(1, std::memory_order_acq_rel);
		while (!stop.load(std::memory_order_acquire)) {
			for (const auto &s : sites) {
				for (auto fn : { s.unlikely_site, s.likely_site, s.inline_site }) {
					unsigned long s1 = seq.load(std::memory_order_acquire);
					bool on = app::tracing.enabled();
					bool got = fn();
					std::atomic_thread_fence(std::memory_order_acquire);
					if ((s1 & 1) || seq.load(std::memory_order_relaxed) != s1)
						continue;
					c++;
					w += got != on;
				}
			}
		}
		checked += c;
		wrong += w;
	};
	std::vector<std::thread> threads;
	for (int i = 0; i < 3; i++)
		threads.emplace_back(runner);
	// The flips start once every runner runs: without a port (the portable
	// backend) 200 flips take a few milliseconds, which on a loaded machine
	// could end before a runner was first scheduled (0 checked).
	while (started.load(std::memory_order_acquire) < 3)
		std::this_thread::yield();
	const int flips = 200;
	for (int i = 0; i < flips; i++) {
		seq.fetch_add(1, std::memory_order_acq_rel);
		if (i % 3 == 0) {
			std::error_code ec;
			app::tracing.set(!app::tracing.enabled(), ec);
			EXPECT_FALSE(ec) << ec.message();
		} else if (app::tracing.enabled()) {
			app::tracing.dec();
		} else {
			app::tracing.inc();
		}
		seq.fetch_add(1, std::memory_order_acq_rel);
		for (int y = 0; y < 3; y++)
			std::this_thread::yield();
		expect_tracing_sites(app::tracing.enabled(), sites, "in the flipping thread");
	}
	stop = true;
	for (auto &t : threads)
		t.join();
	std::printf("%d flips; %lu site runs checked between flips in 3 other "
		    "threads, %lu wrong\n", flips, checked.load(), wrong.load());
	EXPECT_EQ(wrong.load(), 0u);
	EXPECT_GT(checked.load(), static_cast<unsigned long>(flips));
	EXPECT_FALSE(app::tracing.enabled()) << "an even number of flips";
}

// ---- no allocation on the fast paths --------------------------------------------------

TEST(CxxKeys, FastPathsDoNotAllocate)
{
	key_guard held{ app::tracing }; // the key is on: inc/dec take the fast path
	bool sink = false;
	std::error_code ec;
	unsigned long before = news.load();
	for (int i = 0; i < 1000; i++) {
		sink ^= statickeys::unlikely<app::tracing>();
		sink ^= statickeys::likely<app::fast_path>();
		key_guard g{ app::tracing };
		key_guard h{ app::tracing, ec };
		app::tracing.inc(ec);
		app::tracing.dec(ec);
		sink ^= app::tracing.enabled();
	}
	EXPECT_EQ(news.load(), before) << "operator new was called";
	EXPECT_EQ(app::tracing.count(), 1);
	(void)sink;
}
