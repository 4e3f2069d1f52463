/*
 * engine/bpf_where.c - a statement's WHERE as the BPF program's predicate (see engine/bpf_plan.c):
 * comparisons of columns with constants, IN lists, BETWEEN, AND/OR/NOT, constants evaluated
 * by SQLite itself; anything else leaves the statement on the ring, with the reason.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "bpf/syscall.h"
#include "core/field.h"
#include "engine/bpf_plan_int.h"

/* is_target(...) of a session that follows no tree is NULL, whatever its arguments
 * (sqlite/is_target.c (2)): a constant */
static bool null_is_target(const struct an *a, int n)
{
	const struct sql_node *x = nd(a, n);
	char name[128];

	return x->kind == SN_FUNC && !x->star && (x->nr_kids == 1 || x->nr_kids == 2) &&
	       !strcasecmp(bpf_an__name(a, x->name, name), "is_target") && !a->s->tree.active;
}

/* no column inside: literals, parameters, workload_pid(), arithmetic of them, coalesce() and
 * ifnull() of them, is_target() where it is NULL */
static bool is_const(const struct an *a, int n)
{
	const struct sql_node *x = nd(a, n);
	char name[128];

	switch (x->kind) {
	case SN_INT:
	case SN_FLOAT:
	case SN_STR:
	case SN_NULL:
	case SN_PARAM: return true;
	case SN_FUNC:
		if (null_is_target(a, n))
			return true;
		bpf_an__name(a, x->name, name);
		if (x->star || (x->nr_kids == 0 && strcasecmp(name, "workload_pid")) ||
		    (x->nr_kids > 0 && strcasecmp(name, "coalesce") && strcasecmp(name, "ifnull")))
			return false;
		break;
	case SN_UNARY:
		if (x->op == TK_ID)
			return false;
		break;
	case SN_BINARY:
		if ((x->kw != KW_NONE && x->kw != KW_IS && x->kw != KW_AND && x->kw != KW_OR) ||
		    x->op == TK_ARROW)
			return false;
		break;
	case SN_ISNULL: break;
	default: return false;
	}
	for (int k = x->first; k >= 0; k = nd(a, k)->next)
		if (!is_const(a, k))
			return false;
	return true;
}

/* the columns inside node n (only arguments of a NULL is_target()) as NULL columns of a FROM */
static void null_cols(struct an *a, int n, sqlite3_str *o, int *nr)
{
	char name[128];

	if (nd(a, n)->kind == SN_COL) {
		sqlite3_str_appendf(o, "%sNULL AS \"%w\"", (*nr)++ ? ", " : " FROM (SELECT ",
				    bpf_an__name(a, nd(a, n)->name, name));
		return;
	}
	for (int k = nd(a, n)->first; k >= 0; k = nd(a, k)->next)
		null_cols(a, k, o, nr);
}

