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
 * (3) The result is a HEATMAP_MAGIC blob (sqlite/heatmap.h) holding every slot from the first
 *     to the last non-empty one and the buckets from the lowest to the highest non-empty one;
 *     over no rows it is NULL. heatmap_to_text() renders it, heatmap_rows() lists its cells.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>

#include "sqlite/functions.h"
#include "sqlite/heatmap.h"
#include "sqlite/hist_blob.h"

#define SHADES " .:-=+*#%@"
#define MAX_COLUMNS 52

struct heatmap_state {
	uint64_t *counts; /* [cap][HIST_LOG2_NR], slot base + i in row i */
	int64_t base, lo, hi; /* slot indexes: allocated from base, used lo..hi */
	uint32_t cap;
	int64_t slot_ns;
	bool any;
};

static int64_t floor_div(int64_t a, int64_t b)
{
	return a / b - (a % b < 0);
}

static int grow(struct heatmap_state *st, int64_t idx)
{
	int64_t lo = st->any && st->lo < idx ? st->lo : idx;
	int64_t hi = st->any && st->hi > idx ? st->hi : idx;
	int64_t span = hi - lo + 1, cap, base;
	uint64_t *counts;

	if (span > HEATMAP_SLOTS_MAX)
		return -E2BIG;
	cap = span * 2 < 16 ? 16 : span * 2;
	if (cap > HEATMAP_SLOTS_MAX)
		cap = HEATMAP_SLOTS_MAX;
	base = st->any && idx < st->lo ? hi - cap + 1 : lo; /* leave room where we grew */
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
	st->slot_ns = HEATMAP_SLOT_NS_DEFAULT;
	if (argc < 3 || sqlite3_value_type(argv[2]) == SQLITE_NULL)
		return true;
	st->slot_ns = sqlite3_value_int64(argv[2]);
	if (sqlite3_value_numeric_type(argv[2]) != SQLITE_INTEGER || st->slot_ns <= 0) {
		sqlite3_result_error(ctx, "heatmap: slot_ns must be a positive integer", -1);
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

	if (argc < 2 || argc > 3) {
		sqlite3_result_error(ctx, "heatmap: usage: heatmap(TIME_NS, VALUE [, SLOT_NS])", -1);
		return;
	}
	st = sqlite3_aggregate_context(ctx, sizeof(*st));
	if (!st) {
		sqlite3_result_error_nomem(ctx);
		return;
	}
	if (!st->slot_ns && !setup(ctx, st, argc, argv))
		return;
	if (sqlite3_value_type(argv[0]) == SQLITE_NULL ||
	    sqlite3_value_type(argv[1]) == SQLITE_NULL)
		return;
	if (sqlite3_value_numeric_type(argv[0]) != SQLITE_INTEGER) {
		char *msg = sqlite3_mprintf("heatmap: time '%.40s' is not an integer",
					    (const char *)sqlite3_value_text(argv[0]));

		sqlite3_result_error(ctx, msg ? msg : "heatmap: out of memory", -1);
		sqlite3_free(msg);
		return;
	}
	if (!log2_value(ctx, argv[1], "heatmap", &v))
		return;
	idx = floor_div(sqlite3_value_int64(argv[0]), st->slot_ns);
	if (!st->counts || idx < st->base || idx >= st->base + st->cap) {
		rc = grow(st, idx);
		if (rc == -ENOMEM) {
			sqlite3_result_error_nomem(ctx);
			return;
		} else if (rc) {
			sqlite3_result_error(ctx, "heatmap: more than 10000 time slots; raise slot_ns",
					     -1);
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

static void *encode(const struct heatmap_state *st, int *len_out)
{
	uint32_t nr_slots = (uint32_t)(st->hi - st->lo + 1);
	int bmin = HIST_LOG2_NR, bmax = -1, nr_b;
	int64_t t0 = st->lo * st->slot_ns;
	const uint64_t *rows = st->counts + (st->lo - st->base) * HIST_LOG2_NR;
	unsigned char *p;
	size_t len;

	for (uint32_t s = 0; s < nr_slots; s++)
		for (int b = 0; b < HIST_LOG2_NR; b++)
			if (rows[s * HIST_LOG2_NR + b]) {
				bmin = b < bmin ? b : bmin;
				bmax = b > bmax ? b : bmax;
			}
	nr_b = bmax - bmin + 1;
	len = HEATMAP_HDR_LEN + (size_t)nr_slots * nr_b * 8;
	p = calloc(1, len);
	if (!p)
		return NULL;
	memcpy(p, HEATMAP_MAGIC, 8);
	p[8] = HEATMAP_VERSION;
	p[9] = (unsigned char)bmin;
	p[10] = (unsigned char)bmax;
	memcpy(p + 12, &nr_slots, 4);
	memcpy(p + 16, &st->slot_ns, 8);
	memcpy(p + 24, &t0, 8);
	for (uint32_t s = 0; s < nr_slots; s++)
		memcpy(p + HEATMAP_HDR_LEN + (size_t)s * nr_b * 8, rows + s * HIST_LOG2_NR + bmin,
		       (size_t)nr_b * 8);
	*len_out = (int)len;
	return p;
}

void heatmap_final(sqlite3_context *ctx)
{
	struct heatmap_state *st = sqlite3_aggregate_context(ctx, 0);
	void *blob;
	int len;

	if (!st)
		return;
	if (st->any) {
		blob = encode(st, &len);
		if (blob)
			sqlite3_result_blob(ctx, blob, len, free);
		else
			sqlite3_result_error_nomem(ctx);
	}
	free(st->counts);
	st->counts = NULL;
}

int heatmap_view__decode(struct heatmap_view *v, const void *blob, int len)
{
	const unsigned char *p = blob;

	if (!blob || len < HEATMAP_HDR_LEN || memcmp(p, HEATMAP_MAGIC, 8) ||
	    p[8] != HEATMAP_VERSION || p[9] > p[10] || p[10] >= HIST_LOG2_NR)
		return -EINVAL;
	v->bmin = p[9];
	v->bmax = p[10];
	memcpy(&v->nr_slots, p + 12, 4);
	memcpy(&v->slot_ns, p + 16, 8);
	memcpy(&v->t0, p + 24, 8);
	if (!v->nr_slots || v->nr_slots > HEATMAP_SLOTS_MAX || v->slot_ns <= 0)
		return -EINVAL;
	if ((int64_t)len != HEATMAP_HDR_LEN + (int64_t)v->nr_slots * (v->bmax - v->bmin + 1) * 8)
		return -EINVAL;
	v->counts = p + HEATMAP_HDR_LEN;
	return 0;
}

bool heatmap_is(const void *blob, int len)
{
	struct heatmap_view v;

	return heatmap_view__decode(&v, blob, len) == 0;
}

uint64_t heatmap_view__count(const struct heatmap_view *v, uint32_t s, int b)
{
	uint64_t c;

	memcpy(&c, v->counts + ((size_t)s * (v->bmax - v->bmin + 1) + (b - v->bmin)) * 8, 8);
	return c;
}

/* sum of bucket b over the slots of column col */
static uint64_t column_count(const struct heatmap_view *v, uint32_t col, uint32_t per_col, int b)
{
	uint64_t sum = 0;

	for (uint32_t s = col * per_col; s < (col + 1) * per_col && s < v->nr_slots; s++)
		sum += heatmap_view__count(v, s, b);
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
		int64_t low = b == 0 ? 0 : (int64_t)1 << b;
		int64_t high = (int64_t)(((uint64_t)1 << (b + 1)) - 1);

		fprintf(f, "%10lld -> %-10lld |", (long long)low, (long long)high);
		for (uint32_t c = 0; c < nr_cols; c++) {
			uint64_t n = column_count(&v, c, per_col, b);
			/* ceil(n * 9 / max): any non-zero cell is visible, the largest is '@' */
			unsigned level = max ? (unsigned)(((unsigned __int128)n * 9 + max - 1) / max) : 0;

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
