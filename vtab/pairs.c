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

#define PAIRS_MAX 32

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

/* NAME_str of a system call's string argument NAME: the table's rows then carry it */
static bool parse_ustr(struct source *src, const char *name, struct spec *out)
{
	size_t n = strlen(name);

	if (n < 5 || strcmp(name + n - 4, "_str"))
		return false;
	for (int i = 0; i < src->ev->nr_fields; i++) {
		const struct tp_field *f = &src->ev->fields[i];

		if (strlen(f->name) == n - 4 && !strncmp(f->name, name, n - 4) &&
		    (out->ustr = user_str__index(src->ev, f)) >= 0) {
			out->kind = SPEC_USTR;
			out->src = src;
			src->want_user_str = true; /* engine/user_str.c decides how */
			return true;
		}
	}
	return false;
}

static int parse_spec(struct source *src, const char *name, bool value, struct spec *out,
		      char **err)
{
	static const struct {
		const char *name;
		enum spec_kind kind;
	} metas[] = {
		{ "_tid", SPEC_TID },   { "_pid", SPEC_PID },   { "_cpu", SPEC_CPU },
		{ "_time", SPEC_TIME }, { "_comm", SPEC_COMM },
	};

	for (size_t i = 0; i < sizeof(metas) / sizeof(metas[0]); i++)
		if (!strcmp(name, metas[i].name) && (value || metas[i].kind != SPEC_COMM)) {
			out->kind = metas[i].kind;
			return 0;
		}
	if (value && parse_ustr(src, name, out))
		return 0;
	if (value && !strcmp(name, "stack")) { /* the row's call chain (stack_result's BLOB) */
		out->kind = SPEC_STACK;
		source__plan_more(src, true, false, false);
		return 0;
	}
	out->f = field__find(src->ev, name);
	if (!out->f || (!value && out->f->kind != FIELD_INT)) {
		*err = sqlite3_mprintf("pairs: %s has no %s column '%s'; use a field name or "
				       "_tid _pid _cpu _time%s",
				       src->ev->full, value ? "" : "integer", name,
				       value ? " _comm stack" : "");
		return SQLITE_ERROR;
	}
	out->kind = SPEC_FIELD;
	return 0;
}

/* the texts of this window's rows */
static void pairer_free(struct pairer *p)
{
	if (!p)
		return;
	pairer__rows_free(p);
	for (uint32_t i = 0; p->tab && i < p->cap; i++)
		if (p->tab[i].used)
			cell_free(&p->tab[i].value);
	for (int i = 0; i < 6; i++)
		sqlite3_free(p->args[i]);
	free(p->tab);
	free(p->rows);
	free(p);
}

static struct source *table_source(struct session *s, const char *name, char **err)
{
	struct tp_event *ev = catalog__find(s->cat, name);
	struct err e = { 0 };
	struct source *src;

	if (!ev) {
		*err = sqlite3_mprintf("pairs: no such table: %s", name);
		return NULL;
	}
	src = session__source(s, ev, &e);
	if (!src)
		*err = sqlite3_mprintf("pairs: %s", e.msg);
	return src;
}

/* The pairer for these arguments: found, or created and planned (tables opened, raw data). */
static struct pairer *pairer_get(struct pairs_module *m, char **args, char **err)
{
	struct pairer *p;
	bool raw_s, raw_e;

