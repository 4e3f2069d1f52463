/*
 * cli/run.c - one query as the person sees it (see cli/run.h): the engine plans and collects,
 * the callbacks here print each window's rows, the plan (--explain, -v), a table's columns
 * (--schema), warnings, and at the end the flame graph and heatmap files.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/units.h"
#include "profilers/profiler.h"
#include "profilers/view.h"
#include "core/outfile.h"
#include "render/flamegraph.h"
#include "render/heatmap_svg.h"
#include "render/pprof.h"
#include "cli/run.h"
#include "cli/status.h"
#include "vtab/tp_table.h"

void say(const char *fmt, ...)
{
	char raw[2048], line[4096];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(raw, sizeof(raw), fmt, ap);
	va_end(ap);
	/* what the person gave, as printable UTF-8 (core/err.h) */
	fprintf(stderr, "perf-sql: %s\n", err_quote(line, sizeof(line), raw));
}

int report(const struct err *e)
{
	if (e->hint[0])
		say("%s; %s", e->msg, e->hint);
	else
		say("%s", e->msg);
	if (e->usage)
		return EXIT_USAGE;
	return e->code == -EACCES || e->code == -EPERM ? EXIT_PRIV : EXIT_ERR;
}

static const struct exit_status exit_statuses[] = {
	{ 0, "the query ran",
	  "also after Ctrl-C, SIGTERM or SIGHUP during collection, a closed pipe, a workload "
	  "that failed" },
	{ EXIT_ERR, "a runtime error",
	  "an event that would not open, a workload not found, a process, cgroup, binary or "
	  "symbol not found, -o not writable, a result not written (disk full), a statement past "
	  "--max-memory or --query-timeout, a statement ended by a signal while it ran" },
	{ EXIT_USAGE, "bad usage",
	  "an unknown option, a malformed value (-d, -i, -m, -C, -p, --breakpoint, --uprobe, "
	  "--usdt, a profiler's PARAM=VALUE), no SQL, SQL that does not prepare (syntax, no such "
	  "table or column), --schema of no table" },
	{ EXIT_PRIV, "not enough privilege",
	  "not root: tracefs or perf_event_open refused (the skip status of test suites)" },
};

const struct exit_status *run__exit_status(int nth)
{
	if (nth < 0 || (size_t)nth >= sizeof(exit_statuses) / sizeof(exit_statuses[0]))
		return NULL;
	return &exit_statuses[nth];
}

long parse_duration(const char *s)
{
	long long ns = units__ns(s);

	return ns < 0 ? -1 : (long)(ns / 1000000);
}

size_t parse_size(const char *s)
{
	long long b = units__bytes(s);

	return b > 0 ? (size_t)b : 0;
}

static void on_notice(void *ctx, const char *line)
{
	status__erase(((struct run *)ctx)->status_line);
	say("%s", line);
}

/* a statement's rows not written: with -i the next window tries again; the run's status is 1
 * when the last window's result is not whole (run__query) */
static void write_failed(struct run *r, const char *window)
{
	const char *name = r->out_name ? r->out_name : "stdout";

	r->unwritten = true;
	if (r->out.windowed)
		say("%s: %s; the rows of the window starting %s are not written (whole rows only: "
		    "a file is as it was; the next window tries again)",
		    name, strerror(r->out.write_error), window);
	else
		say("%s: %s; the result is not written (whole rows only: a file is as it was)",
		    name, strerror(r->out.write_error));
}

static int on_window(void *ctx, struct query *q, struct session *s, struct err *e)
{
	struct run *r = ctx;
	char window[64];

	status__erase(r->status_line);

	format_rfc3339(s->window_start_ns, window, sizeof(window));
	if (r->out.pprof)
		pprof__window(r->out.pprof, s);
	r->unwritten = false;
	for (int i = 0; i < q->nr_stmts; i++) {
		int rc;

		sqlite3_reset(q->stmts[i]);
		rc = output__statement(&r->out, q->stmts[i], i, window);
		if (r->out.write_error)
			write_failed(r, window);
		if (r->out.broken_pipe) {
			session_stop = 1;
			return 0;
		}
		if (rc != SQLITE_OK) {
			query__sql_err(q, s, sqlite3_errmsg(q->db), e);
			if (lockdown__stopped(&q->lock)) { /* a signal: the run ends, status 1 */
				r->status = report(e);
				return -EINTR;
			}
			if (!lockdown__expired(&q->lock))
				return -EINVAL;
			/* over the time budget: this window's result is lost, the next one runs */
			r->status = report(e);
			return 0;
		}
	}
	return 0;
}

