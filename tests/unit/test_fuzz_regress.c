/*
 * tests/unit/test_fuzz_regress.c - replays the fuzz corpora without libFuzzer: every file of
 * tests/fuzz/corpus/NAME/ (seeds) and tests/fuzz/regress/NAME/ (inputs that once crashed,
 * kept by `make fuzz-smoke`) goes through target NAME once. A crash or a failed invariant
 * aborts this test; under `make asan` the sanitizers watch the replay too.
 *
 * Each target is included here with its entry point renamed, so one binary runs them all.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include "t.h"

#define FUZZ_ENTRY fuzz_sample
#include "../fuzz/fuzz_sample.c"
#undef FUZZ_ENTRY
#define FUZZ_ENTRY fuzz_window
#include "../fuzz/fuzz_window.c"
#undef FUZZ_ENTRY
#define FUZZ_ENTRY fuzz_kfilter
#include "../fuzz/fuzz_kfilter.c"
#undef FUZZ_ENTRY
#define FUZZ_ENTRY fuzz_elf
#include "../fuzz/fuzz_elf.c"
#undef FUZZ_ENTRY
#define FUZZ_ENTRY fuzz_profiler
#include "../fuzz/fuzz_profiler.c"
#undef FUZZ_ENTRY
#define FUZZ_ENTRY fuzz_sql
#include "../fuzz/fuzz_sql.c"
#undef FUZZ_ENTRY
#define FUZZ_ENTRY fuzz_capture
#include "../fuzz/fuzz_capture.c"
#undef FUZZ_ENTRY
#define FUZZ_ENTRY fuzz_sql_select
#include "../fuzz/fuzz_sql_select.c"
#undef FUZZ_ENTRY
#define FUZZ_ENTRY fuzz_funcs
#include "../fuzz/fuzz_funcs.c"
#undef FUZZ_ENTRY
#define FUZZ_ENTRY fuzz_http
#include "../fuzz/fuzz_http.c"
#undef FUZZ_ENTRY
#define FUZZ_ENTRY fuzz_capture_text
#include "../fuzz/fuzz_capture_text.c"
#undef FUZZ_ENTRY

static const struct {
	const char *name;
	int (*fn)(const uint8_t *, size_t);
} targets[] = {
	{ "sample", fuzz_sample },
	{ "window", fuzz_window },
	{ "kfilter", fuzz_kfilter },
	{ "elf", fuzz_elf },
	{ "profiler", fuzz_profiler },
	{ "sql", fuzz_sql },
	{ "capture", fuzz_capture },
	{ "sql_select", fuzz_sql_select },
	{ "funcs", fuzz_funcs },
	{ "http", fuzz_http },
	{ "capture_text", fuzz_capture_text },
};

/* every regular file of dir through fn; the number of files, -1 if dir is missing */
static int replay_dir(const char *dir, int (*fn)(const uint8_t *, size_t))
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int n = 0;

	if (!d)
		return -1;
	while ((de = readdir(d))) {
		char path[4352];
		uint8_t *buf;
		long len;
		FILE *f;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (!(f = fopen(path, "rb")))
			continue;
		fseek(f, 0, SEEK_END);
		len = ftell(f);
		rewind(f);
		buf = malloc(len > 0 ? (size_t)len : 1);
		if (buf && len >= 0 && fread(buf, 1, (size_t)len, f) == (size_t)len) {
			printf("replay %s\n", path); /* the last line before a crash names it */
			fflush(stdout);
			fn(buf, (size_t)len);
			n++;
		}
		free(buf);
		fclose(f);
	}
	closedir(d);
	return n;
}

int main(void)
{
	int total = 0;

	for (size_t i = 0; i < sizeof(targets) / sizeof(targets[0]); i++) {
		char dir[256];
		int seeds, kept;

		snprintf(dir, sizeof(dir), "tests/fuzz/corpus/%s", targets[i].name);
		seeds = replay_dir(dir, targets[i].fn);
		snprintf(dir, sizeof(dir), "tests/fuzz/regress/%s", targets[i].name);
		kept = replay_dir(dir, targets[i].fn);
		T(seeds > 0, "fuzz target %s: seed corpus %s has files", targets[i].name, dir);
		total += (seeds > 0 ? seeds : 0) + (kept > 0 ? kept : 0);
	}
	T(total > 0, "replayed %d inputs", total);
	return t_done("fuzz_regress");
}
