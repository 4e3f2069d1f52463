/*
 * heatmap_rows(H) - table-valued function: the cells of a heatmap() value, one row per
 * non-empty (time slot, log2 bucket) cell.
 *
 *   SELECT slot_start, low, high, count
 *     FROM heatmap_rows((SELECT heatmap(time, latency, 100000000) FROM rundelay_pairs));
 *
 * HOW IT WORKS
 *   Schema: CREATE TABLE x(slot_start INTEGER, low INTEGER, high INTEGER, count INTEGER,
 *   h HIDDEN). As in hist_rows(), best_index requires h = ?; filter copies and decodes the
 *   blob, and the cursor walks slot-major (slot, then bucket), skipping empty cells.
 *
 * (1) slot_start is the slot's first nanosecond (a multiple of SLOT_NS, same clock as the
 *     TIME_NS given to heatmap()); low and high are the bucket's inclusive bounds, bucket 0
 *     being low 0, high 1 as in log2_hist().
 * (2) Rows come ordered by slot_start, then low; empty cells are not listed.
 * (3) H NULL gives no rows; H that is not a heatmap blob is an error; no argument is an error.
 */
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>

#include "sqlite/heatmap.h"
#include "vtab/heatmap_rows.h"

enum { HM_COL_SLOT_START, HM_COL_LOW, HM_COL_HIGH, HM_COL_COUNT, HM_COL_H };

struct heatmap_rows_cursor {
	sqlite3_vtab_cursor base;
	void *blob; /* our copy of H; v points into it */
	struct heatmap_view v;
	uint32_t slot;
	int bucket;
	sqlite3_int64 rowid;
	bool eof;
};

