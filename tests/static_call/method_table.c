/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * method_table.c - static calls defined from a type, where there is no
 * function to take it from: an allocator's method table, as SQLite's
 * sqlite3_mem_methods is (a struct of function pointers), converted to
 * static calls with the _TYPE spellings.  Built as C and as C++
 * (method_table.cpp).
 *
 * Checked: each _TYPE form (define, _NULL, _RET0, declare) has the
 * member's type (a call with its arguments compiles, and an update to a
 * function of that type does); the _NULL one (void) calls nothing through
 * sk_static_call_cond until updated, the RET0 ones return 0 (NULL); after
 * updates every call lands in the table's functions.
 */
#include <stdlib.h>
#include <string.h>

#include <statickeys.h>

#include "../check.h"

struct mem_methods {
	void *(*xMalloc)(int);
	void (*xFree)(void *);
	int (*xSize)(void *);
	void (*xTrace)(const char *);
};

/* The type of a member, from the struct type alone. */
#define MEMBER_TYPE(m) __typeof__(((struct mem_methods *)0)->m)

static int mallocs, frees, traces;

static void *counting_malloc(int n)
{
	mallocs++;
	return malloc((size_t)n);
}

static void counting_free(void *p)
{
	frees++;
	free(p);
}

static int fixed_size(void *p)
{
	return p ? 16 : 0;
}

static void count_trace(const char *what)
{
	traces += (int)strlen(what) > 0;
}

static const struct mem_methods table = { counting_malloc, counting_free,
					  fixed_size, count_trace };

typedef void (*free_fn)(void *);

/* A call that returns a value has no NULL form in C++ (the type refuses
 * it): RET0, an allocator that fails (returns NULL) until updated. */
SK_DEFINE_STATIC_CALL_RET0_TYPE(mem_malloc, MEMBER_TYPE(xMalloc));
SK_DEFINE_STATIC_CALL_TYPE(mem_free, free_fn, free);
SK_DEFINE_STATIC_CALL_RET0_TYPE(mem_size, MEMBER_TYPE(xSize));
SK_DEFINE_STATIC_CALL_NULL_TYPE(mem_trace, MEMBER_TYPE(xTrace));
/* What another file would write in a header. */
SK_DECLARE_STATIC_CALL_TYPE(mem_free, free_fn);

int main(void)
{
	sk_static_call_cond(mem_trace)("before");
	CHECK(traces == 0, "the _NULL call called nothing before its update");
	CHECK(sk_static_call(mem_size)(NULL) == 0, "the RET0 call returns 0");
	CHECK(sk_static_call(mem_malloc)(16) == NULL,
	      "the RET0 allocator fails until updated");

	CHECK(sk_static_call_update(mem_malloc, table.xMalloc) == 0,
	      "update from the table's member");
	CHECK(sk_static_call_update(mem_free, table.xFree) == 0, "xFree");
	CHECK(sk_static_call_update(mem_size, table.xSize) == 0, "xSize");
	CHECK(sk_static_call_update(mem_trace, table.xTrace) == 0, "xTrace");

	void *p = sk_static_call(mem_malloc)(32);
	CHECK(p != NULL && mallocs == 1, "malloc through the static call");
	CHECK(sk_static_call(mem_size)(p) == 16, "xSize through it");
	sk_static_call(mem_free)(p);
	CHECK(frees == 1, "free through the static call");
	sk_static_call_cond(mem_trace)("after");
	CHECK(traces == 1, "the _NULL call now calls its target");
	CHECK(sk_static_call_query(mem_free) == table.xFree,
	      "query gives the member's type and value");
	return check_summary();
}
