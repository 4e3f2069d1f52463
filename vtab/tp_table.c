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
 *   _cgroup_id HIDDEN INTEGER, _cgroup HIDDEN TEXT   the task's cgroup v2 id and its path
 *                             (core/cgroup.h), sampled only when named (PERF_SAMPLE_CGROUP)
 *   time cpu pid tid comm     plain aliases of the above, where the event has no such field
 *   <every format field>      numbers INTEGER, char arrays and __data_loc strings TEXT,
 *                             other arrays BLOB
 *
 * best_index: colUsed tells the session whether raw data (any field) and task names (_comm)
 * must be collected; a table no scan reads a column of (count(*)) is only counted, like perf
 * stat, and scans yield that many column-less rows; ORDER BY _time is consumed because scans are merged in time order.
 * Constraints an ftrace filter can express (=, !=, <, <=, >, >= on numeric fields, _cpu as
 * CPU and _tid as common_pid; =, !=, GLOB on string fields and _comm as COMM; IN lists) get
 * an argvIndex and are described in idxStr ("T<source index>;" then "COL:OP[:in]," items, "R,"
 * for a rate argument); SQLite still checks them
 * (omit stays 0), so a partial or rejected kernel filter never changes a result.
 * filter: in the planning dry run (empty windows), the bound values turn idxStr into a filter
 * string for the source; later, a scan over the window store; xColumn decodes on demand.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/field.h"
#include "core/kfilter.h"
#include "core/session.h"
#include "bpf/user_str.h"
#include "symbols/stack.h"
#include "symbols/symbols.h"
#include "symbols/unwind.h"
#include "vtab/blob_rows.h"
#include "vtab/tp_table.h"
#include "vtab/tp_table_int.h"

/* argument k of a probe row: its register (the ABI's for uprobes, the spec's for USDT), cut
 * to the argument's size and sign-extended */
static bool probe_arg(const struct tp_event *ev, const struct wrow *r, int k, int64_t *out)
{
	int slot = uprobe_reg_slot(ev->arg_reg[k]);
	unsigned size = ev->arg_size[k];
	uint64_t v;

	if (slot < 0 || (uint64_t)slot >= r->regs_off_nr)
		return false;
	v = wrow_regs(r)[slot];
	if (size && size < 8) {
		v &= (1ull << (size * 8)) - 1;
		if (ev->arg_signed[k] && (v >> (size * 8 - 1)) & 1)
			v |= ~0ull << (size * 8);
	}
	memcpy(out, &v, 8);
	return true;
}

static const char *const meta_names[] = { "_time", "_cpu", "_pid", "_tid", "_comm", "_period" };
static const char *const alias_names[] = { "time", "cpu", "pid", "tid", "comm", NULL };
static const char *const meta_types[] = { "INTEGER", "INTEGER", "INTEGER",
					  "INTEGER", "TEXT",    "INTEGER" };

