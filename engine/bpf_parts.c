/*
 * engine/bpf_parts.c - the sub-SELECTs of a statement that is not one SELECT of one table,
 * compiled as when they stand alone (docs/bpf.md, "Statements and views").
 *
 *   WITH g AS (SELECT ip, _pid, count(*) AS n FROM cpu_clock GROUP BY ip, _pid)
 *   SELECT usym(_pid, ip) AS sym, sum(n) FROM g GROUP BY sym
 * compiles g's body as the statement it is (engine/bpf_plan.c) and runs the statement with the
 * body's rewrite in its place:
 *   WITH g AS (SELECT "_k0" AS "ip", "_k1" AS "_pid", ifnull(sum("_c"), 0) AS "n"
 *              FROM "perf_sql_bpf_0_0" GROUP BY "_k0", "_k1") SELECT ...
 *
 * (1) A part is the text inside "( SELECT ... )" (a CTE's body, a subquery in FROM or in an
 *     expression), or an arm of a compound SELECT (SELECT ... UNION ALL SELECT ...) unless the
 *     compound ends in ORDER BY or LIMIT, which are the compound's: a text SQLite prepares
 *     alone (one that names a CTE of its statement does not) and engine/bpf_plan.c reads.
 * (2) Outer parts first: a part inside one that compiles is that one's.
 * (3) A part's table is named nowhere else in the statement: which statement reads which
 *     table is decided per statement (engine/bpf_pick.c), and the rest of the statement
 *     would read the table's rows, which no ring then carries.
 * (4) Each part goes to the kernel as a statement would (its program, its groups' table);
 *     once every table is decided, the statement is prepared with the rewrites of the parts
 *     that did; should that fail, they all go back to the ring.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "bpf/source.h"
#include "bpf/table.h"
#include "engine/bpf_plan_int.h"
#include "vtab/bpf_groups.h"

#define MAX_PARTS 8

static int match_rp(const struct sql_select *t, int lp)
{
	int depth = 0;

	for (int k = lp; k < t->nr_tok; k++)
		if (t->tok[k].type == TK_LP)
			depth++;
		else if (t->tok[k].type == TK_RP && !--depth)
			return k;
	return -1;
}

static bool is_compound_op(const struct sql_select *t, int k)
{
	return sql_select__is_word(t, k, "union") || sql_select__is_word(t, k, "intersect") ||
	       sql_select__is_word(t, k, "except");
}

/* the arms of a compound SELECT at tokens [from, end), as token spans [0], [1]; how many (0:
 * none) */
static int arms(const struct sql_select *t, int from, int end, int (*span)[2], int max)
{
	int n = 0, depth = 0;

	if (!sql_select__is_word(t, from, "select"))
		return 0;
	while (end > 0 && (t->tok[end - 1].type == TK_EOF || t->tok[end - 1].type == TK_SEMI))
		end--;
	for (int k = from; k < end; k++) {
		if (t->tok[k].type == TK_LP || t->tok[k].type == TK_RP) {
			depth += t->tok[k].type == TK_LP ? 1 : -1;
			continue;
		}
		if (depth || !is_compound_op(t, k))
			continue;
		if (n == max - 1)
			return 0;
		span[n][0] = from;
		span[n++][1] = k;
		from = k + 1 + sql_select__is_word(t, k + 1, "all");
	}
	for (int k = from, d = 0; k < end && n; k++) { /* the compound's own ORDER BY, LIMIT */
		d += t->tok[k].type == TK_LP ? 1 : t->tok[k].type == TK_RP ? -1 : 0;
		if (!d &&
		    (sql_select__is_word(t, k, "order") || sql_select__is_word(t, k, "limit")))
			return 0;
	}
	if (n) {
		span[n][0] = from;
		span[n++][1] = end;
	}
	return n;
}

/* is token k inside a part that may go to the kernel? */
static bool in_ok_part(const struct sql_select *t, const struct bpf_stmt *b, int k)
{
	for (int i = 0; i < b->nr_parts; i++)
		if (b->parts[i].st.ok && t->tok[k].start >= b->parts[i].start &&
		    t->tok[k].start < b->parts[i].end)
			return true;
	return false;
}

/* (3): is src's table named in t outside the parts that may go to the kernel? */
static bool named_outside(const struct sql_select *t, const struct bpf_stmt *b,
			  const struct source *src)
{
	char name[256];

	if (!src)
		return false;
	for (int k = 0; k < t->nr_tok; k++) {
		if ((t->tok[k].type != TK_ID && t->tok[k].type != TK_STR) || in_ok_part(t, b, k))
			continue;
		sql_select__ident(t, k, name, sizeof(name));
		if (!strcasecmp(name, src->ev->name) || !strcasecmp(name, src->ev->full))
			return true;
	}
	return false;
}

/* the part at tokens [a, b) of t, when SQLite prepares it alone and it reads a table */
static bool part_at(struct bpf_stmt *b, struct query *q, struct session *s, int i,
		    const struct sql_select *t, int a, int e)
{
	struct bpf_part *p = &b->parts[b->nr_parts];
	int start = t->tok[a].start, end = t->tok[e - 1].start + t->tok[e - 1].len;
	char *text = sqlite3_mprintf("%.*s", end - start, t->text + start), module[40];
	sqlite3_stmt *st = NULL;
	const char *tail = NULL;

	if (!text || sqlite3_prepare_v2(q->db, text, -1, &st, &tail) != SQLITE_OK || !st ||
	    (tail && *tail)) {
		sqlite3_finalize(st);
		sqlite3_free(text);
		return false;
	}
	snprintf(module, sizeof(module), "perf_sql_bpf_%d_%d", i, b->nr_parts);
	bpf_stmt__analyze(&p->st, q, s, st, module);
	sqlite3_finalize(st);
	sqlite3_free(text);
	if (!p->st.src) { /* no event table of its own: not a part */
		bpf_stmt__free(&p->st);
		return false;
	}
	p->start = start;
	p->end = end;
	p->st.is_part = true;
	b->nr_parts++;
	return p->st.ok;
}

