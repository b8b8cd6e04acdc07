/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * statickeys.hpp - static keys for C++17: keys as objects, branches as
 * templates, references as RAII guards, errors as std::error_code or
 * std::system_error.
 *
 *	#include <statickeys.hpp>
 *
 *	namespace app {
 *	inline statickeys::key_false tracing{"tracing"};  // in a header: one key
 *	}
 *
 *	void hot_path()
 *	{
 *		if (statickeys::unlikely<app::tracing>())  // one 5-byte NOP while off
 *			trace_event();
 *	}
 *
 *	{
 *		statickeys::key_guard on{app::tracing};  // inc() now, dec() at '}'
 *		run_traced_request();
 *	}
 *	app::tracing.enable();          // throws std::system_error on failure
 *	std::error_code ec;
 *	app::tracing.disable(ec);       // or reports it in ec, noexcept
 *
 * The sites, the runtime and its guarantees are those of the C API
 * (statickeys.h); a key here is a C key in a C++ wrapper, and the C calls
 * accept it through native().
 *
 * Rules the compiler enforces, like the C API's:
 * - likely<K>() / unlikely<K>() take a key object with static storage
 *   duration as a template argument: a key known only at run time (a
 *   reference or pointer parameter, a local key) does not compile, because a
 *   site records its key's address at link time.
 * - Only key_true / key_false objects are keys; a const key does not compile
 *   (it could be placed in read-only memory, and a key changes).
 * - Keys cannot be copied or moved: a copy would have no sites.
 * - The name must be a string literal, so a key is constant-initialised:
 *   it is ready, with its state, before any constructor runs.  Mark keys
 *   SK_CONSTINIT to have the compiler check that too (C++20 constinit, or
 *   clang's require_constant_initialization).
 * Names: a key is listed under its name, in sk_keys_snapshot() and skctl,
 * by every object that has one of its sites; list a key that has no site
 * yet with statickeys::list<K>().
 */
#ifndef STATICKEYS_HPP
#define STATICKEYS_HPP

#include <cstddef>
#include <initializer_list>
#include <system_error>
#include <type_traits>
#include <utility>

#include "statickeys.h"

#if defined(__cpp_constinit)
#define SK_CONSTINIT constinit
#elif defined(__clang__)
#define SK_CONSTINIT __attribute__((require_constant_initialization))
#else
#define SK_CONSTINIT
#endif

namespace statickeys {

template <bool InitiallyOn> class basic_key;
class key_false;
class key_true;

/** is_key_v<T> - whether T is a key type (cv-qualifiers ignored). */
template <typename T> struct is_key : std::false_type {};
template <> struct is_key<key_false> : std::true_type {};
template <> struct is_key<key_true> : std::true_type {};
template <typename T>
inline constexpr bool is_key_v = is_key<std::remove_cv_t<T>>::value;

namespace detail {

/* A negative errno from the C API as a std::error_code (generic category,
 * so it compares equal to std::errc values). */
inline std::error_code to_error(int r) noexcept
{
	return r < 0 ? std::error_code(-r, std::generic_category())
		     : std::error_code();
}

inline void throw_if(int r, const char *what)
{
	if (r < 0)
		throw std::system_error(to_error(r), what);
}

/*
 * The key's entry in its object's "sk_keys" section, so the runtime knows its
 * name, like SK_DEFINE_KEY_*'s.  Written by the assembler next to each site
 * (gcc ignores section attributes on template variables), in the section
 * group of the code ("?"), so a discarded COMDAT copy takes its entry with
 * it; an object may list a key several times, and the runtime counts it
 * once.  The flags are those gcc gives the C listing in the same file (a
 * relocated pointer is writable in position-independent code), so the two
 * share one section.  ".quad 0 + key": a key in a register must not
 * assemble.
 */
#if defined(__GNUC__) && defined(__ELF__) &&                                 \
	(defined(__LP64__) || defined(__i386__))
#if defined(__aarch64__) /* arch hook: gcc and clang take "S" with %c */
#define SK__CXX_KEY_SYM "%c0"
#define SK__CXX_KEY_CONSTRAINT "S"
#elif defined(__riscv) || defined(__loongarch__) /* arch hook: "i" */
#define SK__CXX_KEY_SYM "%0"
#define SK__CXX_KEY_CONSTRAINT "i"
#elif defined(__clang__)
#define SK__CXX_KEY_SYM "%c0"
#define SK__CXX_KEY_CONSTRAINT "s"
#else
#define SK__CXX_KEY_SYM "%p0"
#define SK__CXX_KEY_CONSTRAINT "X"
#endif
#ifdef __i386__ /* arch hook: 4-byte pointers */
#define SK__CXX_PTR ".long"
#define SK__CXX_PTR_SIZE "4"
#else
#define SK__CXX_PTR ".quad"
#define SK__CXX_PTR_SIZE "8"
#endif
#if defined(__PIC__) || defined(__PIE__)
/* Retained like the C listing (statickeys/key.h: lld and --gc-sections). */
#define SK__CXX_LISTING_FLAGS "\"aw?" SK__RETAIN_FLAG "\""
#else
#define SK__CXX_LISTING_FLAGS "\"a?" SK__RETAIN_FLAG "\""
#endif
#define SK__CXX_LISTING(keyp)                                                \
	__asm__(".pushsection sk_keys, " SK__CXX_LISTING_FLAGS "\n\t"        \
		".balign " SK__CXX_PTR_SIZE "\n\t"                            \
		SK__CXX_PTR " 0 + " SK__CXX_KEY_SYM "\n\t"                   \
		".popsection" : : SK__CXX_KEY_CONSTRAINT(keyp))
#elif defined(__GNUC__) && !defined(__clang__) && defined(_WIN32) &&         \
	defined(__x86_64__) && defined(__SEH__)
/* PE (mingw-w64 gcc): the listing entry in "sk_keys$m", between section_pe.h's
 * markers, back to the function's section with .seh_code, as a site does
 * (statickeys/arch/asm_goto.h); the reference from ".xdata$sk" keeps it
 * under --gc-sections. */
#define SK__CXX_LISTING(keyp)                                                \
	__asm__(".section sk_keys$m, \"dr\"\n\t"                              \
		".balign 8\n\t"                                              \
		"5: .quad 0 + %p0\n\t"                                        \
		".section .xdata$sk, \"dr\"\n\t"                              \
		".rva 5b\n\t"                                                 \
		".seh_code" : : "X"(keyp))
#else
#define SK__CXX_LISTING(keyp) ((void)0)
#endif

template <auto &Key> constexpr void check_key()
{
	using K = std::remove_reference_t<decltype(Key)>;
	static_assert(is_key_v<K>, "statickeys: the template argument must be a "
				   "statickeys::key_true or key_false object");
	static_assert(!std::is_const_v<K>, "statickeys: a key cannot be const "
					   "(its state changes)");
}

} // namespace detail

template <auto &Key> bool likely() noexcept;
template <auto &Key> bool unlikely() noexcept;
template <auto &Key> void list() noexcept;

/**
 * basic_key - what key_true and key_false share; define keys with those.
 *
 * Every changing call comes in two forms: one throws std::system_error, the
 * other is noexcept and sets an error_code (cleared on success).  The codes
 * are those of the C API (statickeys/key.h), as std::errc values:
 * invalid_argument, resource_deadlock_would_occur (from a signal handler or
 * inside an update), device_or_resource_busy, value_too_large (inc at
 * INT_MAX), result_out_of_range (dec at zero), operation_not_permitted...
 */
template <bool InitiallyOn> class basic_key {
public:
	/** Whether the key starts on: its type, known at compile time. */
	static constexpr bool initially_on = InitiallyOn;

protected:
	/* A key named @name (shown by skctl), with an optional description. */
	template <std::size_t N>
	constexpr explicit basic_key(const char (&name)[N]) noexcept
		: raw_{ InitiallyOn, SK__KEY_MAGIC | (InitiallyOn ? SK__KEY_INIT_TRUE : 0u),
			name, nullptr }
	{
	}
	template <std::size_t N, std::size_t M>
	constexpr basic_key(const char (&name)[N], const char (&description)[M]) noexcept
		: raw_{ InitiallyOn, SK__KEY_MAGIC | (InitiallyOn ? SK__KEY_INIT_TRUE : 0u),
			name, description }
	{
	}

public:
	basic_key(const basic_key &) = delete;
	basic_key &operator=(const basic_key &) = delete;

	/** enable() - turn the key on; a no-op if it is on. */
	void enable() { detail::throw_if(sk__key_enable(&raw_), "statickeys: enable"); }
	void enable(std::error_code &ec) noexcept { ec = detail::to_error(sk__key_enable(&raw_)); }
	/** disable() - turn it off; busy if several inc() references are held. */
	void disable() { detail::throw_if(sk__key_disable(&raw_), "statickeys: disable"); }
	void disable(std::error_code &ec) noexcept { ec = detail::to_error(sk__key_disable(&raw_)); }
	/** inc() - take a reference: the key is on while any is held. */
	void inc() { detail::throw_if(sk__key_inc(&raw_), "statickeys: inc"); }
	void inc(std::error_code &ec) noexcept { ec = detail::to_error(sk__key_inc(&raw_)); }
	/** dec() - drop a reference: the key turns off when the last one goes. */
	void dec() { detail::throw_if(sk__key_dec(&raw_), "statickeys: dec"); }
	void dec(std::error_code &ec) noexcept { ec = detail::to_error(sk__key_dec(&raw_)); }
	/** set() - enable() or disable(). */
	void set(bool on) { on ? enable() : disable(); }
	void set(bool on, std::error_code &ec) noexcept { on ? enable(ec) : disable(ec); }

	/** enabled() - whether the key is on (an update in progress reads as on). */
	[[nodiscard]] bool enabled() const noexcept { return sk__key_enabled(&raw_); }
	/* No operator bool: "if (key)" would read the count where a site was
	 * meant; branch with likely<K>() / unlikely<K>(). */
	/** count() - the reference count (1 while the first enable patches). */
	[[nodiscard]] int count() const noexcept { return sk__key_count(&raw_); }
	/** name(), description() - as given to the constructor. */
	[[nodiscard]] constexpr const char *name() const noexcept { return raw_.name; }
	[[nodiscard]] constexpr const char *description() const noexcept { return raw_.description; }

	/** native() - the C key, for sk_commit(), sk_key_info and the C calls. */
	[[nodiscard]] sk_key *native() noexcept { return &raw_; }
	[[nodiscard]] const sk_key *native() const noexcept { return &raw_; }

	/** change() - an entry for statickeys::commit(). */
	[[nodiscard]] sk_key_change change(bool on) noexcept { return { &raw_, on }; }

private:
	/* Sites record the address of raw_; the branch templates need it as a
	 * constant expression, hence the friends rather than native(). */
	template <auto &Key> friend bool likely() noexcept;
	template <auto &Key> friend bool unlikely() noexcept;
	template <auto &Key> friend void list() noexcept;

	sk_key raw_;
};

/** key_false - a key that starts off (a NOP at unlikely<K>() sites). */
class key_false final : public basic_key<false> {
public:
	template <std::size_t N>
	constexpr explicit key_false(const char (&name)[N]) noexcept : basic_key(name)
	{
	}
	template <std::size_t N, std::size_t M>
	constexpr key_false(const char (&name)[N], const char (&description)[M]) noexcept
		: basic_key(name, description)
	{
	}
};

/** key_true - a key that starts on (a NOP at likely<K>() sites). */
class key_true final : public basic_key<true> {
public:
	template <std::size_t N>
	constexpr explicit key_true(const char (&name)[N]) noexcept : basic_key(name)
	{
	}
	template <std::size_t N, std::size_t M>
	constexpr key_true(const char (&name)[N], const char (&description)[M]) noexcept
		: basic_key(name, description)
	{
	}
};

/*
 * The branches.  The truth table is that of the C API (statickeys/key.h):
 * the compiled instruction follows from the key's type and the hint, and
 * the runtime rewrites it when the key changes.
 */

/** likely<K>() - true when K is on; the on path is the fall-through. */
template <auto &Key> [[nodiscard]] inline bool likely() noexcept
{
	detail::check_key<Key>();
	SK__CXX_LISTING(&Key.raw_);
	constexpr int initial = std::remove_reference_t<decltype(Key)>::initially_on;
	return __builtin_expect(!SK__BRANCH(&Key.raw_, 1, initial ^ 1), 1);
}

/** unlikely<K>() - true when K is on; the off path is the fall-through. */
template <auto &Key> [[nodiscard]] inline bool unlikely() noexcept
{
	detail::check_key<Key>();
	SK__CXX_LISTING(&Key.raw_);
	constexpr int initial = std::remove_reference_t<decltype(Key)>::initially_on;
	return __builtin_expect(SK__BRANCH(&Key.raw_, 0, initial ^ 0), 0);
}

/**
 * list<K>() - list K under its name in this object even if it has no site
 * here (a site does it too).  Emits no instruction: call it anywhere.
 */
template <auto &Key> inline void list() noexcept
{
	detail::check_key<Key>();
	SK__CXX_LISTING(&Key.raw_);
}

/**
 * key_guard - holds one inc() reference on a key for its lifetime.
 *
 *	statickeys::key_guard g{key};          // throws if inc() fails
 *	statickeys::key_guard g{key, ec};      // or not: g.owns() says
 *
 * Movable (a function can return one), not copyable.  The destructor drops
 * the reference; it cannot report an error, and the only ones dec() can
 * meet there (-EDEADLK inside a signal handler or an update hook, -EBUSY
 * while another thread blocks SIGTRAP) leave the key on: call reset(ec)
 * first where that matters.
 */
class [[nodiscard]] key_guard {
public:
	template <bool B> explicit key_guard(basic_key<B> &key) : key_(key.native())
	{
		detail::throw_if(sk__key_inc(key_), "statickeys: key_guard");
	}
	template <bool B> key_guard(basic_key<B> &key, std::error_code &ec) noexcept
		: key_(key.native())
	{
		ec = detail::to_error(sk__key_inc(key_));
		if (ec)
			key_ = nullptr;
	}
	key_guard(key_guard &&other) noexcept : key_(std::exchange(other.key_, nullptr)) {}
	key_guard &operator=(key_guard &&other) noexcept
	{
		if (this != &other) {
			reset();
			key_ = std::exchange(other.key_, nullptr);
		}
		return *this;
	}
	key_guard(const key_guard &) = delete;
	key_guard &operator=(const key_guard &) = delete;
	~key_guard() { reset(); }

	/** owns() - whether this guard holds a reference. */
	[[nodiscard]] bool owns() const noexcept { return key_ != nullptr; }
	explicit operator bool() const noexcept { return owns(); }

	/** reset() - drop the reference now (errors as dec(); see above). */
	void reset() noexcept
	{
		if (key_)
			(void)sk__key_dec(std::exchange(key_, nullptr));
	}
	void reset(std::error_code &ec) noexcept
	{
		ec.clear();
		if (!key_)
			return;
		ec = detail::to_error(sk__key_dec(key_));
		if (!ec)
			key_ = nullptr; /* on error the reference is still held */
	}

private:
	sk_key *key_;
};

/**
 * commit() - set several keys in one batch (sk_commit): every site of every
 * key changes in one int3 protocol run, all or nothing.
 *
 *	statickeys::commit({ tracing.change(true), stats.change(false) });
 */
inline void commit(std::initializer_list<sk_key_change> changes)
{
	detail::throw_if(sk_commit(changes.begin(), changes.size()), "statickeys: commit");
}
inline void commit(std::initializer_list<sk_key_change> changes, std::error_code &ec) noexcept
{
	ec = detail::to_error(sk_commit(changes.begin(), changes.size()));
}

/**
 * static_call<R(A...)> - a typed handle on a static call defined with
 * SK_DEFINE_STATIC_CALL (statickeys/static_call.h): update() takes only a
 * function of the call's type (or nullptr), errors as for keys.
 *
 *	SK_DEFINE_STATIC_CALL(log_line, log_plain);
 *	auto log = SK_STATIC_CALL_REF(log_line);    // static_call<int(const char *)>
 *	log.update(log_json);                       // throws std::system_error
 *	sk_static_call(log_line)("hello");          // the direct call
 *
 * Calls through the handle (log("hi")) load the target like a function
 * pointer; the direct call is sk_static_call(name)(...).
 */
template <typename F> class static_call;
template <typename R, typename... A> class static_call<R(A...)> {
public:
	using function = R (*)(A...);

	constexpr explicit static_call(sk_static_call_key &key) noexcept : key_(&key) {}

	void update(function f) { detail::throw_if(sk__static_call_update(key_, reinterpret_cast<void *>(f)), "statickeys: static call update"); }
	void update(function f, std::error_code &ec) noexcept
	{
		ec = detail::to_error(sk__static_call_update(key_, reinterpret_cast<void *>(f)));
	}
	/* The target of a RET0 static call (sk_static_call_return0). */
	void update_return0() { detail::throw_if(sk__static_call_update(key_, reinterpret_cast<void *>(&sk_static_call_return0)), "statickeys: static call update"); }
	function query() const noexcept { return reinterpret_cast<function>(sk__static_call_load(key_)); }
	R operator()(A... args) const { return query()(std::forward<A>(args)...); }
	/* A change for commit_calls(). */
	sk_static_call_change change(function f) const noexcept { return { key_, reinterpret_cast<void *>(f) }; }
	sk_static_call_key *native() const noexcept { return key_; }

private:
	sk_static_call_key *key_;
};

/* SK_STATIC_CALL_REF(name) - the typed handle of static call @name. */
#define SK_STATIC_CALL_REF(name)                                             \
	::statickeys::static_call<std::remove_pointer_t<decltype(&SK__SC_TRAMP(name))>>(SK__SC_KEY(name))

/** commit_calls() - keys and static calls in one batch (sk_commit_calls). */
inline void commit_calls(std::initializer_list<sk_key_change> keys,
			 std::initializer_list<sk_static_call_change> calls)
{
	detail::throw_if(sk_commit_calls(keys.begin(), keys.size(), calls.begin(), calls.size()),
			 "statickeys: commit");
}

} // namespace statickeys

#endif /* STATICKEYS_HPP */
