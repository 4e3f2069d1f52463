/*
 * render/heatmap_svg.h - --heatmap FILE: a heatmap() value as an SVG.
 */
#ifndef PERF_SQL_HEATMAP_SVG_H
#define PERF_SQL_HEATMAP_SVG_H
#include "core/err.h"
/* Writes path whole or not at all, by core/outfile.h's rules: 0, -EINVAL (not a heatmap) or
 * -errno, with e set */
int heatmap_svg__save(const void *blob, int len, const char *path, const char *title,
		      struct err *e);
#endif
