/*
 * vtab/bpf_groups.c - the groups a BPF program aggregated in the kernel (bpf/table.h), one
 * row per group of the current window, for the statement engine/bpf_plan.c rewrote to read
 * them instead of the event table.
 *
 * HOW IT WORKS
 * Schema (one module per table, eponymous-only, named by the planner):
 *
 *   _k0, _k1, ...  the GROUP BY keys: INTEGER, or TEXT (comm, char[N]) up to the first NUL,
 *                  or the stack BLOB (symbols/stack.h) built from the stack map's chains,
 *                  or _cgroup's path of the id (core/cgroup.h; NULL: not known)
 *   _c INTEGER     the group's events
 *   _a0, _a1, ...  each aggregate's state: sum, min, max INTEGER; log2_hist and lin_hist
 *                  bucket counts as a BLOB of little-endian u64 (read by log2_hist_merge()
 *                  and lin_hist_merge()); percentiles' log-linear buckets as (u64 bucket,
 *                  u64 count) pairs (read by loglin_percentile(), bpf/pairs.h); a bare
 *                  column's value (bpf/plan.h, BA_BARE), INTEGER or TEXT
 *
 * A state the kernel flagged is an error with SQLite's own words, as the rows would have
 * given on the ring path: a sum past 64 bits ("integer overflow"), a negative value in
 * log2_hist ("log2_hist: value -3 is negative").
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bpf/table.h"
#include "core/session.h"
#include "symbols/stack.h"
#include "vtab/blob_format.h"
#include "vtab/bpf_groups.h"
#include "vtab/idx_cursor.h"

struct bg_vtab {
	sqlite3_vtab base;
	struct bpf_table *t;
	size_t *order; /* with a bare column: the rows by its row's time (bg_filter) */
	size_t nr_order, cap_order;
};

/* _cgroup: the key is the id, the column its path (NULL: unknown) */
static bool is_path(const struct bpf_val *v) { return v->col == BCOL_CGROUP && v->size == 1; }

static char *schema(const struct bpf_plan *p)
{
	sqlite3_str *s = sqlite3_str_new(NULL);

	sqlite3_str_appendall(s, "CREATE TABLE x(");
	for (int i = 0; i < p->nr_keys; i++)
		sqlite3_str_appendf(s, "\"_k%d\" %s, ", i,
				    bpf_val__is_stack(&p->keys[i]) ? "BLOB"
				    : bpf_val__is_str(&p->keys[i]) || is_path(&p->keys[i])
					    ? "TEXT"
					    : "INTEGER");
	sqlite3_str_appendall(s, "\"_c\" INTEGER");
	for (int i = 0; i < p->nr_aggs; i++)
		sqlite3_str_appendf(s, ", \"_a%d\" %s", i,
				    p->aggs[i].kind == BA_LOG2 || p->aggs[i].kind == BA_LIN ||
						    p->aggs[i].kind == BA_LOGLIN
					    ? "BLOB"
				    : p->aggs[i].kind == BA_BARE && bpf_val__is_str(&p->aggs[i].v)
					    ? "TEXT"
					    : "INTEGER");
	sqlite3_str_appendall(s, ")");
	return sqlite3_str_finish(s);
}

static int bg_connect(sqlite3 *db, void *aux, int argc, const char *const *argv, sqlite3_vtab **out,
		      char **pzErr)
{
	struct bpf_table *t = aux;
	char *sql = schema(&t->plan);
	struct bg_vtab *vt;
	int rc;

	if (!sql)
		return SQLITE_NOMEM;
	vt = vtab__new(db, sql, sizeof(*vt), &rc);
	sqlite3_free(sql);
	if (!vt)
		return rc;
	vt->t = t;
	*out = &vt->base;
	return SQLITE_OK;
}

static int bg_best_index(sqlite3_vtab *vt, sqlite3_index_info *info)
{
	info->estimatedCost = 1000;
	info->estimatedRows = 1000;
	return SQLITE_OK;
}

struct stamped {
	uint64_t time;
	size_t row;
};

static int by_time(const void *x, const void *y)
{
	const struct stamped *a = x, *b = y;

	return a->time < b->time ? -1 : a->time > b->time;
}

/*
 * A bare column (bpf/plan.h, BA_BARE) is SQLite's value of a group's first row, or of the row
 * of its last min()/max(); where the kernel's groups split a statement's group (count(DISTINCT
 * x), folded_stack()) the rewrite reads several rows of it, and SQLite takes the first of
 * them (or of those with the extreme): the rows go in the order of the bare column's rows
 */
