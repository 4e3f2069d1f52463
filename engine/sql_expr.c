/*
 * engine/sql_expr.c - tokens and expressions of one SELECT (see engine/sql_expr.h).
 *
 * Precedence, lowest first, as in SQLite's parse.y: OR; AND; NOT; = == != <> IS IN LIKE GLOB
 * MATCH REGEXP BETWEEN ISNULL NOTNULL; < <= > >=; & | << >>; + -; * / %; || -> ->>;
 * COLLATE; unary - + ~.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "engine/sql_expr.h"

struct ps {
	struct sql_select *sel;
	int pos;
	bool failed;
};

static bool fail(struct ps *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static bool fail(struct ps *p, const char *fmt, ...)
{
	va_list ap;

	if (!p->failed) {
		va_start(ap, fmt);
		vsnprintf(p->sel->err, sizeof(p->sel->err), fmt, ap);
		va_end(ap);
	}
	p->failed = true;
	return false;
}

/* ------------------------------------------------------------------------------ helpers */

static const struct sql_token *cur(struct ps *p) { return &p->sel->tok[p->pos]; }

/* the current token is the unquoted word w */
static bool is_kw(struct ps *p, int at, const char *w)
{
	return sql_select__is_word(p->sel, at, w);
}

static bool accept_kw(struct ps *p, const char *w)
{
	if (!is_kw(p, p->pos, w))
		return false;
	p->pos++;
	return true;
}

static bool accept(struct ps *p, enum sql_tok type)
{
	if (cur(p)->type != type)
		return false;
	p->pos++;
	return true;
}

/* an identifier that may name a column, table, function or alias */
static bool is_name(struct ps *p, int at)
{
	return p->sel->tok[at].type == TK_ID &&
	       (p->sel->tok[at].quoted || !sql_select__is_keyword(p->sel, at));
}

static int new_node(struct ps *p, enum sql_node_kind kind, int tok0)
{
	struct sql_select *sel = p->sel;
	struct sql_node *n;

	if (sel->nr_node == SQL_MAX_NODES) {
		fail(p, "too complex");
		return -1;
	}
	n = &sel->node[sel->nr_node];
	*n = (struct sql_node){ .kind = kind,
				.tok0 = tok0,
				.tok1 = tok0 + 1,
				.name = -1,
				.qual = -1,
				.first = -1,
				.next = -1 };
	return sel->nr_node++;
}

static void add_kid(struct ps *p, int parent, int kid)
{
	struct sql_node *n = &p->sel->node[parent];

	if (kid < 0)
		return;
	if (n->first < 0) {
		n->first = kid;
	} else {
		int k = n->first;

		while (p->sel->node[k].next >= 0)
			k = p->sel->node[k].next;
		p->sel->node[k].next = kid;
	}
	n->nr_kids++;
}

static int finish(struct ps *p, int n)
{
	if (n >= 0)
		p->sel->node[n].tok1 = p->pos;
	return n;
}

static bool parse_int(const char *s, int len, int64_t *out)
{
	char buf[32], *end;
	unsigned long long v;

	if (len <= 0 || len >= (int)sizeof(buf))
		return false;
	memcpy(buf, s, (size_t)len);
	buf[len] = '\0';
	errno = 0;
	v = strtoull(buf, &end, 0);
	if (*end || errno)
		return false;
	if (!(len > 2 && (buf[1] == 'x' || buf[1] == 'X')) && v > INT64_MAX)
		return false; /* decimal past INT64_MAX: SQLite reads a REAL */
	*out = (int64_t)v;
	return true;
}

/* -------------------------------------------------------------------------- expressions */

static int expr(struct ps *p, int min_bp);

/* name(args), name(*), name(DISTINCT x); FILTER and OVER are not read */
static int func_call(struct ps *p, int name)
{
	int n = new_node(p, SN_FUNC, name);

	if (n < 0)
		return -1;
	p->sel->node[n].name = name;
	p->pos += 2; /* name ( */
	if (accept(p, TK_STAR)) {
		p->sel->node[n].star = true;
	} else if (!accept(p, TK_RP) || (p->pos--, false)) {
		p->sel->node[n].distinct = accept_kw(p, "distinct");
		do
			add_kid(p, n, expr(p, 0));
		while (!p->failed && accept(p, TK_COMMA));
	}
	if (!accept(p, TK_RP))
		return fail(p, "')' expected"), -1;
	if (is_kw(p, p->pos, "filter") || is_kw(p, p->pos, "over"))
		return fail(p, "FILTER and OVER are not read"), -1;
	return finish(p, n);
}

