/*
 * lin_hist(V, MIN, MAX, STEP [, UNIT]) - aggregate: linear histogram, bpftrace's lhist().
 *
 *   SELECT lin_hist(ret, 0, 4096, 512, 'bytes') FROM syscalls_read;
 *
 * (1) Regular bucket k holds [MIN + k*STEP, MIN + (k+1)*STEP - 1] (the last one ends at MAX-1);
 *     V < MIN goes to an underflow bucket ("< MIN"), V >= MAX to an overflow bucket (">= MAX").
 * (2) MIN, MAX, STEP are integers taken from the first row; STEP > 0, MAX > MIN, and at most
 *     100000 buckets, else an error naming the argument.
 * (2b) MIN = INT64_MIN is an error: its underflow bucket could hold nothing and its upper
 *     bound, MIN - 1, is no int64. Any other int64 bounds and steps are exact (the bucket
 *     arithmetic is in u64); a REAL V beyond them (1e308) goes to the under- or overflow
 *     bucket.
 * (3) NULL is skipped; a non-numeric V is an error quoting the value; a REAL V counts as its
 *     floor. Negative V is allowed (compare against MIN).
 * (4) UNIT as for log2_hist(); the result is a HIST_MAGIC blob with the under- and overflow
 *     buckets always stored; over no rows the result is NULL.
 * (5) lin_hist_merge(COUNTS, MIN, MAX, STEP [, UNIT]) adds up bucket counts already made (a
 *     BLOB of little-endian u64: underflow, each bucket, overflow; from a BPF map, docs/bpf.md),
 *     with the arguments checked as lin_hist() checks them: its result is lin_hist()'s.
 * (6) A bucket's count stays an SQL integer: adding past 2^63-1 is an error, as log2_hist().
 */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>

#include "sqlite/functions.h"
#include "vtab/blob_format.h"

struct lin_hist_state {
	uint64_t *counts; /* nr: underflow, regular buckets, overflow */
	uint32_t nr;
	int64_t min, max, step;
	char unit[HIST_UNIT_MAX + 1];
	bool any;
	bool failed;
};

static bool int_arg(sqlite3_context *ctx, const char *fname, sqlite3_value *val, const char *name,
		    int64_t *out)
{
	char *v;

	if (sqlite3_value_numeric_type(val) == SQLITE_INTEGER) {
		*out = sqlite3_value_int64(val);
		return true;
	}
	v = sql_value_quote(val);
	sql_result_errorf(ctx, "%s: %s %s is not an integer", fname, name, v);
	sqlite3_free(v);
	return false;
}

static bool lin_hist_setup(sqlite3_context *ctx, const char *fname, struct lin_hist_state *st,
			   int argc, sqlite3_value **argv)
{
	uint64_t range, nr_regular;

	if (!int_arg(ctx, fname, argv[1], "min", &st->min) ||
	    !int_arg(ctx, fname, argv[2], "max", &st->max) ||
	    !int_arg(ctx, fname, argv[3], "step", &st->step))
		return false;
	if (st->step <= 0 || st->max <= st->min) {
		sql_result_errorf(ctx, "%s: need step > 0 and max > min", fname);
		return false;
	}
	if (st->min == INT64_MIN) { /* (2b) */
		sql_result_errorf(ctx,
				  "%s: min must be above -9223372036854775808 (no value is "
				  "below it)",
				  fname);
		return false;
	}
	range = (uint64_t)st->max - (uint64_t)st->min; /* fits: max > min */
	nr_regular = range / (uint64_t)st->step + (range % (uint64_t)st->step != 0);
	if (nr_regular > HIST_LIN_NR_MAX) {
		sql_result_errorf(ctx, "%s: more than 100000 buckets; raise step", fname);
		return false;
	}
	if (argc == 5 && !hist_unit(ctx, argv[4], fname, st->unit))
		return false;
	st->nr = (uint32_t)nr_regular + 2;
	st->counts = calloc(st->nr, sizeof(*st->counts));
	if (!st->counts) {
		sqlite3_result_error_nomem(ctx);
		return false;
	}
	return true;
}

/* bucket of V, or -1 with the error set */
static int64_t lin_bucket(sqlite3_context *ctx, const struct lin_hist_state *st, sqlite3_value *val)
{
	int type = sqlite3_value_numeric_type(val);
	double d;
	int64_t v;

	if (type == SQLITE_INTEGER) {
		v = sqlite3_value_int64(val);
	} else if (type == SQLITE_FLOAT) {
		d = floor(sqlite3_value_double(val));
		if (d < (double)st->min)
			return 0;
		if (d >= (double)st->max)
			return st->nr - 1;
		v = (int64_t)d;
	} else {
		sql_result_value_error(ctx, "lin_hist: value ", val, " is not a number");
		return -1;
	}
	if (v < st->min)
		return 0;
	if (v >= st->max)
		return st->nr - 1;
	return 1 + (int64_t)(((uint64_t)v - (uint64_t)st->min) / (uint64_t)st->step);
}

/* a step's state, set up at the first row; NULL (the error set, or a NULL value) or a row */
static struct lin_hist_state *lin_state(sqlite3_context *ctx, int argc, sqlite3_value **argv,
					const char *fname, const char *usage)
{
	struct lin_hist_state *st = sql_agg_state(ctx, argc, 4, 5, usage, sizeof(*st));

	if (!st || st->failed)
		return NULL;
	if (!st->counts && !lin_hist_setup(ctx, fname, st, argc, argv)) {
		st->failed = true;
		return NULL;
	}
	return sqlite3_value_type(argv[0]) == SQLITE_NULL ? NULL : st;
}

void lin_hist_step(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	struct lin_hist_state *st;
	int64_t b;

	st = lin_state(ctx, argc, argv, "lin_hist",
		       "lin_hist: usage: lin_hist(V, MIN, MAX, STEP [, UNIT])");
	if (!st)
		return;
	b = lin_bucket(ctx, st, argv[0]);
	if (b < 0 || !hist_count_add(ctx, "lin_hist", &st->counts[b], 1))
		return;
	st->any = true;
}

void lin_hist_merge_step(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	struct lin_hist_state *st;
	const uint8_t *b;
	int n;

	st = lin_state(ctx, argc, argv, "lin_hist_merge",
		       "lin_hist_merge: usage: lin_hist_merge(COUNTS, MIN, MAX, STEP [, UNIT])");
	if (!st)
		return;
	b = sqlite3_value_blob(argv[0]);
	n = sqlite3_value_bytes(argv[0]);
	if (sqlite3_value_type(argv[0]) != SQLITE_BLOB || n != (int)st->nr * 8) {
		sql_result_errorf(ctx,
				  "lin_hist_merge: COUNTS must be a blob of %u u64 bucket counts",
				  st->nr);
		st->failed = true;
		return;
	}
	for (uint32_t i = 0; i < st->nr; i++) {
		uint64_t c;

		memcpy(&c, b + 8 * i, 8);
		if (!hist_count_add(ctx, "lin_hist_merge", &st->counts[i], c)) {
			st->failed = true;
			return;
		}
	}
	st->any = true;
}

void lin_hist_final(sqlite3_context *ctx)
{
	struct lin_hist_state *st = sqlite3_aggregate_context(ctx, 0);
	void *blob;
	int len;

	if (!st)
		return;
	if (st->any) {
		blob = hist_blob__encode(HIST_LIN, st->unit, st->min, st->max, st->step, st->counts,
					 st->nr, &len);
		sql_result_blob_free(ctx, blob, len);
	}
	free(st->counts);
	st->counts = NULL;
}
