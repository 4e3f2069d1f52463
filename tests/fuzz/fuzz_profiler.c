/*
 * tests/fuzz/fuzz_profiler.c - the profiler-file parser (profilers/header.c): the input up to
 * its first NUL is a profiler's .sql file; the NUL-separated strings after it (up to 8) are
 * PARAM=VALUE arguments for profiler__bind().
 * (1) A malformed header is -EINVAL with a message naming the file, never a crash.
 * (2) A parsed profiler's body points into its text; bind gives SQL or a message.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sqlite3.h>
#include "profilers/profiler.h"
#include "engine/query.h"
#include "fuzz.h"

int FUZZ_ENTRY(const uint8_t *data, size_t size)
{
	static struct profiler p;
	const uint8_t *nul = memchr(data, 0, size);
	size_t len = nul ? (size_t)(nul - data) : size;
	struct fz f = { data + len, size - len };
	char argbuf[8][128], *args[8];
	struct query_param out[PROF_MAX_PARAMS];
	struct err e = { 0 };
	char *sql = NULL, *file = malloc(len ? len : 1);
	int nargs = 0, nr = 0, rc;

	memcpy(file, data, len);
	fz_u8(&f);
	while (f.left && nargs < 8) {
		args[nargs] = argbuf[nargs];
		fz_str(&f, argbuf[nargs], sizeof(argbuf[nargs]));
		nargs++;
	}
	rc = profiler__parse(&p, "fuzz", file, len, &e);
	if (rc) {
		FUZZ_ASSERT(rc == -EINVAL && e.msg[0] && !strncmp(e.msg, "fuzz", 4));
	} else {
		FUZZ_ASSERT(p.body >= p.text && p.body <= p.text + len);
		FUZZ_ASSERT(p.nr_params >= 0 && p.nr_params <= PROF_MAX_PARAMS);
		memset(&e, 0, sizeof(e));
		rc = profiler__bind(&p, nargs, args, out, PROF_MAX_PARAMS, &nr, &sql, &e);
		FUZZ_ASSERT(rc ? e.msg[0] != '\0' : sql != NULL);
		FUZZ_ASSERT(nr >= 0 && nr <= PROF_MAX_PARAMS);
		sqlite3_free(sql);
		profiler__free(&p);
	}
	free(file);
	return 0;
}
