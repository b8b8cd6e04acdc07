/* SPDX-License-Identifier: MIT OR Apache-2.0 */
// A C++ program built against an installed statickeys with both front ends:
// statickeys.hpp and the kernel-style <statickeys/linux.h>.  Exit 0 when a
// key of each flips its site both ways.
#include <statickeys.hpp>
#include <statickeys/linux.h>

#include <cstdio>

inline statickeys::key_false installed_cxx_key{"installed_cxx_key"};
DEFINE_STATIC_KEY_FALSE(installed_kernel_key);

__attribute__((noinline)) static bool cxx_site()
{
	return statickeys::unlikely<installed_cxx_key>();
}

__attribute__((noinline)) static bool kernel_site()
{
	return static_branch_unlikely(&installed_kernel_key);
}

int main()
{
	bool ok = !cxx_site() && !kernel_site();
	{
		statickeys::key_guard on{installed_cxx_key};
		ok &= static_branch_enable(&installed_kernel_key) == 0;
		ok &= cxx_site() && kernel_site();
	}
	ok &= static_branch_disable(&installed_kernel_key) == 0;
	ok &= !cxx_site() && !kernel_site();
	std::printf("installed C++ and kernel-style headers: %s\n",
		    ok ? "work" : "BROKEN");
	return ok ? 0 : 1;
}
