/*
 * engine/bpf_cgroup.c - _cgroup in a statement the kernel runs (engine/bpf_plan.c): a key of the
 * cgroup id (bpf_get_current_cgroup_id(), bpf/plan.h BCOL_CGROUP) that the groups show as its
 * path (vtab/bpf_groups.c, core/cgroup.h), and WHERE terms of _cgroup alone.
 *
 *   select count(*) from sys_enter_write where _cgroup glob 'system.slice/nginx*'
 *     keys  = { BCOL_CGROUP (path) }     a key of the kernel's groups only
 *     where = id == 5098 || id == 5117 || id > 5117
 *     rewritten: SELECT ifnull(sum("_c"), 0) FROM groups WHERE ("_k0" glob 'system.slice/nginx*')
 *
 * (1) A top-level AND term whose only column is _cgroup (=, GLOB, LIKE, IN, cgroup_name(_cgroup)
 *     = ..., any expression) is tested twice. In the program, on the id: one of the cgroups
 *     whose path passes the term at planning (SQLite evaluates the term on each path the map
 *     of core/cgroup.c knows), or an id above all of those. kernfs hands out ids in increasing
 *     order (a cycling 32-bit inode number with a generation counter above it), so a cgroup
 *     made after planning has a larger id: it is let through, never lost. On the groups' rows,
 *     on the path: the rewrite's WHERE runs the term on each group's _cgroup (every row of a
 *     group has its id), which decides for the cgroups made since, exactly.
 * (2) More than MAX_IDS matching cgroups: the program does not test the term (the note says so);
 *     the groups' WHERE still does.
 * (3) No v2 hierarchy mounted: the statement stays on the ring, where both columns are NULL
 *     (the kernel would still give an id: the v2 root's).
 */
#include <string.h>
#include <strings.h>
#include "bpf/plan.h"
#include "core/cgroup.h"
#include "core/session.h"
#include "engine/bpf_plan_int.h"
#include "engine/query.h"

#define MAX_IDS 24 /* two predicate nodes each, within BPF_MAX_PRED with the rest of WHERE */

bool bpf_cgroup__v2(struct an *a)
{
	if (a->s->replay || cgroup_map__root(a->s->cgroups))
		return true;
	return bpf_an__no(a, "no cgroup v2 hierarchy is mounted: _cgroup and _cgroup_id are "
			     "NULL, as the ring gives them");
}

/* the first _cgroup inside node n, or n */
static int first_col(struct an *a, int n)
{
	if (nd(a, n)->kind == SN_COL)
		return n;
	for (int c = nd(a, n)->first; c >= 0; c = nd(a, c)->next) {
		int r = first_col(a, c);

		if (nd(a, r)->kind == SN_COL)
			return r;
	}
	return n;
}

int bpf_cgroup__key(struct an *a, int n)
{
	struct bpf_plan *p = &a->b->plan;
	int k;

	for (k = 0; k < p->nr_keys; k++) /* every _cgroup key is the same id: share it */
		if (p->keys[k].col == BCOL_CGROUP && p->keys[k].size == 1)
			return k;
	if (k == BPF_MAX_KEYS)
		return bpf_an__no(a, "more than %d GROUP BY keys", BPF_MAX_KEYS), -1;
	p->keys[p->nr_keys++] = (struct bpf_val){ .col = BCOL_CGROUP, .size = 1 };
	a->key_node[k] = n;
	return k;
}

/* does node n read no column but _cgroup (how many times in *nr)? */
static bool only_cgroup(struct an *a, int n, int *nr)
{
	const struct tp_field *f;
	const struct sql_node *x = nd(a, n);

	if (x->kind == SN_COL) {
		*nr += bpf_an__resolve(a, n, &f) == CK_CGROUP;
		return bpf_an__resolve(a, n, &f) == CK_CGROUP;
	}
	if (x->kind == SN_FUNC && x->star)
		return false;
	for (int k = x->first; k >= 0; k = nd(a, k)->next)
		if (!only_cgroup(a, k, nr))
			return false;
	return true;
}

/* each _cgroup inside node n as the groups' key k */
static bool to_key(struct an *a, int n, int k)
{
	if (nd(a, n)->kind == SN_COL)
		return bpf_an__replace(a, n, "\"_k%d\"", k);
	for (int c = nd(a, n)->first; c >= 0; c = nd(a, c)->next)
		if (!to_key(a, c, k))
			return false;
	return true;
}

