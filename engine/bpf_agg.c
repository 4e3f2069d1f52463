/*
 * engine/bpf_agg.c - the aggregates of a statement the kernel computes (engine/bpf_plan.h): each
 * call's slot in the group's value and the merge of the groups' states that replaces it in the
 * rewritten statement (the table in engine/bpf_plan.c's header); folded_stack() of a stack
 * key. Anything else is a reason the statement stays on the ring.
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include "engine/bpf_plan.h"
#include "engine/sql_expr.h"

#include "engine/bpf_plan_int.h"

/* the aggregate's slot, shared by equal calls ("sum(count)" in SELECT and ORDER BY) */
static int slot(struct an *a, enum bpf_agg_kind kind, int arg, const struct bpf_val *v,
		const int64_t *lin)
{
	struct bpf_plan *p = &a->b->plan;

	for (int i = 0; i < p->nr_aggs; i++)
		if (p->aggs[i].kind == kind && sql_select__same(a->sel, a->agg_arg[i], arg) &&
		    (kind != BA_LIN || (p->aggs[i].lo == lin[0] && p->aggs[i].hi == lin[1] &&
					p->aggs[i].step == lin[2])))
			return i;
	if (p->nr_aggs == BPF_MAX_AGGS)
		return bpf_an__no(a, "more than %d aggregates", BPF_MAX_AGGS), -1;
	p->aggs[p->nr_aggs] = (struct bpf_agg){ .kind = kind, .v = *v, .follow = -1 };
	if (kind == BA_LIN) {
		uint64_t range = (uint64_t)lin[1] - (uint64_t)lin[0];

		p->aggs[p->nr_aggs].lo = lin[0];
		p->aggs[p->nr_aggs].hi = lin[1];
		p->aggs[p->nr_aggs].step = lin[2];
		p->aggs[p->nr_aggs].nr_buckets =
			(int)(range / (uint64_t)lin[2] + (range % (uint64_t)lin[2] != 0)) + 2;
	}
	a->agg_arg[p->nr_aggs] = arg;
	return p->nr_aggs++;
}

/* a constant argument (a histogram's unit) copied as written */
static bool const_arg(struct an *a, int n, char *buf, int len)
{
	enum sql_node_kind k = nd(a, n)->kind;

	if (k != SN_STR && k != SN_PARAM && k != SN_NULL)
		return bpf_an__no(a, "a histogram's unit must be a literal or a parameter");
	bpf_an__text(a, n, buf, len);
	return true;
}

/* lin_hist(V, MIN, MAX, STEP [, UNIT]): literal bounds lin_hist() accepts, few buckets */
static bool lin_args(struct an *a, int n, int64_t *lin)
{
	uint64_t range;

	for (int k = 0; k < 3; k++)
		if (!bpf_an__int_const(a, kid(a, n, k + 1), &lin[k]))
			return bpf_an__no(a,
					  "lin_hist's MIN, MAX and STEP must be integer literals");
	if (lin[2] <= 0 || lin[1] <= lin[0])
		return bpf_an__no(a, "lin_hist's arguments are refused by lin_hist() itself");
	range = (uint64_t)lin[1] - (uint64_t)lin[0];
	if (range / (uint64_t)lin[2] + 3 > BPF_LIN_MAX)
		return bpf_an__no(a, "lin_hist with more than %d buckets", BPF_LIN_MAX - 2);
	return true;
}

static bool is_aggregate(struct an *a, const char *name, int nargs)
{
	sqlite3_stmt *st = NULL;
	bool agg = true; /* unknown: not read */

	if (sqlite3_prepare_v2(a->q->db,
			       "SELECT max(type IN ('a', 'w')) FROM pragma_function_list "
			       "WHERE name = lower(?1) AND narg IN (?2, -1)",
			       -1, &st, NULL) == SQLITE_OK &&
	    sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC) == SQLITE_OK &&
	    sqlite3_bind_int(st, 2, nargs) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW &&
	    sqlite3_column_type(st, 0) != SQLITE_NULL)
		agg = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	return agg;
}

bool bpf_agg__any(struct an *a)
{
	char name[128];

	for (int n = 0; n < a->sel->nr_node; n++)
		if (nd(a, n)->kind == SN_FUNC &&
		    is_aggregate(a, bpf_an__name(a, nd(a, n)->name, name), nd(a, n)->nr_kids))
			return true;
	return false;
}

/* folded_stack(stack [, OPTIONS]): the same lines from each group's count. The stack is a key
 * of the kernel's groups even when the statement does not group by it (then the rewrite does
 * not either: folded_stack_merge() adds up the groups' lines) */