static int order_rows(struct bg_vtab *vt)
{
	const struct bpf_table *t = vt->t;
	struct stamped *st;
	int a = 0;

	while (a < t->plan.nr_aggs && t->plan.aggs[a].kind != BA_BARE)
		a++;
	if (a == t->plan.nr_aggs)
		return SQLITE_OK;
	if (vt->cap_order < t->nr_rows) {
		size_t *o = sqlite3_realloc64(vt->order, t->nr_rows * sizeof(*o));

		if (!o)
			return SQLITE_NOMEM;
		vt->order = o;
		vt->cap_order = t->nr_rows;
	}
	vt->nr_order = 0;
	if (!(st = sqlite3_malloc64(t->nr_rows * sizeof(*st) + 1)))
		return SQLITE_NOMEM;
	for (size_t i = 0; i < t->nr_rows; i++) {
		memcpy(&st[i].time, bpf_table__value(t, i) + t->plan.aggs[a].off, 8);
		st[i].row = i;
	}
	qsort(st, t->nr_rows, sizeof(*st), by_time);
	for (size_t i = 0; i < t->nr_rows; i++)
		vt->order[i] = st[i].row;
	vt->nr_order = t->nr_rows;
	sqlite3_free(st);
	return SQLITE_OK;
}

/* a window whose groups could not all be read has no answer: the statement fails */
static int bg_filter(sqlite3_vtab_cursor *c, int idx_num, const char *idx_str, int argc,
		     sqlite3_value **argv)
{
	const struct bpf_table *t = ((struct bg_vtab *)c->pVtab)->t;

	if (t->read_failed) {
		sqlite3_free(c->pVtab->zErrMsg);
		c->pVtab->zErrMsg = sqlite3_mprintf("%s: reading the BPF map failed: %s",
						    t->src->ev->full, strerror(t->read_errno));
		return SQLITE_ERROR;
	}
	if (order_rows((struct bg_vtab *)c->pVtab) != SQLITE_OK)
		return SQLITE_NOMEM;
	return idx_cursor__filter(c, idx_num, idx_str, argc, argv);
}

static int bg_eof(sqlite3_vtab_cursor *c)
{
	const struct bpf_table *t = ((struct bg_vtab *)c->pVtab)->t;

	return (size_t)idx_of(c) >= t->nr_rows;
}

static int64_t i64_at(const uint8_t *p, int off)
{
	int64_t v;

	memcpy(&v, p + off, 8);
	return v;
}

/*
 * --call-graph auto: the user chain as the perf ring's rows have it, the kernel's frame-pointer
 * walk cut where the binaries' CFI says the next frame is garbage (symbols/unwind.h); the
 * frames of n, rewritten in place
 */
static size_t user_cut(const struct bpf_table *t, uint32_t pid, uint32_t tid, uint64_t *frames,
		       size_t n, size_t max)
{
	struct session *s = t->src->s;
	struct sample smp = { .pid = pid, .tid = tid, .nr_stack = n, .stack = frames };
	uint64_t *chain;

	if (!s->stacks || s->opts.call_graph != CALL_GRAPH_AUTO || !n || !(chain = malloc(max * 8)))
		return n;
	n = s->stacks->user_stack(s->stack_ctx, &smp, chain, max);
	memcpy(frames, chain, n * 8);
	free(chain);
	return n;
}

/* the stack BLOB of a stack key (bpf/plan.h (5)), as the perf ring gives it */
static void stack_column(sqlite3_context *ctx, const struct bpf_table *t, const uint8_t *key)
{
	size_t max = 2 * ((size_t)t->plan.stack_depth + 1), n, len;
	uint64_t *frames = malloc(max * 8);
	uint32_t pid, tid;
	void *blob = NULL;

	memcpy(&tid, key, 4);
	memcpy(&pid, key + 4, 4);
	if (frames) {
		n = bpf_table__stack(t, key, frames, max);
		n = user_cut(t, pid, tid, frames, n, max);
		blob = stack_blob__new(pid, tid, (const char *)key + BPF_STACK_COMM, frames, n,
				       &len);
		free(frames);
	}
	if (blob)
		sqlite3_result_blob(ctx, blob, (int)len, free);
	else
		sqlite3_result_error_nomem(ctx);
}

static void key_column(sqlite3_context *ctx, const struct bpf_table *t, const uint8_t *key, int k)
{
	const struct bpf_plan *p = &t->plan;
	const struct bpf_val *v = &p->keys[k];
	const char *s = (const char *)key + p->key_off[k];

	if (bpf_val__is_stack(v))
		stack_column(ctx, t, key + p->key_off[k]);
	else if (is_path(v) &&
		 (s = session__cgroup_path(t->src->s, (uint64_t)i64_at(key, p->key_off[k]))))
		sqlite3_result_text(ctx, s, -1, SQLITE_TRANSIENT);
	else if (is_path(v))
		return;
	else if (bpf_val__is_str(v))
		sqlite3_result_text(ctx, s, (int)strnlen(s, (size_t)bpf_val__str_size(v)),
				    SQLITE_TRANSIENT);
	else
		sqlite3_result_int64(ctx, i64_at(key, p->key_off[k]));
}

