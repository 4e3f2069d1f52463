/*
 * shell/repl.h - the interactive shell: `perf-sql` with no SQL (or --repl).
 *
 * On a terminal: readline editing, history, completion; Ctrl-C stops a running query and
 * returns to the prompt. Otherwise stdin is a script of statements and dot commands, run in
 * order; the exit status is that of the first failure (0 when none failed).
 */
#ifndef PERF_SQL_REPL_H
#define PERF_SQL_REPL_H
#include <limits.h>
#include <stdbool.h>
#include <sqlite3.h>
#include "cli/run.h"

struct repl {
	struct run q;        /* the settings every query starts from (options, output) */
	struct session *cat; /* never started: its catalog and tables serve completion */
	sqlite3 *db;         /* tables and functions registered on cat, for completion */
	bool tty;            /* stdin is a terminal: readline, redraw in place */
	bool own_out;        /* q.out.f was opened by .output (ours to close) */
	bool timer, stats;   /* .timer, .stats */
	bool quit;
	bool armed;       /* Ctrl-C at an empty prompt: the next one exits */
	char *history;    /* history file path (NULL: no history) */
	int stdin_copy;   /* dup of fd 0, see repl__query() */
	long duration_ms; /* one-shot collection (default 1000; 0: until Ctrl-C) */
	long interval_ms; /* .interval: 0 = one-shot */
	long freq_hz;     /* .freq: for PMU tables */
	char cpu_list[256], pid_list[256];
	char out_path[PATH_MAX];            /* .output FILE ("" for stdout) */
	char *pending;                      /* the statement being typed (lines so far) */
	char *last_sql;                     /* the last query run, for .save and .explain */
	struct query_param last_params[32]; /* and its parameters (strings ours) */
	int nr_last_params;
	double last_ms; /* its wall time */
	int last_status;
	int status; /* first failure's exit status */
};

/* Runs the REPL with q's settings (q->q.sql unset); returns the exit status. */
int repl__main(struct run *q);
/* run__query(q), keeping stdin open across it */
int repl__query(struct repl *r, struct run *q);
/*
 * Runs sql with the current settings and params (explain: the plan only); it becomes the last
 * query (.save, .explain); records its status and time.
 */
int repl__run_sql(struct repl *r, const char *sql, const struct query_param *params, int nr,
		  bool explain);
/* Records a failed statement or command's status (the first one sticks). */
int repl__fail(struct repl *r, int status);

/* shell/commands.c: one dot command line (".mode csv"); its status (0 ok) */
int commands__run(struct repl *r, const char *line);
/* name of the nth dot command ("help"), NULL past the end */
const char *commands__name(int nth);

/* shell/complete.c: readline completion over r's catalog, columns, functions, commands */
void complete__init(struct repl *r);
#endif