/* --schema TABLE: its columns, from the planned pragma statement */
static int print_schema(struct run *r, struct query *q, struct session *s, struct err *e)
{
	char near[256] = "";

	lockdown__arm(&q->lock);
	if (sqlite3_step(q->stmts[0]) != SQLITE_ROW) {
		catalog__suggest(s->cat, r->schema, near, sizeof(near));
		err_set(e, -ENOENT, "no such table: %s", r->schema);
		if (near[0])
			err_hint(e, "did you mean: %s?", near);
		return err_usage(e);
	}
	sqlite3_reset(q->stmts[0]);
	if (output__statement(&r->out, q->stmts[0], 0, NULL) != SQLITE_OK)
		return query__sql_err(q, s, sqlite3_errmsg(q->db), e);
	return 0;
}

/* does sql name word as an identifier (no identifier character on either side)? */
static bool names_word(const char *sql, const char *word)
{
	size_t n = strlen(word);

	for (const char *p = sql; (p = strstr(p, word)); p += n) {
		bool before = p > sql && (isalnum((unsigned char)p[-1]) || p[-1] == '_' ||
					  p[-1] == '$' || p[-1] == '-');
		bool after =
			isalnum((unsigned char)p[n]) || p[n] == '_' || p[n] == '$' || p[n] == '-';

		if (!before && !after)
			return true;
	}
	return false;
}

/* the plan, then a line per table the SQL names that takes a profiler's name or alias
 * (kvm_exit, the tracepoint, over the profiler kvm-exit): which of the two the SQL reads */
static void explain(struct query *q, struct session *s, FILE *f)
{
	struct err e = { 0 };
	int nr = 0;
	struct profiler **list = profilers__list(&nr, &e);

	query__explain(s, f);
	for (int i = 0; list && i < nr; i++) {
		char table[80], as[96];
		const char *full;

		if (profilers__shadowed(s, list[i]->name, table, sizeof(table), &full) ||
		    !names_word(q->sql, table))
			continue;
		if (profilers__table_name(s, list[i]->name, as, sizeof(as)))
			snprintf(as, sizeof(as), "none: run it by name");
		fprintf(f, "note: %s is the table %s, not the profiler %s (as a table: %s)\n",
			table, full, list[i]->name, as);
	}
	profilers__free(list, nr);
}

static int on_planned(void *ctx, struct query *q, struct session *s)
{
	struct run *r = ctx;
	struct err e = { 0 };

	/* -o FILE: made once the SQL holds, so a typo leaves the old report as it was; a
	 * profile's once the run ended (write_files) */
	if (r->out.pprof)
		return 0;
	if (r->out_path && !(r->out.f = output__open(r->out_path, &e))) {
		r->out.f = stdout;
		r->status = report(&e);
		return e.code;
	}
	if (r->out_path)
		r->out_name = r->out_path;
	r->out_path = NULL;
	if (r->schema && print_schema(r, q, s, &e))
		r->status = report(&e);
	else if (r->explain)
		explain(q, s, stdout);
	return 0;
}

static int on_started(void *ctx, struct query *q, struct session *s)
{
	struct run *r = ctx;

	status__start(r->status_line);
	if (q->so.verbose)
		explain(q, s, stderr);
	return 0;
}

static const struct query_ops run_ops = {
	.planned = on_planned,
	.started = on_started,
	.window = on_window,
	.notice = on_notice,
};

/* the option's file may be written (core/outfile.h); else one line naming the option */
static int check_file(const char *option, const char *path, const char *suffix)
{
	char name[4200], msg[sizeof(((struct err *)0)->msg)];
	struct err e = { 0 };

	snprintf(name, sizeof(name), "%s%s", path, suffix);
	if (!outfile__check(name, &e))
		return 0;
	snprintf(msg, sizeof(msg), "%s", e.msg);
	snprintf(e.msg, sizeof(e.msg), "%s %.480s", option, msg);
	return report(&e);
}

/* --flame-graph FILE (and FILE.folded) and --heatmap FILE are checked before the collection,
 * so a planted link or a missing directory costs no run */
static int check_files(struct run *r)
{
	int status = 0;

	if (r->flame_graph && !(status = check_file("--flame-graph", r->flame_graph, "")))
		status = check_file("--flame-graph", r->flame_graph, ".folded");
	if (r->heatmap_svg && !status)
		status = check_file("--heatmap", r->heatmap_svg, "");
	return status;
}

/* -f pprof: the profile, unless no row had a stack */
static int write_pprof(struct run *r)
{
	struct err e = { 0 };
	size_t rows, samples;

	pprof__counts(r->out.pprof, &rows, &samples);
	if (rows && !samples) {
		say("-f pprof: no row of the result has a stack; select a table's stack column, "
		    "or GROUP BY stack (docs/pprof.md); nothing written");
		return EXIT_ERR;
	}
	if (rows > samples)
		say("-f pprof: %zu of %zu rows had no stack and are not in the profile",
		    rows - samples, rows);
	return pprof__save(r->out.pprof, r->out_path, &e) ? report(&e) : 0;
}

