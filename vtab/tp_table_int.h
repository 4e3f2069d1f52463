/*
 * vtab/tp_table_int.h - what a tracepoint table's module (vtab/tp_table.c: schema, scans,
 * columns) and its planning (vtab/tp_plan.c: xBestIndex, the kernel filter from the dry run)
 * share. See vtab/tp_table.c for how a tracepoint table works.
 */
#ifndef PERF_SQL_TP_TABLE_INT_H
#define PERF_SQL_TP_TABLE_INT_H
#include <sqlite3.h>
#include <stdbool.h>
#include "core/session.h"
#include "vtab/tp_table.h"

enum tp_col_kind {
	TP_COL_TIME,
	TP_COL_CPU,
	TP_COL_PID,
	TP_COL_TID,
	TP_COL_COMM,
	TP_COL_PERIOD,
	TP_COL_FIELD,
	TP_COL_IP,
	TP_COL_ADDR,
	TP_COL_ARG,
	TP_COL_RET,
	TP_COL_HZ,
	TP_COL_PERIOD_ARG,
	TP_COL_STACK,
	TP_COL_USTR, /* NAME_str: the text of a system call's string argument (bpf/user_str.h) */
	TP_COL_CGROUP_ID, /* _cgroup_id: the task's cgroup v2 id (core/cgroup.h) */
	TP_COL_CGROUP     /* _cgroup: its path under the v2 hierarchy */
};

struct tp_col {
	enum tp_col_kind kind;
	const struct tp_field *f;
	int arg; /* TP_COL_ARG: 0..5; TP_COL_USTR: which user string */
};

struct tp_aux {
	struct session *s;
	struct tp_event *ev;
};

struct tp_vtab {
	sqlite3_vtab base;
	struct session *s;
	struct source *src;
	int nr_cols;
	struct tp_col cols[];
};

/* a GROUP BY's rows, grouped (vtab/tp_group.c) */
struct tp_group {
	const struct wrow **rows;
	size_t nr, at;
	uint8_t **keys; /* the groups' keys in their order, each group's rows ending at ends[] */
	size_t *ends, nr_keys, key_at;
	int comm_col, comm_term; /* a comm term of the key (-1: none), given from the key */
};

struct tp_cursor {
	sqlite3_vtab_cursor base;
	bool filtered; /* dry run: xFilter reached */
	bool grouped;  /* rows from group, not scan */
	struct tp_group group;
	struct wscan scan;
	const struct wrow *row;
	uint64_t nr_counted; /* counting mode: rows left */
	sqlite3_int64 rowid;
};

/* xBestIndex: the columns used tell the session what to sample; constraints a kernel filter can
 * express are described in idxStr (vtab/tp_table.c) */
int tp_table__best_index(sqlite3_vtab *vt_, sqlite3_index_info *info);
/* xBestIndex of a GROUP BY whose terms are columns: the idxNum of a scan that
 * hands its rows over group by group (orderByConsumed set), 0 if it cannot. */
int tp_group__plan(const struct tp_vtab *vt, sqlite3_index_info *info);
/* xFilter of such a scan: every row of sc into t, grouped as idx_num says; 0 or -ENOMEM. */
int tp_group__scan(struct tp_group *t, struct tp_vtab *vt, struct wscan *sc, int idx_num);
const struct wrow *tp_group__next(struct tp_group *t);
/* xColumn of the row tp_group__next() gave last, from its group's key where it holds the
 * column (comm: no second lookup per row); false: the caller gives it from the row. */
bool tp_group__column(const struct tp_group *t, int col, sqlite3_context *ctx);
void tp_group__done(struct tp_group *t);
/* In the planning dry run: idxStr and its bound values made the source's kernel filter. */
void tp_table__dry_scan(struct tp_vtab *vt, const char *idx_str, int argc, sqlite3_value **argv);
#endif