static int column(struct ps *p)
{
	int n = new_node(p, SN_COL, p->pos);

	if (n < 0)
		return -1;
	p->sel->node[n].name = p->pos++;
	if (cur(p)->type == TK_DOT && is_name(p, p->pos + 1)) {
		p->sel->node[n].qual = p->sel->node[n].name;
		p->sel->node[n].name = p->pos + 1;
		p->pos += 2;
		if (cur(p)->type == TK_DOT)
			return fail(p, "schema.table.column is not read"), -1;
	}
	return finish(p, n);
}

static int literal(struct ps *p)
{
	const struct sql_token *t = cur(p);
	static const enum sql_node_kind kinds[] = {
		[TK_STR] = SN_STR,   [TK_INT] = SN_INT,     [TK_FLOAT] = SN_FLOAT,
		[TK_BLOB] = SN_BLOB, [TK_PARAM] = SN_PARAM,
	};
	int n = new_node(p, kinds[t->type], p->pos);

	if (n < 0)
		return -1;
	if (t->type == TK_INT && !parse_int(p->sel->text + t->start, t->len, &p->sel->node[n].i))
		p->sel->node[n].kind = SN_FLOAT;
	p->pos++;
	return n;
}

/* CASE [x] WHEN a THEN b ... [ELSE c] END, CAST(x AS type) */
static int case_or_cast(struct ps *p)
{
	int n, tok0 = p->pos;

	if (accept_kw(p, "cast")) {
		if ((n = new_node(p, SN_CAST, tok0)) < 0 || !accept(p, TK_LP))
			return fail(p, "CAST( expected"), -1;
		add_kid(p, n, expr(p, 0));
		if (!accept_kw(p, "as"))
			return fail(p, "CAST: AS expected"), -1;
		while (cur(p)->type == TK_ID || cur(p)->type == TK_LP || cur(p)->type == TK_INT ||
		       cur(p)->type == TK_COMMA || cur(p)->type == TK_PLUS ||
		       cur(p)->type == TK_MINUS)
			if (cur(p)->type == TK_ID && sql_select__is_keyword(p->sel, p->pos))
				break;
			else
				p->pos++;
		if (!accept(p, TK_RP))
			return fail(p, "CAST: ')' expected"), -1;
		return finish(p, n);
	}
	accept_kw(p, "case");
	if ((n = new_node(p, SN_CASE, tok0)) < 0)
		return -1;
	if (!is_kw(p, p->pos, "when"))
		add_kid(p, n, expr(p, 0));
	while (!p->failed && accept_kw(p, "when")) {
		add_kid(p, n, expr(p, 0));
		if (!accept_kw(p, "then"))
			return fail(p, "CASE: THEN expected"), -1;
		add_kid(p, n, expr(p, 0));
	}
	if (accept_kw(p, "else"))
		add_kid(p, n, expr(p, 0));
	if (!accept_kw(p, "end"))
		return fail(p, "CASE: END expected"), -1;
	return finish(p, n);
}

