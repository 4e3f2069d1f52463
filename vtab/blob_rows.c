/*
 * hist_rows(H), heatmap_rows(H) - table-valued functions over the values that log2_hist(),
 * lin_hist() and heatmap() return: one row per bucket (hist_rows) or per non-empty cell
 * (heatmap_rows).
 *
 *   SELECT low, high, count FROM hist_rows((SELECT log2_hist(latency) FROM rundelay_pairs));
 *   SELECT comm, r.* FROM (SELECT comm, log2_hist(latency) AS h FROM rundelay_pairs
 *                          GROUP BY comm), hist_rows(h) AS r;
 *   SELECT slot_start, low, high, count
 *     FROM heatmap_rows((SELECT heatmap(time, latency, 100000000) FROM rundelay_pairs));
 *
 * HOW IT WORKS
 *   One module serves both names; a row of blob_kinds[] (its module aux) gives each its schema,
 *   error text and three hooks: start (decode the blob, place the cursor on the first row),
 *   next and column. Schemas:
 *     hist_rows     CREATE TABLE x(low INTEGER, high INTEGER, count INTEGER, h HIDDEN)
 *     heatmap_rows  CREATE TABLE x(slot_start INTEGER, low INTEGER, high INTEGER,
 *                                  count INTEGER, h HIDDEN)
 *   The only argument is the hidden column h; best_index insists on an equality constraint on
 *   it (as SQLite's generate_series does with its hidden columns), filter copies and decodes the
 *   blob once and the cursor walks it.
 *
 * hist_rows:
 * (1) Rows run from the first to the last non-empty bucket, empty ones between included,
 *     the same range as hist_to_json(); low and high are inclusive bounds; rowid is the bucket.
 * (2) log2_hist bucket 0 is low 0, high 1; lin_hist's underflow bucket has low NULL and its
 *     overflow bucket high NULL.
 * heatmap_rows:
 * (3) slot_start is the slot's first nanosecond (a multiple of SLOT_NS, same clock as the
 *     TIME_NS given to heatmap()); low and high are the bucket's inclusive bounds, bucket 0
 *     being low 0, high 1 as in log2_hist().
 * (4) Rows come ordered by slot_start, then low; empty cells are not listed.
 * both:
 * (5) H NULL gives no rows; H of the wrong kind is an error ("hist_rows: argument is not a
 *     histogram (log2_hist or lin_hist)", "heatmap_rows: argument is not a heatmap"); no
 *     argument is an error ("hist_rows: missing argument H").
 */
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>

#include "vtab/blob_format.h"
#include "vtab/blob_rows.h"

struct blob_rows_cursor {
	sqlite3_vtab_cursor base;
	void *blob; /* our copy of H; the views point into it */
	union {
		struct hist_view h;
		struct heatmap_view m;
	} v;
	uint32_t i, last; /* hist: bucket; heatmap: slot */
	int bucket;       /* heatmap: log2 bucket in slot i */
	sqlite3_int64 rowid;
	bool eof;
};

struct blob_kind {
	const char *name;
	const char *schema;
	const char *not_this_kind; /* filter's error for a blob of another kind */
	int col_h;                 /* the hidden argument column */
	int est_rows;
	/* 0, or -1 when the blob is not of this kind; sets eof when there are no rows */
	int (*start)(struct blob_rows_cursor *c, int len);
	void (*next)(struct blob_rows_cursor *c);
	void (*column)(struct blob_rows_cursor *c, sqlite3_context *ctx, int col);
};

struct blob_rows_vtab {
	sqlite3_vtab base;
	const struct blob_kind *kind;
};

/* --- hist_rows: the buckets of a log2_hist() / lin_hist() value --- */

enum { HR_COL_LOW, HR_COL_HIGH, HR_COL_COUNT, HR_COL_H };

static int hist_start(struct blob_rows_cursor *c, int len)
{
	const struct hist_view *v = &c->v.h;

	if (hist_view__decode(&c->v.h, c->blob, len))
		return -1;
	c->i = c->last = 0;
	while (c->i < v->nr && !hist_view__count(v, c->i))
		c->i++;
	for (uint32_t i = c->i; i < v->nr; i++)
		if (hist_view__count(v, i))
			c->last = i;
	c->rowid = c->i;
	c->eof = c->i >= v->nr;
	return 0;
}

static void hist_next(struct blob_rows_cursor *c)
{
	c->rowid = ++c->i;
	if (c->i > c->last)
		c->eof = true;
}