static const char *field_sql_type(const struct tp_field *f)
{
	switch (f->kind) {
	case FIELD_INT: return "INTEGER";
	case FIELD_STR:
	case FIELD_DYN_STR: return "TEXT";
	default: return "BLOB";
	}
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
		if (field__find(ev, alias_names[k]))
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
	for (int i = 0; i < ev->nr_fields; i++) {
		int k = user_str__index(ev, &ev->fields[i]);

		if (k < 0)
			continue;
		sqlite3_str_appendf(sql, ", \"%w_str\" TEXT", ev->fields[i].name);
		vt->cols[vt->nr_cols].kind = TP_COL_USTR;
		vt->cols[vt->nr_cols].f = &ev->fields[i];
		vt->cols[vt->nr_cols++].arg = k;
	}
	if (ev->kind != EV_TRACEPOINT) {
		sqlite3_str_appendall(sql, ", ip INTEGER, addr INTEGER");
		vt->cols[vt->nr_cols++].kind = TP_COL_IP;
		vt->cols[vt->nr_cols++].kind = TP_COL_ADDR;
	}
	if (ev->kind == EV_UPROBE) {
		for (int k = 0; k < 6; k++) {
			sqlite3_str_appendf(sql, ", arg%d INTEGER", k);
			vt->cols[vt->nr_cols].kind = TP_COL_ARG;
			vt->cols[vt->nr_cols++].arg = k;
		}
		sqlite3_str_appendall(sql, ", ret INTEGER");
		vt->cols[vt->nr_cols++].kind = TP_COL_RET;
	}
	/* hidden: the sampling rate arguments first, so cpu_clock(99) means 99 Hz */
	if (ev->kind != EV_TRACEPOINT) {
		sqlite3_str_appendall(sql, ", hz HIDDEN INTEGER, period HIDDEN INTEGER");
		vt->cols[vt->nr_cols++].kind = TP_COL_HZ;
		vt->cols[vt->nr_cols++].kind = TP_COL_PERIOD_ARG;
	}
	sqlite3_str_appendall(sql, ", stack HIDDEN BLOB, _cgroup_id HIDDEN INTEGER, "
				   "_cgroup HIDDEN TEXT)");
	vt->cols[vt->nr_cols++].kind = TP_COL_STACK;
	vt->cols[vt->nr_cols++].kind = TP_COL_CGROUP_ID;
	vt->cols[vt->nr_cols++].kind = TP_COL_CGROUP;
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
	vt = sqlite3_malloc64(sizeof(*vt) + (size_t)(TP_COL_PERIOD + 26 + 2 * aux->ev->nr_fields) *
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

static int tp_table_open(sqlite3_vtab *vt, sqlite3_vtab_cursor **out)
{
	struct tp_cursor *c = sqlite3_malloc64(sizeof(*c));

	if (!c)
		return SQLITE_NOMEM;
	memset(c, 0, sizeof(*c));
	*out = &c->base;
	return SQLITE_OK;
}

static int tp_table_close(sqlite3_vtab_cursor *c_)
{
	struct tp_cursor *c = (struct tp_cursor *)c_;
	struct tp_vtab *vt = (struct tp_vtab *)c_->pVtab;

	/* a scan the dry run never reached may need every row */
	if (vt->s->dry_run && !c->filtered)
		source__dry_scan(vt->src, NULL);
	wscan__done(&c->scan);
	tp_group__done(&c->group);
	sqlite3_free(c);
	return SQLITE_OK;
}

static int tp_table_filter(sqlite3_vtab_cursor *c_, int idx_num, const char *idx_str, int argc,
			   sqlite3_value **argv)
{
	struct tp_cursor *c = (struct tp_cursor *)c_;
	struct tp_vtab *vt = (struct tp_vtab *)c_->pVtab;

	if (vt->s->dry_run) { /* every call: an inner loop's values OR together */
		c->filtered = true;
		tp_table__dry_scan(vt, idx_str, argc, argv);
	}
	c->rowid = 1;
	if (vt->src->counting) { /* rows without columns: as many as the kernel counted */
		c->nr_counted = 0;
		for (int i = 0; i < vt->s->nr_cpus; i++)
			c->nr_counted += vt->src->received[i];
		c->row = NULL;
		return SQLITE_OK;
	}
	wscan__done(&c->scan);
	if (wscan__init(&c->scan, vt->src->win))
		return SQLITE_NOMEM;
	c->grouped = idx_num & 1; /* a GROUP BY's: group by group (vtab/tp_group.c) */
	if (c->grouped && tp_group__scan(&c->group, vt, &c->scan, idx_num))
		return SQLITE_NOMEM;
	c->row = c->grouped ? tp_group__next(&c->group) : wscan__next(&c->scan);
	return SQLITE_OK;
}

static int tp_table_next(sqlite3_vtab_cursor *c_)
{
	struct tp_cursor *c = (struct tp_cursor *)c_;

	c->rowid++;
	if (c->nr_counted)
		c->nr_counted--;
	else
		c->row = c->grouped ? tp_group__next(&c->group) : wscan__next(&c->scan);
	return SQLITE_OK;
}

static int tp_table_eof(sqlite3_vtab_cursor *c_)
{
	struct tp_cursor *c = (struct tp_cursor *)c_;

	return c->row == NULL && c->nr_counted == 0;
}

static void field_result(sqlite3_context *ctx, const struct tp_field *f, const struct wrow *r)
{
	const uint8_t *p;
	size_t len;
	int64_t v;

	if (f->kind == FIELD_INT) {
		if (field__int(f, r, &v))
			sqlite3_result_int64(ctx, v);
	} else if (field__bytes(f, r, &p, &len)) {
		if (f->kind == FIELD_STR || f->kind == FIELD_DYN_STR)
			sqlite3_result_text(ctx, (const char *)p, (int)len, SQLITE_TRANSIENT);
		else
			sqlite3_result_blob(ctx, p, (int)len, SQLITE_TRANSIENT);
	}
}

/* the stack travels as a tagged BLOB (symbols/stack.h) that the stack functions read */
static void stack_result(sqlite3_context *ctx, struct session *s, const struct wrow *r)
{
	size_t len;
	void *blob = stack_blob__new(r->pid, r->tid, session__comm(s, r->tid, r->time),
				     wrow_stack(r), r->nr_stack, &len);

	if (blob)
		sqlite3_result_blob(ctx, blob, (int)len, free);
	else
		sqlite3_result_error_nomem(ctx);
}

/* NULL where the rows carry no cgroup id (no v2 hierarchy; a capture recorded without it) */
static void cgroup_result(sqlite3_context *ctx, const struct tp_vtab *vt, const struct wrow *r,
			  bool path)
{
	const char *p;

	if (!vt->src->win->cgroup)
		return;
	if (!path)
		sqlite3_result_int64(ctx, (sqlite3_int64)wrow_cgroup(r));
	else if ((p = session__cgroup_path(vt->s, wrow_cgroup(r))))
		sqlite3_result_text(ctx, p, -1, SQLITE_TRANSIENT);
}

/* NULL unless a BPF program wrote the row (engine/user_str.c) and could read the string */
static void ustr_result(sqlite3_context *ctx, const struct source *src, int k, const struct wrow *r)
{
	const char *p;
	size_t len;

	if ((src->user_str || src->s->replay) &&
	    user_str__get(src->ev, k, wrow_raw(r), r->raw_size, &p, &len))
		sqlite3_result_text(ctx, p, (int)len, SQLITE_TRANSIENT);
}

static int tp_table_column(sqlite3_vtab_cursor *c_, sqlite3_context *ctx, int col)
{
	struct tp_cursor *c = (struct tp_cursor *)c_;
	struct tp_vtab *vt = (struct tp_vtab *)c_->pVtab;
	const struct wrow *r = c->row;
	const char *comm;
	int64_t v;

	if (vt->cols[col].kind == TP_COL_HZ || vt->cols[col].kind == TP_COL_PERIOD_ARG) {
		sqlite3_result_int64(ctx, (sqlite3_int64)(vt->cols[col].kind == TP_COL_HZ
								  ? vt->src->hz_used
								  : vt->src->period_used));
		return SQLITE_OK;
	}
	if (!r)
		return SQLITE_OK; /* a counted row has no columns: NULL */
	switch (vt->cols[col].kind) {
	case TP_COL_TIME: sqlite3_result_int64(ctx, (sqlite3_int64)r->time); break;
	case TP_COL_CPU: sqlite3_result_int64(ctx, r->cpu); break;
	case TP_COL_PID: sqlite3_result_int64(ctx, r->pid); break;
	case TP_COL_TID: sqlite3_result_int64(ctx, r->tid); break;
	case TP_COL_PERIOD: sqlite3_result_int64(ctx, (sqlite3_int64)r->period); break;
	case TP_COL_COMM:
		if (c->grouped && tp_group__column(&c->group, col, ctx))
			break; /* its group's key */
		comm = session__comm(vt->s, r->tid, r->time);
		if (comm)
			sqlite3_result_text(ctx, comm, -1, SQLITE_TRANSIENT);
		break;
	case TP_COL_FIELD: field_result(ctx, vt->cols[col].f, r); break;
	case TP_COL_IP: sqlite3_result_int64(ctx, (sqlite3_int64)r->ip); break;
	case TP_COL_ADDR: sqlite3_result_int64(ctx, (sqlite3_int64)r->addr); break;
	case TP_COL_ARG:
		if (probe_arg(vt->src->ev, r, vt->cols[col].arg, &v))
			sqlite3_result_int64(ctx, v);
		break;
	case TP_COL_RET:
		if (r->regs_off_nr) /* ax: the first sampled register */
			sqlite3_result_int64(ctx, (sqlite3_int64)wrow_regs(r)[0]);
		break;
	case TP_COL_HZ: sqlite3_result_int64(ctx, (sqlite3_int64)vt->src->hz_used); break;
	case TP_COL_PERIOD_ARG:
		sqlite3_result_int64(ctx, (sqlite3_int64)vt->src->period_used);
		break;
	case TP_COL_STACK: stack_result(ctx, vt->s, r); break;
	case TP_COL_USTR: ustr_result(ctx, vt->src, vt->cols[col].arg, r); break;
	case TP_COL_CGROUP_ID:
	case TP_COL_CGROUP: cgroup_result(ctx, vt, r, vt->cols[col].kind == TP_COL_CGROUP); break;
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
	.xCreate = NULL, /* eponymous-only */
	.xConnect = tp_table_connect,
	.xBestIndex = tp_table__best_index,
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

static void note_pid(void *sy, uint32_t pid) { symbols__note_pid(sy, pid); }

static void add_map(void *sy, uint32_t pid, uint64_t start, uint64_t len, uint64_t pgoff,
		    const char *path)
{
	symbols__add_map(sy, pid, start, len, pgoff, path);
}

static size_t user_stack(void *sy, const struct sample *smp, uint64_t *chain, size_t max)
{
	return unwind__chain(sy, smp, chain, max);
}

static void maps_since(void *sy, size_t *cursor,
		       void (*fn)(void *arg, uint32_t pid, uint64_t start, uint64_t len,
				  uint64_t pgoff, const char *path),
		       void *arg)
{
	symbols__maps_since(sy, cursor, fn, arg);
}

static void syms_since(void *sy, size_t *cursor,
		       void (*fn)(void *arg, const void *blob, size_t len), void *arg)
{
	symbols__syms_since(sy, cursor, fn, arg);
}

static void add_syms(void *sy, const void *blob, size_t len) { symbols__add_syms(sy, blob, len); }

static void free_symbols(void *sy) { symbols__free(sy); }

static const struct stack_names_ops symbols_names = {
	.new_pid = note_pid,
	.mmap = add_map,
	.user_stack = user_stack,
	.maps_since = maps_since,
	.syms_since = syms_since,
	.add_syms = add_syms,
	.free = free_symbols,
};

int stack_hooks__install(struct session *s)
{
	if (s->stack_ctx)
		return 0;
	/* stacks are unwound and named by the symbols layer, above core */
	if (!(s->stack_ctx = symbols__new()))
		return -ENOMEM;
	s->stacks = &symbols_names;
	if (s->replay) /* the capture's pids are not this machine's */
		symbols__set_offline(s->stack_ctx);
	return 0;
}

const sqlite3_module *tp_table__module(void) { return &tp_module; }

int vtabs__register(sqlite3 *db, struct session *s)
{
	int n = catalog__nr_events(s->cat), rc;
	/* a capture of no tables has no events: no array (malloc of 0 bytes may be NULL) */
	struct tp_aux *aux = n ? sqlite3_malloc64((size_t)n * sizeof(*aux)) : NULL;

	if (n && !aux)
		return SQLITE_NOMEM;
	stack_hooks__install(s);
	/* the aux array lives as long as the connection: freed by the first module's destructor */
	for (int i = 0; i < n; i++) {
		struct tp_event *ev = catalog__event(s->cat, i);

		aux[i].s = s;
		aux[i].ev = ev;
		rc = sqlite3_create_module_v2(db, ev->full, &tp_module, &aux[i],
					      i == 0 ? sqlite3_free : NULL);
		if (rc == SQLITE_OK && ev->short_unique)
			rc = sqlite3_create_module_v2(db, ev->name, &tp_module, &aux[i], NULL);
		if (rc == SQLITE_OK && ev->kind == EV_RAW) { /* perf's spelling: "msr/tsc/" */
			char *perf_name = sqlite3_mprintf("%s/%s/", ev->system, ev->name);

			rc = perf_name ? sqlite3_create_module_v2(db, perf_name, &tp_module,
								  &aux[i], NULL)
				       : SQLITE_NOMEM;
			sqlite3_free(perf_name);
		}
		if (rc != SQLITE_OK)
			return rc;
	}
	return vtabs__register_builtin(db, s);
}

int vtabs__register_builtin(sqlite3 *db, struct session *s)
{
	int rc;

	if ((rc = perf_sql_events__register(db, s)) || (rc = perf_sql_stats__register(db, s)) ||
	    (rc = pairs__register(db, s)) || (rc = pending__register(db, s)) ||
	    (rc = counters__register(db, s)) || (rc = blob_rows__register(db)))
		return rc;
	return SQLITE_OK;
}