static int prefix(struct ps *p)
{
	const struct sql_token *t = cur(p);
	int n, tok0 = p->pos;

	switch (t->type) {
	case TK_STR:
	case TK_INT:
	case TK_FLOAT:
	case TK_BLOB:
	case TK_PARAM: return literal(p);
	case TK_LP:
		p->pos++;
		if (is_kw(p, p->pos, "select") || is_kw(p, p->pos, "with"))
			return fail(p, "subqueries are not read"), -1;
		n = expr(p, 0);
		if (cur(p)->type == TK_COMMA)
			return fail(p, "row values are not read"), -1;
		if (!accept(p, TK_RP))
			return fail(p, "')' expected"), -1;
		/* the parentheses belong to the inner node's span: a rewrite keeps them */
		if (n >= 0) {
			p->sel->node[n].tok0 = tok0;
			p->sel->node[n].tok1 = p->pos;
		}
		return n;
	case TK_MINUS:
	case TK_PLUS:
	case TK_BITNOT:
		if ((n = new_node(p, SN_UNARY, tok0)) < 0)
			return -1;
		p->sel->node[n].op = t->type;
		p->pos++;
		add_kid(p, n, expr(p, 11));
		return finish(p, n);
	case TK_ID:
		if (is_kw(p, p->pos, "not")) {
			if ((n = new_node(p, SN_UNARY, tok0)) < 0)
				return -1;
			p->sel->node[n].op = TK_ID;
			p->pos++;
			add_kid(p, n, expr(p, 4));
			return finish(p, n);
		}
		if (is_kw(p, p->pos, "null")) {
			p->pos++;
			return new_node(p, SN_NULL, tok0);
		}
		if (is_kw(p, p->pos, "case") || is_kw(p, p->pos, "cast"))
			return case_or_cast(p);
		if (!is_name(p, p->pos))
			return fail(p, "'%.*s' is not read here", t->len, p->sel->text + t->start),
			       -1;
		if (p->sel->tok[p->pos + 1].type == TK_LP)
			return func_call(p, p->pos);
		return column(p);
	default: return fail(p, "unexpected '%.*s'", t->len, p->sel->text + t->start), -1;
	}
}

/* binding power of the operator at the current position (0: none) and its kind */
static int infix_bp(struct ps *p, enum sql_kw *kw, bool * not )
{
	static const struct {
		const char *w;
		enum sql_kw kw;
		int bp;
	} words[] = {
		{ "or", KW_OR, 1 },       { "and", KW_AND, 2 },       { "is", KW_IS, 4 },
		{ "in", KW_NONE, 4 },     { "like", KW_LIKE, 4 },     { "glob", KW_GLOB, 4 },
		{ "match", KW_MATCH, 4 }, { "regexp", KW_REGEXP, 4 }, { "between", KW_NONE, 4 },
		{ "isnull", KW_NONE, 4 }, { "notnull", KW_NONE, 4 },  { "collate", KW_NONE, 10 },
	};
	int at = p->pos;

	*kw = KW_NONE;
	*not = false;
	switch (cur(p)->type) {
	case TK_EQ:
	case TK_NE: return 4;
	case TK_LT:
	case TK_LE:
	case TK_GT:
	case TK_GE: return 5;
	case TK_BITAND:
	case TK_BITOR:
	case TK_LSHIFT:
	case TK_RSHIFT: return 6;
	case TK_PLUS:
	case TK_MINUS: return 7;
	case TK_STAR:
	case TK_SLASH:
	case TK_REM: return 8;
	case TK_CONCAT:
	case TK_ARROW: return 9;
	case TK_ID: break;
	default: return 0;
	}
	if (is_kw(p, at, "not") && !is_kw(p, at + 1, "null")) {
		*not = true;
		at++;
	}
	for (size_t k = 0; k < sizeof(words) / sizeof(words[0]); k++)
		if (is_kw(p, at, words[k].w)) {
			*kw = words[k].kw;
			return words[k].bp;
		}
	if (is_kw(p, p->pos, "not") && is_kw(p, p->pos + 1, "null"))
		return 4;
	return 0;
}

