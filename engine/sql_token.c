/*
 * engine/sql_token.c - the tokens of one SELECT's text (engine/sql_expr.h): SQLite's lexical
 * rules for names (bare, "quoted", `quoted`, [quoted]), strings, blobs, numbers, parameters
 * and operators, comments skipped; which words are keywords. The parser (engine/sql_expr.c)
 * reads them.
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include "engine/sql_expr.h"

static int fail(struct sql_select *sel, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* the first error is kept in sel->err; -1 */
static int fail(struct sql_select *sel, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(sel->err, sizeof(sel->err), fmt, ap);
	va_end(ap);
	return -1;
}

static int scan_quoted(const char *s, int i, char close)
{
	for (i++; s[i]; i++)
		if (s[i] == close) {
			if (close != ']' && s[i + 1] == close)
				i++;
			else
				return i + 1;
		}
	return -1;
}

static int scan_number(const char *s, int i, enum sql_tok *type)
{
	*type = TK_INT;
	if (s[i] == '0' && (s[i + 1] == 'x' || s[i + 1] == 'X') &&
	    isxdigit((unsigned char)s[i + 2])) {
		for (i += 2; isxdigit((unsigned char)s[i]); i++)
			;
		return i;
	}
	while (isdigit((unsigned char)s[i]))
		i++;
	if (s[i] == '.') {
		*type = TK_FLOAT;
		for (i++; isdigit((unsigned char)s[i]); i++)
			;
	}
	if ((s[i] == 'e' || s[i] == 'E') &&
	    (isdigit((unsigned char)s[i + 1]) ||
	     ((s[i + 1] == '+' || s[i + 1] == '-') && isdigit((unsigned char)s[i + 2])))) {
		*type = TK_FLOAT;
		for (i += 2; isdigit((unsigned char)s[i]); i++)
			;
	}
	return i;
}

static int scan_op(const char *s, int i, enum sql_tok *type)
{
	static const struct {
		const char *op;
		enum sql_tok t;
	} ops[] = {
		{ "->>", TK_ARROW }, { "||", TK_CONCAT }, { "->", TK_ARROW }, { "<<", TK_LSHIFT },
		{ ">>", TK_RSHIFT }, { "<=", TK_LE },     { ">=", TK_GE },    { "==", TK_EQ },
		{ "!=", TK_NE },     { "<>", TK_NE },     { "(", TK_LP },     { ")", TK_RP },
		{ ",", TK_COMMA },   { ".", TK_DOT },     { ";", TK_SEMI },   { "*", TK_STAR },
		{ "/", TK_SLASH },   { "%", TK_REM },     { "+", TK_PLUS },   { "-", TK_MINUS },
		{ "&", TK_BITAND },  { "|", TK_BITOR },   { "~", TK_BITNOT }, { "<", TK_LT },
		{ ">", TK_GT },      { "=", TK_EQ },
	};

	for (size_t k = 0; k < sizeof(ops) / sizeof(ops[0]); k++)
		if (!strncmp(s + i, ops[k].op, strlen(ops[k].op))) {
			*type = ops[k].t;
			return i + (int)strlen(ops[k].op);
		}
	*type = TK_BAD;
	return i + 1;
}

static int skip_space(const char *s, int i)
{
	for (;;) {
		if (isspace((unsigned char)s[i])) {
			i++;
		} else if (s[i] == '-' && s[i + 1] == '-') {
			while (s[i] && s[i] != '\n')
				i++;
		} else if (s[i] == '/' && s[i + 1] == '*') {
			const char *e = strstr(s + i + 2, "*/");

			i = e ? (int)(e - s) + 2 : (int)strlen(s);
		} else {
			return i;
		}
	}
}

int sql_select__tokenize(struct sql_select *sel, const char *s)
{
	int i = skip_space(s, 0);

	while (s[i]) {
		struct sql_token *t = &sel->tok[sel->nr_tok];
		int j;

		if (sel->nr_tok == SQL_MAX_TOKENS - 1)
			return fail(sel, "too long");
		*t = (struct sql_token){ .start = i };
		if ((s[i] == 'x' || s[i] == 'X') && s[i + 1] == '\'') {
			t->type = TK_BLOB;
			j = scan_quoted(s, i + 1, '\'');
		} else if (isalpha((unsigned char)s[i]) || s[i] == '_' ||
			   (unsigned char)s[i] >= 0x80) {
			t->type = TK_ID;
			for (j = i; isalnum((unsigned char)s[j]) || s[j] == '_' || s[j] == '$' ||
				    (unsigned char)s[j] >= 0x80;
			     j++)
				;
		} else if (s[i] == '"' || s[i] == '`' || s[i] == '[') {
			t->type = TK_ID;
			t->quoted = true;
			j = scan_quoted(s, i, s[i] == '[' ? ']' : s[i]);
		} else if (s[i] == '\'') {
			t->type = TK_STR;
			j = scan_quoted(s, i, '\'');
		} else if (isdigit((unsigned char)s[i]) ||
			   (s[i] == '.' && isdigit((unsigned char)s[i + 1]))) {
			j = scan_number(s, i, &t->type);
		} else if (s[i] == '?') {
			t->type = TK_ANON_PARAM;
			for (j = i + 1; isdigit((unsigned char)s[j]); j++)
				;
		} else if ((s[i] == ':' || s[i] == '@' || s[i] == '$') &&
			   (isalnum((unsigned char)s[i + 1]) || s[i + 1] == '_')) {
			t->type = TK_PARAM;
			for (j = i + 1; isalnum((unsigned char)s[j]) || s[j] == '_'; j++)
				;
		} else {
			j = scan_op(s, i, &t->type);
		}
		if (j < 0 || t->type == TK_BAD)
			return fail(sel, "unexpected text at '%.20s'", s + i);
		t->len = j - i;
		sel->nr_tok++;
		i = skip_space(s, j);
	}
	sel->tok[sel->nr_tok] = (struct sql_token){ .type = TK_EOF, .start = i };
	return 0;
}

/* words that end an expression or a clause: never column or function names here */
static const char *const keywords[] = {
	"select",       "from",
	"where",        "group",
	"by",           "having",
	"order",        "limit",
	"offset",       "as",
	"and",          "or",
	"not",          "in",
	"is",           "between",
	"like",         "glob",
	"match",        "regexp",
	"escape",       "case",
	"when",         "then",
	"else",         "end",
	"cast",         "collate",
	"null",         "distinct",
	"all",          "asc",
	"desc",         "nulls",
	"first",        "last",
	"join",         "on",
	"using",        "natural",
	"left",         "right",
	"full",         "inner",
	"cross",        "outer",
	"union",        "intersect",
	"except",       "window",
	"over",         "filter",
	"exists",       "isnull",
	"notnull",      "values",
	"with",         "indexed",
	"raise",        "current_time",
	"current_date", "current_timestamp",
	"true",         "false",
};

bool sql_select__is_word(const struct sql_select *sel, int tok, const char *w)
{
	const struct sql_token *t = &sel->tok[tok];

	return t->type == TK_ID && !t->quoted && (int)strlen(w) == t->len &&
	       !strncasecmp(sel->text + t->start, w, (size_t)t->len);
}

bool sql_select__is_keyword(const struct sql_select *sel, int tok)
{
	for (size_t k = 0; k < sizeof(keywords) / sizeof(keywords[0]); k++)
		if (sql_select__is_word(sel, tok, keywords[k]))
			return true;
	return false;
}
