/*
 * ext/ext.h - perf_sql.so, the SQLite loadable extension: what its files share.
 *
 *   ext/extension.c        sqlite3_perfsql_init(), the per-connection state, perf_sql_version()
 *   ext/perf_sql_open.c    perf_sql_open(FILE): a capture's tables on the host connection
 *   ext/perf_sql_collect.c perf_sql_collect(SQL, DURATION [, CMD]), perf_sql_notices()
 *   ext/perf_sql_text.c    perf_sql_text(V), perf_sql_bars(V): values as perf-sql prints them
 */
#ifndef PERF_SQL_EXT_H
#define PERF_SQL_EXT_H
#include <sqlite3.h>
#include "core/err.h"

struct session;

/* One per connection, the user data of the extension's functions; freed with the connection. */
struct ext {
	struct session *s;   /* of the SQL functions and perf_sql_events: no tables and this
				 * machine's catalog, then the capture's tables and catalog */
	struct err live_err; /* why there is no machine catalog (tracefs not readable) */
	char *capture;       /* the capture perf_sql_open() opened (NULL: none yet) */
	char *notices; /* the last perf_sql_collect()'s or perf_sql_open()'s notices, one a line
			* (or NULL) */
};

void perf_sql_open_func(sqlite3_context *ctx, int argc, sqlite3_value **argv);
void perf_sql_collect_func(sqlite3_context *ctx, int argc, sqlite3_value **argv);
void perf_sql_notices_func(sqlite3_context *ctx, int argc, sqlite3_value **argv);
void perf_sql_text_func(sqlite3_context *ctx, int argc, sqlite3_value **argv);
void perf_sql_bars_func(sqlite3_context *ctx, int argc, sqlite3_value **argv);

/* Appends column col of st's current row as a JSON value (the json output format's way). */
void ext_json_value(sqlite3_str *out, sqlite3_stmt *st, int col);
/* Appends s as a JSON string. */
void ext_json_string(sqlite3_str *out, const char *s);
#endif
