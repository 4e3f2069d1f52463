/*
 * pending(START_TABLE, START_KEY, END_TABLE, END_KEY [, START_COL [, START_COL2]])
 *   - table-valued function: the starts still waiting for their end, at the window's end.
 *
 *   SELECT printf('%#x', start_value) AS call_site, count(*), sum(start_value2) AS bytes
 *     FROM pending('kmalloc', 'ptr', 'kfree', 'ptr', 'call_site', 'bytes_alloc')
 *    GROUP BY 1;                                  -- kernel objects allocated, not yet freed
 *
 * HOW IT WORKS
 * Schema: key, start_time, age (ns from the start to the time the rows are of), start_pid,
 * start_tid, comm (the start task's name), start_value, start_value2 (START_COL and START_COL2
 * of the start row). Keys and columns are read as pairs() reads them (vtab/pairs.c), and the
 * pairing is pairs()'s (a newer start of a key replaces the older one, an end deletes its
 * key's start), but no pair is a row: the rows are the starts left, carried over windows.
 * (1) The rows are of the window's end: the time they are read (age is measured to it); a
 *     replay's rows are of its window's last event.
 * (2) In the kernel (engine/bpf_pairs.c) the starts wait in the pairs() program's BPF hash
 *     and the end program only deletes: the statement stays as written and reads the hash at
 *     the window's end (bpf/table.c), as bcc's memleak reads its allocations. Its bound is the
 *     hash's (a start that finds it full is lost); on the ring, pairs()' bound (the oldest
 *     half evicted past PAIRS_MAX_PENDING, counted lost). Both count in the perf_sql_stats row
 *     "pending(...)".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bpf/pairs.h"
#include "bpf/source.h"
#include "bpf/table.h"
#include "core/session.h"
#include "vtab/pairs_int.h"
#include "vtab/tp_table.h"

enum {
	PN_KEY,
	PN_START_TIME,
	PN_AGE,
	PN_START_PID,
	PN_START_TID,
	PN_COMM,
	PN_START_VALUE,
	PN_START_VALUE2,
	PN_ARG0 /* six hidden arguments follow */
};

struct pending_module {
	struct session *s;
	struct pairer *p[PAIRS_MAX];
	int nr;
};

struct pending_vtab {
	sqlite3_vtab base;
	struct pending_module *m;
};

struct pending_cursor {
	sqlite3_vtab_cursor base;
	struct pairer *p;
	const struct bpf_table *t; /* in the kernel: its pending starts' rows */
	size_t idx, n;
};

static int pending_connect(sqlite3 *db, void *aux, int argc, const char *const *argv,
			   sqlite3_vtab **out, char **pzErr)
{
	struct pending_vtab *vt;
	int rc = sqlite3_declare_vtab(
		db, "CREATE TABLE x(key INTEGER, start_time INTEGER, age INTEGER, "
		    "start_pid INTEGER, start_tid INTEGER, comm TEXT, start_value, start_value2, "
		    "start_table HIDDEN, start_key HIDDEN, end_table HIDDEN, end_key HIDDEN, "
		    "start_col HIDDEN, start_col2 HIDDEN)");

	if (rc != SQLITE_OK)
		return rc;
	vt = sqlite3_malloc64(sizeof(*vt));
	if (!vt)
		return SQLITE_NOMEM;
	memset(vt, 0, sizeof(*vt));
	vt->m = aux;
	*out = &vt->base;
	return SQLITE_OK;
}

static int pending_disconnect(sqlite3_vtab *vt)
{
	sqlite3_free(vt);
	return SQLITE_OK;
}

/* The arguments are read here, at prepare time, so planning knows what to open. */
static int pending_best_index(sqlite3_vtab *vt_, sqlite3_index_info *info)
{
	struct pending_vtab *vt = (struct pending_vtab *)vt_;

	return pairer__best_index(vt->m->s, vt->m->p, &vt->m->nr, true, info, PN_ARG0,
				  &vt_->zErrMsg);
}

static int pending_open(sqlite3_vtab *vt, sqlite3_vtab_cursor **out)
{
	struct pending_cursor *c = sqlite3_malloc64(sizeof(*c));

	if (!c)
		return SQLITE_NOMEM;
	memset(c, 0, sizeof(*c));
	*out = &c->base;
	return SQLITE_OK;
}

static int pending_close(sqlite3_vtab_cursor *c)
{
	sqlite3_free(c);
	return SQLITE_OK;
}

/* the ring's next waiting start from slot i on */
static size_t ring_skip(const struct pairer *p, size_t i)
{
	while (i < p->cap && !p->tab[i].used)
		i++;
	return i;
}

static int pending_filter(sqlite3_vtab_cursor *c_, int idx_num, const char *idx_str, int argc,
			  sqlite3_value **argv)
{
	struct pending_cursor *c = (struct pending_cursor *)c_;
	struct pending_module *m = ((struct pending_vtab *)c_->pVtab)->m;
	const struct bpf_table *t;

	c->p = m->p[idx_num];
	c->idx = c->n = 0;
	c->t = NULL;
	if (!m->s->started) /* the planning dry run: no rows */
		return SQLITE_OK;
	t = bpf_session__table(m->s, c->p->end);
	if (t && t->plan.pair.pending_rows) { /* (2) */
		c->t = t;
		c->n = t->nr_pend;
		return SQLITE_OK;
	}
	if (c->p->window != m->s->nr_windows && pairer__run(c->p))
		return SQLITE_NOMEM;
	c->n = c->p->cap;
	c->idx = ring_skip(c->p, 0);
	return SQLITE_OK;
}

