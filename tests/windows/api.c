/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * api.c - the whole C API on Windows (run under wine), on the backend the
 * program was built for: x86-64 patched sites (each site's 5 bytes are
 * read where the linker put them: a NOP5 while its branch falls through, a
 * JMP rel32 to its target while it jumps), or flag tests where the
 * compiler cannot emit sites (SK_HAVE_PATCHED_SITES 0): every key type and
 * site kind follows its key, references nest,
 * misuse is refused with its error, keys are found by name and listed in
 * snapshots (with the program's file), commits are all or nothing, the
 * counters and the backend are reported, the control socket says -ENOTSUP,
 * and STATICKEYS sets the start-up state (run with SK_EXPECT_ENV=1 and
 * STATICKEYS="env_on=1,env_off=0").
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <statickeys.h>

#include "../check.h"

SK_DEFINE_KEY_FALSE(false_key);
SK_DEFINE_KEY_TRUE(true_key);
SK_DEFINE_KEY_FALSE_DESC(described_key, "a key with a description");
SK_DEFINE_KEY_FALSE(env_on);
SK_DEFINE_KEY_TRUE(env_off);

#define SITES(key)                                                           \
	__attribute__((noinline)) static bool likely_##key(void)             \
	{                                                                    \
		return sk_branch_likely(&key) ? true : false;                \
	}                                                                    \
	__attribute__((noinline)) static bool unlikely_##key(void)           \
	{                                                                    \
		return sk_branch_unlikely(&key) ? true : false;              \
	}
SITES(false_key)
SITES(true_key)
SITES(described_key)

/* Each of this program's site entries (statickeys/section_pe.h): its code
 * holds the instruction its key's state asks for, and nothing else. */
static void site_bytes(const char *phase)
{
#if SK_HAVE_PATCHED_SITES
	static const unsigned char nop5[5] = { 0x0f, 0x1f, 0x44, 0x00, 0x00 };
	size_t n = 0, right = 0;

	for (const struct sk__site_entry *e = SK__SITES_START;
	     e < SK__SITES_STOP; e++) {
		if (!e->code)
			continue; /* padding */
		const unsigned char *code =
			(const unsigned char *)&e->code + e->code;
		const unsigned char *target =
			(const unsigned char *)&e->target + e->target;
		struct sk_key *key =
			*(struct sk_key *const *)((const char *)&e->key + e->key);
		bool jumps = sk__key_enabled(key) != (bool)(e->flags & 1);
		int32_t rel;
		memcpy(&rel, code + 1, sizeof(rel));
		n++;
		right += jumps ? code[0] == 0xe9 && code + 5 + rel == target
			       : memcmp(code, nop5, 5) == 0;
	}
	CHECK(n == 6 && right == n, "%s: %zu of %zu sites hold NOP5 or JMP as "
	      "their keys ask", phase, right, n);
#else
	(void)phase;
#endif
}

static void follows(const char *phase)
{
	site_bytes(phase);
	CHECK(likely_false_key() == sk_key_enabled(&false_key) &&
		      unlikely_false_key() == sk_key_enabled(&false_key),
	      "%s: false_key's sites follow it", phase);
	CHECK(likely_true_key() == sk_key_enabled(&true_key) &&
		      unlikely_true_key() == sk_key_enabled(&true_key),
	      "%s: true_key's sites follow it", phase);
	CHECK(likely_described_key() == sk_key_enabled(&described_key) &&
		      unlikely_described_key() ==
			      sk_key_enabled(&described_key),
	      "%s: described_key's sites follow it", phase);
}

static void key_matrix(void)
{
	CHECK(!sk_key_enabled(&false_key) && sk_key_enabled(&true_key),
	      "initial states follow the key types");
	follows("initial");
	CHECK(sk_key_enable(&false_key) == 0 && sk_key_disable(&true_key) == 0,
	      "enable/disable");
	CHECK(sk_key_enabled(&false_key) && !sk_key_enabled(&true_key),
	      "states changed");
	follows("inverted");
	CHECK(sk_key_enable(&false_key) == 0, "enable is idempotent");
	CHECK(sk_key_disable(&false_key) == 0 && sk_key_enable(&true_key) == 0,
	      "back");
	follows("back");
}

static void references(void)
{
	CHECK(sk_key_inc(&described_key) == 0 &&
		      sk_key_inc(&described_key) == 0,
	      "two references");
	CHECK(sk_key_count(&described_key) == 2 &&
		      sk_key_enabled(&described_key),
	      "count 2, on (count %d)", sk_key_count(&described_key));
	follows("two references");
	CHECK(sk_key_disable(&described_key) == -EBUSY,
	      "disable with two references: -EBUSY");
	CHECK(sk_key_dec(&described_key) == 0 &&
		      sk_key_enabled(&described_key),
	      "one reference left: still on");
	CHECK(sk_key_dec(&described_key) == 0 &&
		      !sk_key_enabled(&described_key),
	      "last reference gone: off");
	follows("references dropped");
	int r = sk_key_dec(&described_key);
	CHECK(r < 0 && !sk_key_enabled(&described_key),
	      "dec below zero is refused (%d)", r);
	struct sk_key not_a_key;
	memset(&not_a_key, 0, sizeof(not_a_key));
	CHECK(sk__key_enable(&not_a_key) == -EINVAL,
	      "zeroed memory is not a key: -EINVAL");
	CHECK(sk__key_enable(NULL) == -EINVAL, "NULL: -EINVAL");
}

static void names(void)
{
	CHECK(sk_key_find("false_key") == &false_key.key, "find by identifier");
	errno = 0;
	CHECK(sk_key_find("no_such_key") == NULL && errno == ENOENT,
	      "an unknown name: NULL, ENOENT");

	struct sk_key_info *v;
	size_t n;
	CHECK(sk_keys_snapshot(&v, &n) == 0, "snapshot");
	size_t seen = 0;
	for (size_t i = 0; i < n; i++) {
		if (v[i].key == &described_key.key) {
			CHECK(strcmp(v[i].description,
				     "a key with a description") == 0,
			      "description in the snapshot");
			const char *exe = strrchr(v[i].object, '/');
			CHECK(exe && strstr(exe, ".exe"),
			      "the object is the program's file: %s",
			      v[i].object);
			char qualified[300];
			snprintf(qualified, sizeof(qualified), "%s:true_key",
				 exe ? exe + 1 : "?");
			CHECK(sk_key_find(qualified) == &true_key.key,
			      "found as %s", qualified);
		}
		seen += v[i].key == &false_key.key ||
			v[i].key == &true_key.key ||
			v[i].key == &described_key.key ||
			v[i].key == &env_on.key || v[i].key == &env_off.key;
	}
	CHECK(seen == 5, "the snapshot lists the program's 5 keys (%zu of %zu)",
	      seen, n);
	sk_keys_snapshot_free(v);

	struct sk_key_info info, *storage;
	CHECK(sk_key_info_get("true_key", &info, &storage) == 0 &&
		      info.key == &true_key.key && info.enabled,
	      "sk_key_info_get");
	sk_keys_snapshot_free(storage);
}

static void commits(void)
{
	struct sk_key_change ok[] = { { &false_key.key, true },
				      { &true_key.key, false } };
	CHECK(sk_commit(ok, 2) == 0, "commit of two keys");
	CHECK(sk_key_enabled(&false_key) && !sk_key_enabled(&true_key),
	      "both changed");
	follows("after a commit");
	struct sk_key_change both_ways[] = { { &false_key.key, false },
					     { &false_key.key, true } };
	CHECK(sk_commit(both_ways, 2) == -EINVAL && sk_key_enabled(&false_key),
	      "one key asked both ways: -EINVAL, nothing changed");
	sk_key_inc(&described_key);
	sk_key_inc(&described_key);
	struct sk_key_change busy[] = { { &false_key.key, false },
					{ &described_key.key, false } };
	CHECK(sk_commit(busy, 2) == -EBUSY && sk_key_enabled(&false_key),
	      "a key with two references: -EBUSY, nothing changed");
	sk_key_dec(&described_key);
	sk_key_dec(&described_key);
	struct sk_key_change back[] = { { &false_key.key, false },
					{ &true_key.key, true } };
	CHECK(sk_commit(back, 2) == 0, "commit back");
	follows("after committing back");
}

static void stats(void)
{
	struct sk_stats s0, s1;

	CHECK(sk_stats_get(&s0) == 0, "sk_stats_get");
#if SK_HAVE_PATCHED_SITES
	CHECK(strcmp(s0.backend, "x86_64") == 0, "backend %s", s0.backend);
	CHECK(strcmp(s0.writer, "WriteProcessMemory") == 0, "writer %s",
	      s0.writer);
	CHECK(strcmp(s0.sync_method, "FlushProcessWriteBuffers") == 0,
	      "sync %s", s0.sync_method);
#else
	CHECK(strcmp(s0.backend, "portable") == 0, "backend %s", s0.backend);
	CHECK(strcmp(s0.sync_method, "none") == 0, "sync %s", s0.sync_method);
#endif
	sk_key_enable(&false_key);
	sk_key_disable(&false_key);
	CHECK(sk_stats_get(&s1) == 0 && s1.updates == s0.updates + 2,
	      "two updates counted (%llu -> %llu)",
	      (unsigned long long)s0.updates, (unsigned long long)s1.updates);
#if SK_HAVE_PATCHED_SITES
	/* false_key's 2 sites, one batch each way, 3 core syncs a batch. */
	CHECK(s1.batches - s0.batches == 2 &&
		      s1.sites_written - s0.sites_written == 4 &&
		      s1.core_syncs - s0.core_syncs == 6,
	      "2 batches, 4 sites, 6 core syncs (%llu, %llu, %llu)",
	      (unsigned long long)(s1.batches - s0.batches),
	      (unsigned long long)(s1.sites_written - s0.sites_written),
	      (unsigned long long)(s1.core_syncs - s0.core_syncs));
#else
	CHECK(s1.batches == 0 && s1.sites_written == 0 && s1.core_syncs == 0,
	      "nothing patched");
#endif
	struct sk_histogram h;
	CHECK(sk_stats_histogram(0, &h) == 0, "a histogram");
}

static void control(void)
{
	char buf[256];

	CHECK(sk_control_start(NULL) == -ENOTSUP,
	      "no control socket on Windows: -ENOTSUP");
	CHECK(sk_control_stop() == -ENOTSUP, "stop: -ENOTSUP");
	CHECK(sk_control_socket_path(buf, sizeof(buf)) == -ENOTSUP,
	      "socket path: -ENOTSUP");
	CHECK(sk_control_default_path(1, NULL, buf, sizeof(buf)) == -ENOTSUP,
	      "default path: -ENOTSUP");
}

static void environment(void)
{
	if (!getenv("SK_EXPECT_ENV")) {
		CHECK(!sk_key_enabled(&env_on) && sk_key_enabled(&env_off),
		      "without STATICKEYS the keys keep their types' states");
		return;
	}
	CHECK(sk_key_enabled(&env_on), "STATICKEYS turned env_on on");
	CHECK(!sk_key_enabled(&env_off), "STATICKEYS turned env_off off");
}

int main(void)
{
	environment();
	key_matrix();
	references();
	names();
	commits();
	stats();
	control();
	return check_summary();
}
