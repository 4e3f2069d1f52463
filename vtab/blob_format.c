/*
 * vtab/blob_format.c - reading and writing the histogram and heatmap blobs (layouts in
 * vtab/blob_format.h).
 *
 * (1) A decoder accepts only a blob of the right magic and version whose length matches its
 *     header exactly; the view it fills points into the blob.
 * (2) The encoders write host byte order; heatmap_blob__encode() keeps only the bucket range
 *     that holds a count, so its rows must hold at least one (heatmap() over no rows is NULL).
 * (3) What a reader computes from a blob that decodes stays in int64, whatever the blob came
 *     from (SQL can make any blob): every count is at most INT64_MAX; a linear histogram has
 *     min > INT64_MIN and exactly the buckets its min, max and step make, so each bucket's
 *     bounds are int64; a heatmap's last slot starts within int64.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "vtab/blob_format.h"

static int64_t get_i64(const unsigned char *p)
{
	int64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* (3) every count is an SQL integer */
static bool counts_ok(const unsigned char *counts, size_t nr)
{
	for (size_t i = 0; i < nr; i++)
		if (get_i64(counts + i * 8) < 0)
			return false;
	return true;
}

/* the buckets lin_hist(V, min, max, step) stores: regular ones, underflow and overflow; max >
 * min and step > 0, so the range is exact in u64 */
static uint64_t lin_nr(int64_t min, int64_t max, int64_t step)
{
	uint64_t range = (uint64_t)max - (uint64_t)min;

	return range / (uint64_t)step + (range % (uint64_t)step != 0) + 2;
}

int hist_view__decode(struct hist_view *v, const void *blob, int len)
{
	const unsigned char *p = blob;
	uint32_t nr;

	if (!blob || len < HIST_HDR_LEN || memcmp(p, HIST_MAGIC, 8) || p[8] != HIST_VERSION)
		return -EINVAL;
	if ((p[9] != HIST_LOG2 && p[9] != HIST_LIN) || p[10] > HIST_UNIT_MAX)
		return -EINVAL;
	memcpy(&nr, p + 12, sizeof(nr));
	if (nr > HIST_LIN_NR_MAX + 2 || (p[9] == HIST_LOG2 && nr > HIST_LOG2_NR))
		return -EINVAL;
	if ((int64_t)len != HIST_HDR_LEN + p[10] + (int64_t)nr * 8)
		return -EINVAL;
	v->kind = p[9];
	v->nr = nr;
	v->min = get_i64(p + 16);
	v->max = get_i64(p + 24);
	v->step = get_i64(p + 32);
	if (v->kind == HIST_LIN && (v->step <= 0 || v->max <= v->min || v->min == INT64_MIN ||
				    nr != lin_nr(v->min, v->max, v->step)))
		return -EINVAL;
	memcpy(v->unit, p + HIST_HDR_LEN, p[10]);
	v->unit[p[10]] = '\0';
	v->counts = p + HIST_HDR_LEN + p[10];
	return counts_ok(v->counts, nr) ? 0 : -EINVAL;
}

bool hist_is(const void *blob, int len)
{
	struct hist_view v;

	return hist_view__decode(&v, blob, len) == 0;
}

uint64_t hist_view__count(const struct hist_view *v, uint32_t i)
{
	uint64_t c;

	memcpy(&c, v->counts + (size_t)i * 8, sizeof(c));
	return c;
}

void hist_view__range(const struct hist_view *v, uint32_t i, int64_t *low_out, int64_t *high_out,
		      bool *has_low_out, bool *has_high_out)
{
	*has_low_out = *has_high_out = true;
	if (v->kind == HIST_LOG2) {
		*low_out = hist_log2_low((int)i);
		*high_out = hist_log2_high((int)i);
		return;
	}
	/* HIST_LIN: 0 is the underflow bucket, nr-1 the overflow bucket */
	if (i == 0) {
		*has_low_out = false;
		*low_out = 0;
		*high_out = v->min - 1;
	} else if (i == v->nr - 1) {
		*has_high_out = false;
		*low_out = v->max;
		*high_out = 0;
	} else {
		/* i - 1 < the regular buckets (decode checked nr), so min <= low < max; in u64,
		 * where (i - 1) * step < max - min cannot wrap, and high stops at max - 1 */
		*low_out = (int64_t)((uint64_t)v->min + (uint64_t)(i - 1) * (uint64_t)v->step);
		*high_out = (uint64_t)(v->max - 1) - (uint64_t)*low_out < (uint64_t)v->step - 1
				    ? v->max - 1
				    : *low_out + (v->step - 1);
	}
}

void *hist_blob__encode(int kind, const char *unit, int64_t min, int64_t max, int64_t step,
			const uint64_t *counts, uint32_t nr, int *len_out)
{
	size_t unit_len = unit ? strlen(unit) : 0;
	size_t len;
	unsigned char *p;

	if (unit_len > HIST_UNIT_MAX)
		unit_len = HIST_UNIT_MAX;
	len = HIST_HDR_LEN + unit_len + (size_t)nr * 8;
	p = calloc(1, len);
	if (!p)
		return NULL;
	memcpy(p, HIST_MAGIC, 8);
	p[8] = HIST_VERSION;
	p[9] = (unsigned char)kind;
	p[10] = (unsigned char)unit_len;
	memcpy(p + 12, &nr, sizeof(nr));
	memcpy(p + 16, &min, sizeof(min));
	memcpy(p + 24, &max, sizeof(max));
	memcpy(p + 32, &step, sizeof(step));
	memcpy(p + HIST_HDR_LEN, unit, unit_len);
	memcpy(p + HIST_HDR_LEN + unit_len, counts, (size_t)nr * 8);
	*len_out = (int)len;
	return p;
}

int heatmap_view__decode(struct heatmap_view *v, const void *blob, int len)
{
	const unsigned char *p = blob;
	int64_t last;

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
	/* (3) the last slot's start, t0 + (nr_slots - 1) * slot_ns, is an int64 */
	if (__builtin_mul_overflow((int64_t)(v->nr_slots - 1), v->slot_ns, &last) ||
	    __builtin_add_overflow(v->t0, last, &last))
		return -EINVAL;
	if ((int64_t)len != HEATMAP_HDR_LEN + (int64_t)v->nr_slots * (v->bmax - v->bmin + 1) * 8)
		return -EINVAL;
	v->counts = p + HEATMAP_HDR_LEN;
	return counts_ok(v->counts, (size_t)v->nr_slots * (size_t)(v->bmax - v->bmin + 1))
		       ? 0
		       : -EINVAL;
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

void *heatmap_blob__encode(const uint64_t *rows, uint32_t nr_slots, int64_t slot_ns, int64_t t0,
			   int *len_out)
{
	int bmin = HIST_LOG2_NR, bmax = -1, nr_b;
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
	memcpy(p + 16, &slot_ns, 8);
	memcpy(p + 24, &t0, 8);
	for (uint32_t s = 0; s < nr_slots; s++)
		memcpy(p + HEATMAP_HDR_LEN + (size_t)s * nr_b * 8, rows + s * HIST_LOG2_NR + bmin,
		       (size_t)nr_b * 8);
	*len_out = (int)len;
	return p;
}
