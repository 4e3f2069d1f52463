/*
 * heatmap(TIME_NS, VALUE [, SLOT_NS]) - aggregate: a latency heatmap, i.e. one log2 histogram
 * of VALUE per time slot of SLOT_NS nanoseconds (default 1 s), like perf-prof's heatmap and
 * Brendan Gregg's latency heat maps.
 *
 *   SELECT heatmap(time, latency, 100000000) FROM rundelay_pairs;       -- 100 ms columns
 *   SELECT * FROM heatmap_rows((SELECT heatmap(time, latency) FROM rundelay_pairs));
 *
 * (1) A row goes to slot floor(TIME_NS / SLOT_NS) and to VALUE's log2_hist() bucket (0 and 1
 *     in bucket 0, [2^i, 2^(i+1)-1] in bucket i).
 * (2) TIME_NS must be an integer and VALUE a non-negative number (errors quote the value);
 *     a row with either NULL is skipped. SLOT_NS is a positive integer taken from the first
 *     row; the slots between the first and the last row must be at most 10000.
 * (2b) Every int64 TIME_NS is taken: times any distance apart (2^64 - 1 ns included) are the
 *     error of too many slots, never a wrapped span. The one time that cannot be placed is a
 *     negative one within SLOT_NS of INT64_MIN whose slot would start below it: an error
 *     naming the time (docs/functions.md, "Extremes").
 * (3) The result is a HEATMAP_MAGIC blob (vtab/blob_format.h) holding every slot from the first
 *     to the last non-empty one and the buckets from the lowest to the highest non-empty one;
 *     over no rows it is NULL. heatmap_to_text() renders it, heatmap_rows() lists its cells.
 */
#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>

#include "sqlite/functions.h"
#include "sqlite/heatmap.h"

#define SHADES " .:-=+*#%@"
#define MAX_COLUMNS 52

struct heatmap_state {
	uint64_t *counts;     /* [cap][HIST_LOG2_NR], slot base + i in row i */
	int64_t base, lo, hi; /* slot indexes: allocated from base, used lo..hi */
	uint32_t cap;
	int64_t slot_ns;
	bool any;
};

static int64_t floor_div(int64_t a, int64_t b) { return a / b - (a % b < 0); }

/* slot idx has a row in st->counts */
static bool held(const struct heatmap_state *st, int64_t idx)
{
	return st->counts && idx >= st->base && (uint64_t)idx - (uint64_t)st->base < st->cap;
}

/*
 * Room for slot idx: rows from base to base + cap - 1, that range inside int64 (slots near
 * either end of it clamp base, so no index arithmetic below can overflow); -E2BIG past
 * HEATMAP_SLOTS_MAX slots from the lowest to the highest.
 */
static int grow(struct heatmap_state *st, int64_t idx)
{
	int64_t lo = st->any && st->lo < idx ? st->lo : idx;
	int64_t hi = st->any && st->hi > idx ? st->hi : idx;
	int64_t span, cap, base;
	uint64_t *counts;

	if ((uint64_t)hi - (uint64_t)lo >= HEATMAP_SLOTS_MAX) /* hi >= lo: exact in u64 */
		return -E2BIG;
	span = hi - lo + 1;
	cap = span * 2 < 16 ? 16 : span * 2;
	if (cap > HEATMAP_SLOTS_MAX)
		cap = HEATMAP_SLOTS_MAX;
	if (st->any && idx < st->lo) /* leave room where we grew */
		base = hi < INT64_MIN + (cap - 1) ? INT64_MIN : hi - (cap - 1);
	else
		base = lo > INT64_MAX - (cap - 1) ? INT64_MAX - (cap - 1) : lo;
	assert(base <= lo && hi - base < cap);
	counts = calloc((size_t)cap * HIST_LOG2_NR, sizeof(*counts));
	if (!counts)
		return -ENOMEM;
	if (st->any)
		memcpy(counts + (st->lo - base) * HIST_LOG2_NR,
		       st->counts + (st->lo - st->base) * HIST_LOG2_NR,
		       (size_t)(st->hi - st->lo + 1) * HIST_LOG2_NR * sizeof(*counts));
	free(st->counts);
	st->counts = counts;
	st->base = base;
	st->cap = (uint32_t)cap;
	return 0;
}

static bool setup(sqlite3_context *ctx, struct heatmap_state *st, int argc, sqlite3_value **argv)
{
	if (argc < 3 || sqlite3_value_type(argv[2]) == SQLITE_NULL) {
		st->slot_ns = HEATMAP_SLOT_NS_DEFAULT;
		return true;
	}
	if (sqlite3_value_numeric_type(argv[2]) != SQLITE_INTEGER ||
	    sqlite3_value_int64(argv[2]) <= 0) {
		sql_result_value_error(ctx, "heatmap: slot_ns ", argv[2],
				       " is not a positive integer");
		return false;
	}
	st->slot_ns = sqlite3_value_int64(argv[2]);
	return true;
}

