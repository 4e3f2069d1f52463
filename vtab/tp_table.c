/*
 * vtab/tp_table.c - every tracepoint is a table: SELECT ... FROM sched_switch.
 *
 * HOW IT WORKS
 * Schema (one module per event, eponymous-only: xCreate is NULL, so nothing is created up
 * front and xConnect runs only for the tables a statement names):
 *
 *   _time INTEGER   event time, ns (CLOCK_MONOTONIC)
 *   _cpu, _pid, _tid INTEGER; _comm TEXT (name of the task that produced the event);
 *   _period INTEGER
 *   time cpu pid tid comm     plain aliases of the above, where the event has no such field
 *   <every format field>      numbers INTEGER, char arrays and __data_loc strings TEXT,
 *                             other arrays BLOB
 *
 * best_index: colUsed tells the session whether raw data (any field) and task names (_comm)
 * must be collected; ORDER BY _time is consumed because scans are merged in time order.
 * filter/next: a scan over the window store of the table's source; xColumn decodes on demand.
 */
#include <stdlib.h>
#include <string.h>
#include "core/session.h"
#include "vtab/tp_table.h"

enum tp_col_kind { TP_COL_TIME, TP_COL_CPU, TP_COL_PID, TP_COL_TID, TP_COL_COMM, TP_COL_PERIOD,
		   TP_COL_FIELD };

static const char *const meta_names[] = { "_time", "_cpu", "_pid", "_tid", "_comm", "_period" };
static const char *const alias_names[] = { "time", "cpu", "pid", "tid", "comm", NULL };
static const char *const meta_types[] = { "INTEGER", "INTEGER", "INTEGER", "INTEGER", "TEXT",
					  "INTEGER" };