static void hist_column(struct blob_rows_cursor *c, sqlite3_context *ctx, int col)
{
	int64_t low, high;
	bool has_low, has_high;

	hist_view__range(&c->v.h, c->i, &low, &high, &has_low, &has_high);
	if (col == HR_COL_LOW && has_low)
		sqlite3_result_int64(ctx, low);
	else if (col == HR_COL_HIGH && has_high)
		sqlite3_result_int64(ctx, high);
	else if (col == HR_COL_COUNT)
		sqlite3_result_int64(ctx, (sqlite3_int64)hist_view__count(&c->v.h, c->i));
}

/* --- heatmap_rows: the non-empty cells of a heatmap() value --- */

enum { HM_COL_SLOT_START, HM_COL_LOW, HM_COL_HIGH, HM_COL_COUNT, HM_COL_H };

/* moves to the first non-empty cell at or after (slot i, bucket) */
static void heatmap_skip_empty(struct blob_rows_cursor *c)
{
	const struct heatmap_view *v = &c->v.m;

	while (c->i < v->nr_slots) {
		if (c->bucket > v->bmax) {
			c->i++;
			c->bucket = v->bmin;
			continue;
		}
		if (heatmap_view__count(v, c->i, c->bucket))
			return;
		c->bucket++;
	}
	c->eof = true;
}

static int heatmap_start(struct blob_rows_cursor *c, int len)
{
	if (heatmap_view__decode(&c->v.m, c->blob, len))
		return -1;
	c->i = 0;
	c->bucket = c->v.m.bmin;
	c->rowid = 0;
	c->eof = false;
	heatmap_skip_empty(c);
	return 0;
}

static void heatmap_next(struct blob_rows_cursor *c)
{
	c->bucket++;
	c->rowid++;
	heatmap_skip_empty(c);
}

static void heatmap_column(struct blob_rows_cursor *c, sqlite3_context *ctx, int col)
{
	const struct heatmap_view *v = &c->v.m;
	int b = c->bucket;

	if (col == HM_COL_SLOT_START)
		sqlite3_result_int64(ctx, v->t0 + (sqlite3_int64)c->i * v->slot_ns);
	else if (col == HM_COL_LOW)
		sqlite3_result_int64(ctx, hist_log2_low(b));
	else if (col == HM_COL_HIGH)
		sqlite3_result_int64(ctx, hist_log2_high(b));
	else if (col == HM_COL_COUNT)
		sqlite3_result_int64(ctx, (sqlite3_int64)heatmap_view__count(v, c->i, b));
}

static const struct blob_kind blob_kinds[] = {
	{ "hist_rows", "CREATE TABLE x(low INTEGER, high INTEGER, count INTEGER, h HIDDEN)",
	  "argument is not a histogram (log2_hist or lin_hist)", HR_COL_H, 64, hist_start,
	  hist_next, hist_column },
	{ "heatmap_rows",
	  "CREATE TABLE x(slot_start INTEGER, low INTEGER, high INTEGER, count INTEGER, h HIDDEN)",
	  "argument is not a heatmap", HM_COL_H, 256, heatmap_start, heatmap_next, heatmap_column },
};

/* --- the module, shared by both kinds --- */

static const struct blob_kind *kind_of(sqlite3_vtab *vtab)
{
	return ((struct blob_rows_vtab *)vtab)->kind;
}

static int blob_rows_connect(sqlite3 *db, void *aux, int argc, const char *const *argv,
			     sqlite3_vtab **vtab_out, char **err_out)
{
	const struct blob_kind *kind = aux;
	struct blob_rows_vtab *vtab;
	int rc;

	rc = sqlite3_declare_vtab(db, kind->schema);
	if (rc != SQLITE_OK)
		return rc;
	vtab = sqlite3_malloc(sizeof(*vtab));
	if (!vtab)
		return SQLITE_NOMEM;
	memset(vtab, 0, sizeof(*vtab));
	vtab->kind = kind;
	rc = sqlite3_vtab_config(db, SQLITE_VTAB_INNOCUOUS);
	if (rc != SQLITE_OK) {
		sqlite3_free(vtab);
		return rc;
	}
	*vtab_out = &vtab->base;
	return SQLITE_OK;
}

static int blob_rows_disconnect(sqlite3_vtab *vtab)
{
	sqlite3_free(vtab);
	return SQLITE_OK;
}

static int blob_rows_open(sqlite3_vtab *vtab, sqlite3_vtab_cursor **cur_out)
{
	struct blob_rows_cursor *c = sqlite3_malloc(sizeof(*c));

	if (!c)
		return SQLITE_NOMEM;
	memset(c, 0, sizeof(*c));
	c->eof = true;
	*cur_out = &c->base;
	return SQLITE_OK;
}

