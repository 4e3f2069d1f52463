/*
 * sqlite/heatmap.h - the latency heatmap value built by heatmap() (sqlite/heatmap.c) and read
 * by heatmap_rows() (vtab/blob_rows.c) and the output formats. It travels through SQL as a
 * BLOB that starts with HEATMAP_MAGIC (layout, decoder and heatmap_is() in vtab/blob_format.h).
 */
#ifndef PERF_SQL_HEATMAP_H
#define PERF_SQL_HEATMAP_H
#include "vtab/blob_format.h"

#define HEATMAP_SLOT_NS_DEFAULT 1000000000LL

/*
 * malloc'd, NUL-terminated terminal rendering; NULL on a malformed blob or out of memory: one
 * row per log2 bucket (highest first), one column per time slot (several slots per column past
 * 52 slots, so lines stay within 80 columns), each cell shaded ' .:-=+*#%@' by its count
 * relative to the largest cell, then a line naming the time axis.
 */
char *heatmap_to_text(const void *blob, int len);
#endif
