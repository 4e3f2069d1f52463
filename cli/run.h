/*
 * cli/run.h - the front end's side of a query: the engine runs it (engine/query.h), this
 * prints it (table/CSV/JSON, --schema, --explain, -v, flame graph and heatmap files) and
 * turns failures into one line and an exit status. Printing is the front end's alone.
 */
#ifndef PERF_SQL_RUN_H
#define PERF_SQL_RUN_H
#include <stdbool.h>
#include "core/err.h"
#include "engine/query.h"
#include "render/output.h"

struct status;

/* exit statuses: --help, the man page and docs/cli.md are made from run__exit_status() */
enum { EXIT_ERR = 1, EXIT_USAGE = 2, EXIT_PRIV = 77 };

struct exit_status {
	int code;
	const char *meaning;  /* "bad usage" */
	const char *examples; /* "an unknown option, ..." */
};

/* the nth row of the exit status table; NULL past the last */
const struct exit_status *run__exit_status(int nth);

struct run {
	struct query q; /* what the engine runs */
	struct output out;
	const char *schema;         /* --schema TABLE instead of SQL */
	bool explain;               /* --explain: print the plan, collect nothing */
	const char *flame_graph;    /* --flame-graph FILE */
	const char *heatmap_svg;    /* --heatmap FILE */
	const char *out_path;       /* -o FILE: checked first, made once planning held (out.f) */
	const char *out_name;       /* -o FILE or "stdout", for the messages of a failed write */
	bool unwritten;             /* a statement's rows of the last window were not written */
	bool quiet;                 /* -q: no status line (cli/status.c) */
	struct status *status_line; /* while running: erased before anything is printed */
	int status;                 /* while running: the first failure's exit status */
};

/* Plans, collects and prints; returns an exit status (0 ok). Ctrl-C ends collection. */
int run__query(struct run *r);

/* The one error printer: "perf-sql: MESSAGE" on stderr. */
void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Prints e as one line; returns the exit status it deserves (2 usage, 77 privilege, else 1). */
int report(const struct err *e);
/* "5s", "500ms", "2m", "1h", "5" (ms: core/units.h) -> ms; -1 if malformed */
long parse_duration(const char *s);
/* "256M", "1G", "4096" -> bytes; 0 if malformed */
size_t parse_size(const char *s);
#endif
