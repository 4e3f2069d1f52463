/*
 * profilers/inline.c - a profiler named as a table, run as a CTE of its main statement, so
 * that the statement reads the profiler's tables itself and the planner compiles the
 * profiler's aggregation as when it runs by name (docs/bpf.md, "Statements and views").
 *
 *   select * from syscalls where calls > 100
 * runs as
 *   WITH syscalls AS (SELECT syscall_name(start_value) AS syscall, count(*) AS calls, ...
 *                       LIMIT 20) select * from syscalls where calls > 100
 *
 * (1) Only where the profiler's table (profilers/view.c) would answer the same: NAME after
 *     FROM or JOIN, without arguments (every parameter at its default, identifier ones too),
 *     in a SELECT (or WITH) statement that names none of the profiler's parameters (WHERE
 *     than = '1ms' sets one: the table serves that) and has no CTE of that name. Anything
 *     else is left to the table.
 * (2) The main statement is the profiler's last (the others only print in a run by name);
 *     its parameters become their default values as literals.
 * (3) Text in, text out: the statement is only tokenized (engine/sql_token.c), never
 *     prepared here, so no table is planned twice; a statement the rewrite breaks is prepared
 *     as written instead (engine/query.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sqlite3.h>
#include "core/catalog.h"
#include "core/session.h"
#include "engine/query.h"
#include "engine/sql_expr.h"
#include "profilers/profiler.h"
#include "profilers/view.h"

#define MAX_INLINE 8

/* a literal of a bound value */
static void literal(sqlite3_str *o, const struct query_param *qp)
{
	switch (qp->type) {
	case SQLITE_INTEGER: sqlite3_str_appendf(o, "%lld", (long long)qp->i); break;
	case SQLITE_FLOAT: sqlite3_str_appendf(o, "%!.17g", qp->d); break;
	case SQLITE_TEXT: sqlite3_str_appendf(o, "%Q", qp->text); break;
	default: sqlite3_str_appendall(o, "NULL"); break;
	}
}

/* (2): the last statement of the profiler's bound SQL, its parameters as literals; NULL when
 * it cannot be (an identifier parameter without a default, a parameter not bound) */
static char *body_of(const struct profiler *p, struct sql_select *t)
{
	struct query_param binds[PROF_MAX_PARAMS];
	int nr = 0, start = 0, end;
	struct err e = { 0 };
	char *all = NULL, name[128];
	sqlite3_str *o;

	if (!profiler__bind(p, 0, NULL, binds, PROF_MAX_PARAMS, &nr, &all, &e)) {
		t->nr_tok = 0;
		t->text = all;
	}
	if (!all || sql_select__tokenize(t, all)) {
		sqlite3_free(all);
		return NULL;
	}
	for (int k = 0; k < t->nr_tok; k++) /* after the last ';' but the final one */
		if (t->tok[k].type == TK_SEMI && t->tok[k + 1].type != TK_EOF)
			start = k + 1;
	for (end = start; t->tok[end].type != TK_EOF && t->tok[end].type != TK_SEMI; end++)
		;
	o = sqlite3_str_new(NULL);
	for (int k = start, at = t->tok[start].start; k <= end; k++) {
		const struct sql_token *tk = &t->tok[k];
		int i = 0;

		if (k == end || tk->type == TK_PARAM) { /* up to the last token's end: no comment */
			int upto =
				k == end ? t->tok[end - 1].start + t->tok[end - 1].len : tk->start;

			sqlite3_str_appendf(o, "%.*s", upto - at, all + at);
			at = tk->start + tk->len;
		}
		if (k == end)
			break;
		if (tk->type != TK_PARAM)
			continue;
		snprintf(name, sizeof(name), "%.*s", tk->len, all + tk->start);
		while (i < nr && strcmp(binds[i].name, name))
			i++;
		if (i == nr) {
			sqlite3_str_reset(o);
			break;
		}
		literal(o, &binds[i]);
	}
	sqlite3_free(all);
	if (!sqlite3_str_length(o)) {
		sqlite3_free(sqlite3_str_finish(o));
		return NULL;
	}
	return sqlite3_str_finish(o);
}

/* is word w a token (an identifier) of statement [a, b)? */
static bool names(const struct sql_select *t, int a, int b, const char *w)
{
	char buf[128];

	for (int k = a; k < b; k++)
		if (t->tok[k].type == TK_ID && !sql_select__is_keyword(t, k) &&
		    !strcasecmp(sql_select__ident(t, k, buf, 128), w))
			return true;
	return false;
}

/* the name of parameter pp's hidden column (profilers/view.c (2)): _NAME when a result column
 * of the main statement (an alias, AS NAME, in body) has the parameter's name */
static void param_column(const struct prof_param *pp, const struct sql_select *body, char *buf,
			 int len)
{
	char w[128];

	snprintf(buf, (size_t)len, "%s", pp->name);
	for (int k = 0; k + 1 < body->nr_tok; k++)
		if (sql_select__is_word(body, k, "AS") && body->tok[k + 1].type == TK_ID &&
		    !strcasecmp(sql_select__ident(body, k + 1, w, sizeof(w)), pp->name))
			snprintf(buf, (size_t)len, "_%s", pp->name);
}

/* (1): the profiler token k of statement [a, b) names, if it may be inlined: its CTE's body
 * (sqlite3_free), or NULL */
