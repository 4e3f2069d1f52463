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
 *   keys        integer fields, _pid, _tid, _cpu, comm, char[N] fields, and "value / N",
 *               "value % N" (N > 0), "value & N"; stack (its chains in a stack map);
 *               GROUP BY 1 and GROUP BY alias as SQLite
 *   WHERE       =, ==, !=, <>, <, <=, >, >=, IS [NOT], [NOT] IN (...), [NOT] BETWEEN, AND,
 *               OR, NOT; one side a value, the other a constant: literals, :parameters,
 *               workload_pid() and arithmetic of them, evaluated once by SQLite itself
 *   elsewhere   keys, the aggregates above, scalar functions of them; a column outside an
 *               aggregate must be a key; other aggregates (p99, group_concat, ...) are not
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "bpf/compile.h"
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

/* ------------------------------------------------------------------------ columns, values */

/* a column of the event table, in the order vtab/tp_table.c declares them */
enum colk bpf_an__resolve(struct an *a, int n, const struct tp_field **f)
{
	static const char *const meta[] = { "_time", "_cpu", "_pid", "_tid", "_comm", "_period" };
	static const char *const alias[] = { "time", "cpu", "pid", "tid", "comm" };
	static const enum colk kinds[] = { CK_TIME, CK_CPU, CK_PID, CK_TID, CK_COMM, CK_PERIOD };
	char name[128], qual[128], table[128];

	if (nd(a, n)->kind != SN_COL)
		return CK_NONE;
	if (a->pairs)
		return bpf_pairs__is_col(a, n) ? CK_PAIR : CK_NONE;
	if (nd(a, n)->qual >= 0) {
		bpf_an__name(a, nd(a, n)->qual, qual);
		bpf_an__name(a, a->sel->table_alias >= 0 ? a->sel->table_alias : a->sel->table,
			     table);
		if (strcasecmp(qual, table))
			return CK_NONE;
	}
	bpf_an__name(a, nd(a, n)->name, name);
	for (int k = 0; k < 6; k++)
		if (!strcasecmp(name, meta[k]))
			return kinds[k];
	for (int k = 0; k < 5; k++)
		if (!field__find(a->ev, alias[k]) && !strcasecmp(name, alias[k]))
			return kinds[k];
	for (int i = 0; i < a->ev->nr_fields; i++)
		if (!strcasecmp(name, a->ev->fields[i].name)) {
			*f = &a->ev->fields[i];
			return CK_FIELD;
		}
	if (a->ev->kind != EV_TRACEPOINT && !strcasecmp(name, "ip"))
		return CK_IP;
	if (a->ev->kind != EV_TRACEPOINT && !strcasecmp(name, "addr"))
		return CK_ADDR;
	if (a->ev->kind == EV_UPROBE && !strcasecmp(name, "ret"))
		return CK_RET;
	if (a->ev->kind == EV_UPROBE && !strncasecmp(name, "arg", 3) && name[3] >= '0' &&
	    name[3] <= '5' && !name[4])
		return CK_ARG;
	return !strcasecmp(name, "stack") ? CK_STACK : CK_NONE;
}

/* an integer literal, maybe negated */
bool bpf_an__int_const(const struct an *a, int n, int64_t *out)
{
	const struct sql_node *x = nd(a, n);

	if (x->kind == SN_INT) {
		*out = x->i;
		return true;
	}
	if (x->kind == SN_UNARY && (x->op == TK_MINUS || x->op == TK_PLUS) &&
	    nd(a, x->first)->kind == SN_INT && nd(a, x->first)->i != INT64_MIN) {
		*out = x->op == TK_MINUS ? -nd(a, x->first)->i : nd(a, x->first)->i;
		return true;
	}
	return false;
}

bool bpf_an__field_val(struct an *a, const struct tp_field *f, struct bpf_val *v)
{
	v->off = f->offset;
	v->size = f->size;
	v->is_signed = f->is_signed;
	if (f->kind == FIELD_INT &&
	    (f->size == 1 || f->size == 2 || f->size == 4 || f->size == 8) && f->offset >= 8 &&
	    f->offset % f->size == 0 && f->offset + f->size <= 2048) {
		v->col = BCOL_FIELD;
		return true;
	}
	if (f->kind == FIELD_STR && f->size <= BPF_MAX_STR && f->offset >= 8 &&
	    f->offset + f->size <= 2048) {
		v->col = BCOL_STR;
		return true;
	}
	return bpf_an__no(a, "field %s (%s) is not read by the kernel program", f->name, f->type);
}

