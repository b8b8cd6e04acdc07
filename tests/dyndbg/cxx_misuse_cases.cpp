/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* cxx_misuse_cases.cpp - class objects passed to a debug statement's
 * printf arguments must not compile, even where g++ only warns (a
 * string_view is trivially copyable and goes through "..." silently but
 * for -Wformat); tests/compile_fail.sh, MISUSE=0 is the correct use. */
//! 1|a std::string for %s|an argument is a class object
//! 2|a std::string_view for %s|an argument is a class object
//! 3|a std::string_view for %.*s's pointer|an argument is a class object
//! 4|a std::string in a class's statement|an argument is a class object
//! 5|a std::string_view in the kernel's pr_debug|an argument is a class object
//! 6|a std::string through __dynamic_pr_debug|an argument is a class object
//! 7|a std::string in a template's statement, once instantiated|an argument is a class object
#include <statickeys.h>
#include <statickeys/linux.h>

#include <string>
#include <string_view>

template <typename T> void show(const T &v)
{
#if MISUSE == 7
	sk_pr_debug("%s\n", v);
#else
	sk_pr_debug("%d\n", static_cast<int>(sizeof(v)));
#endif
}

void f(const std::string &s, std::string_view sv)
{
#if MISUSE == 1
	sk_pr_debug("%s\n", s);
#elif MISUSE == 2
	sk_pr_debug("%s\n", sv);
#elif MISUSE == 3
	sk_pr_debug("%.*s\n", static_cast<int>(sv.size()), sv);
#elif MISUSE == 4
	sk_pr_debug_class("net", "%s\n", s);
#elif MISUSE == 5
	pr_debug("%s\n", sv);
#elif MISUSE == 6
	DEFINE_DYNAMIC_DEBUG_METADATA(descriptor, "%s\n");
	if (DYNAMIC_DEBUG_BRANCH(descriptor))
		__dynamic_pr_debug(&descriptor, pr_fmt("%s\n"), s);
#else
	sk_pr_debug("%s %.*s\n", s.c_str(), static_cast<int>(sv.size()), sv.data());
	pr_debug("%s\n", s.c_str());
#endif
	show(s);
}
