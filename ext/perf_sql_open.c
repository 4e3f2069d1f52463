/*
 * perf_sql_open(FILE) - scalar: the tables of a capture (perf-sql record -o FILE) on the host
 *   connection, as perf-sql -r FILE has them: one table per recorded table (the short name
 *   where unique, else system:event), with its stacks and task names, pairs(), and the
 *   capture's perf_sql_events and perf_sql_stats. Returns what it opened:
 *
 *   SELECT perf_sql_open('tests/sql/writes.cap');
 *     -> '3 tables: sched_switch, sys_enter_write, sys_exit_write'
 *   SELECT count, count(*) FROM sys_enter_write GROUP BY count;
 *
 * (1) The whole capture is one window, as perf-sql -r FILE without -i: each table holds all of
 *     its rows (borrowed from the capture's blocks, read once), for every later statement.
 * (2) One capture per connection: a second perf_sql_open() is an error naming the open one
 *     (open another connection for another capture).
 * (3) A file that is not a capture, a newer version or a corrupt block is one line and nothing
 *     is opened: "perf_sql_open: /tmp/v9.cap: capture version 9, this perf-sql reads version 1".
 * (4) No privileges needed. perf_sql_stats lists every table of the capture (perf-sql -r: the
 *     tables its query names).
 * (5) What perf-sql -r says besides rows, perf_sql_open() writes to stderr, one line each, and
 *     perf_sql_notices() returns: a capture cut short (its tables hold the part before the
 *     cut), rows past the session's memory budget (256 MiB; counted as lost in perf_sql_stats),
 *     events lost when it was recorded. A corrupt block is an error, as (3).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/record.h"
#include "engine/query.h"
#include "ext/ext.h"
#include "sqlite/functions.h"
#include "vtab/tp_table.h"

static int no_window(void *ctx, struct session *s)
{
	return 0; /* the rows stay in the tables: statements read them whenever they run */
}

/* a source per table, then the capture's one window (replay keeps rows for sources only) */
static int fill_tables(struct session *s, struct err *e)
{
	int ret;

	for (int i = 0; i < catalog__nr_events(s->cat); i++)
		if (!session__source(s, catalog__event(s->cat, i), e))
			return e->code ? e->code : -ENOMEM;
	if ((ret = session__start(s, e)))
		return ret;
	return session__run(s, no_window, NULL, e);
}

static char *opened(struct session *s)
{
	sqlite3_str *out = sqlite3_str_new(NULL);
	int n = catalog__nr_events(s->cat);

	sqlite3_str_appendf(out, "%d table%s:", n, n == 1 ? "" : "s");
	for (int i = 0; i < n; i++) {
		const struct tp_event *ev = catalog__event(s->cat, i);

		sqlite3_str_appendf(out, "%s %s", i ? "," : "",
				    ev->short_unique ? ev->name : ev->full);
	}
	return sqlite3_str_finish(out);
}

/* (5): the lines, on stderr and as perf_sql_notices() */
static void open_notices(struct ext *x, struct session *s)
{
	sqlite3_str *out = sqlite3_str_new(NULL);
	const char *cut = replay__note(s);
	char line[1024], *all;

	if (cut)
		sqlite3_str_appendf(out, "warning: %s\n", cut);
	for (int i = 0; i < s->nr_src; i++) {
		query__lost_warning(s, s->src[i], 0, 0, 0, line, sizeof(line));
		if (line[0])
			sqlite3_str_appendf(out, "%s\n", line);
	}
	all = sqlite3_str_finish(out);
	free(x->notices);
	x->notices = NULL;
	if (all && *all) {
		for (char *p = all; *p; p += strcspn(p, "\n") + 1)
			fprintf(stderr, "perf_sql_open: %.*s\n", (int)strcspn(p, "\n"), p);
		all[strlen(all) - 1] = '\0'; /* the last newline */
		x->notices = strdup(all);
	}
	sqlite3_free(all);
}

void perf_sql_open_func(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	struct ext *x = sqlite3_user_data(ctx);
	const char *raw = (const char *)sqlite3_value_text(argv[0]);
	char path[1024], open_path[1024]; /* as messages quote them (core/err.h) */
	struct err e = { 0 };
	int ret;

	if (!raw || !*raw)
		return sql_result_errorf(ctx, "perf_sql_open: FILE must be the path of a capture "
					      "(perf-sql record -o FILE)");
	err_quote(path, sizeof(path), raw);
	if (x->capture)
		return sql_result_errorf(ctx,
					 "perf_sql_open: %s is open on this connection already; "
					 "open %s on another connection",
					 err_quote(open_path, sizeof(open_path), x->capture), path);
	if (session__load_replay(x->s, raw, &e))
		return sql_result_errorf(ctx, "perf_sql_open: %s%s%s", e.msg, e.hint[0] ? "; " : "",
					 e.hint);
	/* from here the session holds the capture: it is this connection's, failed or not */
	if (!(x->capture = strdup(raw)))
		return sqlite3_result_error_nomem(ctx);
	if ((ret = fill_tables(x->s, &e)))
		return sql_result_errorf(ctx, "perf_sql_open: %s", e.msg);
	open_notices(x, x->s);
	if ((ret = vtabs__register(sqlite3_context_db_handle(ctx), x->s)) != SQLITE_OK)
		return sql_result_errorf(ctx, "perf_sql_open: %s: registering its tables: %s", path,
					 sqlite3_errstr(ret));
	sqlite3_result_text(ctx, opened(x->s), -1, sqlite3_free);
}
