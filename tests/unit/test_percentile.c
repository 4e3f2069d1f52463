/*
 * tests/unit/test_percentile.c - percentile() and p50..p999 through SQL: exact interpolation
 * (numpy's default), NULLs, errors, and the sketch's error bound past the exact cap on
 * 10,000,000 values (numbers refer to sqlite/percentile.c).
 */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>

#include "sqlite/functions.h"
#include "tests/unit/t.h"

#include "tests/unit/t_sql.h"

/* (1) exact: rank = p/100 * (n-1), linear interpolation */
static void test_exact(void)
{
	Q(SEQ(1000) "SELECT p99(x) FROM s", "990.01");
	Q(SEQ(1000) "SELECT p99(x) = 990.01 FROM s", "1");
	Q(SEQ(1000) "SELECT p50(x) FROM s", "500.5");
	Q(SEQ(1000) "SELECT p90(x) FROM s", "900.1");
	Q(SEQ(1000) "SELECT p95(x) FROM s", "950.05");
	Q(SEQ(1000) "SELECT p999(x) FROM s", "999.001");
	Q(SEQ(1000) "SELECT percentile(x, 0) || ' ' || percentile(x, 100) FROM s", "1.0 1000.0");
	Q(SEQ(1000) "SELECT percentile(x, 25) FROM s", "250.75");
	/* order does not matter; duplicates and negatives */
	Q(SEQ(1000) "SELECT p99(1000 - x) FROM s", "989.01");
	Q("SELECT p50(column1) FROM (VALUES (3), (-7), (3), (1))", "2.0");
	Q("SELECT p50(column1) FROM (VALUES (5))", "5.0");
	Q("SELECT p90(column1) FROM (VALUES (0.5), (1.5))", "1.4");
}

/* the selection (three-way partition): a constant column, few distinct values, sorted and
 * reverse-sorted input, each against numpy's rule worked out by hand */
static void test_select(void)
{
	Q(SEQ(1000) "SELECT p99(7) || ' ' || p50(7) || ' ' || percentile(7, 0) FROM s",
	  "7.0 7.0 7.0");
	/* x % 3 over 1..1000: 333 zeros, 334 ones, 333 twos; p99 rank 989.01 is a 2, p50 rank
	 * 499.5 between the ones */
	Q(SEQ(1000) "SELECT p99(x % 3) || ' ' || p50(x % 3) FROM s", "2.0 1.0");
	/* rank 332.7, between the last 0 (rank 332) and the first 1 (rank 333) */
	Q(SEQ(1000) "SELECT abs(percentile(x % 3, 332.7 * 100 / 999) - 0.7) < 1e-9 FROM s", "1");
	Q(SEQ(1000) "SELECT p99(x) || ' ' || p99(-x) || ' ' || p50(x / 10) FROM s",
	  "990.01 -10.99 50.0");
	Q(SEQ(1001) "SELECT p50(x) || ' ' || p50(1002 - x) FROM s", "501.0 501.0");
}

/* (3), (4) NULL, empty input, errors */
static void test_edges(void)
{
	Q("SELECT p99(NULL)", "NULL");
	Q("SELECT p50(x) FROM (SELECT 1 AS x WHERE 0)", "NULL");
	Q("SELECT p50(column1) FROM (VALUES (NULL), (4), (NULL), (2))", "3.0");
	Q("SELECT p50('abc')", "ERROR: p50: value 'abc' is not a finite number");
	Q("SELECT percentile(1, 101)", "ERROR: percentile: P must be a number between 0 and 100");
	Q("SELECT percentile(1, 'x')", "ERROR: percentile: P must be a number between 0 and 100");
	Q("SELECT percentile(column1, column1) FROM (VALUES (1), (2))",
	  "ERROR: percentile: P must be the same on every row");
	Q(SEQ(10) "SELECT group_concat(p, ' ') FROM (SELECT x % 2 AS k, p50(x) AS p FROM s GROUP "
		  "BY k)",
	  "6.0 5.0");
}