/* SQLite evaluates constant node n once (the values every row would see); NULL: failed */
static sqlite3_value *eval(struct an *a, int n)
{
	sqlite3_str *o = sqlite3_str_new(NULL);
	int nr = 0;
	char *sql;

	sqlite3_str_appendf(o, "SELECT %.*s",
			    sql_select__end(a->sel, n) - sql_select__start(a->sel, n),
			    a->sel->text + sql_select__start(a->sel, n));
	null_cols(a, n, o, &nr);
	sqlite3_str_appendall(o, nr ? ")" : "");
	sql = sqlite3_str_finish(o);
	sqlite3_stmt *st = NULL;
	sqlite3_value *v = NULL;

	if (sql && sqlite3_prepare_v2(a->q->db, sql, -1, &st, NULL) == SQLITE_OK &&
	    query__bind_params(a->q, st) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_value_dup(sqlite3_column_value(st, 0));
	sqlite3_finalize(st);
	sqlite3_free(sql);
	return v;
}

static int leaf(struct an *a, int kind, const struct bpf_val *v, enum bpf_cmp cmp, int64_t k)
{
	struct bpf_pred p = { .kind = kind, .a = -1, .b = -1, .cmp = cmp, .k = k };

	if (v)
		p.v = *v;
	return bpf_plan__pred(&a->b->plan, &p);
}

static int join(struct an *a, int kind, int l, int r)
{
	struct bpf_pred p = { .kind = kind, .a = l, .b = r };

	return l < 0 || (kind != BP_NOT && r < 0) ? -1 : bpf_plan__pred(&a->b->plan, &p);
}

/* text equality (cmp BC_EQ or BC_NE) of a string value with the constant's text */
static int str_cmp(struct an *a, const struct bpf_val *v, enum bpf_cmp cmp, sqlite3_value *c)
{
	int max = v->col == BCOL_COMM || v->col == BCOL_PAIR_COMM ? 15 : bpf_val__str_size(v),
	    len = sqlite3_value_bytes(c), n;
	const char *s = (const char *)sqlite3_value_text(c);
	struct bpf_pred p = { .kind = BP_STREQ, .v = *v };

	if (sqlite3_value_type(c) != SQLITE_TEXT || !s || (int)strlen(s) != len ||
	    (cmp != BC_EQ && cmp != BC_NE))
		return bpf_an__no(a, "a text column compares only = or != with a text"), -1;
	if (len > max) { /* longer than the column holds: never equal */
		p.kind = BP_FALSE;
	} else {
		memcpy(p.s, s, (size_t)len);
	}
	n = bpf_plan__pred(&a->b->plan, &p);
	return cmp == BC_NE ? join(a, BP_NOT, n, -1) : n;
}

/* syscall_name(V) = 'NAME' as V = NR, NAME's number in the table syscall_name() reads (FALSE
 * for no such name). Only =: where V has no name, syscall_name(V) != 'NAME' is NULL, not true */
static int syscall_name_cmp(struct an *a, int f, enum bpf_cmp cmp, int r)
{
	struct bpf_val v;
	sqlite3_value *c;
	const char *name;
	char arg[24];
	int ret = -1, nr = -1;

	if (cmp != BC_EQ)
		return bpf_an__no(a, "syscall_name() compares only = with a name"), -1;
	if (!bpf_an__val(a, kid(a, f, 0), &v))
		return -1;
	if (bpf_val__is_str(&v))
		return bpf_an__no(a, "syscall_name() of a text column"), -1;
	if (!(c = eval(a, r)))
		return bpf_an__no(a, "a constant of WHERE could not be evaluated"), -1;
	if (sqlite3_value_type(c) == SQLITE_TEXT) {
		name = (const char *)sqlite3_value_text(c);
		nr = bpf_syscall__nr(name);
		ret = nr < 0 ? leaf(a, BP_FALSE, NULL, BC_EQ, 0) : leaf(a, BP_CMP, &v, BC_EQ, nr);
		bpf_an__text(a, kid(a, f, 0), arg, sizeof(arg));
		if (nr < 0)
			snprintf(a->where_note, sizeof(a->where_note),
				 "syscall_name(%s) = '%.32s' is false: no such system call", arg,
				 name);
		else
			snprintf(a->where_note, sizeof(a->where_note),
				 "syscall_name(%s) = '%.32s' tested as %s = %d", arg, name, arg,
				 nr);
	} else {
		bpf_an__no(a, "syscall_name() compares only with a text");
	}
	sqlite3_value_free(c);
	return ret;
}

static bool is_syscall_name(const struct an *a, int n)
{
	const struct sql_node *x = nd(a, n);
	char name[128];

	return x->kind == SN_FUNC && x->nr_kids == 1 && !x->star &&
	       !strcasecmp(bpf_an__name(a, x->name, name), "syscall_name");
}

/* l CMP r, one side a value and the other a constant */
static int compare(struct an *a, int l, enum bpf_cmp cmp, int r)
{
	static const enum bpf_cmp flip[] = { [BC_EQ] = BC_EQ, [BC_NE] = BC_NE, [BC_LT] = BC_GT,
					     [BC_LE] = BC_GE, [BC_GT] = BC_LT, [BC_GE] = BC_LE };
	struct bpf_val v;
	sqlite3_value *c;
	int ret;

	if (is_const(a, l) && !is_const(a, r)) {
		int t = l;

		l = r;
		r = t;
		cmp = flip[cmp];
	}
	if (!is_const(a, r))
		return bpf_an__no(a,
				  "WHERE compares a column with something other than a constant"),
		       -1;
	if (is_syscall_name(a, l))
		return syscall_name_cmp(a, l, cmp, r);
	if (!bpf_an__val(a, l, &v))
		return -1;
	if (!(c = eval(a, r)))
		return bpf_an__no(a, "a constant of WHERE could not be evaluated"), -1;
	if (bpf_val__is_str(&v))
		ret = str_cmp(a, &v, cmp, c);
	else if (sqlite3_value_type(c) == SQLITE_INTEGER)
		ret = leaf(a, BP_CMP, &v, cmp, sqlite3_value_int64(c));
	else
		ret = bpf_an__no(a, "WHERE compares an integer with a non-integer") ? 0 : -1;
	sqlite3_value_free(c);
	return ret;
}

/* a constant condition as TRUE or FALSE, as SQLite's WHERE takes it (NULL: false) */
static int const_pred(struct an *a, int n)
{
	sqlite3_value *c = eval(a, n);
	int r;

	if (!c)
		return bpf_an__no(a, "a constant of WHERE could not be evaluated"), -1;
	r = leaf(a,
		 sqlite3_value_type(c) != SQLITE_NULL && sqlite3_value_double(c) != 0 ? BP_TRUE
										      : BP_FALSE,
		 NULL, BC_EQ, 0);
	sqlite3_value_free(c);
	return r;
}

int bpf_where__pred(struct an *a, int n)
{
	static const struct {
		enum sql_tok op;
		enum bpf_cmp cmp;
	} ops[] = {
		{ TK_EQ, BC_EQ }, { TK_NE, BC_NE }, { TK_LT, BC_LT },
		{ TK_LE, BC_LE }, { TK_GT, BC_GT }, { TK_GE, BC_GE },
	};
	const struct sql_node *x = nd(a, n);
	int r, v = kid(a, n, 0);
	char buf[64];

	if (is_const(a, n)) /* ":syscall IS NULL": what every row would see */
		return const_pred(a, n);
	if (x->kind == SN_BINARY && (x->kw == KW_AND || x->kw == KW_OR)) {
		int l = v, rt = kid(a, n, 1), absorb = x->kw == KW_AND ? BP_FALSE : BP_TRUE;

		for (int k = 0; k < 2; k++) { /* a constant side decides, or leaves the other */
			int c = k ? rt : l, o = k ? l : rt;

			if (is_const(a, c) && (r = const_pred(a, c)) >= 0)
				return (int)a->b->plan.where[r].kind == absorb
					       ? r
					       : bpf_where__pred(a, o);
		}
	}
	if (x->kind == SN_BINARY && (x->kw == KW_AND || x->kw == KW_OR))
		return join(a, x->kw == KW_AND ? BP_AND : BP_OR, bpf_where__pred(a, v),
			    bpf_where__pred(a, kid(a, n, 1)));
	if (x->kind == SN_UNARY && x->op == TK_ID)
		return join(a, BP_NOT, bpf_where__pred(a, v), -1);
	if (x->kind == SN_BINARY && x->kw == KW_IS)
		return compare(a, v, x->not ? BC_NE : BC_EQ, kid(a, n, 1));
	for (size_t i = 0; x->kind == SN_BINARY && x->kw == KW_NONE && i < 6; i++)
		if (x->op == (int)ops[i].op)
			return compare(a, v, ops[i].cmp, kid(a, n, 1));
	if (x->kind == SN_IN) {
		r = leaf(a, BP_FALSE, NULL, BC_EQ, 0); /* x IN () */
		for (int k = nd(a, v)->next; k >= 0 && r >= 0; k = nd(a, k)->next)
			r = join(a, BP_OR, r, compare(a, v, BC_EQ, k));
		return x->not ? join(a, BP_NOT, r, -1) : r;
	}
	if (x->kind == SN_BETWEEN) {
		r = join(a, BP_AND, compare(a, v, BC_GE, kid(a, n, 1)),
			 compare(a, v, BC_LE, kid(a, n, 2)));
		return x->not ? join(a, BP_NOT, r, -1) : r;
	}
	return bpf_an__no(a, "WHERE term '%s' is not compiled to BPF",
			  bpf_an__text(a, n, buf, sizeof(buf))),
	       -1;
}

/* does node n read nothing but GROUP BY keys (and constants)? */
static bool keys_only(struct an *a, int n)
{
	const struct sql_node *x = nd(a, n);

	for (int k = 0; k < a->sel->nr_group; k++)
		if (sql_select__same(a->sel, n, a->key_node[k]))
			return true;
	if (x->kind == SN_COL || (x->kind == SN_FUNC && x->star))
		return false;
	for (int k = x->first; k >= 0; k = nd(a, k)->next)
		if (!keys_only(a, k))
			return false;
	return true;
}

/* is node n is_target(key, start_time) of a pairs() statement under targets, or coalesce() of
 * it and a constant (never NULL then)? */
static bool start_member(struct an *a, int n)
{
	const struct sql_node *x = nd(a, n), *t;
	char name[128];
	struct bpf_val v;

	if (!a->pairs || !a->s->tree.active || x->kind != SN_FUNC || x->star)
		return false;
	bpf_an__name(a, x->name, name);
	if (!strcasecmp(name, "coalesce") && x->nr_kids == 2 && is_const(a, kid(a, n, 1)))
		return start_member(a, kid(a, n, 0));
	if (strcasecmp(name, "is_target") || x->nr_kids != 2)
		return false;
	t = nd(a, kid(a, n, 1));
	return t->kind == SN_COL && !strcasecmp(bpf_an__name(a, t->name, name), "start_time") &&
	       nd(a, kid(a, n, 0))->kind == SN_COL && bpf_an__val(a, kid(a, n, 0), &v) &&
	       v.col == BCOL_PAIR_KEY && !v.nr_ops;
}

/*
 * A term the program cannot test but that reads only keys (start_value GLOB :comm) keeps or
 * drops whole groups, as every row of a group has the group's keys: it runs on the groups, in
 * the rewrite's HAVING, and is TRUE for the program. Only terms of the top AND are split.
 */
int bpf_where__of(struct an *a, int n)
{
	const struct sql_node *x = nd(a, n);
	int r;

	if (x->kind == SN_BINARY && x->kw == KW_AND)
		return join(a, BP_AND, bpf_where__of(a, kid(a, n, 0)),
			    bpf_where__of(a, kid(a, n, 1)));
	if (start_member(a, n)) { /* the start's program tests it (bpf/plan.h: start_member) */
		a->b->plan.pair.start_member = true;
		return leaf(a, BP_TRUE, NULL, BC_EQ, 0);
	}
	if ((r = bpf_cgroup__where(a, n)) != -2)
		return r;
	if ((r = bpf_where__pred(a, n)) >= 0 || !a->sel->nr_group || !keys_only(a, n) ||
	    a->nr_on_groups == (int)(sizeof(a->on_groups) / sizeof(a->on_groups[0])))
		return r;
	a->b->why[0] = '\0'; /* pred_of's reason: not one */
	if (!bpf_an__post(a, n, IN_HAVING))
		return -1;
	a->on_groups[a->nr_on_groups++] = n;
	snprintf(a->where_note, sizeof(a->where_note), "terms of keys only on the groups");
	return leaf(a, BP_TRUE, NULL, BC_EQ, 0);
}
