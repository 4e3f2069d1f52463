/*
 * sqlite/hist.c - reading and writing the histogram blob (layout in sqlite/hist_blob.h) and
 * rendering it for the output formats.
 *
 *   SELECT log2_hist(latency, 'ns') FROM rundelay_pairs;   -- table mode: hist_to_text()
 *
 * (1) hist_is() accepts only a blob whose length matches its header exactly.
 * (2) hist_to_text() prints bcc's star bars: a header "     ns               : count    distri
 *     bution", log2 rows from bucket 0 to the last non-empty one ("%10lld -> %-10lld : %-8llu |"
 *     and 40 stars; 20-digit bounds and 20 stars past bucket 32, as bcc does), linear rows from
 *     the first to the last non-empty bucket; no line is wider than 80 columns.
 * (3) hist_to_json() lists the buckets from the first to the last non-empty one, as
 *     [{"low":..,"high":..,"count":..},...]; open ends of lin_hist() are null.
 * (4) An empty histogram renders as "" (text) and "[]" (json).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sqlite/hist.h"
#include "sqlite/hist_blob.h"

#define STARS_MAX 40
#define TEXT_COLS 80

static int64_t get_i64(const unsigned char *p)
{
	int64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
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
	if (v->kind == HIST_LIN && (v->step <= 0 || v->max <= v->min || nr < 2))
		return -EINVAL;
	memcpy(v->unit, p + HIST_HDR_LEN, p[10]);
	v->unit[p[10]] = '\0';
	v->counts = p + HIST_HDR_LEN + p[10];
	return 0;
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
		*low_out = i == 0 ? 0 : (int64_t)1 << i;
		*high_out = (int64_t)(((uint64_t)1 << (i + 1)) - 1);
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
		*low_out = v->min + (int64_t)(i - 1) * v->step;
		*high_out = *low_out + v->step - 1;
		if (*high_out >= v->max)
			*high_out = v->max - 1;
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

bool hist_is(const void *blob, int len)
{
	struct hist_view v;

	return hist_view__decode(&v, blob, len) == 0;
}

/* first and last non-empty bucket; false when the histogram is empty */
static bool nonempty_range(const struct hist_view *v, uint32_t *first_out, uint32_t *last_out,
			   uint64_t *max_out)
{
	bool any = false;

	*max_out = 0;
	for (uint32_t i = 0; i < v->nr; i++) {
		uint64_t c = hist_view__count(v, i);

		if (!c)
			continue;
		if (!any)
			*first_out = i;
		*last_out = i;
		any = true;
		if (c > *max_out)
			*max_out = c;
	}
	return any;
}

static void print_stars(FILE *f, uint64_t val, uint64_t val_max, int width)
{
	int nr_stars = (int)((double)val * width / (double)val_max);

	fputc('|', f);
	for (int i = 0; i < width; i++)
		fputc(i < nr_stars ? '*' : ' ', f);
	fputs("|\n", f);
}

static void log2_text(FILE *f, const struct hist_view *v, uint32_t last, uint64_t val_max)
{
	bool wide = last > 32;
	int width = wide ? 20 : 10;
	int stars = wide ? STARS_MAX / 2 : STARS_MAX;

	fprintf(f, "%*s%-*s : count    distribution\n", wide ? 15 : 5, "", wide ? 29 : 19,
		v->unit[0] ? v->unit : "value");
	for (uint32_t i = 0; i <= last; i++) {
		int64_t low, high;
		bool has_low, has_high;
		uint64_t c = hist_view__count(v, i);

		hist_view__range(v, i, &low, &high, &has_low, &has_high);
		fprintf(f, "%*" PRId64 " -> %-*" PRId64 " : %-8" PRIu64 " ", width, low, width, high, c);
		print_stars(f, c, val_max, stars);
	}
}

static void lin_label(char *buf, size_t size, const struct hist_view *v, uint32_t i)
{
	int64_t low, high;
	bool has_low, has_high;

	hist_view__range(v, i, &low, &high, &has_low, &has_high);
	if (!has_low)
		snprintf(buf, size, "< %" PRId64, v->min);
	else if (!has_high)
		snprintf(buf, size, ">= %" PRId64, v->max);
	else
		snprintf(buf, size, "%" PRId64, low);
}

static void lin_text(FILE *f, const struct hist_view *v, uint32_t first, uint32_t last,
		     uint64_t val_max)
{
	char label[32];
	int width = 10, stars;

	for (uint32_t i = first; i <= last; i++) {
		lin_label(label, sizeof(label), v, i);
		if ((int)strlen(label) > width)
			width = (int)strlen(label);
	}
	/* "        LABEL : COUNT    |STARS|" */
	stars = TEXT_COLS - (8 + width + 3 + 8 + 1 + 2);
	if (stars > STARS_MAX)
		stars = STARS_MAX;
	fprintf(f, "     %-*s : count    distribution\n", width + 3, v->unit[0] ? v->unit : "value");
	for (uint32_t i = first; i <= last; i++) {
		uint64_t c = hist_view__count(v, i);

		lin_label(label, sizeof(label), v, i);
		fprintf(f, "        %-*s : %-8" PRIu64 " ", width, label, c);
		print_stars(f, c, val_max, stars);
	}
}

static char *render(const void *blob, int len, bool json)
{
	struct hist_view v;
	uint32_t first = 0, last = 0;
	uint64_t val_max;
	char *buf = NULL;
	size_t size = 0;
	FILE *f;

	if (hist_view__decode(&v, blob, len))
		return NULL;
	f = open_memstream(&buf, &size);
	if (!f)
		return NULL;
	if (!nonempty_range(&v, &first, &last, &val_max)) {
		fputs(json ? "[]" : "", f);
	} else if (json) {
		fputc('[', f);
		for (uint32_t i = first; i <= last; i++) {
			int64_t low, high;
			bool has_low, has_high;

			hist_view__range(&v, i, &low, &high, &has_low, &has_high);
			fputs(i == first ? "{\"low\":" : ",{\"low\":", f);
			has_low ? fprintf(f, "%" PRId64, low) : fputs("null", f);
			fputs(",\"high\":", f);
			has_high ? fprintf(f, "%" PRId64, high) : fputs("null", f);
			fprintf(f, ",\"count\":%" PRIu64 "}", hist_view__count(&v, i));
		}
		fputc(']', f);
	} else if (v.kind == HIST_LOG2) {
		log2_text(f, &v, last, val_max);
	} else {
		lin_text(f, &v, first, last, val_max);
	}
	if (fclose(f)) {
		free(buf);
		return NULL;
	}
	return buf;
}

char *hist_to_text(const void *blob, int len)
{
	return render(blob, len, false);
}

char *hist_to_json(const void *blob, int len)
{
	return render(blob, len, true);
}