/* the operator after left: IN (...), BETWEEN, IS [NOT], [NOT] NULL, COLLATE, or binary */
static int infix(struct ps *p, int left, int bp, enum sql_kw kw, bool not )
{
	int tok0 = p->sel->node[left].tok0, n, op = cur(p)->type;

	if (not )
		p->pos++;
	if (accept_kw(p, "in")) {
		if ((n = new_node(p, SN_IN, tok0)) < 0 || !accept(p, TK_LP))
			return fail(p, "IN: '(' expected (a table or subquery is not read)"), -1;
		if (is_kw(p, p->pos, "select") || is_kw(p, p->pos, "with"))
			return fail(p, "subqueries are not read"), -1;
		add_kid(p, n, left);
		if (!accept(p, TK_RP)) {
			do
				add_kid(p, n, expr(p, 0));
			while (!p->failed && accept(p, TK_COMMA));
			if (!accept(p, TK_RP))
				return fail(p, "IN: ')' expected"), -1;
		}
	} else if (accept_kw(p, "between")) {
		if ((n = new_node(p, SN_BETWEEN, tok0)) < 0)
			return -1;
		add_kid(p, n, left);
		add_kid(p, n, expr(p, 5));
		if (!accept_kw(p, "and"))
			return fail(p, "BETWEEN: AND expected"), -1;
		add_kid(p, n, expr(p, 5));
	} else if (accept_kw(p, "isnull") || accept_kw(p, "notnull") ||
		   (is_kw(p, p->pos, "not") && is_kw(p, p->pos + 1, "null") && (p->pos += 2))) {
		if ((n = new_node(p, SN_ISNULL, tok0)) < 0)
			return -1;
		not = is_kw(p, p->pos - 1, "notnull") || is_kw(p, p->pos - 1, "null");
		add_kid(p, n, left);
	} else if (accept_kw(p, "collate")) {
		if ((n = new_node(p, SN_COLLATE, tok0)) < 0 || !is_name(p, p->pos))
			return fail(p, "COLLATE: a name expected"), -1;
		p->pos++;
		add_kid(p, n, left);
	} else {
		if ((n = new_node(p, SN_BINARY, tok0)) < 0)
			return -1;
		p->sel->node[n].op = op;
		p->sel->node[n].kw = kw;
		p->pos++;
		if (kw == KW_IS && accept_kw(p, "not"))
			not = true;
		if (kw == KW_IS && accept_kw(p, "distinct"))
			return fail(p, "IS DISTINCT FROM is not read"), -1;
		add_kid(p, n, left);
		add_kid(p, n, expr(p, bp + 1));
		if (kw == KW_LIKE && is_kw(p, p->pos, "escape"))
			return fail(p, "LIKE ... ESCAPE is not read"), -1;
	}
	p->sel->node[n].not = not ;
	return finish(p, n);
}

static int expr(struct ps *p, int min_bp)
{
	int left = prefix(p);

	while (left >= 0 && !p->failed) {
		enum sql_kw kw;
		bool not ;
		int bp = infix_bp(p, &kw, &not );

		if (!bp || bp < min_bp)
			break;
		left = infix(p, left, bp, kw, not );
	}
	return p->failed ? -1 : left;
}

/* ------------------------------------------------------------------------------ clauses */

/* expr [[AS] alias] */
static bool select_item(struct ps *p)
{
	struct sql_select *sel = p->sel;
	int i = sel->nr_items;

	if (i == SQL_MAX_ITEMS)
		return fail(p, "too many result columns");
	if (cur(p)->type == TK_STAR ||
	    (cur(p)->type == TK_ID && p->sel->tok[p->pos + 1].type == TK_DOT &&
	     p->sel->tok[p->pos + 2].type == TK_STAR))
		return fail(p, "'*' is not read");
	sel->items[i].expr = expr(p, 0);
	sel->items[i].alias = -1;
	if (accept_kw(p, "as")) {
		if (!is_name(p, p->pos) && cur(p)->type != TK_STR)
			return fail(p, "AS: a name expected");
		sel->items[i].alias = p->pos++;
	} else if (is_name(p, p->pos) || cur(p)->type == TK_STR) {
		sel->items[i].alias = p->pos++;
	}
	sel->nr_items++;
	return !p->failed;
}

/* FROM [schema.]name [[AS] alias] */
static bool from(struct ps *p)
{
	struct sql_select *sel = p->sel;

	sel->from_tok0 = p->pos;
	if (!is_name(p, p->pos))
		return fail(p, "FROM: a table name expected");
	sel->table = p->pos++;
	if (accept(p, TK_DOT)) {
		if (!is_name(p, p->pos))
			return fail(p, "FROM: a table name expected");
		sel->table_schema = sel->table;
		sel->table = p->pos++;
	}
	if (accept(p, TK_LP)) { /* cpu_clock(99), pairs('a', 'k', 'b', 'k'): literals only */
		do {
			if (cur(p)->type != TK_INT && cur(p)->type != TK_STR)
				return fail(p, "table arguments other than literals are not read");
			if (sel->nr_targs < SQL_MAX_TARGS)
				sel->targ[sel->nr_targs++] = p->pos;
			p->pos++;
		} while (accept(p, TK_COMMA));
		if (!accept(p, TK_RP))
			return fail(p, "')' expected after the table's arguments");
	}
	if (accept_kw(p, "as") || is_name(p, p->pos)) {
		if (!is_name(p, p->pos))
			return fail(p, "AS: a name expected");
		sel->table_alias = p->pos++;
	}
	sel->from_tok1 = p->pos;
	if (cur(p)->type == TK_COMMA || is_kw(p, p->pos, "join") || is_kw(p, p->pos, "natural") ||
	    is_kw(p, p->pos, "left") || is_kw(p, p->pos, "inner") || is_kw(p, p->pos, "cross") ||
	    is_kw(p, p->pos, "indexed") || is_kw(p, p->pos, "not"))
		return fail(p, "joins are not read");
	return true;
}