static int pending_next(sqlite3_vtab_cursor *c_)
{
	struct pending_cursor *c = (struct pending_cursor *)c_;

	c->idx = c->t ? c->idx + 1 : ring_skip(c->p, c->idx + 1);
	return SQLITE_OK;
}

static int pending_eof(sqlite3_vtab_cursor *c_)
{
	const struct pending_cursor *c = (const struct pending_cursor *)c_;

	return c->idx >= c->n;
}

static uint64_t u64_at(const uint8_t *p, int off)
{
	uint64_t v;

	memcpy(&v, p + off, 8);
	return v;
}

/* a kernel row: key, then the pending value (bpf/pairs.h: time, value, pid_tgid, comm) */
static int kernel_column(const struct pending_cursor *c, sqlite3_context *ctx, int col)
{
	const struct bpf_pair *pp = &c->t->plan.pair;
	const uint8_t *r = c->t->pend + c->idx * (size_t)(8 + BPF_PAIR_VALUE(pp));
	uint64_t time = u64_at(r, 8), pid_tgid = u64_at(r, 16 + bpf_pair__val_size(pp));
	const char *comm = (const char *)r + 24 + bpf_pair__val_size(pp);

	switch (col) {
	case PN_KEY: sqlite3_result_int64(ctx, (sqlite3_int64)u64_at(r, 0)); break;
	case PN_START_TIME: sqlite3_result_int64(ctx, (sqlite3_int64)time); break;
	case PN_AGE:
		sqlite3_result_int64(
			ctx, c->t->pend_now > time ? (sqlite3_int64)(c->t->pend_now - time) : 0);
		break;
	case PN_START_PID: sqlite3_result_int64(ctx, (sqlite3_int64)(pid_tgid >> 32)); break;
	case PN_START_TID: sqlite3_result_int64(ctx, (sqlite3_int64)(uint32_t)pid_tgid); break;
	case PN_COMM:
		if (comm[0])
			sqlite3_result_text(ctx, comm, (int)strnlen(comm, 16), SQLITE_TRANSIENT);
		break;
	case PN_START_VALUE:
		if (pp->has_start_val)
			sqlite3_result_int64(ctx, (sqlite3_int64)u64_at(r, 16));
		break;
	case PN_START_VALUE2:
		if (pp->has_start_val2)
			sqlite3_result_int64(ctx, (sqlite3_int64)u64_at(r, 24));
		break;
	}
	return SQLITE_OK;
}

static int pending_column(sqlite3_vtab_cursor *c_, sqlite3_context *ctx, int col)
{
	struct pending_cursor *c = (struct pending_cursor *)c_;
	const struct pending *pe;
	const char *name;

	if (col >= PN_ARG0) {
		if (c->p->args[col - PN_ARG0])
			sqlite3_result_text(ctx, c->p->args[col - PN_ARG0], -1, SQLITE_TRANSIENT);
		return SQLITE_OK;
	}
	if (c->t)
		return kernel_column(c, ctx, col);
	pe = &c->p->tab[c->idx];
	switch (col) {
	case PN_KEY: sqlite3_result_int64(ctx, pe->key); break;
	case PN_START_TIME: sqlite3_result_int64(ctx, (sqlite3_int64)pe->time); break;
	case PN_AGE:
		sqlite3_result_int64(
			ctx, c->p->now > pe->time ? (sqlite3_int64)(c->p->now - pe->time) : 0);
		break;
	case PN_START_PID: sqlite3_result_int64(ctx, pe->pid); break;
	case PN_START_TID: sqlite3_result_int64(ctx, pe->tid); break;
	case PN_COMM:
		name = session__comm(c->p->start->s, pe->tid, pe->time);
		if (name)
			sqlite3_result_text(ctx, name, -1, SQLITE_TRANSIENT);
		break;
	case PN_START_VALUE: pairer__cell_result(ctx, &pe->value); break;
	case PN_START_VALUE2: pairer__cell_result(ctx, &pe->value2); break;
	}
	return SQLITE_OK;
}

static int pending_rowid(sqlite3_vtab_cursor *c, sqlite3_int64 *rowid)
{
	*rowid = (sqlite3_int64)((struct pending_cursor *)c)->idx + 1;
	return SQLITE_OK;
}

static const sqlite3_module pending_vmodule = {
	.xCreate = NULL, /* eponymous-only: a table-valued function */
	.xConnect = pending_connect,
	.xBestIndex = pending_best_index,
	.xDisconnect = pending_disconnect,
	.xDestroy = pending_disconnect,
	.xOpen = pending_open,
	.xClose = pending_close,
	.xFilter = pending_filter,
	.xNext = pending_next,
	.xEof = pending_eof,
	.xColumn = pending_column,
	.xRowid = pending_rowid,
};

static void pending_module_free(void *m_)
{
	struct pending_module *m = m_;

	for (int i = 0; i < m->nr; i++)
		pairer__free(m->p[i]);
	sqlite3_free(m);
}

int pending__register(sqlite3 *db, struct session *s)
{
	struct pending_module *m = sqlite3_malloc64(sizeof(*m));

	if (!m)
		return SQLITE_NOMEM;
	memset(m, 0, sizeof(*m));
	m->s = s;
	return sqlite3_create_module_v2(db, "pending", &pending_vmodule, m, pending_module_free);
}
