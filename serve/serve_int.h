/*
 * serve/serve_int.h - what serve/serve.c (the run) and serve/serve_args.c (the command line) share:
 * the arguments of perf-sql serve and the state of one run.
 */
#ifndef PERF_SQL_SERVE_INT_H
#define PERF_SQL_SERVE_INT_H
#include <stdint.h>
#include "core/err.h"
#include "engine/query.h"
#include "profilers/profiler.h"
#include "serve/debug_pprof.h"
#include "serve/metrics.h"
#include "serve/serve.h"

#define SERVE_MAX_ARGS 16
#define SERVE_MARK "perf_sql_serve_next"
#define DEFAULT_LISTEN "127.0.0.1:9464"
#define DEFAULT_INTERVAL_MS 1000
#define DEFAULT_MAX_SERIES 10000
#define DEFAULT_MAX_LABEL_BYTES 4096
#define DEFAULT_MAX_EXPOSITION_BYTES (16u << 20)
#define ERROR_EVERY_S 60.0

struct serve_arg {
	const char *name;      /* --name, or the profiler's */
	const char *prof_name; /* NAME as given; NULL for SQL */
	const char *sql;
	char *owned_sql; /* a profiler's bound SQL (sqlite3_free) */
	struct profiler *p;
	char *args[QUERY_MAX_PARAMS]; /* its PARAM=VALUE arguments */
	int nr_args;
	struct query_param params[QUERY_MAX_PARAMS];
	int nr_params;
	char help[300];
	double err_said; /* when its last error was printed (5) */
};

/* --pprof NAME SQL|PROFILER: /debug/pprof/NAME (serve/debug_pprof.h) */
struct serve_pprof {
	const char *name, *spec;
	struct profiler *p; /* spec names a profiler */
	char *owned_sql;    /* its SQL, bound (sqlite3_free) */
	struct query_param params[QUERY_MAX_PARAMS];
	int nr_params;
};

struct serve {
	const char *listen;
	const char *next_name; /* --name, for the next argument */
	struct http_limits limits;
	const char *web_config_path; /* --web.config.file */
	struct web_config *web;
	size_t max_label_bytes, max_bytes; /* serve/metrics.h (5) */
	char bound[80];                    /* the address listened on */
	long max_series;
	struct serve_arg arg[SERVE_MAX_ARGS];
	int nr_arg;
	struct mbuf sql; /* every argument's SQL, joined (3) */
	struct serve_pprof pprof[PPROF_MAX_ENDPOINTS];
	int nr_pprof;
	int pprof_max_seconds; /* --pprof-max-seconds; 0: no /debug/pprof/ */
	struct debug_pprof *dp;
	struct metrics *m;
	struct http *http;
	int *stmt_of; /* q->stmts[i] -> metrics statement, -1: a marker */
	int *family_of;
	uint64_t windows;
	double window_seconds, window_end, start_time;
	struct err e; /* a failure of ours in a callback */
	struct said {
		char table[128]; /* "raw_syscalls:sys_enter" */
		double t;
	} * said; /* lost-event warnings: when each table's was printed */
	int nr_said;
};

struct cli;

/* Reads serve's arguments (argv[2..]) into sv, the query options into c; a mistake ends the
 * process with one line (usage_error), --help prints the usage and exits 0. */
void serve__parse_args(struct serve *sv, struct cli *c, int argc, char **argv);
#endif
