/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * The C half of a process mixing C and Rust: keys defined here are tested
 * from Rust, keys defined in Rust (#[no_mangle]) are tested here.
 */
#include <statickeys.h>

SK_DEFINE_KEY_FALSE_DESC(c_false_key, "a C key that starts off");
SK_DEFINE_KEY_TRUE(c_true_key);
SK_DECLARE_KEY_FALSE(RUST_FALSE_KEY);
SK_DECLARE_KEY_TRUE(RUST_TRUE_KEY);

__attribute__((noinline)) int c_sites_of_c_keys(void)
{
	return (sk_branch_unlikely(&c_false_key) ? 1 : 0) |
	       (sk_branch_likely(&c_false_key) ? 2 : 0) |
	       (sk_branch_unlikely(&c_true_key) ? 4 : 0) |
	       (sk_branch_likely(&c_true_key) ? 8 : 0);
}

__attribute__((noinline)) int c_sites_of_rust_keys(void)
{
	return (sk_branch_unlikely(&RUST_FALSE_KEY) ? 1 : 0) |
	       (sk_branch_likely(&RUST_FALSE_KEY) ? 2 : 0) |
	       (sk_branch_unlikely(&RUST_TRUE_KEY) ? 4 : 0) |
	       (sk_branch_likely(&RUST_TRUE_KEY) ? 8 : 0);
}

int c_set(struct sk_key *key, int on)
{
	return on ? sk_key_enable(key) : sk_key_disable(key);
}

#include <stddef.h>

/* The C layouts the Rust declarations (statickeys-sys) must match. */
size_t c_layout(int what)
{
	switch (what) {
	case 0: return sizeof(struct sk_key);
	case 1: return offsetof(struct sk_key, name);
	case 2: return sizeof(struct sk_key_false);
	case 3: return sizeof(struct sk__site_entry);
	case 4: return sizeof(struct sk__object_handle);
	case 5: return sizeof(struct sk_key_change);
	case 6: return sizeof(struct sk_stats);
	case 7: return offsetof(struct sk_stats, writer);
	default: return 0;
	}
}
