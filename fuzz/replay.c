/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * replay.c - run request_fuzz.c without libFuzzer: every file given on the
 * command line (a seed corpus), then a corpus generated from those seeds by
 * deterministic mutations (bit flips, inserted and deleted bytes, splices,
 * truncations, repeated and very long names).  Built with AddressSanitizer
 * and UndefinedBehaviorSanitizer when the compiler has them.
 *
 *	replay [-n GENERATED] FILE_OR_DIR...
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_SEEDS 256
#define INPUT_MAX 6000

static char *seeds[MAX_SEEDS];
static size_t seed_len[MAX_SEEDS], nseeds;

static void add_seed_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f || nseeds == MAX_SEEDS) {
		if (f)
			fclose(f);
		return;
	}
	char *buf = malloc(INPUT_MAX);
	size_t n = fread(buf, 1, INPUT_MAX, f);
	fclose(f);
	seeds[nseeds] = buf;
	seed_len[nseeds++] = n;
}

static void add_seeds(const char *path)
{
	struct stat st;
	if (stat(path, &st) != 0)
		return;
	if (!S_ISDIR(st.st_mode)) {
		add_seed_file(path);
		return;
	}
	DIR *d = opendir(path);
	struct dirent *e;
	char p[4096];
	while (d && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(p, sizeof(p), "%s/%s", path, e->d_name);
		add_seed_file(p);
	}
	if (d)
		closedir(d);
}

static uint64_t rng = 0x9e3779b97f4a7c15u;
static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* One mutation of @buf (length *@n, capacity INPUT_MAX). */
static void mutate(unsigned char *buf, size_t *n)
{
	static const char *const tokens[] = {
		" ", "=", "=1", "=0", "=on", "\n", "\r", "\t", "\0", "\xff",
		"fuzz_a", "fuzz_b", "fuzz_c", ":", "set ", "enable ", "get ",
		"\"", "\\", "%s%n",
	};
	size_t at = *n ? next() % (*n + 1) : 0;
	switch (next() % 6) {
	case 0: /* flip a bit */
		if (*n)
			buf[next() % *n] ^= (unsigned char)(1u << (next() % 8));
		break;
	case 1: { /* insert a token */
		const char *t = tokens[next() % (sizeof(tokens) / sizeof(*tokens))];
		size_t tl = *t ? strlen(t) : 1;
		if (*n + tl <= INPUT_MAX) {
			memmove(buf + at + tl, buf + at, *n - at);
			memcpy(buf + at, t, tl);
			*n += tl;
		}
		break;
	}
	case 2: /* truncate */
		*n = at;
		break;
	case 3: /* delete a run */
		if (at < *n) {
			size_t k = 1 + next() % (*n - at);
			memmove(buf + at, buf + at + k, *n - at - k);
			*n -= k;
		}
		break;
	case 4: { /* a long name */
		size_t k = next() % 5000;
		if (*n + k + 1 <= INPUT_MAX) {
			memmove(buf + at + k + 1, buf + at, *n - at);
			buf[at] = ' ';
			memset(buf + at + 1, 'a' + (int)(next() % 26), k);
			*n += k + 1;
		}
		break;
	}
	default: { /* splice another seed */
		size_t s = next() % nseeds, k = seed_len[s];
		if (*n + k <= INPUT_MAX) {
			memmove(buf + at + k, buf + at, *n - at);
			memcpy(buf + at, seeds[s], k);
			*n += k;
		}
	}
	}
}

int main(int argc, char **argv)
{
	long generated = 20000;
	int opt;

	while ((opt = getopt(argc, argv, "n:")) != -1)
		if (opt == 'n')
			generated = atol(optarg);
	for (int i = optind; i < argc; i++)
		add_seeds(argv[i]);
	if (nseeds == 0) {
		fprintf(stderr, "replay: no seed inputs found\n");
		return 1;
	}
	for (size_t i = 0; i < nseeds; i++)
		LLVMFuzzerTestOneInput((const uint8_t *)seeds[i], seed_len[i]);
	unsigned char *buf = malloc(INPUT_MAX);
	for (long i = 0; i < generated; i++) {
		size_t s = next() % nseeds, n = seed_len[s];
		memcpy(buf, seeds[s], n);
		for (int m = 1 + (int)(next() % 4); m > 0; m--)
			mutate(buf, &n);
		LLVMFuzzerTestOneInput(buf, n);
	}
#if defined(__SANITIZE_ADDRESS__)
	const char *checked = "no crash, no sanitizer report";
#else
	const char *checked = "no crash (built without sanitizers)";
#endif
	printf("replayed %zu seeds and %ld generated inputs: %s\n", nseeds,
	       generated, checked);
	free(buf);
	return 0;
}