/* (2) with a cap of 1000 the sketch takes over; exact again after restoring the cap */
static void test_cap(void)
{
	percentile_set_exact_cap(1000);
	Q(SEQ(1000) "SELECT p99(x) FROM s", "990.01");
	Q(SEQ(1001) "SELECT abs(p99(x) / 991.0 - 1) < 0.005 FROM s", "1");
	Q(SEQ(5000) "SELECT percentile(x, 0) || ' ' || percentile(x, 100) FROM s", "1.0 5000.0");
	Q(SEQ(5000) "SELECT abs(p50(x - 2500) / 0.5 - 1) < 0.01 OR abs(p50(x - 2500)) < 1 FROM s",
	  "1");
	percentile_set_exact_cap(0);
	Q("SELECT p50(column1) FROM (VALUES (-4), (0), (0), (8))", "0.0");
	percentile_set_exact_cap(-1);
	Q(SEQ(1001) "SELECT p99(x) FROM s", "991.0");
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/*
 * 10,000,000 values through SQL with the cap lowered to 10,000: the sketch's answer must be
 * within 1 % of the exact one (computed here by sorting) for uniform and log-uniform data.
 * One query per distribution computes every percentile in one pass.
 */
static void test_sketch_error(void)
{
	static const double ps[] = { 1, 10, 50, 90, 99, 99.9, 99.99 };
	static const char *const dists[] = {
		"x",                                      /* uniform 1..1e7 */
		"exp((x * 7919 % 10000000) * 2.0123e-6)", /* log-uniform over 1 .. e^20.1 */
	};
	enum { NR_PS = sizeof(ps) / sizeof(ps[0]) };
	const long n = 10000000;
	double *v = malloc(n * sizeof(*v));
	char sql[2048], *p;
	size_t len;

	T(v != NULL, "malloc");
	if (!v)
		return;
	percentile_set_exact_cap(10000);
	for (size_t d = 0; d < sizeof(dists) / sizeof(dists[0]); d++) {
		len = (size_t)snprintf(
			sql, sizeof(sql),
			"WITH RECURSIVE s(x) AS (SELECT 1 UNION ALL SELECT x + 1 "
			"FROM s WHERE x < %ld), t(v) AS (SELECT %s FROM s) SELECT ''",
			n, dists[d]);
		for (int i = 0; i < NR_PS; i++)
			len += (size_t)snprintf(sql + len, sizeof(sql) - len,
						" || percentile(v, %g) || ' '", ps[i]);
		snprintf(sql + len, sizeof(sql) - len, " FROM t");
		p = (char *)q(sql);
		for (long x = 1; x <= n; x++)
			v[x - 1] =
				d == 0 ? (double)x : exp((double)(x * 7919 % 10000000) * 2.0123e-6);
		qsort(v, n, sizeof(*v), cmp_double);
		for (int i = 0; i < NR_PS; i++) {
			double rank = ps[i] * (double)(n - 1) / 100, frac = rank - floor(rank);
			double exact = v[(long)rank] + frac * (v[(long)rank + 1] - v[(long)rank]);
			double got = strtod(p, &p), err = fabs(got / exact - 1);

			T(err < 0.01, "%s: p%g = %.6g, exact %.6g, error %.4f %%", dists[d], ps[i],
			  got, exact, err * 100);
			printf("sketch %-36s p%-5g exact %-14.6g sketch %-14.6g error %.4f %%\n",
			       dists[d], ps[i], exact, got, err * 100);
		}
	}
	percentile_set_exact_cap(-1);
	free(v);
}

int main(void)
{
	open_db();
	RUN(test_exact);
	RUN(test_select);
	RUN(test_edges);
	RUN(test_cap);
	RUN(test_sketch_error);
	sqlite3_close(db);
	return t_done("percentile");
}
