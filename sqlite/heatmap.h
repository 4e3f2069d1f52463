/*
 * sqlite/heatmap.h - the latency heatmap value built by heatmap() (sqlite/heatmap.c) and read
 * by heatmap_rows() (vtab/heatmap_rows.c) and the output formats. It travels through SQL as a
 * BLOB that starts with HEATMAP_MAGIC:
 *
 *   offset  0  char magic[8]   HEATMAP_MAGIC
 *           8  u8   version    HEATMAP_VERSION
 *           9  u8   bmin       lowest log2 bucket stored (buckets as in sqlite/hist_blob.h)
 *          10  u8   bmax       highest log2 bucket stored, bmin <= bmax < HIST_LOG2_NR
 *          11  u8   pad
 *          12  u32  nr_slots   time slots stored, 1..HEATMAP_SLOTS_MAX
 *          16  i64  slot_ns    width of a time slot
 *          24  i64  t0         start of the first slot (a multiple of slot_ns)
 *          32  u64  counts[nr_slots][bmax - bmin + 1]   slot-major, host order, not aligned
 */
#ifndef PERF_SQL_HEATMAP_H
#define PERF_SQL_HEATMAP_H
#include <stdbool.h>
#include <stdint.h>

#define HEATMAP_MAGIC "PSQLHEAT"
#define HEATMAP_VERSION 1
#define HEATMAP_HDR_LEN 32
#define HEATMAP_SLOTS_MAX 10000
#define HEATMAP_SLOT_NS_DEFAULT 1000000000LL

struct heatmap_view {
	int bmin, bmax;
	uint32_t nr_slots;
	int64_t slot_ns, t0;
	const unsigned char *counts;
};

bool heatmap_is(const void *blob, int len);
/* 0, or -EINVAL when the blob is not a well-formed heatmap; the view points into the blob */
int heatmap_view__decode(struct heatmap_view *v, const void *blob, int len);
/* count of log2 bucket b (bmin <= b <= bmax) in slot s */
uint64_t heatmap_view__count(const struct heatmap_view *v, uint32_t s, int b);
/*
 * malloc'd, NUL-terminated terminal rendering; NULL on a malformed blob or out of memory: one
 * row per log2 bucket (highest first), one column per time slot (several slots per column past
 * 52 slots, so lines stay within 80 columns), each cell shaded ' .:-=+*#%@' by its count
 * relative to the largest cell, then a line naming the time axis.
 */
char *heatmap_to_text(const void *blob, int len);
#endif
