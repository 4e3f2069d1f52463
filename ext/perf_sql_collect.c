/*
 * perf_sql_collect(SQL, DURATION [, CMD]) - scalar: runs SQL over live events for one window,
 *   as perf-sql -d DURATION "SQL" [-- CMD] does, and returns its rows as one JSON array of
 *   objects, column name -> value, as perf-sql --json writes them (histograms as arrays of
 *   {low, high, count}, other BLOBs in hex); the rows of each statement follow in order.
 * perf_sql_notices() - scalar: what the last perf_sql_collect() of this connection had to say
 *   besides its rows (lost events, the command's exit status), one a line; NULL if nothing.
 *
 *   SELECT perf_sql_collect('SELECT comm, count(*) AS n FROM sched_switch GROUP BY comm', '2s');
 *   SELECT value->>'n' FROM json_each(perf_sql_collect('SELECT count(*) AS n
 *          FROM sys_enter_write WHERE _pid = workload_pid()', NULL, 'build/workloads/writes 5 1 0 0'));
 *
 * (1) DURATION as perf-sql -d takes it ('2s', '500ms', a bare number is seconds). With CMD,
 *     NULL or 0 means until CMD exits; without CMD a positive DURATION is required.
 * (2) CMD is a program and its arguments separated by blanks (no shell, no quoting). As with
 *     perf-sql -- CMD it is started held, the events are enabled as it execs, and
 *     workload_pid() is its pid.
 * (3) It needs what perf-sql needs (root, or CAP_PERFMON and a readable tracefs); otherwise
 *     the error is perf-sql's, in one line with how to fix it: "perf_sql_collect: tracefs at
 *     /sys/kernel/tracing: Permission denied; run as root; ...".
 * (4) The statements run on a connection of their own, locked down as perf-sql's
 *     (docs/security.md): they see the event tables and functions, not the host's tables.
 * (5) The call returns when the window ends (DURATION, or CMD's exit).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "core/units.h"
#include "engine/query.h"
#include "ext/ext.h"
#include "sqlite/functions.h"

#define COLLECT_MAX_ARGS 64

struct collect {
	sqlite3_str *rows; /* "[{...},{...}" so far */
	int nr_rows;
	sqlite3_str *notices;
};

static void json_row(struct collect *c, sqlite3_stmt *st)
{
	int nc = sqlite3_column_count(st);

	sqlite3_str_appendall(c->rows, c->nr_rows++ ? ",{" : "{");
	for (int i = 0; i < nc; i++) {
		if (i)
			sqlite3_str_appendchar(c->rows, 1, ',');
		ext_json_string(c->rows, sqlite3_column_name(st, i));
		sqlite3_str_appendchar(c->rows, 1, ':');
		ext_json_value(c->rows, st, i);
	}
	sqlite3_str_appendchar(c->rows, 1, '}');
}

static int on_window(void *ctx, struct query *q, struct session *s, struct err *e)
{
	struct collect *c = ctx;

	for (int i = 0; i < q->nr_stmts; i++) {
		sqlite3_stmt *st = q->stmts[i];
		int rc;

		sqlite3_reset(st);
		while ((rc = sqlite3_step(st)) == SQLITE_ROW)
			json_row(c, st);
		if (rc != SQLITE_DONE)
			return query__sql_err(q, s, sqlite3_errmsg(q->db), e);
	}
	return 0;
}

static void on_notice(void *ctx, const char *line)
{
	struct collect *c = ctx;

	if (sqlite3_str_length(c->notices))
		sqlite3_str_appendchar(c->notices, 1, '\n');
	sqlite3_str_appendall(c->notices, line);
}

/* CMD at blanks into argv (NULL-terminated, pointing into buf); false if it has too many */
static bool split_cmd(char *buf, char **argv)
{
	int n = 0;

	for (char *tok = strtok(buf, " \t\n"); tok; tok = strtok(NULL, " \t\n")) {
		if (n == COLLECT_MAX_ARGS)
			return false;
		argv[n++] = tok;
	}
	argv[n] = NULL;
	return true;
}

