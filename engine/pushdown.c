/*
 * engine/pushdown.c - which WHERE values of a table scan are constants, so the kernel filter
 * may take them (docs/planning.md).
 *
 * The dry run hands each scan the values of its WHERE terms, computed over empty tables. A
 * value that SQLite computes from rows (an IN subquery, a scalar subquery, a recursive CTE, a
 * correlated or joined table's column) is then the value of no rows: pushed, it would keep
 * only what the empty tables allowed (`pid in (select workload_pid() union select child_pid
 * from sched_process_fork)` would become `pid == W` and lose every child). So before the dry
 * run, each statement's bytecode (EXPLAIN) is read: for every VFilter of a tracepoint table,
 * each argument register is followed back to what wrote it. It is a constant when it is built
 * only from literals, parameters and functions of constants (factored or inline), or is an IN
 * list of such values; anything else (a column, a coroutine's row, a subroutine's result, an
 * opcode not known here) marks the argument as coming from rows (session__row_arg()), and
 * vtab/tp_table.c then leaves that term to SQLite. Not knowing is always safe: the term is
 * only not pushed.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "engine/pushdown.h"

#define MAX_DEPTH 16

struct vop {
	char name[16];
	int p1, p2, p3;
	char p4[256];
	bool p4_cut; /* longer than p4 */
};

struct prog {
	struct vop *op;
	int n;
	int init; /* Init's target: the factored constants, run before address 1 */
};

static bool is(const struct vop *o, const char *name) { return !strcmp(o->name, name); }

/* the instruction run before address i (constants first, then the main part), or -1 */
static int prev_addr(const struct prog *p, int i)
{
	if (i > p->init && p->init > 0)
		return i - 1;
	if (i == p->init)
		return -1;
	if (i > 1)
		return i - 1;
	/* from the top of the main part into the constants (the last op is "Goto 0 1") */
	return p->init > 0 && p->n - 2 >= p->init ? p->n - 2 : -1;
}

static bool reg_const(const struct prog *p, int r, int at, int depth);

/* an ephemeral table filled only with constant records (an IN list) */
static bool cursor_const(const struct prog *p, int c, int depth)
{
	bool eph = false;

	for (int i = 0; i < p->n; i++)
		if (is(&p->op[i], "OpenDup") && p->op[i].p1 == c)
			return false;
	for (int i = 0; i < p->n; i++) {
		const struct vop *o = &p->op[i];

		if (o->p1 != c)
			continue;
		if (is(o, "OpenEphemeral"))
			eph = true;
		else if ((is(o, "IdxInsert") || is(o, "Insert")) && !reg_const(p, o->p2, i, depth))
			return false;
		else if (is(o, "OpenPseudo") || is(o, "OpenRead") || is(o, "VOpen") ||
			 is(o, "SorterOpen") || is(o, "OpenAutoindex"))
			return false;
	}
	return eph;
}

/* nArg of a function from its P4 ("name(N)"); -1 if unknown (variadic) */
static int func_nargs(const struct vop *o)
{
	const char *lp = strrchr(o->p4, '(');

	return lp ? atoi(lp + 1) : -1;
}

static bool in_list(const struct vop *o, const char *const *names)
{
	for (int k = 0; names[k]; k++)
		if (is(o, names[k]))
			return true;
	return false;
}

/* registers [first, first + n) all constant at address i */
static bool regs_const(const struct prog *p, int first, int n, int i, int depth)
{
	for (int k = 0; k < n; k++)
		if (!reg_const(p, first + k, i, depth))
			return false;
	return n >= 0;
}

/* Does o (at address i) write r? Then *def says how: 1 from constants, 0 from rows or not known
 * here, -1 in place (an affinity: what was there before decides). */
