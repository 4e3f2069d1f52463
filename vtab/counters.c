/*
 * counters - table: perf stat's counts per window, without sampling.
 *
 *   SELECT name, value FROM counters WHERE name IN ('context-switches', 'page-faults');
 *   perf-sql -i 1000 "SELECT name, value FROM counters" -- ./app
 *
 * HOW IT WORKS
 * Schema: name (perf stat's event name: "context-switches", "cycles", ...), value (this
 * window's count, scaled by time_enabled/time_running when the PMU multiplexed it), raw
 * (unscaled), scaled (1 when scaled: hardware events only, software ones are never
 * multiplexed), supported (0 when this machine cannot count it: a VM
 * has no hardware counters; value is then NULL).
 * (1) Naming the table opens one counting event per CPU (per workload task with -- CMD, per
 *     thread with -p/-t) for every software and generic hardware event: counting costs the
 *     kernel an add per event, nothing is written to a ring.
 * (2) Hardware events that fail to open are kept as unsupported rows instead of failing.
 */
#include <stdio.h>
#include <string.h>
#include "core/session.h"
#include "vtab/idx_cursor.h"
#include "vtab/tp_table.h"

static const char *const counter_events[] = {
	"cpu_clock",
	"task_clock",
	"context_switches",
	"cpu_migrations",
	"page_faults",
	"minor_faults",
	"major_faults",
	"alignment_faults",
	"emulation_faults",
	"cycles",
	"instructions",
	"branch_instructions",
	"branch_misses",
	"cache_references",
	"cache_misses",
	"stalled_cycles_frontend",
	"stalled_cycles_backend",
	"ref_cycles",
};
#define NR_COUNTERS ((int)(sizeof(counter_events) / sizeof(counter_events[0])))

enum { CT_COL_NAME, CT_COL_VALUE, CT_COL_RAW, CT_COL_SCALED, CT_COL_SUPPORTED };

struct ct_vtab {
	sqlite3_vtab base;
	struct session *s;
	struct source *src[NR_COUNTERS];
	uint64_t ena_seen[NR_COUNTERS], run_seen[NR_COUNTERS];
	uint64_t ena_now[NR_COUNTERS], run_now[NR_COUNTERS];
	int window[NR_COUNTERS];
};

static int counters_connect(sqlite3 *db, void *aux, int argc, const char *const *argv,
			    sqlite3_vtab **out, char **pzErr)
{
	struct session *s = aux;
	struct err e = { 0 };
	int rc;
	struct ct_vtab *vt = vtab__new(db,
				       "CREATE TABLE x(name TEXT, value INTEGER, raw INTEGER, "
				       "scaled INTEGER, supported INTEGER)",
				       sizeof(*vt), &rc);

	if (!vt)
		return rc;
	vt->s = s;
	for (int i = 0; i < NR_COUNTERS; i++) {
		struct tp_event *ev = catalog__find(s->cat, counter_events[i]);

		vt->window[i] = -1;
		if (ev && !(vt->src[i] = session__counter(s, ev, &e))) {
			*pzErr = sqlite3_mprintf("counters: %s", e.msg);
			sqlite3_free(vt);
			return SQLITE_ERROR;
		}
	}
	*out = &vt->base;
	return SQLITE_OK;
}

static int counters_best_index(sqlite3_vtab *vt, sqlite3_index_info *info)
{
	info->estimatedCost = NR_COUNTERS;
	return SQLITE_OK;
}

static int counters_eof(sqlite3_vtab_cursor *c)
{
	struct ct_vtab *vt = (struct ct_vtab *)c->pVtab;

	return !vt->s->started || idx_of(c) >= NR_COUNTERS;
}

/* this window's enabled/running time: the deltas of the cumulative sums, taken once a window */
static void window_times(struct ct_vtab *vt, int i, uint64_t *ena, uint64_t *run)
{
	uint64_t *ena_now = vt->ena_now, *run_now = vt->run_now;
	struct source *src = vt->src[i];

	if (vt->window[i] != vt->s->nr_windows) {
		ena_now[i] = src->enabled_ns - vt->ena_seen[i];
		run_now[i] = src->running_ns - vt->run_seen[i];
		vt->ena_seen[i] = src->enabled_ns;
		vt->run_seen[i] = src->running_ns;
		vt->window[i] = vt->s->nr_windows;
	}
	*ena = ena_now[i];
	*run = run_now[i];
}

static int counters_column(sqlite3_vtab_cursor *c, sqlite3_context *ctx, int col)
{
	struct ct_vtab *vt = (struct ct_vtab *)c->pVtab;
	int i = idx_of(c);
	struct source *src = vt->src[i];
	uint64_t raw = 0, ena, run;
	char name[64];

	if (col == CT_COL_NAME) {
		snprintf(name, sizeof(name), "%s", counter_events[i]);
		for (char *p = name; *p; p++)
			*p = *p == '_' ? '-' : *p;
		sqlite3_result_text(ctx, name, -1, SQLITE_TRANSIENT);
		return SQLITE_OK;
	}
	if (col == CT_COL_SUPPORTED) {
		sqlite3_result_int(ctx, src && !src->unsupported);
		return SQLITE_OK;
	}
	if (!src || src->unsupported)
		return SQLITE_OK;
	for (int k = 0; k < vt->s->nr_cpus; k++)
		raw += src->received[k];
	window_times(vt, i, &ena, &run);
	if (src->ev->kind == EV_SOFTWARE)
		ena = run; /* never multiplexed; per-CPU task events run only on their CPU */
	switch (col) {
	case CT_COL_VALUE:
		sqlite3_result_int64(
			ctx,
			(sqlite3_int64)(run && run < ena ? (double)raw * (double)ena / (double)run
							 : raw));
		break;
	case CT_COL_RAW: sqlite3_result_int64(ctx, (sqlite3_int64)raw); break;
	case CT_COL_SCALED: sqlite3_result_int(ctx, run && run < ena); break;
	}
	return SQLITE_OK;
}

static const sqlite3_module counters_module = {
	.xCreate = NULL, /* eponymous-only */
	.xConnect = counters_connect,
	.xBestIndex = counters_best_index,
	.xDisconnect = vtab__free,
	.xDestroy = vtab__free,
	.xOpen = idx_cursor__open,
	.xClose = idx_cursor__close,
	.xFilter = idx_cursor__filter,
	.xNext = idx_cursor__next,
	.xEof = counters_eof,
	.xColumn = counters_column,
	.xRowid = idx_cursor__rowid,
};

int counters__register(sqlite3 *db, struct session *s)
{
	return sqlite3_create_module_v2(db, "counters", &counters_module, s, NULL);
}
