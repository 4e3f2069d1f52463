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
	TP_COL_USTR /* NAME_str: the text of a system call's string argument (bpf/user_str.h) */
};

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

struct tp_cursor {
	sqlite3_vtab_cursor base;
	bool filtered; /* dry run: xFilter reached */
	struct wscan scan;
	const struct wrow *row;
	uint64_t nr_counted; /* counting mode: rows left */
	sqlite3_int64 rowid;
};

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
	sqlite3_str_appendall(sql, ", stack HIDDEN BLOB)");
	vt->cols[vt->nr_cols++].kind = TP_COL_STACK;
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
	vt = sqlite3_malloc64(sizeof(*vt) + (size_t)(TP_COL_PERIOD + 24 + 2 * aux->ev->nr_fields) *
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

/* The ftrace name of a column a kernel filter can test, or NULL. */
static const char *filter_name(const struct tp_col *col, int op, bool *is_str)
{
	bool num_op = op == SQLITE_INDEX_CONSTRAINT_EQ || op == SQLITE_INDEX_CONSTRAINT_NE ||
		      op == SQLITE_INDEX_CONSTRAINT_LT || op == SQLITE_INDEX_CONSTRAINT_LE ||
		      op == SQLITE_INDEX_CONSTRAINT_GT || op == SQLITE_INDEX_CONSTRAINT_GE;
	bool str_op = op == SQLITE_INDEX_CONSTRAINT_EQ || op == SQLITE_INDEX_CONSTRAINT_NE ||
		      op == SQLITE_INDEX_CONSTRAINT_GLOB;

	*is_str = false;
	switch (col->kind) {
	case TP_COL_CPU: return num_op ? "CPU" : NULL;
	case TP_COL_TID: return num_op ? "common_pid" : NULL; /* _pid is the tgid: not pushed */
	case TP_COL_COMM: *is_str = true; return str_op ? "COMM" : NULL;
	case TP_COL_FIELD:
		if (col->f->kind == FIELD_INT)
			return num_op ? col->f->name : NULL;
		*is_str = true;
		return (col->f->kind == FIELD_STR || col->f->kind == FIELD_DYN_STR) && str_op
			       ? col->f->name
			       : NULL;
	default: return NULL;
	}
}

static enum kf_op kf_op_of(int op)
{
	switch (op) {
	case SQLITE_INDEX_CONSTRAINT_NE: return KF_NE;
	case SQLITE_INDEX_CONSTRAINT_LT: return KF_LT;
	case SQLITE_INDEX_CONSTRAINT_LE: return KF_LE;
	case SQLITE_INDEX_CONSTRAINT_GT: return KF_GT;
	case SQLITE_INDEX_CONSTRAINT_GE: return KF_GE;
	case SQLITE_INDEX_CONSTRAINT_GLOB: return KF_GLOB;
	default: return KF_EQ;
	}
}

/* cpu_clock(99) / WHERE period = 1000: the rate is known at prepare time, or it is an error */
static int rate_arg(struct tp_vtab *vt, sqlite3_index_info *info, int i, bool hz, sqlite3_str *plan,
		    int *argv_idx)
{
	sqlite3_value *v = NULL;
	sqlite3_int64 n;

	if (sqlite3_vtab_rhs_value(info, i, &v) != SQLITE_OK || !v ||
	    (sqlite3_value_type(v) != SQLITE_INTEGER && sqlite3_value_type(v) != SQLITE_NULL) ||
	    (n = sqlite3_value_int64(v)) < 0) {
		vt->base.zErrMsg = sqlite3_mprintf(
			"%s: the %s must be an integer literal (0 or NULL: "
			"the default), e.g. %s(99) or WHERE period = 1000",
			vt->src->ev->name, hz ? "rate (Hz)" : "period", vt->src->ev->name);
		return SQLITE_ERROR;
	}
	if (n && source__set_rate(vt->src, hz ? (uint64_t)n : 0, hz ? 0 : (uint64_t)n)) {
		vt->base.zErrMsg =
			sqlite3_mprintf("%s: one sampling rate per run: %s = %lld conflicts "
					"with the %s asked elsewhere",
					vt->src->ev->name, hz ? "hz" : "period", (long long)n,
					vt->src->hz ? "hz" : "period");
		return SQLITE_ERROR;
	}
	/* omit is honoured only with an argvIndex: the plan marks it "R" so the dry run skips it */
	info->aConstraintUsage[i].argvIndex = ++*argv_idx;
	info->aConstraintUsage[i].omit = 1;
	sqlite3_str_appendall(plan, "R,");
	return SQLITE_OK;
}

/* xBestIndex: record what the scan reads; offer pushable constraints to the dry run. */
static int tp_table_best_index(sqlite3_vtab *vt_, sqlite3_index_info *info)
{
	struct tp_vtab *vt = (struct tp_vtab *)vt_;
	sqlite3_str *plan = sqlite3_str_new(NULL);
	bool raw = false, comm = false, stack = false, addr = false, regs = false, is_str;
	bool ustr = false;
	uint64_t used_mask = info->colUsed;
	int argv_idx = 0;

	for (int i = 0; i < vt->nr_cols; i++) {
		enum tp_col_kind k = vt->cols[i].kind;
		bool used = i < 63 ? (info->colUsed >> i) & 1 : (info->colUsed >> 63) & 1;

		if (k == TP_COL_HZ || k == TP_COL_PERIOD_ARG)
			used_mask &= i < 63 ? ~(1ull << i) : ~0ull; /* arguments are not data */
		if (!used)
			continue;
		raw |= k == TP_COL_FIELD;
		comm |= k == TP_COL_COMM || k == TP_COL_STACK; /* folded stacks start with it */
		stack |= k == TP_COL_STACK;
		addr |= k == TP_COL_ADDR;
		regs |= k == TP_COL_ARG || k == TP_COL_RET;
		ustr |= k == TP_COL_USTR;
	}
	vt->src->want_user_str |= ustr; /* engine/user_str.c decides how */
	raw |= ustr;
	source__plan(vt->src, raw, comm, used_mask != 0);
	source__plan_more(vt->src, stack, addr, regs);
	/* the table first: the dry run asks engine/pushdown.c about this plan's arguments */
	for (int i = 0; i < vt->s->nr_src; i++)
		if (vt->s->src[i] == vt->src)
			sqlite3_str_appendf(plan, "T%d;", i);
	for (int i = 0; i < info->nConstraint; i++) {
		const struct sqlite3_index_constraint *c = &info->aConstraint[i];
		bool in;
		int rc;

		if (c->usable && c->iColumn >= 0 && c->op == SQLITE_INDEX_CONSTRAINT_EQ &&
		    (vt->cols[c->iColumn].kind == TP_COL_HZ ||
		     vt->cols[c->iColumn].kind == TP_COL_PERIOD_ARG)) {
			rc = rate_arg(vt, info, i, vt->cols[c->iColumn].kind == TP_COL_HZ, plan,
				      &argv_idx);
			if (rc != SQLITE_OK) {
				sqlite3_free(sqlite3_str_finish(plan));
				return rc;
			}
			continue;
		}
		if (!c->usable || c->iColumn < 0 ||
		    !filter_name(&vt->cols[c->iColumn], c->op, &is_str))
			continue;
		in = c->op == SQLITE_INDEX_CONSTRAINT_EQ && sqlite3_vtab_in(info, i, -1);
		if (in)
			sqlite3_vtab_in(info, i, 1);
		info->aConstraintUsage[i].argvIndex = ++argv_idx;
		sqlite3_str_appendf(plan, "%d:%d%s,", c->iColumn, c->op, in ? ":in" : "");
	}
	info->idxStr = sqlite3_str_finish(plan);
	info->needToFreeIdxStr = 1;
	if (info->nOrderBy == 1 && !info->aOrderBy[0].desc && info->aOrderBy[0].iColumn >= 0 &&
	    vt->cols[info->aOrderBy[0].iColumn].kind == TP_COL_TIME)
		info->orderByConsumed = 1;
	info->estimatedRows = 1000000 / (argv_idx + 1);
	info->estimatedCost = 1000000.0 / (argv_idx + 1);
	return SQLITE_OK;
}

/* One value of a constraint as ftrace takes it; false if it cannot be pushed. */
static bool kf_value_of(sqlite3_value *v, bool is_str, struct kf_value *out)
{
	double d;

	out->is_str = is_str;
	if (is_str) {
		/* IN values are re-used by SQLite: keep a copy (freed by dry_scan) */
		out->s = sqlite3_value_type(v) == SQLITE_TEXT
				 ? sqlite3_mprintf("%s", (const char *)sqlite3_value_text(v))
				 : NULL;
		return out->s != NULL;
	}
	switch (sqlite3_value_type(v)) {
	case SQLITE_INTEGER: out->i = sqlite3_value_int64(v); return true;
	case SQLITE_FLOAT:
		d = sqlite3_value_double(v);
		out->i = (long long)d;
		return (double)out->i == d;
	default: return false;
	}
}

/* ftrace compares in the field's own type: push only values that type can hold exactly */
static bool value_fits(const struct tp_col *col, const struct kf_value *v)
{
	int bits = col->kind == TP_COL_FIELD ? col->f->size * 8 : 32;
	bool is_signed = col->kind == TP_COL_FIELD ? col->f->is_signed : true;

	if (v->is_str)
		return true;
	if (bits >= 64)
		return is_signed || v->i >= 0;
	if (is_signed)
		return v->i >= -(1ll << (bits - 1)) && v->i < (1ll << (bits - 1));
	return v->i >= 0 && v->i < (1ll << bits);
}

/* Dry run: the plan in idxStr with the bound values -> a filter string for the source. */
static void dry_scan(struct tp_vtab *vt, const char *idx_str, int argc, sqlite3_value **argv)
{
	struct kfilter kf = { .len = 0 };
	const char *p = idx_str ? idx_str : "";
	int arg = 0, col, op, n;

	if (*p == 'T')
		p = strchr(p, ';') + 1;
	while (arg < argc && *p == 'R') { /* a rate argument: not a filter */
		p += 2;
		arg++;
	}
	while (arg < argc && sscanf(p, "%d:%d%n", &col, &op, &n) == 2) {
		bool in = !strncmp(p + n, ":in", 3), is_str, ok = true;
		const char *name = filter_name(&vt->cols[col], op, &is_str);
		struct kf_value vals[16] = { { 0 } };
		sqlite3_value *v;
		int nr = 0, rc;

		p = strchr(p, ',') + 1;
		if (session__is_row_arg(vt->s, idx_str, arg)) {
			ok = false; /* from rows: the dry run's empty tables gave this value */
		} else if (!in) {
			ok = kf_value_of(argv[arg], is_str, &vals[nr++]);
		} else {
			for (rc = sqlite3_vtab_in_first(argv[arg], &v); rc == SQLITE_OK && ok;
			     rc = sqlite3_vtab_in_next(argv[arg], &v))
				ok = nr < 16 && kf_value_of(v, is_str, &vals[nr++]);
			ok = ok && rc == SQLITE_DONE && nr > 0;
		}
		for (int k = 0; ok && k < nr; k++)
			ok = value_fits(&vt->cols[col], &vals[k]);
		if (ok)
			kfilter__and(&kf, name, kf_op_of(op), vals, nr);
		for (int k = 0; k < nr; k++)
			if (vals[k].is_str)
				sqlite3_free((char *)vals[k].s);
		arg++;
		while (arg < argc && *p == 'R') {
			p += 2;
			arg++;
		}
	}
	source__dry_scan(vt->src, &kf);
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
		dry_scan(vt, idx_str, argc, argv);
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
	c->row = wscan__next(&c->scan);
	return SQLITE_OK;
}

static int tp_table_next(sqlite3_vtab_cursor *c_)
{
	struct tp_cursor *c = (struct tp_cursor *)c_;

	c->rowid++;
	if (c->nr_counted)
		c->nr_counted--;
	else
		c->row = wscan__next(&c->scan);
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

int stack_hooks__install(struct session *s)
{
	if (s->stack_ctx)
		return 0;
	/* stacks are unwound and named by the symbols layer, above core */
	if (!(s->stack_ctx = symbols__new()))
		return -ENOMEM;
	s->on_new_stack_pid = note_pid;
	s->stack_ctx_free = free_symbols;
	s->on_mmap = add_map;
	s->on_user_stack = user_stack;
	s->maps_since = maps_since;
	s->syms_since = syms_since;
	s->on_syms = add_syms;
	if (s->replay) /* the capture's pids are not this machine's */
		symbols__set_offline(s->stack_ctx);
	return 0;
}

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
	if ((rc = perf_sql_events__register(db, s)) || (rc = perf_sql_stats__register(db, s)) ||
	    (rc = pairs__register(db, s)) || (rc = counters__register(db, s)) ||
	    (rc = blob_rows__register(db)))
		return rc;
	return SQLITE_OK;
}
