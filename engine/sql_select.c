/*
 * engine/sql_select.c - reading a parsed SELECT (engine/sql_expr.h): a token as an identifier,
 * a node's span in the text, and whether two nodes are the same expression token for token
 * (GROUP BY keys against result columns). The parser is engine/sql_expr.c.
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include "engine/sql_expr.h"

const char *sql_select__ident(const struct sql_select *sel, int tok, char *buf, int len)
{
	const struct sql_token *t = &sel->tok[tok];
	const char *s = sel->text + t->start;
	int n = 0, end = t->len;

	if (t->quoted) {
		s++;
		end -= 2;
	} else if (t->type == TK_STR) {
		s++;
		end -= 2;
	}
	for (int i = 0; i < end && n < len - 1; i++) {
		buf[n++] = s[i];
		if ((s[i] == '"' || s[i] == '`' || s[i] == '\'') && i + 1 < end && s[i + 1] == s[i])
			i++;
	}
	buf[n] = '\0';
	return buf;
}

int sql_select__start(const struct sql_select *sel, int node)
{
	return sel->tok[sel->node[node].tok0].start;
}

int sql_select__end(const struct sql_select *sel, int node)
{
	const struct sql_token *t = &sel->tok[sel->node[node].tok1 - 1];

	return t->start + t->len;
}

static bool same_tok(const struct sql_select *sel, int a, int b)
{
	char x[256], y[256];

	if (a < 0 || b < 0)
		return a == b;
	if (sel->tok[a].type != sel->tok[b].type &&
	    !(sel->tok[a].type == TK_ID && sel->tok[b].type == TK_ID))
		return false;
	return !strcasecmp(sql_select__ident(sel, a, x, sizeof(x)),
			   sql_select__ident(sel, b, y, sizeof(y)));
}

bool sql_select__same(const struct sql_select *sel, int a, int b)
{
	const struct sql_node *x = &sel->node[a], *y = &sel->node[b];
	int ka, kb;

	if (a == b)
		return true;
	if (x->kind != y->kind || x->op != y->op || x->kw != y->kw || x->not != y->not ||
	    x->star != y->star || x->distinct != y->distinct || x->nr_kids != y->nr_kids)
		return false;
	switch (x->kind) {
	case SN_INT:
		if (x->i != y->i)
			return false;
		break;
	case SN_FLOAT:
	case SN_STR:
	case SN_BLOB:
	case SN_PARAM:
		if (!same_tok(sel, x->tok0, y->tok0))
			return false;
		break;
	case SN_COL:
	case SN_FUNC:
		if (!same_tok(sel, x->name, y->name) || !same_tok(sel, x->qual, y->qual))
			return false;
		break;
	case SN_CAST:
	case SN_COLLATE: /* the type or collation name: the same tokens */
		if (x->tok1 - x->tok0 != y->tok1 - y->tok0)
			return false;
		for (int i = 0; i < x->tok1 - x->tok0; i++)
			if (!same_tok(sel, x->tok0 + i, y->tok0 + i))
				return false;
		break;
	default: break;
	}
	for (ka = x->first, kb = y->first; ka >= 0 && kb >= 0;
	     ka = sel->node[ka].next, kb = sel->node[kb].next)
		if (!sql_select__same(sel, ka, kb))
			return false;
	return true;
}