static bool folded(struct an *a, int n)
{
	char opts[80] = "";

	struct bpf_plan *p = &a->b->plan;
	const struct tp_field *f;
	int arg = nd(a, n)->first, k;

	enum bpf_col col = bpf_pairs__is_stack(a, arg) ? BCOL_PAIR_STACK : BCOL_STACK;

	if (col == BCOL_STACK &&
	    (nd(a, arg)->kind != SN_COL || bpf_an__resolve(a, arg, &f) != CK_STACK))
		return bpf_an__no(a, "folded_stack() of something other than the stack column "
				     "(or pairs()'s start_value of 'stack')");
	for (k = 0; k < p->nr_keys; k++)
		if (p->keys[k].col == col && sql_select__same(a->sel, arg, a->key_node[k]))
			break;
	if (k == p->nr_keys) { /* a key of the kernel's groups only, not of the statement's */
		if (k == BPF_MAX_KEYS)
			return bpf_an__no(a, "more than %d GROUP BY keys", BPF_MAX_KEYS);
		p->keys[p->nr_keys++] = (struct bpf_val){ .col = col };
		a->key_node[k] = arg;
	}
	return (nd(a, n)->nr_kids == 1 || const_arg(a, kid(a, n, 1), opts, 70)) &&
	       bpf_an__replace(a, n, "folded_stack_merge(\"_k%d\", \"_c\"%s%s)", k,
			       opts[0] ? ", " : "", opts);
}

/* count(DISTINCT V): V a key of the kernel's groups only (not of the statement's, as
 * folded_stack()'s stack), so the rewrite counts V's distinct values over its group's rows */
static bool distinct(struct an *a, int n)
{
	struct bpf_plan *p = &a->b->plan;
	int arg = nd(a, n)->first, k;
	struct bpf_val v;

	if (!bpf_an__val(a, arg, &v))
		return false;
	for (k = 0; k < p->nr_keys; k++)
		if (sql_select__same(a->sel, arg, a->key_node[k]))
			break;
	if (k == p->nr_keys) {
		if (k == BPF_MAX_KEYS)
			return bpf_an__no(a, "more than %d GROUP BY keys", BPF_MAX_KEYS);
		p->keys[p->nr_keys++] = v;
		a->key_node[k] = arg;
	}
	a->b->distinct = true;
	return bpf_an__replace(a, n, "count(DISTINCT \"_k%d\")", k);
}

/* p50()...percentile(): of a pair's latency, P a number literal */
static bool loglin_ok(struct an *a, int n, const char *name, const struct bpf_val *v)
{
	int p = kid(a, n, 1);

	if (v->col != BCOL_PAIR_LAT || v->nr_ops)
		return bpf_an__no(a, "%s() in the kernel is of latency only", name);
	if (nd(a, n)->nr_kids == 2 && p >= 0 && nd(a, p)->kind != SN_INT &&
	    nd(a, p)->kind != SN_FLOAT)
		return bpf_an__no(a, "percentile()'s P must be a number literal");
	return true;
}