static char *candidate(struct session *s, const struct sql_select *t, int k, int a, int b,
		       struct sql_select *scratch)
{
	char name[128], alias[128], shadow[128], col[130];
	const char *full;
	struct profiler *p;
	struct err e = { 0 };
	char *body = NULL;

	if (t->tok[k].type != TK_ID || k == a ||
	    !(sql_select__is_word(t, k - 1, "FROM") || sql_select__is_word(t, k - 1, "JOIN")) ||
	    t->tok[k + 1].type == TK_LP || t->tok[k + 1].type == TK_DOT)
		return NULL;
	sql_select__ident(t, k, name, sizeof(name));
	snprintf(alias, sizeof(alias), "%s", name);
	for (char *c = alias; *c; c++)
		*c = *c == '_' ? '-' : *c;
	if (!profilers__shadowed(s, name, shadow, sizeof(shadow), &full) && !strcmp(shadow, name))
		return NULL; /* a table of that name wins (profilers/view.c (1)) */
	if (!(p = profiler__find(name, &e)) && !(p = profiler__find(alias, &e)))
		return NULL;
	if (!(body = body_of(p, scratch)))
		goto no;
	scratch->nr_tok = 0; /* the body's tokens */
	scratch->text = body;
	if (sql_select__tokenize(scratch, body))
		goto no;
	for (int i = 0; i < p->nr_params; i++) {
		param_column(&p->params[i], scratch, col, sizeof(col));
		if (names(t, a, b, col))
			goto no; /* it may set the parameter (WHERE than = ...) */
	}
	for (int j = a; j + 2 < b; j++) { /* a CTE of the statement's own */
		if (t->tok[j].type != TK_ID || !sql_select__is_word(t, j + 1, "AS") ||
		    t->tok[j + 2].type != TK_LP)
			continue;
		sql_select__ident(t, j, alias, sizeof(alias));
		if (!strcasecmp(alias, name)) /* of that name: it is the statement's */
			goto no;
		for (int i = 0; i < scratch->nr_tok; i++) /* one the body's names would find */
			if (scratch->tok[i].type == TK_ID &&
			    !strcasecmp(sql_select__ident(scratch, i, col, sizeof(col)), alias))
				goto no;
	}
	profiler__free(p);
	free(p);
	return body;
no:
	sqlite3_free(body);
	profiler__free(p);
	free(p);
	return NULL;
}

/* the CTEs of statement [a, b) of t->text into o (with its WITH [RECURSIVE], if it has one);
 * how many; *resume: where its text goes on */
static int one_statement(struct session *s, struct sql_select *t, struct sql_select *scratch, int a,
			 int b, sqlite3_str *o, int *resume)
{
	sqlite3_str *ctes = sqlite3_str_new(NULL);
	int n = 0, at = t->tok[a].start, done[MAX_INLINE];
	bool with = sql_select__is_word(t, a, "WITH");

	if (!with && !sql_select__is_word(t, a, "SELECT"))
		b = a; /* not a query: nothing to inline */
	for (int k = a; k < b && n < MAX_INLINE; k++) {
		char *body = NULL;
		bool again = false;

		for (int i = 0; i < n && !again; i++) /* a profiler named twice: one CTE */
			again = t->tok[done[i]].len == t->tok[k].len &&
				!strncasecmp(t->text + t->tok[done[i]].start,
					     t->text + t->tok[k].start, (size_t)t->tok[k].len);
		if (!again)
			body = candidate(s, t, k, a, b, scratch);
		if (body) {
			done[n] = k;
			sqlite3_str_appendf(ctes, "%s%.*s AS (%s)", n ? ", " : "", t->tok[k].len,
					    t->text + t->tok[k].start, body);
			n++;
		}
		sqlite3_free(body);
	}
	if (n && with) { /* WITH [RECURSIVE] ours, theirs */
		int k = a + 1 + sql_select__is_word(t, a + 1, "RECURSIVE");

		sqlite3_str_appendf(o, "%.*s ", t->tok[k].start - at, t->text + at);
		sqlite3_str_appendf(o, "%s, ", sqlite3_str_value(ctes));
		at = t->tok[k].start;
	} else if (n) {
		sqlite3_str_appendf(o, "WITH %s ", sqlite3_str_value(ctes));
	}
	sqlite3_free(sqlite3_str_finish(ctes));
	*resume = at;
	return n;
}

char *profilers__inline(sqlite3 *db, struct session *s, const char *sql)
{
	struct sql_select *t = malloc(sizeof(*t)), *scratch = malloc(sizeof(*t));
	sqlite3_str *o = sqlite3_str_new(db);
	int n = 0, a = 0, at = 0;

	if (t) {
		t->nr_tok = 0;
		t->text = sql;
	}
	if (!t || !scratch || !sql || sql_select__tokenize(t, sql))
		goto out;
	for (int k = 0; k <= t->nr_tok; k++) { /* tok[nr_tok]: TK_EOF */
		if (t->tok[k].type != TK_SEMI && t->tok[k].type != TK_EOF)
			continue;
		if (k > a) {
			sqlite3_str_appendf(o, "%.*s", t->tok[a].start - at, sql + at);
			n += one_statement(s, t, scratch, a, k, o, &at);
		}
		a = k + 1;
	}
	sqlite3_str_appendall(o, sql + at);
out:
	free(t);
	free(scratch);
	if (!n) {
		sqlite3_free(sqlite3_str_finish(o));
		return NULL;
	}
	return sqlite3_str_finish(o);
}