static bool writes(const struct prog *p, const struct vop *o, int i, int r, int depth, int *def)
{
	static const char *const loads[] = { "Integer", "Int64", "Real",     "String8",
					     "String",  "Blob",  "Variable", NULL };
	static const char *const binary[] = { "Add",       "Subtract",   "Multiply", "Divide",
					      "Remainder", "Concat",     "BitAnd",   "BitOr",
					      "ShiftLeft", "ShiftRight", NULL };
	static const char *const unary[] = { "SCopy", "IntCopy", "Not", "BitNot", NULL };
	/* no register written (an IN list's subroutine sits between a factored value and use) */
	static const char *const quiet[] = { "VOpen",         "Transaction", "Noop",
					     "Explain",       "Once",        "Return",
					     "OpenEphemeral", "NullRow",     "IdxInsert",
					     "Insert",        NULL };
	static const char *const in_place[] = { "Cast", "RealAffinity", NULL };
	bool w;

	*def = 0;
	if (in_list(o, quiet))
		return false;
	if (in_list(o, loads))
		return (*def = 1, o->p2 == r);
	if (in_list(o, in_place))
		return (*def = -1, o->p1 == r);
	if (is(o, "Affinity"))
		return (*def = -1, r >= o->p1 && r < o->p1 + o->p2);
	if (is(o, "Null"))
		return (*def = 1, r >= o->p2 && r <= (o->p3 > o->p2 ? o->p3 : o->p2));
	if (in_list(o, binary)) {
		if ((w = o->p3 == r))
			*def = reg_const(p, o->p1, i, depth) && reg_const(p, o->p2, i, depth);
		return w;
	}
	if (in_list(o, unary)) {
		if ((w = o->p2 == r))
			*def = reg_const(p, o->p1, i, depth);
		return w;
	}
	if (is(o, "Copy")) {
		if ((w = r >= o->p2 && r <= o->p2 + o->p3))
			*def = reg_const(p, o->p1 + (r - o->p2), i, depth);
		return w;
	}
	if (is(o, "Function") || is(o, "PureFunc")) {
		if ((w = o->p3 == r))
			*def = regs_const(p, o->p2, func_nargs(o), i, depth);
		return w;
	}
	if (is(o, "MakeRecord")) {
		if ((w = o->p3 == r))
			*def = regs_const(p, o->p1, o->p2, i, depth);
		return w;
	}
	if (is(o, "BeginSubrtn")) /* the return address */
		return o->p2 == r;
	if (is(o, "VInitIn") && (r == o->p3 || r == o->p3 + 1)) /* its cache */
		return true;
	if (is(o, "VInitIn") || is(o, "Column")) {
		if ((w = (is(o, "VInitIn") ? o->p2 : o->p3) == r))
			*def = cursor_const(p, o->p1, depth);
		return w;
	}
	return true; /* not known here: it may write r, and from anything */
}

/* Is register r, as read at address at, built from constants only? */
static bool reg_const(const struct prog *p, int r, int at, int depth)
{
	if (++depth > MAX_DEPTH)
		return false;
	for (int i = prev_addr(p, at); i >= 0; i = prev_addr(p, i)) {
		int def = 0;

		if (!writes(p, &p->op[i], i, r, depth, &def))
			continue;
		if (def >= 0)
			return def == 1;
	}
	return false; /* never written: not known here */
}

/* every VFilter of a tracepoint table (idxStr "T<n>;" then items): mark its arguments
 * from rows. Argument k is register P3 + 2 + k; a rate argument ("R,") is no filter. */
static void mark_vfilters(const struct prog *p, struct session *s)
{
	for (int i = 0; i < p->n; i++) {
		const struct vop *o = &p->op[i];
		const char *item = strchr(o->p4, ';');

		if (!is(o, "VFilter") || o->p4[0] != 'T' || !item)
			continue;
		if (o->p4_cut) {
			s->row_args_full = true;
			continue;
		}
		for (int k = 0; item && item[1]; k++, item = strchr(item + 1, ','))
			if (item[1] != 'R' && !reg_const(p, o->p3 + 2 + k, i, 0))
				session__row_arg(s, o->p4, k);
	}
}

/* Read st's bytecode and mark the scan arguments it computes from rows; 0 or -ENOMEM. A
 * statement whose bytecode cannot be read pushes no argument at all (row_args_full). */
int pushdown__mark(sqlite3 *db, sqlite3_stmt *st, struct session *s)
{
	char *sql = sqlite3_mprintf("explain %s", sqlite3_sql(st));
	struct prog p = { 0 };
	sqlite3_stmt *ex = NULL;
	int cap = 0, ret = 0;

	if (!sql || sqlite3_prepare_v2(db, sql, -1, &ex, NULL) != SQLITE_OK || !ex) {
		s->row_args_full = true;
		goto out;
	}
	while (sqlite3_step(ex) == SQLITE_ROW) {
		struct vop *o;
		const char *t;

		if (p.n == cap) {
			struct vop *grown =
				realloc(p.op, (size_t)(cap = cap ? 2 * cap : 64) * sizeof(*grown));
			if (!grown) {
				ret = -ENOMEM;
				goto out;
			}
			p.op = grown;
		}
		o = &p.op[p.n++];
		snprintf(o->name, sizeof(o->name), "%s", (const char *)sqlite3_column_text(ex, 1));
		o->p1 = sqlite3_column_int(ex, 2);
		o->p2 = sqlite3_column_int(ex, 3);
		o->p3 = sqlite3_column_int(ex, 4);
		t = (const char *)sqlite3_column_text(ex, 5);
		o->p4_cut = snprintf(o->p4, sizeof(o->p4), "%s", t ? t : "") >= (int)sizeof(o->p4);
	}
	if (p.n && is(&p.op[0], "Init"))
		p.init = p.op[0].p2;
	mark_vfilters(&p, s);
out:
	sqlite3_finalize(ex);
	sqlite3_free(sql);
	free(p.op);
	return ret;
}
