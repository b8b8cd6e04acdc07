/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * tests/dyndbg/fork.c - dynamic debug across fork(): a child starts with
 * its parent's statements as they were (an enabled one prints in the
 * child), and from then on each process's queries change its own
 * statements only, as each has its own copy of the code and the
 * descriptors: the child's query turns one off and another on in the child
 * while the parent's stay as they were, and a query the parent makes after
 * the fork does not reach the child.  Each process checks what it prints.
 */
#include <errno.h>
#include <statickeys.h>
#include <sys/wait.h>

#include "../check.h"
#include "capture.h"
#include "catalogue.h"

static void before(void) { sk_pr_debug("before %d\n", (int)getpid()); }
static void child_only(void) { sk_pr_debug("child_only\n"); }
static void parent_later(void) { sk_pr_debug("parent_later\n"); }

static char out[4096];

#define CAPTURED(code)                                                       \
	do {                                                                 \
		struct capture c_;                                           \
		capture_begin(&c_);                                          \
		code;                                                        \
		capture_end(&c_, out, sizeof(out));                          \
	} while (0)

/* What each function prints now, in @got ("b": before, "c": child_only,
 * "p": parent_later, in that order). */
static const char *printing(char got[4])
{
	size_t n = 0;

	CAPTURED(before());
	if (strstr(out, "before "))
		got[n++] = 'b';
	CAPTURED(child_only());
	if (!strcmp(out, "child_only\n"))
		got[n++] = 'c';
	CAPTURED(parent_later());
	if (!strcmp(out, "parent_later\n"))
		got[n++] = 'p';
	got[n] = '\0';
	return got;
}

/* The child: told by a byte on @go that the parent has made its query. */
static int child(int go)
{
	char got[4], flags[16], byte;

	CAPTURED(before());
	char want[64];
	snprintf(want, sizeof(want), "before %d\n", (int)getpid());
	CHECK(!strcmp(out, want), "the parent's enabled statement prints in the child: \"%s\"",
	      out);
	CHECK(sk_dyndbg_query("func before -p; func child_only +p") == 2,
	      "the child's query matched");
	CHECK(!strcmp(printing(got), "c"), "the child's query applies in the child: %s", got);
	CHECK(!strcmp(flags_of("child_only", flags), "p"),
	      "the child's catalogue shows it: %s", flags);
	CHECK(read(go, &byte, 1) == 1, "the parent's word");
	CHECK(!strcmp(printing(got), "c"),
	      "the parent's query after the fork leaves the child alone: %s", got);
	printf("child: ");
	return check_summary();
}

int main(void)
{
	char got[4];
	int go[2], status;

	CHECK(sk_dyndbg_query("func before +p") == 1, "func before matched");
	CHECK(!strcmp(printing(got), "b"), "the parent prints before(): %s", got);
	if (pipe(go) != 0)
		skip_test("no pipe");
	fflush(stdout);
	pid_t pid = fork();
	if (pid < 0)
		skip_test("fork() failed");
	if (pid == 0) {
		close(go[1]);
		int r = child(go[0]);
		fflush(stdout);
		_exit(r);
	}
	close(go[0]);
	CHECK(sk_dyndbg_query("func parent_later +p") == 1, "the parent's later query");
	CHECK(!strcmp(printing(got), "bp"), "the parent prints its own: %s", got);
	CHECK(write(go[1], "g", 1) == 1, "the word to the child");
	close(go[1]);
	CHECK(waitpid(pid, &status, 0) == pid, "the child waited for");
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	      "the child's checks passed (status %#x)", status);
	CHECK(!strcmp(printing(got), "bp"),
	      "the child's query left the parent's statements as they were: %s", got);
	return check_summary();
}
