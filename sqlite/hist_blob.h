/*
 * sqlite/hist_blob.h - the layout of the HIST_MAGIC blob (sqlite/hist.h), shared by the
 * aggregates that build it (log2_hist, lin_hist) and the readers (hist.c, vtab/hist_rows.c).
 *
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
 */
#ifndef PERF_SQL_HIST_BLOB_H
#define PERF_SQL_HIST_BLOB_H
#include <stdbool.h>
#include <stdint.h>

#define HIST_VERSION 1
#define HIST_LOG2 1
#define HIST_LIN 2
#define HIST_UNIT_MAX 31
#define HIST_HDR_LEN 40
#define HIST_LOG2_NR 63  /* bucket 62 ends at INT64_MAX */
#define HIST_LIN_NR_MAX 100000

/* A decoded view of a blob; counts points into the blob, so the blob must outlive the view. */
struct hist_view {
	int kind;
	char unit[HIST_UNIT_MAX + 1];
	int64_t min, max, step;
	uint32_t nr;
	const unsigned char *counts;
};

/* 0, or -EINVAL when the blob is not a well-formed histogram. */
int hist_view__decode(struct hist_view *v, const void *blob, int len);
uint64_t hist_view__count(const struct hist_view *v, uint32_t i);
/* Inclusive bounds of bucket i; *has_low_out / *has_high_out are false for open ends. */
void hist_view__range(const struct hist_view *v, uint32_t i, int64_t *low_out, int64_t *high_out,
		      bool *has_low_out, bool *has_high_out);

/* Encodes a histogram; malloc'd, length in *len_out; NULL when out of memory. */
void *hist_blob__encode(int kind, const char *unit, int64_t min, int64_t max, int64_t step,
			const uint64_t *counts, uint32_t nr, int *len_out);

/* log2 bucket of a non-negative value (see above). */
static inline int hist_log2_bucket(uint64_t v)
{
	return v < 2 ? 0 : 63 - __builtin_clzll(v);
}
#endif
