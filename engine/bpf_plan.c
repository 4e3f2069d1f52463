/*
 * engine/bpf_plan.c - can this statement run in the kernel, and as what? (engine/bpf_plan.h)
 *
 *   select comm, count(*) as n, avg(count) from sys_enter_write where fd = 1
 *   group by comm order by n desc
 * becomes a plan (keys: comm; aggregates: sum of count; WHERE fd = 1 compiled) and
 *   SELECT "_k0" AS "comm", ifnull(sum("_c"), 0) AS "n",
 *          (sum("_a0") * 1.0 / sum("_c")) AS "avg(count)"
 *   FROM "perf_sql_bpf_0" GROUP BY "_k0" ORDER BY n desc
 * over one row per group (vtab/bpf_groups.c), so the result has the same columns, names,
 * types and values as over the rows:
 *   count(*), count(x)   sum of the groups' counts (0 over no group, as count() gives)
 *   sum, min, max        of the groups' sums, mins, maxes (the kernel keeps 64-bit sums and
 *                        flags an overflow, which reads as SQLite's "integer overflow")
 *   avg(x)               sum / count as a REAL, which is SQLite 3.40's avg() while the sums
 *                        stay within 2^53 (its running sum is a double)
 *   log2_hist, lin_hist  of the groups' bucket counts (log2_hist_merge, lin_hist_merge)
 * Result names come from the original statement, as SQLite named them.
 *
 * What is read is deliberately narrow; anything else is a reason, kept for --explain:
 *   keys        integer fields, _pid, _tid, _cpu, comm, char[N] and __data_loc char[] fields,
 *               and operations on them (engine/bpf_val.c); stack (its chains in a stack
 *               map); GROUP BY 1 and GROUP BY alias as SQLite
 *   WHERE       =, ==, !=, <>, <, <=, >, >=, IS [NOT], [NOT] IN (...), [NOT] BETWEEN, AND,
 *               OR, NOT; one side a value, the other a constant: literals, :parameters,
 *               workload_pid() and arithmetic of them, evaluated once by SQLite itself; a term
 *               of keys only that is not compiled runs on the groups (engine/bpf_where.c)
 *   elsewhere   keys, the aggregates above, scalar functions of them; a column outside an
 *               aggregate that is not a key is a bare column (BA_BARE: SQLite's first row's,
 *               or its last min()/max()'s); other aggregates (group_concat, ...) are not
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "bpf/compile.h"
#include "bpf/hook.h"
#include "core/field.h"
#include "core/session.h"
#include "engine/bpf_plan.h"
#include "engine/sql_expr.h"

#include "engine/bpf_plan_int.h"

bool bpf_an__no(struct an *a, const char *fmt, ...)
{
	va_list ap;

	if (!a->b->why[0]) {
		va_start(ap, fmt);
		vsnprintf(a->b->why, sizeof(a->b->why), fmt, ap);
		va_end(ap);
	}
	return false;
}

/* the text of node n, at most len - 1 bytes */
const char *bpf_an__text(const struct an *a, int n, char *buf, int len)
{
	int s = sql_select__start(a->sel, n), e = sql_select__end(a->sel, n);

	snprintf(buf, (size_t)len, "%.*s", e - s, a->sel->text + s);
	return buf;
}

const char *bpf_an__name(const struct an *a, int tok, char *buf)
{
	return sql_select__ident(a->sel, tok, buf, 128);
}

/* --------------------------------------------------------------- keys, aggregates, rewrite */

bool bpf_an__replace(struct an *a, int n, const char *fmt, ...)
{
	va_list ap;

	if (a->nr_repl == MAX_REPL)
		return bpf_an__no(a, "too complex");
	va_start(ap, fmt);
	a->repl[a->nr_repl].text = sqlite3_vmprintf(fmt, ap);
	va_end(ap);
	a->repl[a->nr_repl].start = sql_select__start(a->sel, n);
	a->repl[a->nr_repl].end = sql_select__end(a->sel, n);
	return a->repl[a->nr_repl++].text ? true : bpf_an__no(a, "out of memory");
}

