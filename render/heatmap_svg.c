/*
 * render/heatmap_svg.c - --heatmap FILE: the heatmap() value of a query's result as an SVG
 * (time across, log2 value buckets up, each cell shaded by its count; a tooltip per cell).
 *
 *   perf-sql --heatmap lat.svg "SELECT heatmap(end_time, latency, 100000000) FROM
 *            pairs('sys_enter_read', '_tid', 'sys_exit_read', '_tid')" -d 10
 *
 * (1) The last heatmap value printed wins (with -i: the last window's).
 * (2) Written to a new file beside FILE, then renamed: whole or absent, never through a link
 *     (core/outfile.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "core/outfile.h"
#include "render/heatmap_svg.h"
#include "sqlite/heatmap.h"

static void bucket_label(int b, char *buf, size_t len)
{
	static const char *const units[] = { "", "K", "M", "G", "T" };
	unsigned long long lo = b ? 1ull << b : 0;
	int u = 0;

	while (lo >= 1024 && u < 4 && lo % 1024 == 0) {
		lo /= 1024;
		u++;
	}
	snprintf(buf, len, "%llu%s", lo, units[u]);
}

static int draw(FILE *o, const struct heatmap_view *v, const char *title)
{
	int rows = v->bmax - v->bmin + 1, cw = v->nr_slots > 300 ? 2 : v->nr_slots > 100 ? 4 : 10;
	int w = 70 + (int)v->nr_slots * cw + 20, h = 50 + rows * 14 + 30;
	uint64_t max = 1;
	char label[32];

	for (uint32_t s = 0; s < v->nr_slots; s++)
		for (int b = v->bmin; b <= v->bmax; b++)
			if (heatmap_view__count(v, s, b) > max)
				max = heatmap_view__count(v, s, b);
	fprintf(o,
		"<?xml version=\"1.0\" standalone=\"no\"?>\n<svg version=\"1.1\" width=\"%d\" "
		"height=\"%d\" xmlns=\"http://www.w3.org/2000/svg\">\n<style>text{font:11px "
		"monospace}</style>\n<rect width=\"100%%\" height=\"100%%\" fill=\"#fff\"/>\n"
		"<text x=\"10\" y=\"18\">",
		w, h);
	for (const char *p = title; *p; p++)
		fputs(*p == '<' ? "&lt;" : *p == '&' ? "&amp;" : (char[2]){ *p, 0 }, o);
	fputs("</text>\n", o);
	for (int b = v->bmin; b <= v->bmax; b++) {
		int y = 40 + (v->bmax - b) * 14;

		bucket_label(b, label, sizeof(label));
		fprintf(o, "<text x=\"4\" y=\"%d\">%s</text>\n", y + 11, label);
		for (uint32_t s = 0; s < v->nr_slots; s++) {
			uint64_t n = heatmap_view__count(v, s, b);
			int shade = n ? 230 - (int)(200 * n / max) : 255;

			if (!n)
				continue;
			fprintf(o,
				"<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"13\" "
				"fill=\"rgb(255,%d,%d)\">"
				"<title>slot %u (+%.3f s), [%s, 2x): %llu</title></rect>\n",
				70 + (int)s * cw, y, cw, shade, shade / 2, s,
				(double)s * (double)v->slot_ns / 1e9, label, (unsigned long long)n);
		}
	}
	fprintf(o,
		"<text x=\"70\" y=\"%d\">time: %u slots of %.3f s; value buckets are log2</text>\n"
		"</svg>\n",
		h - 10, v->nr_slots, (double)v->slot_ns / 1e9);
	return ferror(o) ? -EIO : 0;
}

struct heatmap_out {
	struct heatmap_view v;
	const char *title;
};

static int put_heatmap(FILE *o, void *ctx)
{
	struct heatmap_out *h = ctx;

	return draw(o, &h->v, h->title);
}

int heatmap_svg__save(const void *blob, int len, const char *path, const char *title, struct err *e)
{
	struct heatmap_out h = { .title = title };

	if (heatmap_view__decode(&h.v, blob, len))
		return err_set(e, -EINVAL, "%s: the value is not a heatmap", path);
	return outfile__replace(path, 0644, put_heatmap, &h, e);
}