static bool expr_list(struct ps *p, int *out, int *nr)
{
	do {
		if (*nr == SQL_MAX_ITEMS)
			return fail(p, "too many terms");
		out[(*nr)++] = expr(p, 0);
	} while (!p->failed && accept(p, TK_COMMA));
	return !p->failed;
}

static bool order_by(struct ps *p)
{
	struct sql_select *sel = p->sel;

	do {
		if (sel->nr_order == SQL_MAX_ITEMS)
			return fail(p, "too many ORDER BY terms");
		sel->order[sel->nr_order].expr = expr(p, 0);
		if (!accept_kw(p, "asc"))
			accept_kw(p, "desc");
		if (accept_kw(p, "nulls") && !accept_kw(p, "first") && !accept_kw(p, "last"))
			return fail(p, "NULLS: FIRST or LAST expected");
		sel->order[sel->nr_order++].tok1 = p->pos;
	} while (!p->failed && accept(p, TK_COMMA));
	return !p->failed;
}

static bool clauses(struct ps *p)
{
	struct sql_select *sel = p->sel;

	if (accept_kw(p, "where"))
		sel->where = expr(p, 0);
	if (accept_kw(p, "group") &&
	    (!accept_kw(p, "by") || !expr_list(p, sel->group, &sel->nr_group)))
		return fail(p, "GROUP BY not read");
	if (accept_kw(p, "having"))
		sel->having = expr(p, 0);
	if (accept_kw(p, "order") && (!accept_kw(p, "by") || !order_by(p)))
		return fail(p, "ORDER BY not read");
	if (is_kw(p, p->pos, "limit")) {
		sel->limit_tok0 = p->pos++;
		expr(p, 0);
		if (accept_kw(p, "offset") || accept(p, TK_COMMA))
			expr(p, 0);
		sel->limit_tok1 = p->pos;
	}
	accept(p, TK_SEMI);
	if (!p->failed && cur(p)->type != TK_EOF)
		return fail(p, "'%.*s' is not read here", cur(p)->len, sel->text + cur(p)->start);
	return !p->failed;
}

int sql_select__parse(struct sql_select *sel, const char *text)
{
	struct ps p = { .sel = sel };

	sel->text = text;
	sel->nr_tok = sel->nr_node = sel->nr_items = sel->nr_group = sel->nr_order = 0;
	sel->nr_targs = 0;
	sel->table = sel->table_schema = sel->table_alias = -1;
	sel->where = sel->having = sel->limit_tok0 = sel->limit_tok1 = -1;
	sel->err[0] = '\0';
	if (sql_select__tokenize(sel, text))
		return -1;
	for (int i = 0; i < sel->nr_tok; i++)
		if (sel->tok[i].type == TK_ANON_PARAM)
			return fail(&p, "'?' parameters are not read"), -1;
	if (!accept_kw(&p, "select"))
		return fail(&p, "not a SELECT"), -1;
	if (is_kw(&p, p.pos, "distinct"))
		return fail(&p, "SELECT DISTINCT is not read"), -1;
	accept_kw(&p, "all");
	do
		select_item(&p);
	while (!p.failed && accept(&p, TK_COMMA));
	if (p.failed || !accept_kw(&p, "from"))
		return fail(&p, "FROM expected"), -1;
	if (!from(&p) || !clauses(&p))
		return -1;
	for (int i = 0; i < sel->nr_tok; i++) /* compound selects, windows */
		if (is_kw(&p, i, "union") || is_kw(&p, i, "intersect") || is_kw(&p, i, "except") ||
		    is_kw(&p, i, "window") || is_kw(&p, i, "select"))
			if (i > 0)
				return fail(&p, "'%.*s' is not read", sel->tok[i].len,
					    text + sel->tok[i].start),
				       -1;
	return 0;
}