static int heatmap_rows_connect(sqlite3 *db, void *aux, int argc, const char *const *argv,
				sqlite3_vtab **vtab_out, char **err_out)
{
	sqlite3_vtab *vtab;
	int rc;

	rc = sqlite3_declare_vtab(db, "CREATE TABLE x(slot_start INTEGER, low INTEGER, "
				      "high INTEGER, count INTEGER, h HIDDEN)");
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

static int heatmap_rows_disconnect(sqlite3_vtab *vtab)
{
	sqlite3_free(vtab);
	return SQLITE_OK;
}

static int heatmap_rows_open(sqlite3_vtab *vtab, sqlite3_vtab_cursor **cur_out)
{
	struct heatmap_rows_cursor *c = sqlite3_malloc(sizeof(*c));

	if (!c)
		return SQLITE_NOMEM;
	memset(c, 0, sizeof(*c));
	c->eof = true;
	*cur_out = &c->base;
	return SQLITE_OK;
}

static int heatmap_rows_close(sqlite3_vtab_cursor *cur)
{
	struct heatmap_rows_cursor *c = (struct heatmap_rows_cursor *)cur;

	free(c->blob);
	sqlite3_free(c);
	return SQLITE_OK;
}

/* moves to the first non-empty cell at or after (slot, bucket) */
static void skip_empty(struct heatmap_rows_cursor *c)
{
	while (c->slot < c->v.nr_slots) {
		if (c->bucket > c->v.bmax) {
			c->slot++;
			c->bucket = c->v.bmin;
			continue;
		}
		if (heatmap_view__count(&c->v, c->slot, c->bucket))
			return;
		c->bucket++;
	}
	c->eof = true;
}

static int heatmap_rows_filter(sqlite3_vtab_cursor *cur, int idx_num, const char *idx_str,
			       int argc, sqlite3_value **argv)
{
	struct heatmap_rows_cursor *c = (struct heatmap_rows_cursor *)cur;
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
	if (heatmap_view__decode(&c->v, c->blob, len))
		goto bad;
	c->slot = 0;
	c->bucket = c->v.bmin;
	c->rowid = 0;
	c->eof = false;
	skip_empty(c);
	return SQLITE_OK;
bad:
	sqlite3_free(cur->pVtab->zErrMsg);
	cur->pVtab->zErrMsg = sqlite3_mprintf("heatmap_rows: argument is not a heatmap");
	return SQLITE_ERROR;
}

static int heatmap_rows_next(sqlite3_vtab_cursor *cur)
{
	struct heatmap_rows_cursor *c = (struct heatmap_rows_cursor *)cur;

	c->bucket++;
	c->rowid++;
	skip_empty(c);
	return SQLITE_OK;
}

static int heatmap_rows_eof(sqlite3_vtab_cursor *cur)
{
	return ((struct heatmap_rows_cursor *)cur)->eof;
}

static int heatmap_rows_column(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int col)
{
	struct heatmap_rows_cursor *c = (struct heatmap_rows_cursor *)cur;
	int b = c->bucket;

	switch (col) {
	case HM_COL_SLOT_START:
		sqlite3_result_int64(ctx, c->v.t0 + (sqlite3_int64)c->slot * c->v.slot_ns);
		break;
	case HM_COL_LOW:
		sqlite3_result_int64(ctx, b == 0 ? 0 : (sqlite3_int64)1 << b);
		break;
	case HM_COL_HIGH:
		sqlite3_result_int64(ctx, (sqlite3_int64)(((uint64_t)1 << (b + 1)) - 1));
		break;
	case HM_COL_COUNT:
		sqlite3_result_int64(ctx, (sqlite3_int64)heatmap_view__count(&c->v, c->slot, b));
		break;
	default: /* HM_COL_H: hidden, only ever an input */
		break;
	}
	return SQLITE_OK;
}

static int heatmap_rows_rowid(sqlite3_vtab_cursor *cur, sqlite3_int64 *rowid_out)
{
	*rowid_out = ((struct heatmap_rows_cursor *)cur)->rowid;
	return SQLITE_OK;
}

/* plan 1: h = ? is usable and passed as argv[0]; without it there is no plan */
static int heatmap_rows_best_index(sqlite3_vtab *vtab, sqlite3_index_info *info)
{
	bool seen = false;

	for (int i = 0; i < info->nConstraint; i++) {
		const struct sqlite3_index_constraint *con = &info->aConstraint[i];

		if (con->iColumn != HM_COL_H || con->op != SQLITE_INDEX_CONSTRAINT_EQ)
			continue;
		seen = true;
		if (!con->usable)
			continue;
		info->aConstraintUsage[i].argvIndex = 1;
		info->aConstraintUsage[i].omit = 1;
		info->idxNum = 1;
		info->estimatedCost = 10;
		info->estimatedRows = 256;
		return SQLITE_OK;
	}
	if (seen)
		return SQLITE_CONSTRAINT; /* usable in another join order */
	sqlite3_free(vtab->zErrMsg);
	vtab->zErrMsg = sqlite3_mprintf("heatmap_rows: missing argument H");
	return SQLITE_ERROR;
}

static const sqlite3_module heatmap_rows_module = {
	.iVersion = 0,
	.xCreate = NULL, /* eponymous only: heatmap_rows(...) in FROM */
	.xConnect = heatmap_rows_connect,
	.xBestIndex = heatmap_rows_best_index,
	.xDisconnect = heatmap_rows_disconnect,
	.xDestroy = NULL,
	.xOpen = heatmap_rows_open,
	.xClose = heatmap_rows_close,
	.xFilter = heatmap_rows_filter,
	.xNext = heatmap_rows_next,
	.xEof = heatmap_rows_eof,
	.xColumn = heatmap_rows_column,
	.xRowid = heatmap_rows_rowid,
	.xUpdate = NULL, /* read-only */
	.xBegin = NULL,
	.xSync = NULL,
	.xCommit = NULL,
	.xRollback = NULL,
	.xFindFunction = NULL,
	.xRename = NULL,
};

int heatmap_rows__register(sqlite3 *db)
{
	return sqlite3_create_module(db, "heatmap_rows", &heatmap_rows_module, NULL);
}