	for (int i = 0; i < m->nr; i++) {
		bool same = true;

		for (int k = 0; k < 6; k++)
			same &= !strcmp(m->p[i]->args[k] ? m->p[i]->args[k] : "",
					args[k] ? args[k] : "");
		if (same)
			return m->p[i];
	}
	if (m->nr == PAIRS_MAX) {
		*err = sqlite3_mprintf("pairs: at most %d different pairs() per run", PAIRS_MAX);
		return NULL;
	}
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	for (int k = 0; k < 6; k++)
		p->args[k] = args[k] ? sqlite3_mprintf("%s", args[k]) : NULL;
	p->window = -1;
	p->cap = 1024;
	p->tab = calloc(p->cap, sizeof(*p->tab));
	if (!p->tab || !(p->start = table_source(m->s, args[0], err)) ||
	    !(p->end = table_source(m->s, args[2], err)) ||
	    parse_spec(p->start, args[1], false, &p->start_key, err) ||
	    parse_spec(p->end, args[3], false, &p->end_key, err) ||
	    (args[4] && parse_spec(p->start, args[4], true, &p->start_col, err)) ||
	    (args[5] && parse_spec(p->end, args[5], true, &p->end_col, err))) {
		pairer_free(p);
		return NULL;
	}
	raw_s = p->start_key.kind == SPEC_FIELD || p->start_col.kind >= SPEC_FIELD;
	raw_e = p->end_key.kind == SPEC_FIELD || p->end_col.kind >= SPEC_FIELD;
	/* comm is a column of every pair: task names are always tracked */
	source__plan(p->start, raw_s, true, true);
	source__plan(p->end, raw_e, true, true);
	/* pairing needs every row: no other scan's WHERE may become these tables' filter */
	source__dry_scan(p->start, NULL);
	source__dry_scan(p->end, NULL);
	p->stat = session__extra_stat(m->s, "pairs(%s, %s, %s, %s)", args[0], args[1], args[2],
				      args[3]);
	session__extra_pairs(m->s, p->stat, (const uint64_t[4]){ 0 }); /* marks the row */
	m->p[m->nr++] = p;
	return p;
}

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
	char *args[6] = { 0 };
	struct pairer *p;
	int n = 0;

	for (int i = 0; i < info->nConstraint; i++) {
		const struct sqlite3_index_constraint *c = &info->aConstraint[i];
		sqlite3_value *v = NULL;
		int k = c->iColumn - PC_ARG0;

		if (k < 0 || c->op != SQLITE_INDEX_CONSTRAINT_EQ)
			continue;
		if (!c->usable)
			return SQLITE_CONSTRAINT;
		if (sqlite3_vtab_rhs_value(info, i, &v) != SQLITE_OK || !v ||
		    sqlite3_value_type(v) != SQLITE_TEXT) {
			vt_->zErrMsg = sqlite3_mprintf(
				"pairs: arguments must be string literals, "
				"e.g. pairs('sys_enter', '_tid', 'sys_exit', '_tid')");
			return SQLITE_ERROR;
		}
		args[k] = (char *)sqlite3_value_text(v);
		info->aConstraintUsage[i].argvIndex = ++n;
		info->aConstraintUsage[i].omit = 1;
	}
	if (!args[0] || !args[1] || !args[2] || !args[3]) {
		vt_->zErrMsg = sqlite3_mprintf("pairs: needs (start_table, start_key, end_table, "
					       "end_key [, start_col [, end_col]])");
		return SQLITE_ERROR;
	}
	p = pairer_get(vt->m, args, &vt_->zErrMsg);
	if (!p)
		return vt_->zErrMsg ? SQLITE_ERROR : SQLITE_NOMEM;
	for (info->idxNum = 0; vt->m->p[info->idxNum] != p; info->idxNum++)
		;
	info->estimatedCost = 1000;
	return SQLITE_OK;
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

static void cell_result(sqlite3_context *ctx, const struct cell *v)
{
	if (v->type == SQLITE_INTEGER)
		sqlite3_result_int64(ctx, v->i);
	else if (v->type == SQLITE_TEXT)
		sqlite3_result_text(ctx, v->text ? v->text : v->s, -1, SQLITE_TRANSIENT);
	else if (v->type == SQLITE_BLOB)
		sqlite3_result_blob64(ctx, v->text, v->len, SQLITE_TRANSIENT);
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
	case PC_START_VALUE: cell_result(ctx, &r->start_value); break;
	case PC_END_VALUE: cell_result(ctx, &r->end_value); break;
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
		pairer_free(m->p[i]);
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