/* a uprobe's argK or ret: the register the perf ring samples for it, in its size and sign */
static bool reg_val(struct an *a, int n, struct bpf_val *v)
{
	char name[128];
	int k, reg;

	bpf_an__name(a, nd(a, n)->name, name);
	k = tolower((unsigned char)name[0]) == 'r' ? -1 : name[3] - '0';
	reg = k < 0 ? 0 /* ax */ : a->ev->arg_reg[k];
	if (reg < 0 || uprobe_reg_slot(reg) < 0 || !bpf_reg_readable(reg))
		return bpf_an__no(a, "%s of %s is in no register the kernel program reads", name,
				  a->ev->name);
	v->col = BCOL_REG;
	v->off = reg;
	v->size = k < 0 ? 8 : a->ev->arg_size[k];
	v->is_signed = k >= 0 && a->ev->arg_signed[k];
	return true;
}

/* a comparison operator as the value's operation (end_value < 0: 1 or 0), or -1 */
static int cmp_of(int op)
{
	switch (op) {
	case TK_LT: return BOP_LT;
	case TK_LE: return BOP_LE;
	case TK_GT: return BOP_GT;
	case TK_GE: return BOP_GE;
	case TK_EQ: return BOP_EQ;
	case TK_NE: return BOP_NE;
	default: return -1;
	}
}

