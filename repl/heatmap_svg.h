/*
 * repl/heatmap_svg.h - --heatmap FILE: a heatmap() value as an SVG.
 */
#ifndef PERF_SQL_HEATMAP_SVG_H
#define PERF_SQL_HEATMAP_SVG_H
/* 0, -EINVAL (not a heatmap) or -errno */
int heatmap_svg__write(const void *blob, int len, const char *path, const char *title);
#endif
