/*
 * serve/metrics_int.h - the state of serve/metrics.c, shared with its renderer
 * (serve/metrics_render.c) and no one else.
 */
#ifndef PERF_SQL_METRICS_INT_H
#define PERF_SQL_METRICS_INT_H
#include <stdbool.h>
#include <stdint.h>

#define NAME_MAX_LEN 200

enum col_kind { COL_UNSET, COL_LABEL, COL_NUMBER, COL_HIST, COL_SKIP };

struct mcol {
	char name[NAME_MAX_LEN];  /* perf_sql_<family>_<column> (1) */
	char label[NAME_MAX_LEN]; /* the label name, when a label */
	char col[NAME_MAX_LEN];   /* the column as SQLite names it */
	enum col_kind kind;
	bool counts; /* (3) */
	int sum_col; /* the column <col>_sum, or -1 (4) */
};

struct hacc { /* a histogram over windows, buckets by upper bound */
	uint32_t nr, cap;
	int64_t *le; /* INT64_MAX: the open top bucket (+Inf only) */
	uint64_t *n;
	double sum;
	bool has_sum;
};

struct mval {
	uint64_t seen; /* the window of the last value */
	double gauge, total;
	struct hacc h;
};

struct series {
	char *labels; /* `a="x",b="y"`, escaped; "" without labels */
	uint64_t hash, seen;
	int stmt;
	double created; /* Unix seconds */
	struct mval v[];
};

struct cell {               /* a staged value */
	unsigned char type; /* 0 none, 1 number, 2 histogram */
	double d;
	void *blob;
	int len;
};

struct srow {
	char *labels;
	struct cell *cells;
};

struct mstmt {
	int family, nr_cols;
	struct mcol *cols;
	struct series **series;
	long nr_series, cap_series;
	struct srow *stage;
	long nr_stage, cap_stage;
};

struct family {
	char name[NAME_MAX_LEN]; /* sanitized */
	char *help;
	uint64_t query_ns; /* this window */
	uint64_t errors;
};

struct metrics {
	long max_series, nr_series;
	uint64_t dropped, window;
	size_t max_label_bytes, max_bytes; /* (5); 0: none */
	size_t bytes;                      /* the held series' exposition, estimated (5) */
	uint64_t label_bytes_cut, dropped_over_bytes;
	struct family *fam;
	int nr_fam;
	struct mstmt *st;
	int nr_st;
	struct series **slots; /* open addressing, nr_slots a power of two */
	size_t nr_slots;
	char (*used)[NAME_MAX_LEN]; /* metric names taken (1) */
	int nr_used;
};
#endif