static void agg_column(sqlite3_context *ctx, const struct bpf_plan *p, const uint8_t *val, int a)
{
	const struct bpf_agg *g = &p->aggs[a];
	bool flagged = (i64_at(val, BPF_VAL_FLAGS) >> a) & 1;
	char msg[96];

	switch (g->kind) {
	case BA_SUM:
		if (flagged)
			sqlite3_result_error(ctx, "integer overflow", -1);
		else
			sqlite3_result_int64(ctx, i64_at(val, g->off));
		break;
	case BA_MIN:
	case BA_MAX: sqlite3_result_int64(ctx, i64_at(val, g->off)); break;
	case BA_LOG2:
		if (flagged) {
			snprintf(msg, sizeof(msg), "log2_hist: value %lld is negative",
				 (long long)i64_at(val, g->off + BPF_LOG2_NEG_OFF));
			sqlite3_result_error(ctx, msg, -1);
		} else {
			sqlite3_result_blob(ctx, val + g->off, HIST_LOG2_NR * 8, SQLITE_TRANSIENT);
		}
		break;
	case BA_LIN:
		sqlite3_result_blob(ctx, val + g->off, g->nr_buckets * 8, SQLITE_TRANSIENT);
		break;
	case BA_LOGLIN: break; /* loglin_column() */
	case BA_BARE:
		if (bpf_val__is_str(&g->v))
			sqlite3_result_text(ctx, (const char *)val + g->off + BPF_BARE_VAL,
					    (int)strnlen((const char *)val + g->off + BPF_BARE_VAL,
							 (size_t)bpf_val__str_size(&g->v)),
					    SQLITE_TRANSIENT);
		else
			sqlite3_result_int64(ctx, i64_at(val, g->off + BPF_BARE_VAL));
		break;
	}
}

/* a group's log-linear buckets: (u64 bucket, u64 count) pairs, for loglin_percentile() */
static void loglin_column(sqlite3_context *ctx, const struct bpf_table *t, size_t row)
{
	size_t n;
	const struct bpf_hist_ent *h = bpf_table__hist(t, row, &n);
	uint64_t *b = sqlite3_malloc64(n * 16 + 1);

	if (!b) {
		sqlite3_result_error_nomem(ctx);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		b[2 * i] = h[i].bucket;
		b[2 * i + 1] = h[i].count;
	}
	sqlite3_result_blob(ctx, b, (int)(n * 16), sqlite3_free);
}

static int bg_column(sqlite3_vtab_cursor *c, sqlite3_context *ctx, int col)
{
	const struct bg_vtab *vt = (struct bg_vtab *)c->pVtab;
	const struct bpf_table *t = vt->t;
	const struct bpf_plan *p = &t->plan;
	size_t row = (size_t)idx_of(c);

	if (vt->order && row < vt->nr_order)
		row = vt->order[row];
	if (col < p->nr_keys)
		key_column(ctx, t, bpf_table__key(t, row), col);
	else if (col == p->nr_keys)
		sqlite3_result_int64(ctx, i64_at(bpf_table__value(t, row), BPF_VAL_COUNT));
	else if (p->aggs[col - p->nr_keys - 1].kind == BA_LOGLIN)
		loglin_column(ctx, t, row);
	else
		agg_column(ctx, p, bpf_table__value(t, row), col - p->nr_keys - 1);
	return SQLITE_OK;
}

static int bg_disconnect(sqlite3_vtab *v)
{
	sqlite3_free(((struct bg_vtab *)v)->order);
	return vtab__free(v);
}

static const sqlite3_module bg_module = {
	.xCreate = NULL, /* eponymous-only */
	.xConnect = bg_connect,
	.xBestIndex = bg_best_index,
	.xDisconnect = bg_disconnect,
	.xDestroy = bg_disconnect,
	.xOpen = idx_cursor__open,
	.xClose = idx_cursor__close,
	.xFilter = bg_filter,
	.xNext = idx_cursor__next,
	.xEof = bg_eof,
	.xColumn = bg_column,
	.xRowid = idx_cursor__rowid,
};

int bpf_groups__register(sqlite3 *db, const char *name, struct bpf_table *t)
{
	return sqlite3_create_module_v2(db, name, t ? &bg_module : NULL, t, NULL);
}