void bpf_parts__find(struct bpf_stmt *b, struct query *q, struct session *s, int i)
{
	struct sql_select *t = calloc(1, sizeof(*t));
	int span[2 * MAX_PARTS][2], n, taken_to = -1;

	if (t)
		t->text = sqlite3_sql(q->stmts[i]);
	if (!t || sql_select__tokenize(t, t->text) ||
	    !(b->parts = calloc(MAX_PARTS, sizeof(*b->parts)))) {
		free(t);
		return;
	}
	n = arms(t, 0, t->nr_tok, span, MAX_PARTS);
	for (int k = 0; k + 1 < t->nr_tok && n < 2 * MAX_PARTS; k++) /* in order: outer first */
		if (t->tok[k].type == TK_LP && sql_select__is_word(t, k + 1, "select") &&
		    match_rp(t, k) > 0) {
			span[n][0] = k + 1;
			span[n++][1] = match_rp(t, k);
			/* a compound in parentheses: its arms after it */
			n += arms(t, k + 1, match_rp(t, k), span + n, 2 * MAX_PARTS - n);
		}
	for (int k = 0; k < n && b->nr_parts < MAX_PARTS; k++) {
		if (span[k][0] < taken_to) /* (2) */
			continue;
		if (part_at(b, q, s, i, t, span[k][0], span[k][1]))
			taken_to = span[k][1];
	}
	for (bool again = true; again;) { /* (3), until no part falls out */
		again = false;
		for (int k = 0; k < b->nr_parts; k++) {
			struct bpf_stmt *p = &b->parts[k].st;

			if (p->ok &&
			    (named_outside(t, b, p->src) || named_outside(t, b, p->start_src))) {
				p->ok = false;
				snprintf(p->why, sizeof(p->why),
					 "its table is read outside its sub-SELECT too");
				again = true;
			}
		}
	}
	free(t);
}

struct bpf_stmt *bpf_parts__of(struct bpf_stmt *b, const struct source *src)
{
	for (int k = 0; k < b->nr_parts; k++)
		if (b->parts[k].st.src == src)
			return &b->parts[k].st;
	return NULL;
}

/* (4): parts back to the ring, the note saying why */
static void unload(struct query *q, struct session *s, struct bpf_stmt *b, const char *why)
{
	for (int k = 0; k < b->nr_parts; k++) {
		struct bpf_stmt *p = &b->parts[k].st;

		if (!p->table)
			continue;
		bpf_session__remove(s, p->table);
		bpf_groups__register(q->db, p->module, NULL);
		bpf_table__free(p->table);
		p->table = NULL;
		plan_note__set(p->src, PLAN_PATH, "perf ring: %s", why);
		if (p->start_src)
			plan_note__set(p->start_src, PLAN_PATH, "perf ring: %s", why);
	}
}

/* does a part in the kernel share a table with one that is not (the ring then carries none) */
static bool shares_with_ring(const struct bpf_stmt *b)
{
	for (int k = 0; k < b->nr_parts; k++)
		for (int l = 0; l < b->nr_parts; l++) {
			const struct bpf_stmt *in = &b->parts[k].st, *out = &b->parts[l].st;

			if (in->table && !out->table &&
			    (in->src == out->src || in->src == out->start_src ||
			     (in->start_src &&
			      (in->start_src == out->src || in->start_src == out->start_src))))
				return true;
		}
	return false;
}

void bpf_parts__swap(struct query *q, struct session *s, struct bpf_stmt *b, int i)
{
	const char *text = sqlite3_sql(q->stmts[i]);
	sqlite3_str *o;
	sqlite3_stmt *st = NULL;
	char *sql, why[320];
	int at = 0, n = 0;

	for (int k = 0; k < b->nr_parts; k++)
		n += b->parts[k].st.table != NULL;
	if (!n)
		return;
	if (shares_with_ring(b)) {
		unload(q, s, b,
		       "it shares a table with a sub-SELECT of its statement that stays on "
		       "the ring");
		return;
	}
	o = sqlite3_str_new(NULL);
	for (int k = 0; k < b->nr_parts; k++) { /* in text order, none inside another */
		const struct bpf_part *p = &b->parts[k];

		if (!p->st.table)
			continue;
		sqlite3_str_append(o, text + at, p->start - at);
		sqlite3_str_appendall(o, p->st.sql);
		at = p->end;
	}
	sqlite3_str_appendall(o, text + at);
	sql = sqlite3_str_finish(o);
	if (!sql || sqlite3_prepare_v2(q->db, sql, -1, &st, NULL) != SQLITE_OK ||
	    query__bind_params(q, st) != SQLITE_OK) {
		snprintf(why, sizeof(why), "its statement over the sub-SELECT's groups failed: %s",
			 sql ? sqlite3_errmsg(q->db) : "out of memory");
		sqlite3_finalize(st);
		sqlite3_free(sql);
		unload(q, s, b, why);
		return;
	}
	sqlite3_free(sql);
	sqlite3_finalize(q->stmts[i]);
	q->stmts[i] = st;
}
