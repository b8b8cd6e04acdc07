/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * tests/link/double_register.c - one object registered through two handles
 * counts once.
 *
 * A program mixing C and Rust has two registration constructors for the
 * same object (the C header's and the Rust crate's), each with its own
 * handle and the same __start_/__stop_ bounds.  The second must not add the
 * object's sites again (each flip would write them twice and the trap index
 * would list them twice), and the object must stay registered until the
 * last handle goes.
 */
#include <statickeys.h>

#include "../check.h"

SK_DEFINE_KEY_FALSE(dr_key);

__attribute__((noinline)) static int site(void)
{
	return sk_branch_unlikely(&dr_key) ? 1 : 0;
}

static struct sk__object_handle second;

static unsigned long long written(void)
{
	struct sk_stats st;

	sk_stats_get(&st);
	return (unsigned long long)st.sites_written;
}

static int flip_cost(void)
{
	unsigned long long before = written();
	CHECK(sk_key_enable(&dr_key) == 0 && site() == 1, "enable reaches site");
	CHECK(sk_key_disable(&dr_key) == 0 && site() == 0, "disable reaches site");
	return (int)(written() - before);
}

int main(void)
{
	int once = flip_cost();
	CHECK(once == 2, "one site, two flips: 2 writes (got %d)", once);

	sk__object_register(&second, __start_sk_sites, __stop_sk_sites,
			    __start_sk_keys, __stop_sk_keys);
	int twice = flip_cost();
	CHECK(twice == 2, "registered twice, still 2 writes (got %d)", twice);
	CHECK(sk_key_find("dr_key") == &dr_key.key, "key still named once");
	struct sk_key_info info, *storage = NULL;
	CHECK(sk_key_info_get("dr_key", &info, &storage) == 0 &&
		      info.nsites == 1 && info.nobjects == 1,
	      "the key has 1 site in 1 object, not 2 (got %zu in %zu)",
	      storage ? info.nsites : 0, storage ? info.nobjects : 0);
	sk_keys_snapshot_free(storage);

	sk__object_unregister(&second);
	CHECK(flip_cost() == 2, "after the second handle left, the first "
				"still holds the object");
	printf("double registration counted once\n");
	return check_summary();
}