/* --flame-graph, --heatmap and -f pprof: written once the run succeeded */
static int write_files(struct run *r)
{
	const char *title = r->q.sql ? r->q.sql : "perf-sql";
	struct err e = { 0 };
	int status = r->out.pprof ? write_pprof(r) : 0;

	if (r->out.flame && flame__empty(r->out.flame)) {
		say("--flame-graph %s: the result has no folded_stack() value (no samples, or no "
		    "such column); nothing written",
		    r->flame_graph);
		status = EXIT_ERR;
	} else if (r->out.flame && flame__save(r->out.flame, r->flame_graph, title, &e)) {
		status = report(&e);
	}
	if (r->heatmap_svg && !r->out.heatmap) {
		say("--heatmap %s: the result has no heatmap() value", r->heatmap_svg);
		status = EXIT_ERR;
	} else if (r->heatmap_svg && heatmap_svg__save(r->out.heatmap, r->out.heatmap_len,
						       r->heatmap_svg, title, &e)) {
		status = report(&e);
	}
	return status;
}

/* --schema's TABLE as SQL writes it: "sched:sched_switch", [x] or `x` are the name inside */
static char *schema_name(const char *t)
{
	char close = *t == '"' ? '"' : *t == '`' ? '`' : *t == '[' ? ']' : 0;
	size_t n = strlen(t);
	char *name, *o;

	if (!close || n < 2 || t[n - 1] != close)
		return sqlite3_mprintf("%s", t);
	if (!(name = o = sqlite3_malloc64(n)))
		return NULL;
	for (const char *p = t + 1; p < t + n - 1; p++) {
		*o++ = *p;
		if (*p == close && close != ']' && p[1] == close)
			p++; /* "" inside "..." is one " */
	}
	*o = '\0';
	return name;
}

int run__query(struct run *r)
{
	struct status line;
	struct err e = { 0 };
	char *schema_sql = NULL;
	int ret;

	if ((r->status = check_files(r)))
		return r->status;
	if (r->out.mode == OUT_PPROF && (r->schema || r->explain))
		r->out.mode = OUT_TABLE; /* no profile: the table or the plan is printed */
	if (r->out.mode == OUT_PPROF && pprof__check(r->out_path, &e))
		return r->status = report(&e);
	if (r->out_path && outfile__check(r->out_path, &e))
		return r->status = report(&e);
	if (r->out.mode == OUT_PPROF && !(r->out.pprof = pprof__new())) {
		say("out of memory");
		return EXIT_ERR;
	}
	if (r->flame_graph && !(r->out.flame = flame__new())) {
		say("out of memory");
		return EXIT_ERR;
	}
	/* SQLite's memory: --max-memory more than the connection's own (engine/lockdown.h) */
	r->q.lock.opts.heap_limit =
		r->q.so.max_memory ? (int64_t)r->q.so.max_memory : LOCKDOWN_HEAP_DEFAULT;
	r->out.want_heatmap = r->heatmap_svg != NULL;
	r->out.windowed = r->q.so.interval_ms > 0;
	if (r->schema) {
		char *name = schema_name(r->schema);

		r->q.sql = schema_sql = sqlite3_mprintf("SELECT name AS column, type FROM "
							"pragma_table_xinfo(%Q)",
							name);
		sqlite3_free(name);
		if (!schema_sql) {
			say("out of memory");
			return r->status = EXIT_ERR;
		}
		r->q.so.workload = NULL;
	}
	r->q.plan_only = r->schema || r->explain;
	r->q.extend = profilers__register_views;
	r->q.rewrite = profilers__inline;
	status__init(&line, r);
	r->status_line = &line;
	ret = query__run(&r->q, &run_ops, r, &e);
	status__erase(&line);
	r->status_line = NULL;
	if (ret && !r->status)
		r->status = report(&e);
	if (r->unwritten && !r->status)
		r->status = EXIT_ERR; /* the last result is not whole: said in write_failed() */
	if (!r->status && !r->q.plan_only)
		r->status = write_files(r);
	if (schema_sql) {
		r->q.sql = NULL;
		sqlite3_free(schema_sql);
	}
	flame__free(r->out.flame);
	r->out.flame = NULL;
	pprof__free(r->out.pprof);
	r->out.pprof = NULL;
	free(r->out.heatmap);
	r->out.heatmap = NULL;
	return r->status;
}
