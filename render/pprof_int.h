/*
 * render/pprof_int.h - the profile as render/pprof.c collects it and render/pprof_write.c
 * encodes it. Ids in the profile are array index + 1; strings are indexes into strs
 * (strs[0] is "").
 */
#ifndef PERF_SQL_PPROF_INT_H
#define PERF_SQL_PPROF_INT_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "render/pprof.h"

/* a hash index over one of the arrays below: slots hold the hash and index + 1 (0: empty) */
struct pp_idx {
	struct pp_slot {
		uint64_t h;
		uint32_t v;
	} * slot;
	size_t cap, nr;
};

struct pp_col {
	int64_t name;
	bool label_name; /* named as a label (2) */
	bool num, text;  /* values seen */
	bool text_other; /* a TEXT value that is no dur() duration */
};

struct pp_cell {
	uint32_t col; /* index into cols */
	bool text;    /* str holds the value (num: its duration in ns when it is one) */
	int64_t num, str;
};

struct pp_sample {
	size_t loc0, nr_locs;   /* into loc_ids */
	size_t cell0, nr_cells; /* into cells */
};

struct pp_line {
	uint64_t function_id;
	int64_t line;
};

struct pp_loc {
	uint64_t key, mapping_id, address; /* key: the mapping's id, or 1 << 63 | pid */
	size_t line0, nr_lines;            /* into lines */
};

struct pp_func {
	int64_t name, file;
};

struct pp_map {
	uint64_t start, end, pgoff;
	int64_t file, build_id;
	bool unnamed; /* a location without a function: has_functions false */
	bool lines;   /* a line number seen */
	bool kernel;  /* [kernel.kallsyms]: bounds grow with its addresses */
};

#define PP_ARRAY(type, name)                                                                       \
	type *name;                                                                                \
	size_t nr_##name, cap_##name

struct pprof {
	PP_ARRAY(char *, strs);
	PP_ARRAY(struct pp_col, cols);
	PP_ARRAY(struct pp_cell, cells);
	PP_ARRAY(struct pp_sample, samples);
	PP_ARRAY(uint64_t, loc_ids);
	PP_ARRAY(struct pp_loc, locs);
	PP_ARRAY(struct pp_line, lines);
	PP_ARRAY(struct pp_func, funcs);
	PP_ARRAY(struct pp_map, maps);
	struct pp_idx str_idx, col_idx, loc_idx, func_idx, map_idx;
	size_t kernel_map; /* index + 1 of [kernel.kallsyms], 0 until a kernel frame */
	struct symbols *sy;
	bool inlines;
	uint64_t period;               /* ns between samples of the clock tables (6); 0: none */
	int64_t time_nanos, end_nanos; /* (7) */
	size_t nr_rows;
};

/* the index of s in strs, added if new; -1 out of memory */
int64_t pp_str(struct pprof *p, const char *s);
/* the sample types (2), (3): the columns that are values, in order; their count */
size_t pp_value_cols(const struct pprof *p, uint32_t *out);
/* a value column's unit ("count", "nanoseconds", ...) */
const char *pp_unit(const struct pprof *p, uint32_t col);
#endif
