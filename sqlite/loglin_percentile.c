/*
 * loglin_percentile(BUCKETS, P) - aggregate: the P-th percentile of the values counted in
 * log-linear buckets (bpf/pairs.h (3)), as a statement aggregated in the kernel reads p50(),
 * ..., percentile() (docs/bpf.md).
 *
 *   SELECT "_k0", loglin_percentile("_a2", 99) FROM perf_sql_bpf_0 GROUP BY "_k0"
 *
 * (1) BUCKETS is a blob of little-endian (u64 bucket, u64 count) pairs; the pairs of every
 *     row are added up, NULL is skipped.
 * (2) As percentile(): rank = P/100 * (n-1), linear interpolation between the two closest
 *     ranks, each read as its bucket's value: exact below 128, else the bucket's middle, within
 *     1/128 of the value itself; so the result is within 0.8 % of percentile()'s on the values.
 * (3) A REAL; NULL over no values.
 */
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>
#include "bpf/pairs.h"
#include "sqlite/functions.h"

struct loglin_state {
	uint64_t *b; /* bucket, count pairs */
	size_t nr, cap;
	double p;
	bool p_set;
};

void loglin_percentile_step(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	struct loglin_state *st = sqlite3_aggregate_context(ctx, sizeof(*st));
	const uint64_t *in = sqlite3_value_blob(argv[0]);
	size_t n = (size_t)sqlite3_value_bytes(argv[0]) / 16;
	double p = sqlite3_value_double(argv[1]);

	if (!st)
		return sqlite3_result_error_nomem(ctx);
	if (sqlite3_value_numeric_type(argv[1]) == SQLITE_NULL || p < 0 || p > 100 ||
	    (st->p_set && p != st->p))
		return sqlite3_result_error(ctx, "percentile: P must be a number between 0 and 100",
					    -1);
	st->p = p;
	st->p_set = true;
	if (sqlite3_value_type(argv[0]) != SQLITE_BLOB || !n)
		return;
	if (st->nr + n > st->cap) {
		size_t cap = (st->nr + n) * 2;
		uint64_t *b = realloc(st->b, cap * 16);

		if (!b)
			return sqlite3_result_error_nomem(ctx);
		st->b = b;
		st->cap = cap;
	}
	memcpy(st->b + 2 * st->nr, in, n * 16);
	st->nr += n;
}

static int cmp_bucket(const void *x, const void *y)
{
	const uint64_t *a = x, *b = y;

	return a[0] < b[0] ? -1 : a[0] > b[0];
}

/* the value of 0-based rank r, buckets sorted */
static double at_rank(const struct loglin_state *st, uint64_t r)
{
	uint64_t seen = 0;

	for (size_t i = 0; i < st->nr; i++) {
		seen += st->b[2 * i + 1];
		if (r < seen)
			return bpf_loglin_value((int)st->b[2 * i]);
	}
	return bpf_loglin_value((int)st->b[2 * (st->nr - 1)]);
}

void loglin_percentile_final(sqlite3_context *ctx)
{
	struct loglin_state *st = sqlite3_aggregate_context(ctx, 0);
	uint64_t n = 0, lo;
	double rank, a, b;

	if (!st)
		return;
	for (size_t i = 0; i < st->nr; i++)
		n += st->b[2 * i + 1];
	if (n) {
		qsort(st->b, st->nr, 16, cmp_bucket);
		rank = st->p * (double)(n - 1) / 100.0;
		lo = (uint64_t)rank;
		a = at_rank(st, lo);
		b = lo + 1 < n ? at_rank(st, lo + 1) : a;
		sqlite3_result_double(ctx, a + (rank - (double)lo) * (b - a));
	}
	free(st->b);
	memset(st, 0, sizeof(*st));
}
