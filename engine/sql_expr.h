/*
 * engine/sql_expr.h - reading one SELECT statement the way SQLite does, far enough to decide
 * whether it can run in the kernel (engine/bpf_plan.c): tokens, expressions with SQLite's
 * operator precedence, and the clauses of a simple SELECT.
 *
 *   struct sql_select sel;
 *   if (sql_select__parse(&sel, "select comm, count(*) from t group by comm") == 0)
 *       ... sel.items[0].expr is node 0 (a column), sel.nr_group == 1 ...
 *
 * (1) Only one shape is read: SELECT [ALL] items FROM name [[AS] alias] [WHERE e]
 *     [GROUP BY e, ...] [HAVING e] [ORDER BY e [COLLATE n] [ASC|DESC] [NULLS FIRST|LAST], ...]
 *     [LIMIT e [OFFSET e | , e]] [;]. Anything else (DISTINCT, joins, subqueries, compound
 *     selects, windows, FILTER, row values, ...) fails: such a statement stays in SQLite.
 * (2) Every node keeps its token span, so a caller can rewrite parts of the text.
 * (3) Failing is always safe: the caller then leaves the statement as it is.
 */
#ifndef PERF_SQL_ENGINE_SQL_EXPR_H
#define PERF_SQL_ENGINE_SQL_EXPR_H
#include <stdbool.h>
#include <stdint.h>

enum sql_tok {
	TK_EOF,
	TK_ID,
	TK_STR,
	TK_INT,
	TK_FLOAT,
	TK_BLOB,
	TK_PARAM,
	TK_ANON_PARAM,
	TK_LP,
	TK_RP,
	TK_COMMA,
	TK_DOT,
	TK_SEMI,
	TK_STAR,
	TK_SLASH,
	TK_REM,
	TK_PLUS,
	TK_MINUS,
	TK_CONCAT,
	TK_ARROW,
	TK_LSHIFT,
	TK_RSHIFT,
	TK_BITAND,
	TK_BITOR,
	TK_BITNOT,
	TK_LT,
	TK_LE,
	TK_GT,
	TK_GE,
	TK_EQ,
	TK_NE,
	TK_BAD,
};

struct sql_token {
	enum sql_tok type;
	int start, len; /* in the text */
	bool quoted;    /* TK_ID: "x", `x` or [x] */
};

enum sql_node_kind {
	SN_INT,
	SN_FLOAT,
	SN_STR,
	SN_BLOB,
	SN_NULL,
	SN_PARAM,
	SN_COL,     /* name (and qualifier, if any) */
	SN_FUNC,    /* name(args) or name(*) */
	SN_UNARY,   /* op: TK_MINUS, TK_PLUS, TK_BITNOT, or TK_ID for NOT */
	SN_BINARY,  /* op: the operator token; AND/OR/IS/LIKE... as SQL_KW_* in kw */
	SN_IN,      /* first kid: the value; the rest: the list; not: NOT IN */
	SN_BETWEEN, /* value, low, high; not: NOT BETWEEN */
	SN_ISNULL,  /* value IS NULL / ISNULL; not: NOT NULL / NOTNULL */
	SN_CASE,
	SN_CAST,
	SN_COLLATE,
};

enum sql_kw { KW_NONE, KW_AND, KW_OR, KW_IS, KW_LIKE, KW_GLOB, KW_MATCH, KW_REGEXP };

struct sql_node {
	enum sql_node_kind kind;
	int op;              /* enum sql_tok, for UNARY/BINARY operators */
	enum sql_kw kw;      /* BINARY: AND, OR, IS (not: IS NOT), LIKE, ... */
	bool not ;           /* NOT IN, NOT BETWEEN, IS NOT, NOT LIKE, NOT NULL */
	bool star, distinct; /* FUNC: name(*), name(DISTINCT ...) */
	int tok0, tok1;      /* span: tokens [tok0, tok1) */
	int name;            /* COL, FUNC: the name's token; COL: qual the qualifier's (-1) */
	int qual;
	int64_t i;       /* INT */
	int first, next; /* children: first kid, next sibling (-1: none) */
	int nr_kids;
};

#define SQL_MAX_TOKENS 2048
#define SQL_MAX_NODES 1024
#define SQL_MAX_ITEMS 32
#define SQL_MAX_TARGS 8

struct sql_select {
	const char *text;
	struct sql_token tok[SQL_MAX_TOKENS];
	int nr_tok;
	struct sql_node node[SQL_MAX_NODES];
	int nr_node;
	struct {
		int expr;  /* node */
		int alias; /* token, or -1 */
	} items[SQL_MAX_ITEMS];
	int nr_items;
	int table, table_schema, table_alias; /* tokens (schema, alias: -1 if none) */
	int targ[SQL_MAX_TARGS], nr_targs;    /* the table's arguments: literal tokens */
	int from_tok0, from_tok1;             /* FROM ... up to the next clause */
	int where;                            /* node, -1 */
	int group[SQL_MAX_ITEMS], nr_group;   /* nodes */
	int having;                           /* node, -1 */
	struct {
		int expr; /* node */
		int tok1; /* end of the term (after COLLATE/ASC/DESC/NULLS ...) */
	} order[SQL_MAX_ITEMS];
	int nr_order;
	int limit_tok0, limit_tok1; /* -1: no LIMIT */
	char err[128];              /* why it is not read */
};

/* 0, or -1 with sel->err saying what was not understood. */
int sql_select__parse(struct sql_select *sel, const char *text);
/* The tokens of text into sel->tok (engine/sql_token.c), ended by a TK_EOF token; 0, or -1
 * with sel->err set (text too long, a character no token starts with). */
int sql_select__tokenize(struct sql_select *sel, const char *text);
/* Token tok is the unquoted word w (any case). */
bool sql_select__is_word(const struct sql_select *sel, int tok, const char *w);
/* Token tok is an unquoted word that ends an expression or a clause: never a column or
 * function name. */
bool sql_select__is_keyword(const struct sql_select *sel, int tok);
/* A token's text as an identifier (unquoted, "" unescaped) into buf; buf. */
const char *sql_select__ident(const struct sql_select *sel, int tok, char *buf, int len);
/* Text offsets of a node's span. */
int sql_select__start(const struct sql_select *sel, int node);
int sql_select__end(const struct sql_select *sel, int node);
/* Same expression: kinds, operators, literal values, names (case-insensitive) */
bool sql_select__same(const struct sql_select *sel, int a, int b);
#endif
