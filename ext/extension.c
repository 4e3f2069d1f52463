/*
 * ext/extension.c - perf_sql.so, perf-sql as a SQLite loadable extension (docs/extension.md).
 *
 *   sqlite3> .load ./perf_sql
 *   sqlite3> SELECT perf_sql_open('tests/sql/writes.cap');
 *   sqlite3> SELECT count, count(*) FROM sys_enter_write GROUP BY count;
 *
 * HOW IT WORKS
 * (1) sqlite3_perfsql_init() gives the connection every SQL function and aggregate of
 *     sqlite/functions.c, hist_rows() and heatmap_rows(), perf_sql_events (the machine's
 *     catalog; an error naming the reason where tracefs is not readable), and the extension's
 *     own functions (ext/ext.h). Nothing here needs privileges but perf_sql_collect().
 * (2) The SQL functions' user data is one session per connection (struct ext), created with
 *     no tables (session__new_offline) so that perf_sql_open() can later fill it with a
 *     capture: the functions then name the capture's tasks and fields, as under perf-sql -r
 *     (SQLite refuses to redefine a function while a statement runs, as perf_sql_open() is).
 *     perf_sql_events reads the same session's catalog: this machine's, then the capture's,
 *     so a statement prepared before perf_sql_open() (Python caches them) lists the capture's
 *     tables after it.
 * (3) Loading twice into one connection is a no-op (perf_sql_version() exists already); each
 *     connection has its own state, freed when SQLite destroys perf_sql_version() as the
 *     connection closes, after its last statement (sqlite3_close_v2) is finalized.
 * (4) Every sqlite3_*() call goes through the host's routine table (ext/ext_api.h): the host's
 *     SQLite must be 3.38 or newer (sqlite3_vtab_in(), sqlite3_vtab_rhs_value(),
 *     sqlite3_vtab_distinct()).
 */
#include <stdlib.h>
#include <string.h>
#include "core/capture.h"
#include "core/record.h"
#include "ext/ext.h"
#include "sqlite/functions.h"
#include "vtab/blob_rows.h"
#include "vtab/tp_table.h"

SQLITE_EXTENSION_INIT1

#define EXT_VERSION "0.1.0"
#define EXT_MIN_SQLITE 3038000

static void ext_free(void *arg)
{
	struct ext *x = arg;

	if (!x)
		return;
	session__close(x->s);
	free(x->capture);
	free(x->notices);
	free(x);
}

static void perf_sql_version_func(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	sqlite3_result_text(ctx,
			    sqlite3_mprintf("perf_sql %s (capture version %d, SQLite %s)",
					    EXT_VERSION, CAPTURE_VERSION, sqlite3_libversion()),
			    -1, sqlite3_free);
}

/* perf_sql_events where the machine's catalog cannot be read: naming it says why */
static int no_events_connect(sqlite3 *db, void *aux, int argc, const char *const *argv,
			     sqlite3_vtab **out, char **pzErr)
{
	const struct err *e = aux;

	*pzErr = sqlite3_mprintf("perf_sql_events: %s%s%s; a capture's tables are listed once it "
				 "is open: SELECT perf_sql_open('FILE')",
				 e->msg, e->hint[0] ? "; " : "", e->hint);
	return SQLITE_ERROR;
}

static int no_events_best_index(sqlite3_vtab *vt, sqlite3_index_info *info)
{
	return SQLITE_ERROR; /* never connected */
}

static int no_events_disconnect(sqlite3_vtab *vt) { return SQLITE_OK; }

static const sqlite3_module no_events_module = {
	.iVersion = 0,
	.xCreate = NULL, /* eponymous-only */
	.xConnect = no_events_connect,
	.xBestIndex = no_events_best_index,
	.xDisconnect = no_events_disconnect,
	.xDestroy = no_events_disconnect,
	/* no cursor: xConnect always fails */
};

/* opening files and collecting: only from top-level SQL, never from a view or trigger */
#define DIRECT (SQLITE_UTF8 | SQLITE_DIRECTONLY)
#define PURE (SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS)

static const struct {
	const char *name;
	int nr_args;
	int flags;
	void (*func)(sqlite3_context *, int, sqlite3_value **);
} ext_funcs[] = {
	{ "perf_sql_open", 1, DIRECT, perf_sql_open_func },
	{ "perf_sql_collect", 2, DIRECT, perf_sql_collect_func },
	{ "perf_sql_collect", 3, DIRECT, perf_sql_collect_func },
	{ "perf_sql_notices", 0, DIRECT, perf_sql_notices_func },
	{ "perf_sql_text", 1, PURE, perf_sql_text_func },
	{ "perf_sql_bars", 1, PURE, perf_sql_bars_func },
};

/* the connection state; NULL with *msg set when out of memory */
static struct ext *ext_new(char **msg)
{
	struct session_opts so = { 0 };
	struct ext *x = calloc(1, sizeof(*x));
	struct err e = { 0 };

	if (!x || !(x->s = session__new_offline(&so, &e)) || stack_hooks__install(x->s)) {
		*msg = sqlite3_mprintf("perf_sql: %s", e.msg[0] ? e.msg : "out of memory");
		ext_free(x);
		return NULL;
	}
	/* stacks and ksym() name frames where this machine can, as under perf-sql -r */
	session__machine_catalog(x->s, &x->live_err); /* without tracefs: said when used */
	return x;
}

static int register_all(sqlite3 *db, struct ext *x)
{
	int rc = sql_functions__register(db, x->s);

	for (size_t i = 0; rc == SQLITE_OK && i < sizeof(ext_funcs) / sizeof(ext_funcs[0]); i++)
		rc = sqlite3_create_function_v2(db, ext_funcs[i].name, ext_funcs[i].nr_args,
						ext_funcs[i].flags, x, ext_funcs[i].func, NULL,
						NULL, NULL);
	if (rc == SQLITE_OK)
		rc = blob_rows__register(db);
	if (rc == SQLITE_OK)
		rc = !x->live_err.code
			     ? perf_sql_events__register(db, x->s)
			     : sqlite3_create_module_v2(db, "perf_sql_events", &no_events_module,
							&x->live_err, NULL);
	return rc;
}

/* perf_sql_version() is defined: this connection has loaded the extension already */
static bool loaded(sqlite3 *db)
{
	sqlite3_stmt *st = NULL;
	int rc = sqlite3_prepare_v2(db, "SELECT perf_sql_version()", -1, &st, NULL);

	sqlite3_finalize(st);
	return rc == SQLITE_OK;
}

__attribute__((visibility("default"))) int sqlite3_perfsql_init(sqlite3 *db, char **msg,
								const sqlite3_api_routines *api)
{
	struct ext *x;
	int rc;

	SQLITE_EXTENSION_INIT2(api);
	if (sqlite3_libversion_number() < EXT_MIN_SQLITE) {
		*msg = sqlite3_mprintf(
			"perf_sql: needs SQLite 3.38.0 or newer; this program has %s",
			sqlite3_libversion());
		return SQLITE_ERROR;
	}
	if (loaded(db))
		return SQLITE_OK;
	if (!(x = ext_new(msg)))
		return SQLITE_NOMEM;
	/* first: from here on the connection owns x (freed by SQLite, on failure too) */
	rc = sqlite3_create_function_v2(db, "perf_sql_version", 0, SQLITE_UTF8, x,
					perf_sql_version_func, NULL, NULL, ext_free);
	if (rc == SQLITE_OK)
		rc = register_all(db, x);
	if (rc != SQLITE_OK)
		*msg = sqlite3_mprintf("perf_sql: registering the functions: %s",
				       sqlite3_errstr(rc));
	return rc;
}
