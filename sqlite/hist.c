/*
 * sqlite/hist.c - rendering the histogram blob (layout in vtab/blob_format.h) for the output
 * formats.
 *
 *   SELECT log2_hist(latency, 'ns') FROM rundelay_pairs;   -- table mode: hist_to_text()
 *
 * (1) hist_is() (vtab/blob_format.c) accepts only a blob whose length matches its header.
 * (2) hist_to_text() prints bcc's star bars: a header "     ns               : count    distri
 *     bution", log2 rows from bucket 0 to the last non-empty one ("%10lld -> %-10lld : %-8llu |"
 *     and 40 stars; 20-digit bounds and 20 stars past bucket 32, as bcc does), linear rows from
 *     the first to the last non-empty bucket; no line is wider than 80 columns.
 * (3) hist_to_json() lists the buckets from the first to the last non-empty one, as
 *     [{"low":..,"high":..,"count":..},...]; open ends of lin_hist() are null.
 * (4) An empty histogram renders as "" (text) and "[]" (json).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sqlite/hist.h"

#define STARS_MAX 40
#define TEXT_COLS 80

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
		fprintf(f, "%*" PRId64 " -> %-*" PRId64 " : %-8" PRIu64 " ", width, low, width,
			high, c);
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
	fprintf(f, "     %-*s : count    distribution\n", width + 3,
		v->unit[0] ? v->unit : "value");
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

char *hist_to_text(const void *blob, int len) { return render(blob, len, false); }

char *hist_to_json(const void *blob, int len) { return render(blob, len, true); }