struct match {
	sqlite3_stmt *st;
	int param;
	uint64_t ids[MAX_IDS], max;
	int nr;
	bool over, failed;
};

/* (1): does the term pass on this path? */
static void test_path(void *ctx, uint64_t id, const char *path)
{
	struct match *m = ctx;
	sqlite3_value *v;

	m->max = id > m->max ? id : m->max;
	if (m->failed || sqlite3_bind_text(m->st, m->param, path, -1, SQLITE_STATIC) != SQLITE_OK ||
	    sqlite3_step(m->st) != SQLITE_ROW) {
		m->failed = true;
		return;
	}
	v = sqlite3_column_value(m->st, 0);
	if (sqlite3_value_type(v) != SQLITE_NULL && sqlite3_value_double(v) != 0) {
		if (m->nr < MAX_IDS)
			m->ids[m->nr++] = id;
		else
			m->over = true;
	}
	sqlite3_reset(m->st);
}

/* the ids whose path passes term n now, and the largest id known: false if SQLite could not
 * evaluate it (a qualified _cgroup, a parameter of no value) */
static bool match_ids(struct an *a, int n, struct match *m)
{
	int s = sql_select__start(a->sel, n), e = sql_select__end(a->sel, n);
	char *sql = sqlite3_mprintf("SELECT (%.*s) FROM (SELECT @perf_sql_cgroup AS \"_cgroup\")",
				    e - s, a->sel->text + s);

	if (!sql || sqlite3_prepare_v2(a->q->db, sql, -1, &m->st, NULL) != SQLITE_OK ||
	    query__bind_params(a->q, m->st) != SQLITE_OK)
		m->failed = true;
	sqlite3_free(sql);
	m->param = m->st ? sqlite3_bind_parameter_index(m->st, "@perf_sql_cgroup") : 0;
	if (!m->failed && m->param > 0)
		cgroup_map__for_each(a->s->cgroups, test_path, m);
	sqlite3_finalize(m->st);
	return !m->failed && m->param > 0;
}

static int pred(struct an *a, int kind, enum bpf_cmp cmp, uint64_t id, int l, int r)
{
	struct bpf_pred p = { .kind = kind,
			      .a = l,
			      .b = r,
			      .cmp = cmp,
			      .k = (int64_t)id,
			      .v = { .col = BCOL_CGROUP } };

	return (kind == BP_OR && (l < 0 || r < 0)) ? -1 : bpf_plan__pred(&a->b->plan, &p);
}

int bpf_cgroup__where(struct an *a, int n)
{
	struct match m = { 0 };
	int nr = 0, k, r;
	char buf[64];

	if (!only_cgroup(a, n, &nr) || !nr)
		return -2;
	if (!bpf_cgroup__v2(a))
		return -1;
	if (a->nr_on_rows == (int)(sizeof(a->on_rows) / sizeof(a->on_rows[0])))
		return bpf_an__no(a, "more than 4 WHERE terms of _cgroup"), -1;
	if ((k = bpf_cgroup__key(a, first_col(a, n))) < 0 || !to_key(a, n, k))
		return -1;
	a->on_rows[a->nr_on_rows++] = n;
	if (!match_ids(a, n, &m) || m.over) { /* (2) */
		snprintf(a->where_note, sizeof(a->where_note), "%s on the groups' paths only: %s",
			 bpf_an__text(a, n, buf, sizeof(buf)),
			 m.over ? "more than 24 cgroups match" : "not evaluated at planning");
		return pred(a, BP_TRUE, BC_EQ, 0, -1, -1);
	}
	r = pred(a, BP_CMP, BC_GT, m.max, -1, -1);
	for (int i = 0; i < m.nr; i++)
		r = pred(a, BP_OR, BC_EQ, 0, pred(a, BP_CMP, BC_EQ, m.ids[i], -1, -1), r);
	snprintf(a->where_note, sizeof(a->where_note),
		 "_cgroup: the ids of %d cgroup%s matching at planning, or made since (id > %llu), "
		 "then the paths on the groups",
		 m.nr, m.nr == 1 ? "" : "s", (unsigned long long)m.max);
	return r;
}
