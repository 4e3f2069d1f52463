/*
 * tests/unit/t.h - the unit-test harness: T(cond, what) checks, one line per failure,
 * and a closing "unit NAME: N passed, N failed" line that tests/run.sh adds up.
 *
 *   static void test_empty(void) { T(store_rows(s) == 0, "empty store has no rows"); }
 *   int main(void) { RUN(test_empty); return t_done("window"); }
 */
#ifndef PERF_SQL_T_H
#define PERF_SQL_T_H
#include <stdio.h>

static int t_pass, t_fail;

#define T(cond, ...)                                                                               \
	do {                                                                                       \
		if (cond) {                                                                        \
			t_pass++;                                                                  \
		} else {                                                                           \
			t_fail++;                                                                  \
			fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);                       \
			fprintf(stderr, __VA_ARGS__);                                              \
			fputc('\n', stderr);                                                       \
		}                                                                                  \
	} while (0)

#define RUN(fn) fn()

static inline int t_done(const char *name)
{
	printf("unit %s: %d passed, %d failed\n", name, t_pass, t_fail);
	return t_fail ? 1 : 0;
}
#endif
