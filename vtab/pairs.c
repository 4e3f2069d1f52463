/*
 * pairs(START_TABLE, START_KEY, END_TABLE, END_KEY [, START_COL [, END_COL]])
 *   - table-valued function: start and end events paired by key, across windows.
 *
 *   SELECT comm, count(*), p99(latency) FROM pairs('sched_wakeup', 'pid', 'sched_switch',
 *          'next_pid') GROUP BY comm;                               -- wakeup -> run delay
 *   SELECT syscall_name(start_value), count(*), max(latency), sum(end_value < 0)
 *     FROM pairs('sys_enter', '_tid', 'sys_exit', '_tid', 'id', 'ret') GROUP BY 1;
 *
 * HOW IT WORKS
 * Schema: key, start_time, end_time, latency (ns), start_cpu, end_cpu, start_pid, start_tid,
 * end_tid, comm (the start task's name), start_value, end_value (START_COL of the start row,
 * END_COL of the end row), lost (1 when either table lost events between start and end).
 * Keys and columns are a field name or one of _tid _pid _cpu _time (_comm for values); the
 * value 'stack' is the row's call chain, a stack BLOB (as the table's stack column gives it,
 * kept with the pending start: off-CPU time by the stack a task blocked with).
 * (1) Arguments must be string literals: xBestIndex reads them (sqlite3_vtab_rhs_value) so
 *     planning opens both tables, sampling their raw data only if a field is named.
 * (2) Once per window, both tables' rows are merged in time order: a start row stores a
 *     pending entry under its key (a newer start replaces an older one), an end row with a
 *     pending start emits a pair. When one table is both start and end (sched_switch
 *     prev_pid -> next_pid), each row ends first, then starts.
 * (3) Pending starts carry over to the next window: a pair spanning windows is reported in the
 *     window where it ends. At most PAIRS_MAX_PENDING are kept; past it the oldest half is
 *     evicted and counted as lost in perf_sql_stats (table "pairs(...)", cpu NULL). That row
 *     also counts starts replaced by a newer start of their key (replaced) and ends that
 *     found no pending start (unmatched), as the kernel's pairs() does (bpf/pairs.h (2)).
 * (4) The pairs of a window are kept until the next one, so a statement may scan them twice.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/field.h"
#include "bpf/user_str.h"
#include "core/session.h"
#include "vtab/pairs_int.h"
#include "vtab/tp_table.h"

enum {
	PC_KEY,
	PC_START_TIME,
	PC_END_TIME,
	PC_LATENCY,
	PC_START_CPU,
	PC_END_CPU,
	PC_START_PID,
	PC_START_TID,
	PC_END_TID,
	PC_COMM,
	PC_START_VALUE,
	PC_END_VALUE,
	PC_LOST,
	PC_ARG0 /* six hidden arguments follow */
};

struct pairs_module {
	struct session *s;
	struct pairer *p[PAIRS_MAX];
	int nr;
};

struct pairs_vtab {
	sqlite3_vtab base;
	struct pairs_module *m;
};

struct pairs_cursor {
	sqlite3_vtab_cursor base;
	struct pairer *p;
	size_t idx;
};

static int pairs_connect(sqlite3 *db, void *aux, int argc, const char *const *argv,
			 sqlite3_vtab **out, char **pzErr)
{
	struct pairs_vtab *vt;
	int rc = sqlite3_declare_vtab(
		db, "CREATE TABLE x(key INTEGER, start_time INTEGER, end_time INTEGER, latency "
		    "INTEGER, "
		    "start_cpu INTEGER, end_cpu INTEGER, start_pid INTEGER, start_tid INTEGER, "
		    "end_tid INTEGER, comm TEXT, start_value, end_value, lost INTEGER, "
		    "start_table HIDDEN, start_key HIDDEN, end_table HIDDEN, end_key HIDDEN, "
		    "start_col HIDDEN, end_col HIDDEN)");

	if (rc != SQLITE_OK)
		return rc;
	vt = sqlite3_malloc64(sizeof(*vt));
	if (!vt)
		return SQLITE_NOMEM;
	memset(vt, 0, sizeof(*vt));
	vt->m = aux;
	*out = &vt->base;
	return SQLITE_OK;
}

static int pairs_disconnect(sqlite3_vtab *vt)
{
	sqlite3_free(vt);
	return SQLITE_OK;
}

/* The arguments are read here, at prepare time, so planning knows what to open. */
static int pairs_best_index(sqlite3_vtab *vt_, sqlite3_index_info *info)
{
	struct pairs_vtab *vt = (struct pairs_vtab *)vt_;

	return pairer__best_index(vt->m->s, vt->m->p, &vt->m->nr, false, info, PC_ARG0,
				  &vt_->zErrMsg);
}