/* GROUP BY term k: a column or expression, a result column's number or alias (as SQLite) */
static bool key_of(struct an *a, int k)
{
	int n = a->sel->group[k];
	const struct tp_field *f;
	char name[128], alias[128];

	if (nd(a, n)->kind == SN_INT && nd(a, n)->i >= 1 && nd(a, n)->i <= a->sel->nr_items)
		n = a->sel->items[nd(a, n)->i - 1].expr;
	else if (nd(a, n)->kind == SN_COL && nd(a, n)->qual < 0 &&
		 bpf_an__resolve(a, n, &f) == CK_NONE) {
		bpf_an__name(a, nd(a, n)->name, name);
		for (int i = 0; i < a->sel->nr_items; i++)
			if (a->sel->items[i].alias >= 0 &&
			    !strcasecmp(name, bpf_an__name(a, a->sel->items[i].alias, alias))) {
				n = a->sel->items[i]
					    .expr; /* the first alias of that name, as SQLite */
				break;
			}
	}
	a->key_node[k] = n;
	if (bpf_pairs__is_stack(a, n)) { /* the start's chain, kept with the pending start */
		a->b->plan.keys[k] = (struct bpf_val){ .col = BCOL_PAIR_STACK };
		return true;
	}
	if (nd(a, n)->kind == SN_COL && bpf_an__resolve(a, n, &f) == CK_CGROUP) {
		a->b->plan.keys[k] = (struct bpf_val){ .col = BCOL_CGROUP, .size = 1 };
		return bpf_cgroup__v2(a);
	}
	if (nd(a, n)->kind == SN_COL &&
	    bpf_an__resolve(a, n, &f) == CK_STACK) { /* bpf/plan.h (5) */
		a->b->plan.keys[k] = (struct bpf_val){ .col = BCOL_STACK };
		return true;
	}
	return bpf_an__val(a, n, &a->b->plan.keys[k]);
}

static bool is_alias(struct an *a, int n)
{
	char name[128], alias[128];

	if (nd(a, n)->kind != SN_COL || nd(a, n)->qual >= 0)
		return false;
	bpf_an__name(a, nd(a, n)->name, name);
	for (int i = 0; i < a->sel->nr_items; i++)
		if (a->sel->items[i].alias >= 0 &&
		    !strcasecmp(name, bpf_an__name(a, a->sel->items[i].alias, alias)))
			return true;
	return false;
}

/* SELECT items, HAVING, ORDER BY: keys and aggregates replaced, the rest kept as written */
bool bpf_an__post(struct an *a, int n, enum where_in in)
{
	const struct tp_field *f;
	char buf[64];

	for (int k = 0; k < a->sel->nr_group; k++) /* the statement's keys, not folded()'s */
		if (sql_select__same(a->sel, n, a->key_node[k]))
			return bpf_an__replace(a, n, "\"_k%d\"", k);
	switch (nd(a, n)->kind) {
	case SN_COL: /* an ORDER BY term names a result column first, others a table column */
		if (in == IN_ORDER_TERM && is_alias(a, n))
			return true;
		if (bpf_an__resolve(a, n, &f) == CK_NONE && in != IN_ITEM && is_alias(a, n))
			return true;
		if (bpf_an__resolve(a, n, &f) == CK_NONE)
			return bpf_an__no(a, "%s is neither a GROUP BY key nor inside an aggregate",
					  bpf_an__text(a, n, buf, sizeof(buf)));
		return bpf_agg__bare(a, n); /* a bare column: its group's row's value */
	case SN_FUNC: return bpf_agg__post_func(a, n, in);
	default:
		for (int k = nd(a, n)->first; k >= 0; k = nd(a, k)->next)
			if (!bpf_an__post(a, k, in == IN_ORDER_TERM ? IN_ORDER : in))
				return false;
		return true;
	}
}

/* the text from start to end with the replacements inside it */
static void emit(struct an *a, sqlite3_str *o, int start, int end)
{
	int at = start;

	for (int i = 0; i < a->nr_repl; i++) {
		if (a->repl[i].start < at || a->repl[i].end > end)
			continue;
		sqlite3_str_append(o, a->sel->text + at, a->repl[i].start - at);
		sqlite3_str_appendall(o, a->repl[i].text);
		at = a->repl[i].end;
	}
	sqlite3_str_append(o, a->sel->text + at, end - at);
}

static int cmp_repl(const void *x, const void *y)
{
	return *(const int *)x - *(const int *)y; /* start is the first member */
}

