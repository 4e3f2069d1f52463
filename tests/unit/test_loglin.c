/*
 * tests/unit/test_loglin.c - the log-linear buckets of percentiles in the kernel (bpf/pairs.h
 * (3)) and loglin_percentile() (sqlite/loglin_percentile.c): every value is within 1/128 of
 * its bucket's value, buckets keep the order of values, and each percentile of a set is within
 * 1/128 of percentile()'s exact one on the same values.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include "bpf/pairs.h"
#include "tests/unit/t.h"

#include "tests/unit/t_sql.h"

#define BOUND (1.0 / 128 + 1e-12)

static double rel(double a, double b) { return b == 0 ? fabs(a) : fabs(a - b) / fabs(b); }

/* (3): exact below 128; each value within 1/128 of its bucket's; monotonic */
static void test_buckets(void)
{
	uint64_t v = 0;
	int prev = -1, bad = 0, unordered = 0;

	for (int i = 0; i < 128; i++)
		bad += bpf_loglin_value(bpf_loglin_bucket((uint64_t)i)) != i;
	T(bad == 0, "values below 128 have a bucket each");
	bad = 0;
	while (v < (1ull << 62)) {
		int b = bpf_loglin_bucket(v);

		bad += rel(bpf_loglin_value(b), (double)v) > BOUND;
		unordered += b < prev;
		prev = b;
		v += 1 + v / 3000; /* every value up to ~10^5, then ~1/3000 apart, to ~2^62 */
	}
	T(bad == 0, "every value within 1/128 of its bucket's (%d beyond)", bad);
	T(unordered == 0, "buckets in the order of the values");
	T(bpf_loglin_bucket(UINT64_MAX) < 4096, "the largest value's bucket: %d",
	  bpf_loglin_bucket(UINT64_MAX));
}

static uint64_t lcg(uint64_t *s)
{
	*s = *s * 6364136223846793005ull + 1442695040888963407ull;
	return *s >> 11;
}

/* n values of a log-uniform spread (1 ns .. ~1 s) into table v and into bucket counts */
static void fill(int n, uint64_t seed, uint64_t *counts)
{
	sqlite3_stmt *st;

	Q("DROP TABLE IF EXISTS v", "NO ROWS");
	Q("CREATE TABLE v(x INTEGER)", "NO ROWS");
	sqlite3_exec(db, "BEGIN", NULL, NULL, NULL);
	sqlite3_prepare_v2(db, "INSERT INTO v VALUES (?1)", -1, &st, NULL);
	for (int i = 0; i < n; i++) {
		uint64_t x = (uint64_t)exp((double)(lcg(&seed) % 20700) / 1000.0);

		counts[bpf_loglin_bucket(x)]++;
		sqlite3_bind_int64(st, 1, (sqlite3_int64)x);
		sqlite3_step(st);
		sqlite3_reset(st);
	}
	sqlite3_finalize(st);
	sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
}

/* loglin_percentile() of the counts against percentile() of the values, same P */
static void test_percentiles(void)
{
	static const double ps[] = { 0, 1, 25, 50, 90, 95, 99, 99.9, 100 };
	static const int sizes[] = { 1, 2, 7, 1000, 100000 };

	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		uint64_t *counts = calloc(4096, 8), *blob = calloc(2 * 4096, 8);
		int nb = 0;
		sqlite3_stmt *st;

		fill(sizes[k], 42 + k, counts);
		for (int b = 0; b < 4096; b++)
			if (counts[b]) {
				blob[2 * nb] = (uint64_t)b;
				blob[2 * nb++ + 1] = counts[b];
			}
		for (size_t i = 0; i < sizeof(ps) / sizeof(ps[0]); i++) {
			double exact, approx;

			sqlite3_prepare_v2(db,
					   "SELECT (SELECT percentile(x, ?2) FROM v), "
					   "loglin_percentile(?1, ?2)",
					   -1, &st, NULL);
			sqlite3_bind_blob(st, 1, blob, nb * 16, SQLITE_STATIC);
			sqlite3_bind_double(st, 2, ps[i]);
			T(sqlite3_step(st) == SQLITE_ROW, "step");
			exact = sqlite3_column_double(st, 0);
			approx = sqlite3_column_double(st, 1);
			sqlite3_finalize(st);
			T(rel(approx, exact) <= BOUND, "%d values, p%g: %.1f vs exact %.1f",
			  sizes[k], ps[i], approx, exact);
		}
		free(counts);
		free(blob);
	}
}

static void test_edges(void)
{
	Q("SELECT loglin_percentile(NULL, 50)", "NULL");
	Q("SELECT loglin_percentile(x'', 50)", "NULL");
	Q("SELECT loglin_percentile(x'', 101)",
	  "ERROR: loglin_percentile: P must be a number between 0 and 100, the same on every row");
	/* two rows of one group merge: buckets 10 (x3) and 20 (x1) */
	Q("SELECT loglin_percentile(column1, 50) FROM (VALUES "
	  "(x'0a000000000000000200000000000000'), "
	  "(x'0a00000000000000010000000000000014000000000000000100000000000000'))",
	  "10.0");
	Q("SELECT loglin_percentile(column1, 100) FROM (VALUES "
	  "(x'0a000000000000000300000000000000'), "
	  "(x'14000000000000000100000000000000'))",
	  "20.0");
}

int main(void)
{
	open_db();
	RUN(test_buckets);
	RUN(test_percentiles);
	RUN(test_edges);
	return t_done("loglin");
}
