/*
 * engine/query.h - running one query: the one run path of the command line, the REPL, the
 * server (perf-sql serve) and the loadable extension (perf_sql_collect). Nothing here prints: what the person should
 * read comes back through the callbacks (rows, warnings) and struct err (failures).
 *
 *   struct query q = { .sql = "select comm, count(*) from sched_switch group by comm",
 *                      .so = { .duration_ms = 2000 } };
 *   struct query_ops ops = { .window = print_rows, .notice = print_line };
 *   query__run(&q, &ops, ctx, &e);    // plan, collect, ops.window once per window
 *
 * (1) Planning: a session (live, or over a capture), the probe tables, the locked-down
 *     connection with every table and function, every statement prepared with q->params
 *     bound, the workload forked (held before exec), one dry run over empty windows that
 *     turns WHERE into kernel filters. ops.planned sees the plan; q->plan_only stops there.
 * (2) Collecting: the session starts, each window ends with ops.window(ctx, q, s): the
 *     callback steps q->stmts (reset) and reads their rows. A capture is written instead
 *     when q->record_path is set (ops.window is not called).
 * (3) Errors are -errno with e filled; e->usage marks the caller's input as the fault (exit 2).
 */
#ifndef PERF_SQL_ENGINE_QUERY_H
#define PERF_SQL_ENGINE_QUERY_H
#include <stdbool.h>
#include <stdio.h>
#include <sqlite3.h>
#include "core/err.h"
#include "core/session.h"
#include "engine/lockdown.h"

struct capture_writer;
struct bpf_facts;

#define QUERY_MAX_STMTS 32
#define QUERY_MAX_PARAMS 32
#define QUERY_MAX_PROBES 16

/* a value for a named parameter (":than") of every statement; unbound ones are NULL */
struct query_param {
	const char *name; /* with its prefix: ":than" */
	int type;         /* SQLITE_INTEGER, SQLITE_FLOAT, SQLITE_TEXT or SQLITE_NULL */
	sqlite3_int64 i;
	double d;
	const char *text;
};

enum probe_kind { PROBE_UPROBE, PROBE_URETPROBE, PROBE_BREAKPOINT, PROBE_USDT };

struct query {
	/* what to run: set by the caller */
	struct session_opts so;
	const char *sql;
	bool plan_only;   /* --explain, --schema: stop after planning */
	bool no_pushdown; /* --no-pushdown: benchmarks only */
	bool no_bpf;      /* --no-bpf: every table on the perf ring (docs/bpf.md) */
	int max_groups;   /* --max-groups: BPF map size (0: the default) */
	struct {
		const char *spec;
		enum probe_kind kind;
	} probes[QUERY_MAX_PROBES]; /* --uprobe, --uretprobe, --usdt, --breakpoint */
	int nr_probes;
	const char *record_path; /* perf-sql record -o FILE: windows go to a capture */
	const char *replay_path; /* -r FILE: tables come from a capture */
	/* --kernel-facts DIR: plan against another kernel's tracepoint formats (DIR/events) and
	 * BTF facts (DIR/facts, bpf/facts.h), offline: nothing is loaded (plan_only) */
	const char *kernel_facts;
	const char *command_line; /* recorded in the capture's META */
	struct query_param params[QUERY_MAX_PARAMS];
	int nr_params;
	struct lockdown lock; /* --query-timeout, --allow-attach; the budget while running */
	/* more tables, from a layer above the engine (profilers as tables): called once the
	 * connection has the event tables and functions, before the SQL is prepared */
	int (*extend)(sqlite3 *db, struct session *s, const char *sql, struct err *e);
	/* the SQL as that layer would have it run (profilers named as tables inlined as CTEs:
	 * profilers/inline.c), or NULL: as written; called after extend (sqlite3_malloc'd) */
	char *(*rewrite)(sqlite3 *db, struct session *s, const char *sql);
	/* while running */
	sqlite3 *db;
	char *run_sql; /* rewrite's SQL, prepared instead of sql (sql, should it fail) */
	sqlite3_stmt *stmts[QUERY_MAX_STMTS];
	int nr_stmts;
	struct capture_writer *capture;
	unsigned long long record_t0;
	struct bpf_facts *facts; /* DIR/facts of kernel_facts, while running */
};

struct query_ops {
	/* after planning: the filters are decided, nothing is opened yet (may be NULL) */
	int (*planned)(void *ctx, struct query *q, struct session *s);
	/* the events are open and enabled, the filters set (may be NULL) */
	int (*started)(void *ctx, struct query *q, struct session *s);
	/* the end of each window: read q->stmts; 0, or -errno to stop (e from query__sql_err) */
	int (*window)(void *ctx, struct query *q, struct session *s, struct err *e);
	/* one line for the person: lost events, the workload's exit, what a recording wrote */
	void (*notice)(void *ctx, const char *line);
};

/* Plans, collects, calls ops per window; 0 or -errno with e set. */
int query__run(struct query *q, const struct query_ops *ops, void *ctx, struct err *e);
/*
 * Prepares q->sql on a catalog-only session (no events opened, no workload) with q->params
 * bound, to check it: 0, or -EINVAL with SQLite's message (and near table names) in e.
 */
int query__check(struct query *q, struct err *e);
/* The error of a statement of q: SQLite's message, the time budget or a refusal, with the
 * closest table names when a table is unknown. Returns -EINVAL. */
int query__sql_err(struct query *q, struct session *s, const char *msg, struct err *e);
/* The stderr line of a pairs() row (perf_sql_stats) whose pairs the kernel lost, or "". */
void query__pairs_warning(const struct extra_stat *x, int max_pending, char *buf, size_t len);
/* The warning for src's losses in this window, each cause with its remedy (the ring: -m or
 * WHERE; --max-memory; the BPF map, and of those nostack the BPF stack map: --max-groups;
 * of those skipped runs the kernel skipped (bpf/table.h (4)): --no-bpf; events the kernel
 * counted and never wrote: none), or "" for none. */
void query__lost_warning(const struct session *s, const struct source *src, int max_groups,
			 unsigned long long nostack, unsigned long long skipped, char *buf,
			 size_t len);
/* Should this window's loss of src go unsaid? Events the kernel counted and never wrote, and
 * nothing else, come back every window on an idle machine (a tracepoint fired in an idle
 * CPU's interrupts): the first window's are said, later ones' summed into
 * src->unwritten_later for query__lost_repeats(). */
bool query__lost_again(struct source *src, const struct session *s);
/* The end of the run's line for the losses query__lost_again() kept quiet, or "". */
void query__lost_repeats(const struct source *src, char *buf, size_t len);
/* Binds q->params to st's named parameters; an SQLite code. */
int query__bind_params(struct query *q, sqlite3_stmt *st);
/* --explain / -v: per table, what is opened, sampled and filtered where (engine/explain.c) */
/* the cgroup line of --explain for a table that reads _cgroup (engine/explain.c) */
void query__explain_cgroup(const struct session *s, bool kernel, FILE *f);
void query__explain(struct session *s, FILE *f);
#endif
