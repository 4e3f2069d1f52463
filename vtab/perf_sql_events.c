/*
 * vtab/perf_sql_events.c - the catalog as a table: what can be queried.
 *
 *   SELECT name, fields FROM perf_sql_events WHERE system = 'sched';
 *
 * Schema: name (the table name to use: short when unique, else system:event), system, event,
 * kind ('tracepoint', 'software', 'hardware', 'cache', 'uprobe', 'breakpoint'), fields ("prev_comm char[16], prev_pid pid_t, ..."). Reading `fields`
 * parses that event's format (lazily, ~70 us each); the other columns cost nothing.
 */
#include <string.h>
#include "core/session.h"
#include "vtab/idx_cursor.h"
#include "vtab/tp_table.h"

enum { EV_COL_NAME, EV_COL_SYSTEM, EV_COL_EVENT, EV_COL_KIND, EV_COL_FIELDS };

struct ev_vtab {
	sqlite3_vtab base;
	struct session *s;
};

static int events_connect(sqlite3 *db, void *aux, int argc, const char *const *argv,
			  sqlite3_vtab **out, char **pzErr)
{
	int rc;
	struct ev_vtab *vt = vtab__new(db,
				       "CREATE TABLE x(name TEXT, system TEXT, event TEXT, "
				       "kind TEXT, fields TEXT)",
				       sizeof(*vt), &rc);

	if (!vt)
		return rc;
	vt->s = aux;
	*out = &vt->base;
	return SQLITE_OK;
}

static int events_best_index(sqlite3_vtab *vt, sqlite3_index_info *info)
{
	info->estimatedCost = 2500;
	return SQLITE_OK;
}

static int events_eof(sqlite3_vtab_cursor *c)
{
	struct ev_vtab *vt = (struct ev_vtab *)c->pVtab;

	return idx_of(c) >= catalog__nr_events(vt->s->cat);
}

static void fields_result(sqlite3_context *ctx, struct session *s, struct tp_event *ev)
{
	struct err e = { 0 };
	sqlite3_str *out;

	if (catalog__parse(s->cat, ev, &e))
		return; /* an unparsable format: NULL */
	out = sqlite3_str_new(NULL);
	for (int i = 0; i < ev->nr_fields; i++)
		sqlite3_str_appendf(out, "%s%s %s", i ? ", " : "", ev->fields[i].name,
				    ev->fields[i].type);
	sqlite3_result_text(ctx, sqlite3_str_finish(out), -1, sqlite3_free);
}

static int events_column(sqlite3_vtab_cursor *c, sqlite3_context *ctx, int col)
{
	struct ev_vtab *vt = (struct ev_vtab *)c->pVtab;
	struct tp_event *ev = catalog__event(vt->s->cat, idx_of(c));

	switch (col) {
	case EV_COL_NAME:
		sqlite3_result_text(ctx, ev->short_unique ? ev->name : ev->full, -1, SQLITE_STATIC);
		break;
	case EV_COL_SYSTEM: sqlite3_result_text(ctx, ev->system, -1, SQLITE_STATIC); break;
	case EV_COL_EVENT: sqlite3_result_text(ctx, ev->name, -1, SQLITE_STATIC); break;
	case EV_COL_KIND:
		sqlite3_result_text(ctx, event_kind_name(ev->kind), -1, SQLITE_STATIC);
		break;
	case EV_COL_FIELDS: fields_result(ctx, vt->s, ev); break;
	}
	return SQLITE_OK;
}

static const sqlite3_module events_module = {
	.xCreate = NULL, /* eponymous-only */
	.xConnect = events_connect,
	.xBestIndex = events_best_index,
	.xDisconnect = vtab__free,
	.xDestroy = vtab__free,
	.xOpen = idx_cursor__open,
	.xClose = idx_cursor__close,
	.xFilter = idx_cursor__filter,
	.xNext = idx_cursor__next,
	.xEof = events_eof,
	.xColumn = events_column,
	.xRowid = idx_cursor__rowid,
};

int perf_sql_events__register(sqlite3 *db, struct session *s)
{
	return sqlite3_create_module_v2(db, "perf_sql_events", &events_module, s, NULL);
}