struct tp_col {
	enum tp_col_kind kind;
	const struct tp_field *f;
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

struct tp_cursor {
	sqlite3_vtab_cursor base;
	struct wscan scan;
	const struct wrow *row;
	sqlite3_int64 rowid;
};

static const char *field_sql_type(const struct tp_field *f)
{
	switch (f->kind) {
	case FIELD_INT: return "INTEGER";
	case FIELD_STR: case FIELD_DYN_STR: return "TEXT";
	default: return "BLOB";
	}
}

static bool has_field(const struct tp_event *ev, const char *name)
{
	for (int i = 0; i < ev->nr_fields; i++)
		if (!strcmp(ev->fields[i].name, name))
			return true;
	return false;
}

static char *build_schema(struct tp_vtab *vt, const struct tp_event *ev)
{
	sqlite3_str *sql = sqlite3_str_new(NULL);

	sqlite3_str_appendall(sql, "CREATE TABLE x(");
	for (int k = 0; k <= TP_COL_PERIOD; k++) {
		sqlite3_str_appendf(sql, "%s%s %s", k ? ", " : "", meta_names[k], meta_types[k]);
		vt->cols[vt->nr_cols++].kind = (enum tp_col_kind)k;
	}
	for (int k = 0; alias_names[k]; k++) {
		if (has_field(ev, alias_names[k]))
			continue;
		sqlite3_str_appendf(sql, ", %s %s", alias_names[k], meta_types[k]);
		vt->cols[vt->nr_cols++].kind = (enum tp_col_kind)k;
	}
	for (int i = 0; i < ev->nr_fields; i++) {
		sqlite3_str_appendf(sql, ", \"%w\" %s", ev->fields[i].name,
				    field_sql_type(&ev->fields[i]));
		vt->cols[vt->nr_cols].kind = TP_COL_FIELD;
		vt->cols[vt->nr_cols++].f = &ev->fields[i];
	}
	sqlite3_str_appendall(sql, ")");
	return sqlite3_str_finish(sql);
}

/* xConnect: parse the event's format (once) and declare its columns. */
static int tp_table_connect(sqlite3 *db, void *aux_, int argc, const char *const *argv,
			    sqlite3_vtab **out, char **pzErr)
{
	struct tp_aux *aux = aux_;
	struct err e = { 0 };
	struct source *src = session__source(aux->s, aux->ev, &e);
	struct tp_vtab *vt;
	char *schema;
	int rc;

	if (!src) {
		*pzErr = sqlite3_mprintf("%s", e.msg);
		return SQLITE_ERROR;
	}
	vt = sqlite3_malloc64(sizeof(*vt) + (size_t)(TP_COL_PERIOD + 6 + aux->ev->nr_fields) *
					    sizeof(struct tp_col));
	if (!vt)
		return SQLITE_NOMEM;
	memset(vt, 0, sizeof(*vt));
	vt->s = aux->s;
	vt->src = src;
	schema = build_schema(vt, aux->ev);
	rc = schema ? sqlite3_declare_vtab(db, schema) : SQLITE_NOMEM;
	sqlite3_free(schema);
	if (rc != SQLITE_OK) {
		sqlite3_free(vt);
		return rc;
	}
	*out = &vt->base;
	return SQLITE_OK;
}

static int tp_table_disconnect(sqlite3_vtab *vt)
{
	sqlite3_free(vt);
	return SQLITE_OK;
}

/* xBestIndex: record what the scan reads; constraints stay with SQLite. */
static int tp_table_best_index(sqlite3_vtab *vt_, sqlite3_index_info *info)
{
	struct tp_vtab *vt = (struct tp_vtab *)vt_;
	bool raw = false, comm = false;

	for (int i = 0; i < vt->nr_cols; i++) {
		bool used = i < 63 ? (info->colUsed >> i) & 1 : (info->colUsed >> 63) & 1;

		if (!used)
			continue;
		raw |= vt->cols[i].kind == TP_COL_FIELD;
		comm |= vt->cols[i].kind == TP_COL_COMM;
	}
	source__plan(vt->src, raw, comm);
	if (info->nOrderBy == 1 && !info->aOrderBy[0].desc &&
	    info->aOrderBy[0].iColumn >= 0 && vt->cols[info->aOrderBy[0].iColumn].kind == TP_COL_TIME)
		info->orderByConsumed = 1;
	info->estimatedRows = 1000000;
	info->estimatedCost = 1000000.0;
	return SQLITE_OK;
}

static int tp_table_open(sqlite3_vtab *vt, sqlite3_vtab_cursor **out)
{
	struct tp_cursor *c = sqlite3_malloc64(sizeof(*c));

	if (!c)
		return SQLITE_NOMEM;
	memset(c, 0, sizeof(*c));
	*out = &c->base;
	return SQLITE_OK;
}

static int tp_table_close(sqlite3_vtab_cursor *c)
{
	sqlite3_free(c);
	return SQLITE_OK;
}

static int tp_table_filter(sqlite3_vtab_cursor *c_, int idx_num, const char *idx_str, int argc,
			   sqlite3_value **argv)
{
	struct tp_cursor *c = (struct tp_cursor *)c_;
	struct tp_vtab *vt = (struct tp_vtab *)c_->pVtab;

	wscan__init(&c->scan, vt->src->win);
	c->row = wscan__next(&c->scan);
	c->rowid = 1;
	return SQLITE_OK;
}

static int tp_table_next(sqlite3_vtab_cursor *c_)
{
	struct tp_cursor *c = (struct tp_cursor *)c_;

	c->row = wscan__next(&c->scan);
	c->rowid++;
	return SQLITE_OK;
}

static int tp_table_eof(sqlite3_vtab_cursor *c_)
{
	return ((struct tp_cursor *)c_)->row == NULL;
}

static void field_result(sqlite3_context *ctx, const struct tp_field *f, const struct wrow *r)
{
	const uint8_t *raw = wrow_raw(r);
	uint32_t n = r->raw_size, loc, off, len;

	if ((uint32_t)f->offset + (uint32_t)f->size > n)
		return;   /* no raw data collected, or a short record: NULL */
	if (f->kind == FIELD_INT) {
		uint64_t u = 0;
		int64_t v;

		memcpy(&u, raw + f->offset, (size_t)f->size);
		if (f->is_signed && f->size < 8 && (u >> (f->size * 8 - 1)) & 1)
			u |= ~0ull << (f->size * 8);
		memcpy(&v, &u, 8);
		sqlite3_result_int64(ctx, v);
		return;
	}
	off = (uint32_t)f->offset;
	len = (uint32_t)f->size;
	if (f->kind == FIELD_DYN_STR || f->kind == FIELD_DYN_BLOB) {
		memcpy(&loc, raw + f->offset, 4);
		off = (loc & 0xffff) + (f->is_relative ? (uint32_t)(f->offset + f->size) : 0);
		len = loc >> 16;
		if (off + len > n)
			return;
	}
	if (f->kind == FIELD_STR || f->kind == FIELD_DYN_STR)
		sqlite3_result_text(ctx, (const char *)raw + off,
				    (int)strnlen((const char *)raw + off, len), SQLITE_TRANSIENT);
	else
		sqlite3_result_blob(ctx, raw + off, (int)len, SQLITE_TRANSIENT);
}

static int tp_table_column(sqlite3_vtab_cursor *c_, sqlite3_context *ctx, int col)
{
	struct tp_cursor *c = (struct tp_cursor *)c_;
	struct tp_vtab *vt = (struct tp_vtab *)c_->pVtab;
	const struct wrow *r = c->row;
	const char *comm;

	switch (vt->cols[col].kind) {
	case TP_COL_TIME: sqlite3_result_int64(ctx, (sqlite3_int64)r->time); break;
	case TP_COL_CPU: sqlite3_result_int64(ctx, r->cpu); break;
	case TP_COL_PID: sqlite3_result_int64(ctx, r->pid); break;
	case TP_COL_TID: sqlite3_result_int64(ctx, r->tid); break;
	case TP_COL_PERIOD: sqlite3_result_int64(ctx, (sqlite3_int64)r->period); break;
	case TP_COL_COMM:
		comm = session__comm(vt->s, r->tid, r->time);
		if (comm)
			sqlite3_result_text(ctx, comm, -1, SQLITE_TRANSIENT);
		break;
	case TP_COL_FIELD: field_result(ctx, vt->cols[col].f, r); break;
	}
	return SQLITE_OK;
}

static int tp_table_rowid(sqlite3_vtab_cursor *c_, sqlite3_int64 *rowid)
{
	*rowid = ((struct tp_cursor *)c_)->rowid;
	return SQLITE_OK;
}

static const sqlite3_module tp_module = {
	.iVersion = 0,
	.xCreate = NULL,   /* eponymous-only */
	.xConnect = tp_table_connect,
	.xBestIndex = tp_table_best_index,
	.xDisconnect = tp_table_disconnect,
	.xDestroy = tp_table_disconnect,
	.xOpen = tp_table_open,
	.xClose = tp_table_close,
	.xFilter = tp_table_filter,
	.xNext = tp_table_next,
	.xEof = tp_table_eof,
	.xColumn = tp_table_column,
	.xRowid = tp_table_rowid,
	/* read-only, no transactions, no renames */
};

int vtabs__register(sqlite3 *db, struct session *s)
{
	int n = catalog__nr_events(s->cat), rc;
	struct tp_aux *aux = sqlite3_malloc64((size_t)n * sizeof(*aux));

	if (!aux)
		return SQLITE_NOMEM;
	/* the aux array lives as long as the connection: freed by the first module's destructor */
	for (int i = 0; i < n; i++) {
		struct tp_event *ev = catalog__event(s->cat, i);

		aux[i].s = s;
		aux[i].ev = ev;
		rc = sqlite3_create_module_v2(db, ev->full, &tp_module, &aux[i],
					      i == 0 ? sqlite3_free : NULL);
		if (rc == SQLITE_OK && ev->short_unique)
			rc = sqlite3_create_module_v2(db, ev->name, &tp_module, &aux[i], NULL);
		if (rc != SQLITE_OK)
			return rc;
	}
	if (n == 0)
		sqlite3_free(aux);
	if ((rc = perf_sql_events__register(db, s)) || (rc = perf_sql_stats__register(db, s)))
		return rc;
	return SQLITE_OK;
}
