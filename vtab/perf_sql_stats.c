/*
 * vtab/perf_sql_stats.c - what the current window received and lost, per table and CPU.
 *
 *   SELECT "table", sum(received), sum(lost) FROM perf_sql_stats GROUP BY 1;
 *
 * Schema: table, cpu, received (rows stored), lost (events the kernel counted but perf-sql did
 * not receive, cumulative, plus rows refused past --max-memory), window_start (RFC 3339).
 * filtered_in_kernel is NULL: the kernel does not say how many events a filter rejected;
 * filtered_in_user counts rows received and dropped before SQL: scheduler rows of other tasks
 * (workload targets) and perf-sql's own PMU samples.
 * A pairs() row (cpu NULL) counts pairs as received and starts lost as lost (evicted on the
 * ring; refused by the pending map or skipped by the kernel with BPF), replaced (starts a
 * newer start of their key replaced before any end) and unmatched (ends with no pending
 * start), the same on both paths; replaced and unmatched are NULL on other rows.
 * The numbers are those of the window the statement runs on.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>
#include "core/session.h"
#include "vtab/idx_cursor.h"
#include "vtab/tp_table.h"

enum {
	ST_COL_TABLE,
	ST_COL_CPU,
	ST_COL_RECEIVED,
	ST_COL_LOST,
	ST_COL_WINDOW,
	ST_COL_FILTERED_KERNEL,
	ST_COL_FILTERED_USER,
	ST_COL_REPLACED,
	ST_COL_UNMATCHED
};

struct st_vtab {
	sqlite3_vtab base;
	struct session *s;
};

void format_rfc3339(unsigned long long ns, char *buf, unsigned long len)
{
	time_t secs = (time_t)(ns / 1000000000ull);
	struct tm tm;
	char zone[8];
	size_t n;

	localtime_r(&secs, &tm);
	n = strftime(buf, len, "%Y-%m-%dT%H:%M:%S", &tm);
	strftime(zone, sizeof(zone), "%z", &tm); /* +0000 -> +00:00 */
	snprintf(buf + n, len - n, ".%03llu%.3s:%.2s", ns / 1000000ull % 1000, zone, zone + 3);
}

static int stats_connect(sqlite3 *db, void *aux, int argc, const char *const *argv,
			 sqlite3_vtab **out, char **pzErr)
{
	int rc;
	struct st_vtab *vt = vtab__new(db,
				       "CREATE TABLE x(\"table\" TEXT, cpu INTEGER, "
				       "received INTEGER, lost INTEGER, window_start TEXT, "
				       "filtered_in_kernel INTEGER, filtered_in_user INTEGER, "
				       "replaced INTEGER, unmatched INTEGER)",
				       sizeof(*vt), &rc);

	if (!vt)
		return rc;
	vt->s = aux;
	*out = &vt->base;
	return SQLITE_OK;
}

static int stats_best_index(sqlite3_vtab *vt, sqlite3_index_info *info)
{
	info->estimatedCost = 10;
	return SQLITE_OK;
}

static int stats_eof(sqlite3_vtab_cursor *c)
{
	struct session *s = ((struct st_vtab *)c->pVtab)->s;

	/* before collection starts (while planning) there is nothing to report */
	return !s->started || idx_of(c) >= s->nr_src * s->nr_cpus + s->nr_extra;
}

static int extra_column(sqlite3_context *ctx, const struct extra_stat *x, int col)
{
	switch (col) {
	case ST_COL_TABLE: sqlite3_result_text(ctx, x->name, -1, SQLITE_TRANSIENT); break;
	case ST_COL_RECEIVED: sqlite3_result_int64(ctx, (sqlite3_int64)x->received); break;
	case ST_COL_LOST: sqlite3_result_int64(ctx, (sqlite3_int64)x->lost); break;
	case ST_COL_REPLACED:
		if (x->pairs)
			sqlite3_result_int64(ctx, (sqlite3_int64)x->replaced);
		break;
	case ST_COL_UNMATCHED:
		if (x->pairs)
			sqlite3_result_int64(ctx, (sqlite3_int64)x->unmatched);
		break;
	default: break; /* cpu: NULL */
	}
	return SQLITE_OK;
}

static int stats_column(sqlite3_vtab_cursor *c, sqlite3_context *ctx, int col)
{
	struct session *s = ((struct st_vtab *)c->pVtab)->s;
	int idx = idx_of(c), cpu = idx % s->nr_cpus;
	struct source *src = idx < s->nr_src * s->nr_cpus ? s->src[idx / s->nr_cpus] : NULL;
	char when[64];

	if (!src && col != ST_COL_WINDOW)
		return extra_column(ctx, &s->extra[idx - s->nr_src * s->nr_cpus], col);
	switch (col) {
	case ST_COL_TABLE:
		sqlite3_result_text(ctx, src->ev->short_unique ? src->ev->name : src->ev->full, -1,
				    SQLITE_STATIC);
		break;
	case ST_COL_CPU: sqlite3_result_int(ctx, s->cpu_num[cpu]); break;
	case ST_COL_RECEIVED: sqlite3_result_int64(ctx, (sqlite3_int64)src->received[cpu]); break;
	case ST_COL_LOST: sqlite3_result_int64(ctx, (sqlite3_int64)src->lost[cpu]); break;
	case ST_COL_FILTERED_KERNEL: break; /* perf does not report what a filter rejected: NULL */
	case ST_COL_FILTERED_USER:
		sqlite3_result_int64(ctx, (sqlite3_int64)src->filtered[cpu]);
		break;
	case ST_COL_WINDOW:
		format_rfc3339(s->window_start_ns, when, sizeof(when));
		sqlite3_result_text(ctx, when, -1, SQLITE_TRANSIENT);
		break;
	}
	return SQLITE_OK;
}

static const sqlite3_module stats_module = {
	.xCreate = NULL, /* eponymous-only */
	.xConnect = stats_connect,
	.xBestIndex = stats_best_index,
	.xDisconnect = vtab__free,
	.xDestroy = vtab__free,
	.xOpen = idx_cursor__open,
	.xClose = idx_cursor__close,
	.xFilter = idx_cursor__filter,
	.xNext = idx_cursor__next,
	.xEof = stats_eof,
	.xColumn = stats_column,
	.xRowid = idx_cursor__rowid,
};

int perf_sql_stats__register(sqlite3 *db, struct session *s)
{
	return sqlite3_create_module_v2(db, "perf_sql_stats", &stats_module, s, NULL);
}