static bool rewrite(struct an *a, const char *module)
{
	const struct sql_select *sel = a->sel;
	sqlite3_str *o = sqlite3_str_new(NULL);

	qsort(a->repl, (size_t)a->nr_repl, sizeof(a->repl[0]), cmp_repl);
	sqlite3_str_appendall(o, "SELECT ");
	for (int i = 0; i < sel->nr_items; i++) {
		int e = sel->items[i].expr;
		const char *name = sqlite3_column_name(a->orig, i);

		if (!name)
			break;
		sqlite3_str_appendall(o, i ? ", " : "");
		emit(a, o, sql_select__start(sel, e), sql_select__end(sel, e));
		sqlite3_str_appendf(o, " AS \"%w\"", name);
	}
	sqlite3_str_appendf(o, " FROM \"%w\"", module);
	for (int i = 0; i < a->nr_on_rows; i++) { /* _cgroup terms: a path per group's row */
		int n = a->on_rows[i];

		sqlite3_str_appendall(o, i ? ") AND (" : " WHERE (");
		emit(a, o, sql_select__start(sel, n), sql_select__end(sel, n));
		sqlite3_str_appendall(o, i == a->nr_on_rows - 1 ? ")" : "");
	}
	for (int k = 0; k < sel->nr_group; k++)
		sqlite3_str_appendf(o, "%s\"_k%d\"", k ? ", " : " GROUP BY ", k);
	for (int i = 0; i < a->nr_on_groups; i++) { /* WHERE terms of keys: the same groups */
		int n = a->on_groups[i];

		sqlite3_str_appendall(o, i ? ") AND (" : " HAVING (");
		emit(a, o, sql_select__start(sel, n), sql_select__end(sel, n));
	}
	if (sel->having >= 0) {
		sqlite3_str_appendall(o, a->nr_on_groups ? ") AND (" : " HAVING (");
		emit(a, o, sql_select__start(sel, sel->having), sql_select__end(sel, sel->having));
	}
	if (sel->having >= 0 || a->nr_on_groups)
		sqlite3_str_appendall(o, ")");
	for (int i = 0; i < sel->nr_order; i++) {
		const struct sql_token *t = &sel->tok[sel->order[i].tok1 - 1];

		sqlite3_str_appendall(o, i ? ", " : " ORDER BY ");
		emit(a, o, sql_select__start(sel, sel->order[i].expr), t->start + t->len);
	}
	if (sel->limit_tok0 >= 0) {
		const struct sql_token *t0 = &sel->tok[sel->limit_tok0];
		const struct sql_token *t1 = &sel->tok[sel->limit_tok1 - 1];

		sqlite3_str_appendf(o, " %.*s", t1->start + t1->len - t0->start,
				    sel->text + t0->start);
	}
	a->b->sql = sqlite3_str_finish(o);
	return a->b->sql ? true : bpf_an__no(a, "out of memory");
}

/* FROM: one event table */
static bool table(struct an *a)
{
	char name[128];

	if (a->sel->table_schema >= 0 &&
	    strcasecmp(bpf_an__name(a, a->sel->table_schema, name), "main"))
		return bpf_an__no(a, "FROM %s.%s", name, bpf_an__name(a, a->sel->table, name));
	bpf_an__name(a, a->sel->table, name);
	if ((!strcasecmp(name, "pairs") || (a->pending = !strcasecmp(name, "pending"))) &&
	    a->sel->nr_targs)
		return bpf_pairs__table(a);
	if (!(a->ev = catalog__find(a->s->cat, name)))
		return bpf_an__no(a, "FROM %s: not an event table", name);
	for (int i = 0; i < a->s->nr_src && !a->b->src; i++)
		if (a->s->src[i]->ev == a->ev && !a->s->src[i]->counter)
			a->b->src = a->s->src[i];
	if (!a->b->src)
		return bpf_an__no(a, "FROM %s: not an event table", name);
	if (a->ev->kind != EV_TRACEPOINT && a->ev->kind != EV_SOFTWARE && a->ev->kind != EV_UPROBE)
		return bpf_an__no(
			a, "only tracepoint, software event and uprobe tables are aggregated in "
			   "the kernel so far");
	return true;
}

/* "_c", "_k0", "_a1": the rewrite's names; a statement using one is left alone */
static bool own_names_free(struct an *a)
{
	char name[128];

	for (int i = 0; i < a->sel->nr_tok; i++) {
		const char *s = bpf_an__name(a, i, name);

		if (a->sel->tok[i].type == TK_ID && s[0] == '_' &&
		    (!strcasecmp(s, "_c") ||
		     ((s[1] == 'k' || s[1] == 'K' || s[1] == 'a' || s[1] == 'A') && s[2] &&
		      strspn(s + 2, "0123456789") == strlen(s + 2))))
			return bpf_an__no(a, "it uses the name %s, which the rewrite needs", s);
	}
	return true;
}

