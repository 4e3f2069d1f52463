/*
 * log2_hist(V [, UNIT]) - aggregate: power-of-two histogram of non-negative numbers, the
 * histogram of bcc's runqlat/biolatency and bpftrace's hist().
 *
 *   SELECT comm, log2_hist(latency, 'ns') FROM rundelay_pairs GROUP BY comm;
 *   SELECT * FROM hist_rows((SELECT log2_hist(x) FROM t));
 *
 * (1) Bucket 0 holds 0 and 1 and prints as "0 -> 1" (bcc); bucket i >= 1 holds [2^i, 2^(i+1)-1].
 * (2) NULL is skipped; a negative, non-numeric or too large (>= 2^63) V is an error quoting the
 *     value; numeric text converts as with SQLite affinity. A REAL V counts as its integer part.
 * (3) UNIT (TEXT, at most 31 bytes, taken from the first row) names the values in the header
 *     line; without it the header says "value".
 * (4) The result is a HIST_MAGIC blob (vtab/blob_format.h) holding buckets 0..last non-empty;
 *     over no rows (or only NULLs) the result is NULL. Render it with hist_to_text() or read
 *     it with hist_rows().
 * (5) log2_hist_merge(COUNTS [, UNIT]) adds up bucket counts already made (a BLOB of
 *     little-endian u64, at most 64 of them, from a BPF map: docs/bpf.md); the result is the
 *     one log2_hist() gives over the values those counts were made of.
 * (6) A bucket's count stays an SQL integer: adding past 2^63-1 is an error (hist_rows()
 *     reads every count as an INTEGER).
 */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>

#include "sqlite/functions.h"
#include "vtab/blob_format.h"

struct log2_hist_state {
	uint64_t counts[HIST_LOG2_NR];
	char unit[HIST_UNIT_MAX + 1];
	bool any;
	bool unit_set;
};

/*
 * Reads a non-negative integer; on failure sets the SQL error and returns false. Shared by
 * the log2 aggregates (log2_hist, heatmap) through functions.h.
 */
bool log2_value(sqlite3_context *ctx, sqlite3_value *val, const char *fname, uint64_t *out)
{
	int type = sqlite3_value_numeric_type(val);

	if (type == SQLITE_INTEGER) {
		sqlite3_int64 i = sqlite3_value_int64(val);

		if (i >= 0) {
			*out = (uint64_t)i;
			return true;
		}
		sql_result_errorf(ctx, "%s: value %lld is negative", fname, i);
	} else if (type == SQLITE_FLOAT) {
		double d = sqlite3_value_double(val);

		if (d >= 0 && d < 9223372036854775808.0) {
			*out = (uint64_t)d;
			return true;
		}
		sql_result_errorf(ctx, "%s: value %!g is %s", fname, d,
				  d < 0 ? "negative" : "out of range");
	} else {
		char *v = sql_value_quote(val);

		sql_result_errorf(ctx, "%s: value %s is not a number", fname, v);
		sqlite3_free(v);
	}
	return false;
}

/* Takes UNIT from the first row; false (error set) when it is not a short text. */
bool hist_unit(sqlite3_context *ctx, sqlite3_value *val, const char *fname, char *unit_out)
{
	const char *u;

	if (sqlite3_value_type(val) == SQLITE_NULL)
		return true;
	u = (const char *)sqlite3_value_text(val);
	if (sqlite3_value_type(val) != SQLITE_TEXT || !u || strlen(u) > HIST_UNIT_MAX) {
		sql_result_errorf(ctx, "%s: unit must be a text of at most 31 bytes", fname);
		return false;
	}
	strcpy(unit_out, u);
	return true;
}

bool hist_count_add(sqlite3_context *ctx, const char *fname, uint64_t *count, uint64_t n)
{
	uint64_t sum;

	if (__builtin_add_overflow(*count, n, &sum) || sum > INT64_MAX) {
		sql_result_errorf(ctx, "%s: a bucket's count passes 2^63-1", fname);
		return false;
	}
	*count = sum;
	return true;
}

/* a step's state, its UNIT read at the first row; NULL (the error set) or a row to add */
static struct log2_hist_state *log2_state(sqlite3_context *ctx, int argc, sqlite3_value **argv,
					  const char *fname, const char *usage)
{
	struct log2_hist_state *st = sql_agg_state(ctx, argc, 1, 2, usage, sizeof(*st));

	if (!st)
		return NULL;
	if (!st->unit_set && argc == 2) {
		if (!hist_unit(ctx, argv[1], fname, st->unit))
			return NULL;
		st->unit_set = true;
	}
	return sqlite3_value_type(argv[0]) == SQLITE_NULL ? NULL : st;
}

void log2_hist_step(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	struct log2_hist_state *st;
	uint64_t v;

	st = log2_state(ctx, argc, argv, "log2_hist", "log2_hist: usage: log2_hist(V [, UNIT])");
	if (!st)
		return;
	if (!log2_value(ctx, argv[0], "log2_hist", &v) ||
	    !hist_count_add(ctx, "log2_hist", &st->counts[hist_log2_bucket(v)], 1))
		return;
	st->any = true;
}

void log2_hist_merge_step(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	struct log2_hist_state *st;
	const uint8_t *b;
	int n;

	st = log2_state(ctx, argc, argv, "log2_hist_merge",
			"log2_hist_merge: usage: log2_hist_merge(COUNTS [, UNIT])");
	if (!st)
		return;
	b = sqlite3_value_blob(argv[0]);
	n = sqlite3_value_bytes(argv[0]);
	if (sqlite3_value_type(argv[0]) != SQLITE_BLOB || n % 8 || n > 64 * 8) {
		sqlite3_result_error(ctx,
				     "log2_hist_merge: COUNTS must be a blob of at most 64 "
				     "u64 bucket counts",
				     -1);
		return;
	}
	for (int i = 0; i < n / 8; i++) {
		uint64_t c;

		memcpy(&c, b + 8 * i, 8);
		if (c && i >= HIST_LOG2_NR) {
			sqlite3_result_error(ctx, "log2_hist_merge: a count past bucket 62", -1);
			return;
		}
		if (c && !hist_count_add(ctx, "log2_hist_merge", &st->counts[i], c))
			return;
	}
	st->any = true;
}

void log2_hist_final(sqlite3_context *ctx)
{
	struct log2_hist_state *st = sqlite3_aggregate_context(ctx, 0);
	uint32_t nr = 0;
	void *blob;
	int len;

	if (!st || !st->any)
		return; /* NULL */
	for (uint32_t i = 0; i < HIST_LOG2_NR; i++)
		if (st->counts[i])
			nr = i + 1;
	blob = hist_blob__encode(HIST_LOG2, st->unit, 0, 0, 0, st->counts, nr, &len);
	sql_result_blob_free(ctx, blob, len);
}
