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
 * (4) P must be a number in [0, 100], the same on every row; BUCKETS NULL is skipped, another
 *     value than a blob of whole pairs is an error quoting it, and so is a bucket no u64 value
 *     falls in (past bpf_loglin_bucket(UINT64_MAX) = 3775) or counts adding up past 2^64.
 */
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>
#include "bpf/pairs.h"
#include "sqlite/functions.h"

struct loglin_state {
	uint64_t *b; /* bucket, count pairs */
	size_t nr, cap;
	uint64_t total; /* of the counts */
	double p;
	bool p_set;
};

/* (4) the pairs of one row: every bucket one bpf_loglin_bucket() gives, counts adding up in
 * u64; false with the error set */
static bool check_pairs(sqlite3_context *ctx, struct loglin_state *st, const uint64_t *in, size_t n)
{
	uint64_t max_bucket = (uint64_t)bpf_loglin_bucket(UINT64_MAX), total = st->total;

	for (size_t i = 0; i < n; i++) {
		if (in[2 * i] > max_bucket) {
			sql_result_errorf(ctx,
					  "loglin_percentile: bucket %llu is not a log-linear "
					  "bucket (0..%llu)",
					  (unsigned long long)in[2 * i],
					  (unsigned long long)max_bucket);
			return false;
		}
		if (__builtin_add_overflow(total, in[2 * i + 1], &total)) {
			sqlite3_result_error(ctx, "loglin_percentile: the counts add up past 2^64",
					     -1);
			return false;
		}
	}
	st->total = total;
	return true;
}

void loglin_percentile_step(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	struct loglin_state *st = sqlite3_aggregate_context(ctx, sizeof(*st));
	int ptype = sqlite3_value_numeric_type(argv[1]);
	double p = sqlite3_value_double(argv[1]);
	size_t n = (size_t)sqlite3_value_bytes(argv[0]) / 16;

	if (!st)
		return sqlite3_result_error_nomem(ctx);
	if ((ptype != SQLITE_INTEGER && ptype != SQLITE_FLOAT) || !(p >= 0 && p <= 100) ||
	    (st->p_set && p != st->p))
		return sqlite3_result_error(ctx,
					    "loglin_percentile: P must be a number between 0 and "
					    "100, the same on every row",
					    -1);
	st->p = p;
	st->p_set = true;
	if (sqlite3_value_type(argv[0]) == SQLITE_NULL)
		return;
	if (sqlite3_value_type(argv[0]) != SQLITE_BLOB || sqlite3_value_bytes(argv[0]) % 16)
		return sql_result_value_error(ctx, "loglin_percentile: BUCKETS ", argv[0],
					      " is not a blob of (u64 bucket, u64 count) pairs");
	if (!n)
		return;
	if (st->nr + n > st->cap) {
		size_t cap = (st->nr + n) * 2;
		uint64_t *b = realloc(st->b, cap * 16);

		if (!b)
			return sqlite3_result_error_nomem(ctx);
		st->b = b;
		st->cap = cap;
	}
	/* copied first: a blob's bytes need not be 8-aligned */
	memcpy(st->b + 2 * st->nr, sqlite3_value_blob(argv[0]), n * 16);
	if (check_pairs(ctx, st, st->b + 2 * st->nr, n))
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
	uint64_t n, lo;
	double rank, a, b;

	if (!st)
		return;
	n = st->total;
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
