/*
 * hist_rows(H) - table-valued function: the buckets of a histogram made by log2_hist() or
 * lin_hist(), one row per bucket.
 *
 *   SELECT low, high, count FROM hist_rows((SELECT log2_hist(latency) FROM rundelay_pairs));
 *   SELECT comm, r.* FROM (SELECT comm, log2_hist(latency) AS h FROM rundelay_pairs
 *                          GROUP BY comm), hist_rows(h) AS r;
 *
 * HOW IT WORKS
 *   Schema: CREATE TABLE x(low INTEGER, high INTEGER, count INTEGER, h HIDDEN). The only
 *   argument is the hidden column h; best_index insists on an equality constraint on it (as
 *   SQLite's generate_series does with its hidden columns), filter decodes the blob once and
 *   the cursor walks its buckets. Nothing is copied: the cursor keeps a copy of the blob only.
 *
 * (1) Rows run from the first to the last non-empty bucket, empty ones between included,
 *     the same range as hist_to_json(); low and high are inclusive bounds.
 * (2) log2_hist bucket 0 is low 0, high 1; lin_hist's underflow bucket has low NULL and its
 *     overflow bucket high NULL.
 * (3) H NULL gives no rows; H that is not a histogram blob is an error; hist_rows without
 *     its argument is an error ("hist_rows: missing argument H").
 */
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>

#include "sqlite/hist_blob.h"
#include "vtab/hist_rows.h"

enum { HR_COL_LOW, HR_COL_HIGH, HR_COL_COUNT, HR_COL_H };

struct hist_rows_cursor {
	sqlite3_vtab_cursor base;
	void *blob; /* our copy of H; v points into it */
	struct hist_view v;
	uint32_t i, last;
	bool eof;
};

static int hist_rows_connect(sqlite3 *db, void *aux, int argc, const char *const *argv,
			     sqlite3_vtab **vtab_out, char **err_out)
{
	sqlite3_vtab *vtab;
	int rc;

	rc = sqlite3_declare_vtab(db, "CREATE TABLE x(low INTEGER, high INTEGER, count INTEGER, "
				      "h HIDDEN)");
	if (rc != SQLITE_OK)
		return rc;
	vtab = sqlite3_malloc(sizeof(*vtab));
	if (!vtab)
		return SQLITE_NOMEM;
	memset(vtab, 0, sizeof(*vtab));
	rc = sqlite3_vtab_config(db, SQLITE_VTAB_INNOCUOUS);
	if (rc != SQLITE_OK) {
		sqlite3_free(vtab);
		return rc;
	}
	*vtab_out = vtab;
	return SQLITE_OK;
}

static int hist_rows_disconnect(sqlite3_vtab *vtab)
{
	sqlite3_free(vtab);
	return SQLITE_OK;
}

static int hist_rows_open(sqlite3_vtab *vtab, sqlite3_vtab_cursor **cur_out)
{
	struct hist_rows_cursor *c = sqlite3_malloc(sizeof(*c));

	if (!c)
		return SQLITE_NOMEM;
	memset(c, 0, sizeof(*c));
	c->eof = true;
	*cur_out = &c->base;
	return SQLITE_OK;
}

static int hist_rows_close(sqlite3_vtab_cursor *cur)
{
	struct hist_rows_cursor *c = (struct hist_rows_cursor *)cur;

	free(c->blob);
	sqlite3_free(c);
	return SQLITE_OK;
}

/* the first non-empty bucket at or after i; nr when there is none */
static uint32_t next_nonempty(const struct hist_view *v, uint32_t i)
{
	while (i < v->nr && !hist_view__count(v, i))
		i++;
	return i;
}