/* DURATION into q; false with the SQL error set */
static bool duration_arg(sqlite3_context *ctx, sqlite3_value *v, bool has_cmd, struct query *q)
{
	const char *text = (const char *)sqlite3_value_text(v);
	long long ns = text ? units__ns(text) : 0;

	char quoted[256]; /* as messages quote it (core/err.h) */

	if (ns < 0) {
		sql_result_errorf(ctx,
				  "perf_sql_collect: DURATION '%s': expected a duration such as "
				  "'2s' or '500ms'",
				  err_quote(quoted, sizeof(quoted), text));
		return false;
	}
	if (!ns && !has_cmd) {
		sql_result_errorf(ctx, "perf_sql_collect: DURATION must be positive without a "
				       "command, e.g. perf_sql_collect(SQL, '2s')");
		return false;
	}
	q->so.duration_ms = ns ? (long)((ns + 999999) / 1000000) : 0;
	return true;
}

static void finish(sqlite3_context *ctx, struct ext *x, struct collect *c, int ret,
		   const struct err *e)
{
	char *notices = sqlite3_str_finish(c->notices);

	free(x->notices);
	x->notices = notices && *notices ? strdup(notices) : NULL;
	sqlite3_free(notices);
	if (ret) {
		sqlite3_free(sqlite3_str_finish(c->rows));
		sql_result_errorf(ctx, "perf_sql_collect: %s%s%s", e->msg, e->hint[0] ? "; " : "",
				  e->hint);
		return;
	}
	sqlite3_str_appendchar(c->rows, 1, ']');
	if (sqlite3_str_errcode(c->rows)) {
		sqlite3_free(sqlite3_str_finish(c->rows));
		return sqlite3_result_error_nomem(ctx);
	}
	sqlite3_result_text(ctx, sqlite3_str_finish(c->rows), -1, sqlite3_free);
}

void perf_sql_collect_func(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	struct ext *x = sqlite3_user_data(ctx);
	const char *cmd = argc > 2 ? (const char *)sqlite3_value_text(argv[2]) : NULL;
	struct query q = { .sql = (const char *)sqlite3_value_text(argv[0]) };
	struct query_ops ops = { .window = on_window, .notice = on_notice };
	char *cmd_buf = NULL, *wl_argv[COLLECT_MAX_ARGS + 1];
	struct collect c = { 0 };
	struct err e = { 0 };
	int ret;

	if (!q.sql)
		return sql_result_errorf(ctx, "perf_sql_collect: SQL must be the text of a query");
	if (cmd && *cmd) {
		if (!(cmd_buf = strdup(cmd)))
			return sqlite3_result_error_nomem(ctx);
		if (!split_cmd(cmd_buf, wl_argv) || !wl_argv[0]) {
			free(cmd_buf);
			return sql_result_errorf(ctx,
						 "perf_sql_collect: CMD '%s': expected a program "
						 "and at most %d arguments, separated by blanks",
						 cmd, COLLECT_MAX_ARGS - 1);
		}
		q.so.workload = wl_argv;
	}
	if (duration_arg(ctx, argv[1], cmd_buf != NULL, &q)) {
		c.rows = sqlite3_str_new(NULL);
		c.notices = sqlite3_str_new(NULL);
		sqlite3_str_appendchar(c.rows, 1, '[');
		session_stop = 0; /* no signal handler of ours here: only an earlier run set it */
		ret = query__run(&q, &ops, &c, &e);
		finish(ctx, x, &c, ret, &e);
	}
	free(cmd_buf);
}

void perf_sql_notices_func(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	struct ext *x = sqlite3_user_data(ctx);

	if (x->notices)
		sqlite3_result_text(ctx, x->notices, -1, SQLITE_TRANSIENT);
}
