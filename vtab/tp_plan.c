/*
 * vtab/tp_plan.c - how a query plans a tracepoint table (vtab/tp_table.c): xBestIndex reads the
 * columns a statement uses (what to sample) and the constraints an ftrace filter can express
 * (described in idxStr); the planning dry run turns them, with their bound values, into the
 * source's kernel filter. SQLite still checks every constraint.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/field.h"
#include "core/kfilter.h"
#include "core/session.h"
#include "vtab/tp_table_int.h"

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
int tp_table__best_index(sqlite3_vtab *vt_, sqlite3_index_info *info)
{
	struct tp_vtab *vt = (struct tp_vtab *)vt_;
	sqlite3_str *plan = sqlite3_str_new(NULL);
	bool raw = false, comm = false, stack = false, addr = false, regs = false, is_str;
	bool ustr = false, cgroup = false;
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
		cgroup |= k == TP_COL_CGROUP || k == TP_COL_CGROUP_ID;
	}
	if (cgroup)
		source__plan_cgroup(vt->src);
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
		info->orderByConsumed = 1; /* the scan's own order */
	else
		info->idxNum = tp_group__plan(vt, info); /* GROUP BY: handed over grouped */
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
void tp_table__dry_scan(struct tp_vtab *vt, const char *idx_str, int argc, sqlite3_value **argv)
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