static int blob_rows_close(sqlite3_vtab_cursor *cur)
{
	struct blob_rows_cursor *c = (struct blob_rows_cursor *)cur;

	free(c->blob);
	sqlite3_free(c);
	return SQLITE_OK;
}

static int blob_rows_filter(sqlite3_vtab_cursor *cur, int idx_num, const char *idx_str, int argc,
			    sqlite3_value **argv)
{
	struct blob_rows_cursor *c = (struct blob_rows_cursor *)cur;
	const struct blob_kind *kind = kind_of(cur->pVtab);
	int len;

	free(c->blob);
	c->blob = NULL;
	c->eof = true;
	if (argc < 1 || sqlite3_value_type(argv[0]) == SQLITE_NULL)
		return SQLITE_OK;
	len = sqlite3_value_bytes(argv[0]);
	if (sqlite3_value_type(argv[0]) != SQLITE_BLOB || len <= 0)
		goto bad;
	c->blob = malloc((size_t)len);
	if (!c->blob)
		return SQLITE_NOMEM;
	memcpy(c->blob, sqlite3_value_blob(argv[0]), (size_t)len);
	if (kind->start(c, len))
		goto bad;
	return SQLITE_OK;
bad:
	c->eof = true;
	sqlite3_free(cur->pVtab->zErrMsg);
	cur->pVtab->zErrMsg = sqlite3_mprintf("%s: %s", kind->name, kind->not_this_kind);
	return SQLITE_ERROR;
}

static int blob_rows_next(sqlite3_vtab_cursor *cur)
{
	kind_of(cur->pVtab)->next((struct blob_rows_cursor *)cur);
	return SQLITE_OK;
}

static int blob_rows_eof(sqlite3_vtab_cursor *cur) { return ((struct blob_rows_cursor *)cur)->eof; }

/* the hidden column h is only ever an input: the hooks leave it NULL */
static int blob_rows_column(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int col)
{
	kind_of(cur->pVtab)->column((struct blob_rows_cursor *)cur, ctx, col);
	return SQLITE_OK;
}

static int blob_rows_rowid(sqlite3_vtab_cursor *cur, sqlite3_int64 *rowid_out)
{
	*rowid_out = ((struct blob_rows_cursor *)cur)->rowid;
	return SQLITE_OK;
}

/* plan 1: h = ? is usable and passed as argv[0]; without it there is no plan */
static int blob_rows_best_index(sqlite3_vtab *vtab, sqlite3_index_info *info)
{
	const struct blob_kind *kind = kind_of(vtab);
	bool seen = false;

	for (int i = 0; i < info->nConstraint; i++) {
		const struct sqlite3_index_constraint *con = &info->aConstraint[i];

		if (con->iColumn != kind->col_h || con->op != SQLITE_INDEX_CONSTRAINT_EQ)
			continue;
		seen = true;
		if (!con->usable)
			continue;
		info->aConstraintUsage[i].argvIndex = 1;
		info->aConstraintUsage[i].omit = 1;
		info->idxNum = 1;
		info->estimatedCost = 10;
		info->estimatedRows = kind->est_rows;
		return SQLITE_OK;
	}
	if (seen)
		return SQLITE_CONSTRAINT; /* usable in another join order */
	sqlite3_free(vtab->zErrMsg);
	vtab->zErrMsg = sqlite3_mprintf("%s: missing argument H", kind->name);
	return SQLITE_ERROR;
}

static const sqlite3_module blob_rows_module = {
	.iVersion = 0,
	.xCreate = NULL, /* eponymous only: hist_rows(...) in FROM */
	.xConnect = blob_rows_connect,
	.xBestIndex = blob_rows_best_index,
	.xDisconnect = blob_rows_disconnect,
	.xDestroy = NULL,
	.xOpen = blob_rows_open,
	.xClose = blob_rows_close,
	.xFilter = blob_rows_filter,
	.xNext = blob_rows_next,
	.xEof = blob_rows_eof,
	.xColumn = blob_rows_column,
	.xRowid = blob_rows_rowid,
	.xUpdate = NULL, /* read-only */
	.xBegin = NULL,
	.xSync = NULL,
	.xCommit = NULL,
	.xRollback = NULL,
	.xFindFunction = NULL,
	.xRename = NULL,
};

int blob_rows__register(sqlite3 *db)
{
	for (size_t i = 0; i < sizeof(blob_kinds) / sizeof(blob_kinds[0]); i++) {
		int rc = sqlite3_create_module(db, blob_kinds[i].name, &blob_rows_module,
					       (void *)&blob_kinds[i]);

		if (rc != SQLITE_OK)
			return rc;
	}
	return SQLITE_OK;
}