static void describe(struct an *a)
{
	static const char *const names[] = { "sum",      "min",         "max",  "log2_hist",
					     "lin_hist", "percentiles", "first" };
	const struct bpf_plan *p = &a->b->plan;
	size_t off = 0, len = sizeof(a->b->desc);
	char buf[64], where[192];

	off += (size_t)snprintf(a->b->desc, len, "(");
	for (int k = 0; k < p->nr_keys && off < len; k++)
		off += (size_t)snprintf(a->b->desc + off, len - off, "%s%s", k ? ", " : "",
					bpf_an__text(a, a->key_node[k], buf, sizeof(buf)));
	if (off < len)
		off += (size_t)snprintf(a->b->desc + off, len - off, ") -> count");
	for (int i = 0; i < p->nr_aggs && off < len; i++) {
		const struct bpf_agg *g = &p->aggs[i];

		off += (size_t)snprintf(a->b->desc + off, len - off, ", %s(%s)", names[g->kind],
					bpf_an__text(a, a->agg_arg[i], buf, sizeof(buf)));
		if (g->kind == BA_BARE && g->follow >= 0 && off < len)
			off += (size_t)snprintf(
				a->b->desc + off, len - off, " at %s(%s)",
				names[p->aggs[g->follow].kind],
				bpf_an__text(a, a->agg_arg[g->follow], buf, sizeof(buf)));
	}
	if (a->sel->where >= 0 && off < len)
		snprintf(a->b->desc + off, len - off, ", WHERE %s%s%s%s",
			 bpf_an__text(a, a->sel->where, where, sizeof(where)),
			 a->where_note[0] ? " (" : "", a->where_note, a->where_note[0] ? ")" : "");
}

static bool read_stmt(struct an *a, const char *module)
{
	struct sql_select *sel = a->sel;
	struct bpf_plan *p = &a->b->plan;

	if (sql_select__parse(sel, sqlite3_sql(a->orig)))
		return bpf_an__no(a, "%s", sel->err);
	if (!table(a))
		return false;
	if (a->pending)
		return bpf_pairs__pending_stmt(a);
	if (!own_names_free(a))
		return false;
	if (sel->nr_items != sqlite3_column_count(a->orig))
		return bpf_an__no(a, "its result columns are not read");
	if (sel->nr_group > BPF_MAX_KEYS)
		return bpf_an__no(a, "more than %d GROUP BY keys", BPF_MAX_KEYS);
	if (!sel->nr_group && !bpf_agg__any(a))
		return bpf_an__no(a, "it reads rows, not groups (no GROUP BY, no aggregate)");
	for (p->nr_keys = 0; p->nr_keys < sel->nr_group; p->nr_keys++)
		if (!key_of(a, p->nr_keys))
			return false;
	/* in SQLite's order (its aggregates' list): which min() or max() bare columns follow */
	for (int i = 0; i < sel->nr_items; i++)
		if (!bpf_an__post(a, sel->items[i].expr, IN_ITEM))
			return false;
	for (int i = 0; i < sel->nr_order; i++)
		if (!bpf_an__post(a, sel->order[i].expr, IN_ORDER_TERM))
			return false;
	if (sel->having >= 0 && !bpf_an__post(a, sel->having, IN_HAVING))
		return false;
	if (!bpf_agg__bare_follow(a))
		return false;
	if (sel->where >= 0 && (p->where_root = bpf_where__of(a, sel->where)) < 0)
		return bpf_an__no(a, "its WHERE is too large");
	return rewrite(a, module);
}

void bpf_stmt__analyze(struct bpf_stmt *b, struct query *q, struct session *s, sqlite3_stmt *orig,
		       const char *module)
{
	struct an a = { .b = b, .q = q, .s = s, .orig = orig, .minmax_last = -1 };

	memset(b, 0, sizeof(*b));
	snprintf(b->module, sizeof(b->module), "%s", module);
	b->plan.where_root = -1;
	b->plan.tree_fd = -1;
	if (!(a.sel = malloc(sizeof(*a.sel)))) {
		bpf_an__no(&a, "out of memory");
		return;
	}
	if (read_stmt(&a, module)) {
		b->ok = true;
		b->count_only = !b->plan.nr_keys && !b->plan.nr_aggs && b->plan.where_root < 0 &&
				!a.pending && !bpf_hook__counts(a.ev); /* bpf/hook.h (4) */
		b->plan.tp_id = a.ev->id;
		b->plan.nr_cpu_ids = s->nr_cpu_ids;
		if (!a.pending)
			describe(&a);
	}
	b->start_src = a.start_src; /* pairs(): read or not, its tables are its own */
	for (int k = 0; k < a.nr_repl; k++)
		sqlite3_free(a.repl[k].text);
	free(a.sel);
}

void bpf_stmt__free(struct bpf_stmt *b)
{
	sqlite3_free(b->sql);
	b->sql = NULL;
	for (int k = 0; k < b->nr_parts; k++)
		bpf_stmt__free(&b->parts[k].st);
	free(b->parts);
	b->parts = NULL;
	b->nr_parts = 0;
}