/* node n as a value the program computes (bpf/plan.h (1)) */
bool bpf_an__val(struct an *a, int n, struct bpf_val *v)
{
	const struct sql_node *x = nd(a, n);
	const struct tp_field *f = NULL;
	char buf[128];
	int64_t k;

	if (x->kind == SN_BINARY && x->kw == KW_NONE && cmp_of(x->op) >= 0) {
		if (!bpf_an__val(a, x->first, v))
			return false;
		if (bpf_val__is_str(v) || v->nr_ops == BPF_MAX_OPS ||
		    !bpf_an__int_const(a, kid(a, n, 1), &k))
			return bpf_an__no(a,
					  "'%s' is not read by the kernel program (VALUE CMP N is)",
					  bpf_an__text(a, n, buf, 64));
		v->ops[v->nr_ops].op = (enum bpf_op)cmp_of(x->op);
		v->ops[v->nr_ops++].k = k;
		return true;
	}
	if (x->kind == SN_BINARY && x->kw == KW_NONE &&
	    (x->op == TK_SLASH || x->op == TK_REM || x->op == TK_BITAND)) {
		if (!bpf_an__val(a, x->first, v))
			return false;
		if (bpf_val__is_str(v) || v->nr_ops == BPF_MAX_OPS ||
		    !bpf_an__int_const(a, kid(a, n, 1), &k) || (x->op != TK_BITAND && k <= 0))
			return bpf_an__no(
				a,
				"'%s' is not read by the kernel program (VALUE / N, VALUE %% N "
				"with N > 0 and VALUE & N are)",
				bpf_an__text(a, n, buf, 64));
		v->ops[v->nr_ops].op = x->op == TK_SLASH ? BOP_DIV
				       : x->op == TK_REM ? BOP_MOD
							 : BOP_AND;
		v->ops[v->nr_ops++].k = k;
		return true;
	}
	*v = (struct bpf_val){ 0 };
	if (a->pairs && x->kind == SN_COL)
		return bpf_pairs__val(a, n, v);
	switch (x->kind == SN_COL ? bpf_an__resolve(a, n, &f) : CK_NONE) {
	case CK_CPU: v->col = BCOL_CPU; return true;
	case CK_PID: v->col = BCOL_PID; return true;
	case CK_TID: v->col = BCOL_TID; return true;
	case CK_COMM: v->col = BCOL_COMM; return true;
	case CK_FIELD: return bpf_an__field_val(a, f, v);
	case CK_IP: v->col = BCOL_IP; return true;
	case CK_ARG:
	case CK_RET: return reg_val(a, n, v);
	case CK_ADDR:
		if (a->ev->kind == EV_UPROBE)
			return bpf_an__no(a, "addr of a uprobe is not read by the kernel program");
		v->col = BCOL_ADDR;
		return true;
	case CK_PERIOD:
		if (a->ev->kind == EV_TRACEPOINT || a->ev->kind == EV_UPROBE)
			return bpf_an__no(
				a, "_period of a tracepoint is not read by the kernel program");
		v->col = BCOL_PERIOD;
		return true;
	case CK_NONE:
		return bpf_an__no(a, "'%s' is not a value the kernel program reads",
				  bpf_an__text(a, n, buf, 64));
	case CK_STACK:
		return bpf_an__no(
			a, "stack is a GROUP BY key in the kernel, not a value to compare or "
			   "aggregate");
	default:
		return bpf_an__no(a, "%s is not read by the kernel program",
				  bpf_an__text(a, n, buf, 64));
	}
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
		return bpf_an__no(a, "%s is neither a GROUP BY key nor inside an aggregate",
				  bpf_an__text(a, n, buf, sizeof(buf)));
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
	for (int k = 0; k < sel->nr_group; k++)
		sqlite3_str_appendf(o, "%s\"_k%d\"", k ? ", " : " GROUP BY ", k);
	if (sel->having >= 0) {
		sqlite3_str_appendall(o, " HAVING ");
		emit(a, o, sql_select__start(sel, sel->having), sql_select__end(sel, sel->having));
	}
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
	if (!strcasecmp(name, "pairs") && a->sel->nr_targs)
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
	static const char *const names[] = { "sum",       "min",      "max",
					     "log2_hist", "lin_hist", "percentiles" };
	const struct bpf_plan *p = &a->b->plan;
	size_t off = 0, len = sizeof(a->b->desc);
	char buf[64], where[192];

	off += (size_t)snprintf(a->b->desc, len, "(");
	for (int k = 0; k < p->nr_keys && off < len; k++)
		off += (size_t)snprintf(a->b->desc + off, len - off, "%s%s", k ? ", " : "",
					bpf_an__text(a, a->key_node[k], buf, sizeof(buf)));
	if (off < len)
		off += (size_t)snprintf(a->b->desc + off, len - off, ") -> count");
	for (int i = 0; i < p->nr_aggs && off < len; i++)
		off += (size_t)snprintf(a->b->desc + off, len - off, ", %s(%s)",
					names[p->aggs[i].kind],
					bpf_an__text(a, a->agg_arg[i], buf, sizeof(buf)));
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
	if (!table(a) || !own_names_free(a))
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
	for (int i = 0; i < sel->nr_items; i++)
		if (!bpf_an__post(a, sel->items[i].expr, IN_ITEM))
			return false;
	if (sel->having >= 0 && !bpf_an__post(a, sel->having, IN_HAVING))
		return false;
	for (int i = 0; i < sel->nr_order; i++)
		if (!bpf_an__post(a, sel->order[i].expr, IN_ORDER_TERM))
			return false;
	if (sel->where >= 0 && (p->where_root = bpf_where__pred(a, sel->where)) < 0)
		return bpf_an__no(a, "its WHERE is too large");
	return rewrite(a, module);
}

void bpf_stmt__analyze(struct bpf_stmt *b, struct query *q, struct session *s, int i,
		       const char *module)
{
	struct an a = { .b = b, .q = q, .s = s, .orig = q->stmts[i] };

	memset(b, 0, sizeof(*b));
	b->plan.where_root = -1;
	b->plan.tree_fd = -1;
	if (!(a.sel = malloc(sizeof(*a.sel)))) {
		bpf_an__no(&a, "out of memory");
		return;
	}
	if (read_stmt(&a, module)) {
		b->ok = true;
		b->count_only = !b->plan.nr_keys && !b->plan.nr_aggs && b->plan.where_root < 0;
		b->plan.tp_id = a.ev->id;
		b->plan.nr_cpu_ids = s->nr_cpu_ids;
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
}
