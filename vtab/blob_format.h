/*
 * vtab/blob_format.h - the byte layouts of the two values that travel through SQL as BLOBs:
 * the histogram (built by log2_hist() and lin_hist()) and the heatmap (built by heatmap()).
 * The aggregates in sqlite/ write them, hist_rows()/heatmap_rows() (vtab/blob_rows.c) and the
 * renderings (sqlite/hist.c, sqlite/heatmap.c, render/) read them. No SQLite here: the layouts sit
 * below both their writers and their readers.
 *
 * Histogram:
 *   offset  0  char magic[8]     HIST_MAGIC
 *           8  u8   version      HIST_VERSION
 *           9  u8   kind         HIST_LOG2 or HIST_LIN
 *          10  u8   unit_len     0..HIST_UNIT_MAX
 *          11  u8   pad
 *          12  u32  nr           number of buckets stored
 *          16  i64  min          HIST_LIN: lower bound of the first regular bucket
 *          24  i64  max          HIST_LIN: upper bound (exclusive)
 *          32  i64  step         HIST_LIN: bucket width
 *          40  char unit[unit_len]
 *              u64  counts[nr]   host byte order, not aligned
 *
 * HIST_LOG2 stores buckets 0..last non-zero: bucket 0 holds 0 and 1 ("0 -> 1", as bcc prints
 * it), bucket i >= 1 holds [2^i, 2^(i+1)-1]. HIST_LIN stores an underflow bucket (< min), the
 * regular buckets [min + k*step, min + (k+1)*step - 1], and an overflow bucket (>= max).
 *
 * Heatmap (one log2 histogram per time slot):
 *   offset  0  char magic[8]   HEATMAP_MAGIC
 *           8  u8   version    HEATMAP_VERSION
 *           9  u8   bmin       lowest log2 bucket stored (buckets as in HIST_LOG2)
 *          10  u8   bmax       highest log2 bucket stored, bmin <= bmax < HIST_LOG2_NR
 *          11  u8   pad
 *          12  u32  nr_slots   time slots stored, 1..HEATMAP_SLOTS_MAX
 *          16  i64  slot_ns    width of a time slot
 *          24  i64  t0         start of the first slot (a multiple of slot_ns)
 *          32  u64  counts[nr_slots][bmax - bmin + 1]   slot-major, host order, not aligned
 *
 * A reader accepts only a blob whose length matches its header exactly.
 */
#ifndef PERF_SQL_BLOB_FORMAT_H
#define PERF_SQL_BLOB_FORMAT_H
#include <stdbool.h>
#include <stdint.h>

#define HIST_MAGIC "PSQLHIST"
#define HIST_VERSION 1
#define HIST_LOG2 1
#define HIST_LIN 2
#define HIST_UNIT_MAX 31
#define HIST_HDR_LEN 40
#define HIST_LOG2_NR 63 /* bucket 62 ends at INT64_MAX */
#define HIST_LIN_NR_MAX 100000

#define HEATMAP_MAGIC "PSQLHEAT"
#define HEATMAP_VERSION 1
#define HEATMAP_HDR_LEN 32
#define HEATMAP_SLOTS_MAX 10000

/* A decoded view of a blob; counts points into the blob, so the blob must outlive the view. */
struct hist_view {
	int kind;
	char unit[HIST_UNIT_MAX + 1];
	int64_t min, max, step;
	uint32_t nr;
	const unsigned char *counts;
};

struct heatmap_view {
	int bmin, bmax;
	uint32_t nr_slots;
	int64_t slot_ns, t0;
	const unsigned char *counts;
};

/* 0, or -EINVAL when the blob is not a well-formed histogram. */
int hist_view__decode(struct hist_view *v, const void *blob, int len);
bool hist_is(const void *blob, int len);
uint64_t hist_view__count(const struct hist_view *v, uint32_t i);
/* Inclusive bounds of bucket i; *has_low_out / *has_high_out are false for open ends. */
void hist_view__range(const struct hist_view *v, uint32_t i, int64_t *low_out, int64_t *high_out,
		      bool *has_low_out, bool *has_high_out);
/* Encodes a histogram; malloc'd, length in *len_out; NULL when out of memory. */
void *hist_blob__encode(int kind, const char *unit, int64_t min, int64_t max, int64_t step,
			const uint64_t *counts, uint32_t nr, int *len_out);

/* 0, or -EINVAL when the blob is not a well-formed heatmap. */
int heatmap_view__decode(struct heatmap_view *v, const void *blob, int len);
bool heatmap_is(const void *blob, int len);
/* count of log2 bucket b (bmin <= b <= bmax) in slot s */
uint64_t heatmap_view__count(const struct heatmap_view *v, uint32_t s, int b);
/*
 * Encodes a heatmap from rows[nr_slots][HIST_LOG2_NR] (slot t0 + s * slot_ns in row s), keeping
 * the buckets from the lowest to the highest non-empty one (rows hold at least one count);
 * malloc'd, length in *len_out; NULL when out of memory.
 */
void *heatmap_blob__encode(const uint64_t *rows, uint32_t nr_slots, int64_t slot_ns, int64_t t0,
			   int *len_out);

/* Inclusive bounds of log2 bucket b: 0..1 for bucket 0, [2^b, 2^(b+1)-1] above. */
static inline int64_t hist_log2_low(int b) { return b == 0 ? 0 : (int64_t)1 << b; }

static inline int64_t hist_log2_high(int b) { return (int64_t)(((uint64_t)1 << (b + 1)) - 1); }

/* log2 bucket of a non-negative value (see above). */
static inline int hist_log2_bucket(uint64_t v) { return v < 2 ? 0 : 63 - __builtin_clzll(v); }
#endif