/* an aggregate call: its slot and the merge that replaces it */
bool bpf_agg__post_func(struct an *a, int n, enum where_in in)
{
	static const struct {
		const char *name;
		enum bpf_agg_kind kind;
		int min, max;
	} aggs[] = {
		{ "sum", BA_SUM, 1, 1 },        { "avg", BA_SUM, 1, 1 },
		{ "min", BA_MIN, 1, 1 },        { "max", BA_MAX, 1, 1 },
		{ "log2_hist", BA_LOG2, 1, 2 }, { "lin_hist", BA_LIN, 4, 5 },
		{ "p50", BA_LOGLIN, 1, 1 },     { "p90", BA_LOGLIN, 1, 1 },
		{ "p95", BA_LOGLIN, 1, 1 },     { "p99", BA_LOGLIN, 1, 1 },
		{ "p999", BA_LOGLIN, 1, 1 },    { "percentile", BA_LOGLIN, 2, 2 },
	};
	const struct sql_node *x = nd(a, n);
	char name[128], t[4][64] = { "", "", "", "" }, unit[80] = "";
	int64_t lin[3] = { 0, 0, 0 };
	struct bpf_val v;
	int i = -1, s, lo, hi;

	bpf_an__name(a, x->name, name);
	if (!strcasecmp(name, "count") && x->distinct && x->nr_kids == 1)
		return distinct(a, n);
	if (!strcasecmp(name, "count") && !x->distinct && (x->star || x->nr_kids == 1)) {
		return (x->star || bpf_an__val(a, x->first, &v)) &&
		       bpf_an__replace(a, n, "ifnull(sum(\"_c\"), 0)");
	}
	if (!strcasecmp(name, "folded_stack") && !x->distinct && !x->star &&
	    (x->nr_kids == 1 || x->nr_kids == 2))
		return folded(a, n);
	for (size_t k = 0; k < sizeof(aggs) / sizeof(aggs[0]) && i < 0; k++)
		if (!strcasecmp(name, aggs[k].name) && x->nr_kids >= aggs[k].min &&
		    x->nr_kids <= aggs[k].max && (aggs[k].kind != BA_LOGLIN || a->pairs))
			i = (int)k;
	if (i < 0 || x->distinct || x->star) {
		if (x->distinct || x->star || is_aggregate(a, name, x->nr_kids))
			return bpf_an__no(a, "%s() is computed in SQLite only", name);
		for (int k = x->first; k >= 0; k = nd(a, k)->next) /* a scalar function */
			if (!bpf_an__post(a, k, in == IN_ORDER_TERM ? IN_ORDER : in))
				return false;
		return true;
	}
	if (!bpf_an__val(a, x->first, &v) || bpf_val__is_str(&v))
		return bpf_an__no(a, "%s() of '%s'", name, bpf_an__text(a, x->first, t[0], 64));
	if (aggs[i].kind == BA_LOGLIN && !loglin_ok(a, n, name, &v))
		return false;
	if ((aggs[i].kind == BA_LOG2 && x->nr_kids == 2 && !const_arg(a, kid(a, n, 1), unit, 70)) ||
	    (aggs[i].kind == BA_LIN &&
	     (!lin_args(a, n, lin) || (x->nr_kids == 5 && !const_arg(a, kid(a, n, 4), unit, 70)))))
		return false;
	if ((s = slot(a, aggs[i].kind, x->first, &v, lin)) < 0)
		return false;
	switch (aggs[i].kind) {
	case BA_SUM:
		if (!strcasecmp(name, "avg"))
			return bpf_an__replace(a, n, "(sum(\"_a%d\") * 1.0 / sum(\"_c\"))", s);
		return bpf_an__replace(a, n, "sum(\"_a%d\")", s);
	case BA_MIN:
	case BA_MAX:
		if (s == a->b->plan.nr_aggs - 1 && a->b->plan.aggs[s].kind == aggs[i].kind &&
		    sql_select__same(a->sel, a->agg_arg[s], x->first))
			a->minmax_last = s; /* new in the list: SQLite's last min/max so far */
		return bpf_an__replace(a, n, "%s(\"_a%d\")", aggs[i].kind == BA_MIN ? "min" : "max",
				       s);
	case BA_BARE: return false;
	case BA_LOG2:
		return bpf_an__replace(a, n, "log2_hist_merge(\"_a%d\"%s%s)", s,
				       unit[0] ? ", " : "", unit);
	case BA_LOGLIN: /* a bucket's middle, kept within the group's exact min and max */
		if (x->nr_kids == 2)
			bpf_an__text(a, kid(a, n, 1), t[1], 64);
		if ((lo = slot(a, BA_MIN, x->first, &v, lin)) < 0 ||
		    (hi = slot(a, BA_MAX, x->first, &v, lin)) < 0)
			return false;
		return bpf_an__replace(a, n,
				       "min(max(loglin_percentile(\"_a%d\", %s), min(\"_a%d\")), "
				       "max(\"_a%d\"))",
				       s,
				       x->nr_kids == 2             ? t[1]
				       : !strcasecmp(name, "p999") ? "99.9"
								   : name + 1,
				       lo, hi);
	case BA_LIN:
		for (int k = 1; k <= 3; k++)
			bpf_an__text(a, kid(a, n, k), t[k], 64);
		return bpf_an__replace(a, n, "lin_hist_merge(\"_a%d\", %s, %s, %s%s%s)", s, t[1],
				       t[2], t[3], unit[0] ? ", " : "", unit);
	}
	return false;
}

bool bpf_agg__bare(struct an *a, int n)
{
	static const int64_t lin[3] = { 0, 0, 0 };
	struct bpf_val v;
	char buf[64];
	int s;

	if (!bpf_an__val(a, n, &v))
		return bpf_an__no(
			a,
			"%s is neither a GROUP BY key nor inside an aggregate, nor a value the "
			"kernel program keeps per group",
			bpf_an__text(a, n, buf, sizeof(buf)));
	if ((s = slot(a, BA_BARE, n, &v, lin)) < 0)
		return false;
	return bpf_an__replace(a, n, "\"_a%d\"", s);
}

/*
 * SQLite 3.40 gives a bare column the value of the group's first row, unless the statement
 * has min() or max() aggregates: then of the row where the last of them in its list (result
 * columns, ORDER BY, HAVING; each once) took its value (ties keep the first). Where the
 * kernel's keys split a statement's group (count(DISTINCT x), folded_stack()), the groups'
 * rows come in the order of their bare columns' rows (vtab/bpf_groups.c), so SQLite's pick
 * over them is the same.
 */
bool bpf_agg__bare_follow(struct an *a)
{
	struct bpf_plan *p = &a->b->plan;

	for (int i = 0; i < p->nr_aggs; i++)
		if (p->aggs[i].kind == BA_BARE)
			p->aggs[i].follow = a->minmax_last;
	return true;
}