static int hist_rows_filter(sqlite3_vtab_cursor *cur, int idx_num, const char *idx_str, int argc,
			    sqlite3_value **argv)
{
	struct hist_rows_cursor *c = (struct hist_rows_cursor *)cur;
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
	if (hist_view__decode(&c->v, c->blob, len))
		goto bad;
	c->i = next_nonempty(&c->v, 0);
	for (uint32_t i = c->i; i < c->v.nr; i++)
		if (hist_view__count(&c->v, i))
			c->last = i;
	c->eof = c->i >= c->v.nr;
	return SQLITE_OK;
bad:
	sqlite3_free(cur->pVtab->zErrMsg);
	cur->pVtab->zErrMsg =
		sqlite3_mprintf("hist_rows: argument is not a histogram (log2_hist or lin_hist)");
	return SQLITE_ERROR;
}

static int hist_rows_next(sqlite3_vtab_cursor *cur)
{
	struct hist_rows_cursor *c = (struct hist_rows_cursor *)cur;

	if (++c->i > c->last)
		c->eof = true;
	return SQLITE_OK;
}

static int hist_rows_eof(sqlite3_vtab_cursor *cur)
{
	return ((struct hist_rows_cursor *)cur)->eof;
}

static int hist_rows_column(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int col)
{
	struct hist_rows_cursor *c = (struct hist_rows_cursor *)cur;
	int64_t low, high;
	bool has_low, has_high;

	hist_view__range(&c->v, c->i, &low, &high, &has_low, &has_high);
	switch (col) {
	case HR_COL_LOW:
		if (has_low)
			sqlite3_result_int64(ctx, low);
		break;
	case HR_COL_HIGH:
		if (has_high)
			sqlite3_result_int64(ctx, high);
		break;
	case HR_COL_COUNT:
		sqlite3_result_int64(ctx, (sqlite3_int64)hist_view__count(&c->v, c->i));
		break;
	default: /* HR_COL_H: hidden, only ever an input */
		break;
	}
	return SQLITE_OK;
}

static int hist_rows_rowid(sqlite3_vtab_cursor *cur, sqlite3_int64 *rowid_out)
{
	*rowid_out = ((struct hist_rows_cursor *)cur)->i;
	return SQLITE_OK;
}

/* plan 1: h = ? is usable and passed as argv[0]; without it there is no plan */
static int hist_rows_best_index(sqlite3_vtab *vtab, sqlite3_index_info *info)
{
	bool seen = false;

	for (int i = 0; i < info->nConstraint; i++) {
		const struct sqlite3_index_constraint *con = &info->aConstraint[i];

		if (con->iColumn != HR_COL_H || con->op != SQLITE_INDEX_CONSTRAINT_EQ)
			continue;
		seen = true;
		if (!con->usable)
			continue;
		info->aConstraintUsage[i].argvIndex = 1;
		info->aConstraintUsage[i].omit = 1;
		info->idxNum = 1;
		info->estimatedCost = 10;
		info->estimatedRows = 64;
		return SQLITE_OK;
	}
	if (seen)
		return SQLITE_CONSTRAINT; /* usable in another join order */
	sqlite3_free(vtab->zErrMsg);
	vtab->zErrMsg = sqlite3_mprintf("hist_rows: missing argument H");
	return SQLITE_ERROR;
}

static const sqlite3_module hist_rows_module = {
	.iVersion = 0,
	.xCreate = NULL, /* eponymous only: hist_rows(...) in FROM */
	.xConnect = hist_rows_connect,
	.xBestIndex = hist_rows_best_index,
	.xDisconnect = hist_rows_disconnect,
	.xDestroy = NULL,
	.xOpen = hist_rows_open,
	.xClose = hist_rows_close,
	.xFilter = hist_rows_filter,
	.xNext = hist_rows_next,
	.xEof = hist_rows_eof,
	.xColumn = hist_rows_column,
	.xRowid = hist_rows_rowid,
	.xUpdate = NULL, /* read-only */
	.xBegin = NULL,
	.xSync = NULL,
	.xCommit = NULL,
	.xRollback = NULL,
	.xFindFunction = NULL,
	.xRename = NULL,
};

int hist_rows__register(sqlite3 *db)
{
	return sqlite3_create_module(db, "hist_rows", &hist_rows_module, NULL);
}