static int pairs_open(sqlite3_vtab *vt, sqlite3_vtab_cursor **out)
{
	struct pairs_cursor *c = sqlite3_malloc64(sizeof(*c));

	if (!c)
		return SQLITE_NOMEM;
	memset(c, 0, sizeof(*c));
	*out = &c->base;
	return SQLITE_OK;
}

static int pairs_close(sqlite3_vtab_cursor *c)
{
	sqlite3_free(c);
	return SQLITE_OK;
}

static int pairs_filter(sqlite3_vtab_cursor *c_, int idx_num, const char *idx_str, int argc,
			sqlite3_value **argv)
{
	struct pairs_cursor *c = (struct pairs_cursor *)c_;
	struct pairs_module *m = ((struct pairs_vtab *)c_->pVtab)->m;

	c->p = m->p[idx_num];
	c->idx = 0;
	/* the planning dry run sees no rows and leaves the pending starts alone */
	if (m->s->started && c->p->window != m->s->nr_windows && pairer__run(c->p))
		return SQLITE_NOMEM;
	if (!m->s->started)
		c->idx = SIZE_MAX;
	return SQLITE_OK;
}

static int pairs_next(sqlite3_vtab_cursor *c)
{
	((struct pairs_cursor *)c)->idx++;
	return SQLITE_OK;
}

static int pairs_eof(sqlite3_vtab_cursor *c_)
{
	struct pairs_cursor *c = (struct pairs_cursor *)c_;

	return c->idx >= c->p->nr_rows;
}

static int pairs_column(sqlite3_vtab_cursor *c_, sqlite3_context *ctx, int col)
{
	struct pairs_cursor *c = (struct pairs_cursor *)c_;
	const struct pair_row *r = &c->p->rows[c->idx];
	const char *name;

	switch (col) {
	case PC_KEY: sqlite3_result_int64(ctx, r->key); break;
	case PC_START_TIME: sqlite3_result_int64(ctx, (sqlite3_int64)r->start); break;
	case PC_END_TIME: sqlite3_result_int64(ctx, (sqlite3_int64)r->end); break;
	case PC_LATENCY: sqlite3_result_int64(ctx, (sqlite3_int64)(r->end - r->start)); break;
	case PC_START_CPU: sqlite3_result_int64(ctx, r->start_cpu); break;
	case PC_END_CPU: sqlite3_result_int64(ctx, r->end_cpu); break;
	case PC_START_PID: sqlite3_result_int64(ctx, r->start_pid); break;
	case PC_START_TID: sqlite3_result_int64(ctx, r->start_tid); break;
	case PC_END_TID: sqlite3_result_int64(ctx, r->end_tid); break;
	case PC_COMM:
		name = session__comm(c->p->start->s, r->start_tid, r->start);
		if (name)
			sqlite3_result_text(ctx, name, -1, SQLITE_TRANSIENT);
		break;
	case PC_START_VALUE: pairer__cell_result(ctx, &r->start_value); break;
	case PC_END_VALUE: pairer__cell_result(ctx, &r->end_value); break;
	case PC_LOST: sqlite3_result_int(ctx, r->lost); break;
	default:
		if (c->p->args[col - PC_ARG0])
			sqlite3_result_text(ctx, c->p->args[col - PC_ARG0], -1, SQLITE_TRANSIENT);
	}
	return SQLITE_OK;
}

static int pairs_rowid(sqlite3_vtab_cursor *c, sqlite3_int64 *rowid)
{
	*rowid = (sqlite3_int64)((struct pairs_cursor *)c)->idx + 1;
	return SQLITE_OK;
}

static const sqlite3_module pairs_vmodule = {
	.xCreate = NULL, /* eponymous-only: a table-valued function */
	.xConnect = pairs_connect,
	.xBestIndex = pairs_best_index,
	.xDisconnect = pairs_disconnect,
	.xDestroy = pairs_disconnect,
	.xOpen = pairs_open,
	.xClose = pairs_close,
	.xFilter = pairs_filter,
	.xNext = pairs_next,
	.xEof = pairs_eof,
	.xColumn = pairs_column,
	.xRowid = pairs_rowid,
};

static void pairs_module_free(void *m_)
{
	struct pairs_module *m = m_;

	for (int i = 0; i < m->nr; i++)
		pairer__free(m->p[i]);
	sqlite3_free(m);
}

int pairs__register(sqlite3 *db, struct session *s)
{
	struct pairs_module *m = sqlite3_malloc64(sizeof(*m));

	if (!m)
		return SQLITE_NOMEM;
	memset(m, 0, sizeof(*m));
	m->s = s;
	return sqlite3_create_module_v2(db, "pairs", &pairs_vmodule, m, pairs_module_free);
}
