/*
 * tests/unit/test_sql_expr.c - the SELECT reader of the BPF planner (engine/sql_expr.c):
 * SQLite's precedence, the clauses, spans, expression equality, and what is refused.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "engine/sql_expr.h"
#include "tests/unit/t.h"

static struct sql_select sel;

/* node n fully parenthesized: "(a + (b * c))"; names and literals as written */
static void show(int n, char *buf, size_t len)
{
	const struct sql_node *x = &sel.node[n];
	static const char *const ops[] = {
		[TK_STAR] = "*",   [TK_SLASH] = "/",   [TK_REM] = "%",     [TK_PLUS] = "+",
		[TK_MINUS] = "-",  [TK_CONCAT] = "||", [TK_LSHIFT] = "<<", [TK_RSHIFT] = ">>",
		[TK_BITAND] = "&", [TK_BITOR] = "|",   [TK_BITNOT] = "~",  [TK_LT] = "<",
		[TK_LE] = "<=",    [TK_GT] = ">",      [TK_GE] = ">=",     [TK_EQ] = "=",
		[TK_NE] = "!=",
	};
	static const char *const kws[] = {
		"", "AND", "OR", "IS", "LIKE", "GLOB", "MATCH", "REGEXP"
	};
	char a[256] = "", b[256] = "";
	int k = x->first;

	if (k >= 0)
		show(k, a, sizeof(a));
	if (k >= 0 && sel.node[k].next >= 0)
		show(sel.node[k].next, b, sizeof(b));
	switch (x->kind) {
	case SN_BINARY:
		snprintf(buf, len, "(%s %s%s %s)", a, x->kw ? kws[x->kw] : ops[x->op],
			 x->not ? " NOT" : "", b);
		break;
	case SN_UNARY: snprintf(buf, len, "(%s %s)", x->op == TK_ID ? "NOT" : ops[x->op], a); break;
	case SN_IN:
		snprintf(buf, len, "(%s %sIN %d)", a, x->not ? "NOT " : "", x->nr_kids - 1);
		break;
	case SN_BETWEEN: snprintf(buf, len, "(%s %sBETWEEN ..)", a, x->not ? "NOT " : ""); break;
	case SN_FUNC:
		snprintf(buf, len, "%.*s(%s%s)", sel.tok[x->name].len,
			 sel.text + sel.tok[x->name].start, x->star ? "*" : a,
			 x->nr_kids > 1 ? ", .." : "");
		break;
	default:
		snprintf(buf, len, "%.*s", sql_select__end(&sel, n) - sql_select__start(&sel, n),
			 sel.text + sql_select__start(&sel, n));
	}
}

/* the first result column of "select EXPR from t", parenthesized */
static const char *expr(const char *e)
{
	static char text[512], out[512];

	snprintf(text, sizeof(text), "select %s from t", e);
	if (sql_select__parse(&sel, text))
		snprintf(out, sizeof(out), "refused: %s", sel.err);
	else
		show(sel.items[0].expr, out, sizeof(out));
	return out;
}

#define E(e, want)                                                                                 \
	do {                                                                                       \
		const char *got = expr(e);                                                         \
		T(!strcmp(got, want), "%s: got '%s', want '%s'", e, got, want);                    \
	} while (0)

static void test_precedence(void)
{
	E("a + b * c", "(a + (b * c))");
	E("a - b - c", "((a - b) - c)");
	E("a / 8 & 255", "((a / 8) & 255)");
	E("a & 255 / 8", "(a & (255 / 8))");
	E("a = 1 or b = 2 and c = 3", "((a = 1) OR ((b = 2) AND (c = 3)))");
	E("not a = 1 and b", "((NOT (a = 1)) AND b)");
	E("a < b = c", "((a < b) = c)");
	E("-a * b", "((- a) * b)");
	E("a || b = c", "((a || b) = c)");
	E("a is not b", "(a IS NOT b)");
	E("a not in (1, 2, 3)", "(a NOT IN 3)");
	E("a not between 1 and 2 and b", "((a NOT BETWEEN ..) AND b)");
	E("count(*) > 2", "(count(*) > 2)");
	E("(a + b) * c", "((a + b) * c)");
	E("sum(count / 8)", "sum((count / 8))");
}

static void test_clauses(void)
{
	T(!sql_select__parse(&sel,
			     "SELECT comm c, count(*) AS \"n\" FROM main.sched_switch s WHERE "
			     "prev_pid > 0 GROUP BY 1 HAVING n > 1 ORDER BY n DESC, c "
			     "NULLS LAST LIMIT 5 OFFSET 1;"),
	  "a full SELECT: %s", sel.err);
	T(sel.nr_items == 2 && sel.items[0].alias >= 0 && sel.items[1].alias >= 0, "two aliases");
	T(sel.table_schema >= 0 && sel.table_alias >= 0, "schema and alias of the table");
	T(sel.where >= 0 && sel.nr_group == 1 && sel.having >= 0 && sel.nr_order == 2 &&
		  sel.limit_tok0 >= 0,
	  "every clause");
	T(!strcmp(sel.text + sel.tok[sel.order[0].tok1 - 1].start,
		  "DESC, c NULLS LAST LIMIT 5 OFFSET 1;"),
	  "an ORDER BY term ends after DESC");
	T(!sql_select__parse(&sel, "select count(*) from cpu_clock(99)"),
	  "a table's integer "
	  "arguments (the rate): %s",
	  sel.err);
}

static void test_spans(void)
{
	const char *t = "select  sum( ( count ) ) , x from t";

	T(!sql_select__parse(&sel, t), "parse: %s", sel.err);
	T(sql_select__start(&sel, sel.items[0].expr) == 8 &&
		  sql_select__end(&sel, sel.items[0].expr) == 24,
	  "sum(...) spans its text");
	T(!sql_select__parse(&sel, "select count/8, COUNT / 8, count/9, \"count\"/8 from t"),
	  "parse");
	T(sql_select__same(&sel, sel.items[0].expr, sel.items[1].expr), "count/8 = COUNT / 8");
	T(!sql_select__same(&sel, sel.items[0].expr, sel.items[2].expr), "count/8 != count/9");
	T(sql_select__same(&sel, sel.items[0].expr, sel.items[3].expr),
	  "a quoted name is the name");
}

static void test_refused(void)
{
	static const char *const no[] = {
		"select distinct a from t",
		"select * from t",
		"select a from t, u",
		"select a from t join u",
		"select (select 1) from t",
		"select a from t union select b from u",
		"select sum(a) over () from t",
		"select sum(a) filter (where a > 1) from t",
		"select a from t where b in (select c from u)",
		"select a from t where b = ?",
		"select a from f(x)",
		"select a from t where (a, b) = (1, 2)",
		"update t set a = 1",
		"select a from t limit",
		"select a from t where x like 'a' escape '!'",
	};

	for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++)
		T(sql_select__parse(&sel, no[i]) && sel.err[0], "refused: %s", no[i]);
	/* a table's literal arguments, as pairs() takes them */
	T(!sql_select__parse(&sel, "select 1 from pairs('a', 'k', 'b', 'k', 7) as p") &&
		  sel.nr_targs == 5 && sel.table_alias >= 0,
	  "pairs()'s arguments read");
}

int main(void)
{
	RUN(test_precedence);
	RUN(test_clauses);
	RUN(test_spans);
	RUN(test_refused);
	return t_done("sql_expr");
}