/* the slot of the row's time; false with the error set */
static bool slot_of(sqlite3_context *ctx, const struct heatmap_state *st, sqlite3_value *time,
		    int64_t *idx_out)
{
	int64_t t, start;

	if (sqlite3_value_numeric_type(time) != SQLITE_INTEGER) {
		sql_result_value_error(ctx, "heatmap: time ", time, " is not an integer");
		return false;
	}
	t = sqlite3_value_int64(time);
	*idx_out = floor_div(t, st->slot_ns);
	/* idx * slot_ns <= t: only a negative t can have its slot start below INT64_MIN */
	if (__builtin_mul_overflow(*idx_out, st->slot_ns, &start)) {
		sql_result_errorf(ctx,
				  "heatmap: time %lld: its slot of %lld ns would start before "
				  "-9223372036854775808",
				  (long long)t, (long long)st->slot_ns);
		return false;
	}
	return true;
}

void heatmap_step(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	struct heatmap_state *st;
	int64_t idx;
	uint64_t v;
	int rc;

	st = sql_agg_state(ctx, argc, 2, 3, "heatmap: usage: heatmap(TIME_NS, VALUE [, SLOT_NS])",
			   sizeof(*st));
	if (!st)
		return;
	if (!st->slot_ns && !setup(ctx, st, argc, argv))
		return;
	if (sqlite3_value_type(argv[0]) == SQLITE_NULL ||
	    sqlite3_value_type(argv[1]) == SQLITE_NULL)
		return;
	if (!slot_of(ctx, st, argv[0], &idx) || !log2_value(ctx, argv[1], "heatmap", &v))
		return;
	if (!held(st, idx)) {
		rc = grow(st, idx);
		if (rc == -ENOMEM) {
			sqlite3_result_error_nomem(ctx);
			return;
		} else if (rc) {
			sqlite3_result_error(
				ctx, "heatmap: more than 10000 time slots; raise slot_ns", -1);
			return;
		}
	}
	st->counts[(idx - st->base) * HIST_LOG2_NR + hist_log2_bucket(v)]++;
	if (!st->any || idx < st->lo)
		st->lo = idx;
	if (!st->any || idx > st->hi)
		st->hi = idx;
	st->any = true;
}

void heatmap_final(sqlite3_context *ctx)
{
	struct heatmap_state *st = sqlite3_aggregate_context(ctx, 0);
	void *blob;
	int len;

	if (!st)
		return;
	if (st->any) {
		blob = heatmap_blob__encode(st->counts + (st->lo - st->base) * HIST_LOG2_NR,
					    (uint32_t)(st->hi - st->lo + 1), st->slot_ns,
					    st->lo * st->slot_ns, &len);
		sql_result_blob_free(ctx, blob, len);
	}
	free(st->counts);
	st->counts = NULL;
}

/* sum of bucket b over the slots of column col */
static uint64_t column_count(const struct heatmap_view *v, uint32_t col, uint32_t per_col, int b)
{
	uint64_t sum = 0;

	for (uint32_t s = col * per_col; s < (col + 1) * per_col && s < v->nr_slots; s++)
		if (__builtin_add_overflow(sum, heatmap_view__count(v, s, b), &sum))
			return UINT64_MAX; /* saturates: the shade is relative to the largest */
	return sum;
}

char *heatmap_to_text(const void *blob, int len)
{
	struct heatmap_view v;
	uint32_t per_col, nr_cols;
	uint64_t max = 0;
	char *buf = NULL, slot[64];
	size_t size = 0;
	FILE *f;

	if (heatmap_view__decode(&v, blob, len))
		return NULL;
	per_col = (v.nr_slots + MAX_COLUMNS - 1) / MAX_COLUMNS;
	nr_cols = (v.nr_slots + per_col - 1) / per_col;
	for (uint32_t c = 0; c < nr_cols; c++)
		for (int b = v.bmin; b <= v.bmax; b++) {
			uint64_t n = column_count(&v, c, per_col, b);

			max = n > max ? n : max;
		}
	f = open_memstream(&buf, &size);
	if (!f)
		return NULL;
	for (int b = v.bmax; b >= v.bmin; b--) {
		fprintf(f, "%10lld -> %-10lld |", (long long)hist_log2_low(b),
			(long long)hist_log2_high(b));
		for (uint32_t c = 0; c < nr_cols; c++) {
			uint64_t n = column_count(&v, c, per_col, b);
			/* ceil(n * 9 / max): any non-zero cell is visible, the largest is '@' */
			unsigned level =
				max ? (unsigned)(((unsigned __int128)n * 9 + max - 1) / max) : 0;

			fputc(SHADES[level], f);
		}
		fputs("|\n", f);
	}
	dur_format(slot, sizeof(slot), (double)v.slot_ns * per_col);
	fprintf(f, "time: %u columns of %s from %lld ns; '@' = %llu per cell\n", nr_cols, slot,
		(long long)v.t0, (unsigned long long)max);
	if (fclose(f)) {
		free(buf);
		return NULL;
	}
	return buf;
}
