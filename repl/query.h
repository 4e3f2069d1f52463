/*
 * repl/query.h - running one query end to end (command line and REPL).
 */
#ifndef PERF_SQL_QUERY_H
#define PERF_SQL_QUERY_H
#include <stdbool.h>
#include <sqlite3.h>
#include "core/err.h"
#include "core/session.h"
#include "repl/lockdown.h"
#include "repl/output.h"

struct capture_writer;

/* exit statuses (docs/cli.md) */
enum { EXIT_ERR = 1, EXIT_USAGE = 2, EXIT_PRIV = 77 };

/* a value for a named parameter (":than") of every statement; unbound ones are NULL */
struct query_param {
	const char *name;       /* with its prefix: ":than" */
	int type;               /* SQLITE_INTEGER, SQLITE_FLOAT, SQLITE_TEXT or SQLITE_NULL */
	sqlite3_int64 i;
	double d;
	const char *text;
};

enum probe_kind { PROBE_UPROBE, PROBE_URETPROBE, PROBE_BREAKPOINT, PROBE_USDT };

struct query {
	struct session_opts so;
	struct output out;
	const char *sql;
	const char *schema;     /* --schema TABLE instead of sql */
	bool explain;           /* --explain: print the plan, collect nothing */
	bool no_pushdown;       /* --no-pushdown: benchmarks only */
	struct {
		const char *spec;
		enum probe_kind kind;
	} probes[16];           /* --uprobe, --uretprobe, --usdt, --breakpoint */
	int nr_probes;
	const char *flame_graph;   /* --flame-graph FILE */
	const char *heatmap_svg;   /* --heatmap FILE */
	const char *record_path;   /* perf-sql record -o FILE: windows go to a capture */
	const char *replay_path;   /* -r FILE: tables come from a capture */
	const char *command_line;  /* recorded in the capture's META */
	struct capture_writer *capture;
	unsigned long long record_t0;
	struct query_param params[32];
	int nr_params;
	struct lockdown lock;   /* --query-timeout, --allow-attach; the budget while running */
	/* while running */
	sqlite3 *db;
	sqlite3_stmt *stmts[32];
	int nr_stmts;
	int status;             /* first failure's exit status */
};

/* Plans, collects and prints; returns an exit status (0 ok). Ctrl-C ends collection. */
int query__run(struct query *q);

/* The one error printer: "perf-sql: MESSAGE" on stderr. */
void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Prints e as one line; returns the exit status it deserves. */
int report(const struct err *e);
/* "5" (seconds), "5s", "500ms", "2m", "1h" -> ms; -1 if malformed */
long parse_duration(const char *s);
/* "256M", "1G", "4096" -> bytes; 0 if malformed */
size_t parse_size(const char *s);
#endif
