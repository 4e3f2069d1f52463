/*
 * repl/query.c - one query, end to end: open a session, plan (prepare every statement and
 * run it once over empty windows, so the tables named, columns read and WHERE values decide
 * what is opened and filtered), collect, and print each window. Used by the command line
 * and by the REPL; the only place, with them, that prints.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <linux/perf_event.h>
#include "core/session.h"
#include "repl/flamegraph.h"
#include "repl/heatmap_svg.h"
#include "core/record.h"
#include "repl/query.h"
#include "symbols/probes.h"
#include "sqlite/functions.h"
#include "vtab/tp_table.h"

void say(const char *fmt, ...)
{
	va_list ap;

	fputs("perf-sql: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

int report(const struct err *e)
{
	if (e->hint[0])
		say("%s; %s", e->msg, e->hint);
	else
		say("%s", e->msg);
	return e->code == -EACCES || e->code == -EPERM ? EXIT_PRIV : EXIT_ERR;
}

/* "5" (seconds), "5s", "500ms", "2m", "1h" -> ms; -1 if malformed */
long parse_duration(const char *s)
{
	char *end;
	double v = strtod(s, &end);

	if (end == s || v < 0)
		return -1;
	if (!*end || !strcmp(end, "s"))
		return (long)(v * 1000);
	if (!strcmp(end, "ms"))
		return (long)v;
	if (!strcmp(end, "m"))
		return (long)(v * 60000);
	if (!strcmp(end, "h"))
		return (long)(v * 3600000);
	return -1;
}

/* "256M", "1G", "4096" -> bytes; 0 if malformed */
size_t parse_size(const char *s)
{
	char *end;
	double v = strtod(s, &end);
	const char *units = "KMG";
	const char *u = *end ? strchr(units, *end & ~0x20) : NULL;

	if (end == s || v <= 0 || (*end && (!u || end[1])))
		return 0;
	for (const char *p = units; u && p <= u; p++)
		v *= 1024;
	return (size_t)v;
}

/* SQLite's message, with the closest table names when a table is unknown */
static int sql_error(struct query *c, struct session *s, const char *msg)
{
	const char *key = "no such table: ";
	char near[256] = "";

	msg = lockdown__error(&c->lock, msg);   /* the time budget, a refusal: say which */
	if (!strncmp(msg, key, strlen(key))) {
		const char *name = msg + strlen(key);

		if (!strncmp(name, "main.", 5))
			name += 5;
		catalog__suggest(s->cat, name, near, sizeof(near));
		if (near[0])
			say("%s; did you mean: %s?", msg, near);
		else
			say("%s; list tables with: perf-sql \"select name from perf_sql_events\"", msg);
	} else if (!strncmp(msg, "no such column: ", 16)) {
		say("%s; list a table's columns with: perf-sql --schema TABLE", msg);
	} else {
		say("%s", msg);
	}
	return EXIT_ERR;
}

static int bind_params(struct query *c, sqlite3_stmt *st)
{
	for (int i = 0; i < c->nr_params; i++) {
		const struct query_param *p = &c->params[i];
		int idx = sqlite3_bind_parameter_index(st, p->name), rc = SQLITE_OK;

		if (!idx)
			continue;
		switch (p->type) {
		case SQLITE_INTEGER: rc = sqlite3_bind_int64(st, idx, p->i); break;
		case SQLITE_FLOAT: rc = sqlite3_bind_double(st, idx, p->d); break;
		case SQLITE_TEXT: rc = sqlite3_bind_text(st, idx, p->text, -1, SQLITE_TRANSIENT); break;
		default: rc = sqlite3_bind_null(st, idx); break;
		}
		if (rc != SQLITE_OK)
			return rc;
	}
	return SQLITE_OK;
}

static int prepare_all(struct query *c, struct session *s)
{
	const char *sql = c->sql, *tail;

	while (sql && *sql) {
		sqlite3_stmt *st = NULL;

		if (sqlite3_prepare_v2(c->db, sql, -1, &st, &tail) != SQLITE_OK)
			return sql_error(c, s, sqlite3_errmsg(c->db));
		sql = tail;
		if (!st)
			continue;   /* whitespace or a comment */
		if (bind_params(c, st) != SQLITE_OK) {
			sqlite3_finalize(st);
			return sql_error(c, s, sqlite3_errmsg(c->db));
		}
		if (c->nr_stmts == (int)(sizeof(c->stmts) / sizeof(c->stmts[0]))) {
			sqlite3_finalize(st);
			say("too many statements: at most 32");
			return EXIT_USAGE;
		}
		c->stmts[c->nr_stmts++] = st;
	}
	if (!c->nr_stmts) {
		say("no SQL statement in '%s'", c->sql);
		return EXIT_USAGE;
	}
	return 0;
}

static void warn_lost(struct session *s)
{
	for (int i = 0; i < s->nr_src; i++) {
		struct source *src = s->src[i];
		uint64_t lost = 0, dropped = 0;

		for (int k = 0; k < s->nr_cpus; k++) {
			lost += src->lost[k];
			dropped += src->dropped[k];
		}
		if (dropped)
			say("warning: %s lost %llu events in this window, %llu of them past "
			    "--max-memory (%zu MiB); raise --max-memory, use -i, or filter more in "
			    "WHERE", src->ev->full, (unsigned long long)lost,
			    (unsigned long long)dropped, s->opts.max_memory ? s->opts.max_memory >> 20 : 256);
		else if (lost && s->replay)
			say("warning: %s lost %llu events in this window when it was recorded",
			    src->ev->full, (unsigned long long)lost);
		else if (lost)
			say("warning: %s lost %llu events in this window; raise -m (now %d pages) or "
			    "filter more in WHERE", src->ev->full, (unsigned long long)lost,
			    s->opts.mmap_pages);
	}
}

static int on_window(void *ctx, struct session *s)
{
	struct query *c = ctx;
	char window[64];
	int ret;

	if (c->capture) {   /* recording: the window's rows go to the file, nothing is printed */
		warn_lost(s);
		if ((ret = record__window(s, c->capture)))
			say("%s: %s", c->record_path, strerror(-ret));
		return ret;
	}
	format_rfc3339(s->window_start_ns, window, sizeof(window));
	warn_lost(s);
	lockdown__arm(&c->lock);
	for (int i = 0; i < c->nr_stmts; i++) {
		int rc;

		sqlite3_reset(c->stmts[i]);
		rc = output__statement(&c->out, c->stmts[i], i, window);
		if (c->out.write_error)
			say("output: %s; the rows of the window starting %s are not written (whole rows "
			    "only: the file is as it was; the next window tries again)",
			    strerror(c->out.write_error), window);
		if (c->out.broken_pipe) {
			session_stop = 1;
			return 0;
		}
		if (rc != SQLITE_OK) {
			c->status = sql_error(c, s, sqlite3_errmsg(c->db));
			/* over the time budget: this window's result is lost, the next one runs */
			return lockdown__expired(&c->lock) ? 0 : -EIO;
		}
	}
	return 0;
}

static int print_schema(struct query *c, struct session *s)
{
	c->sql = sqlite3_mprintf("SELECT name AS column, type FROM pragma_table_xinfo(%Q)", c->schema);
	if (prepare_all(c, s))
		return EXIT_ERR;
	lockdown__arm(&c->lock);
	if (sqlite3_step(c->stmts[0]) != SQLITE_ROW) {
		char near[256] = "";

		catalog__suggest(s->cat, c->schema, near, sizeof(near));
		say("no such table: %s%s%s%s", c->schema, near[0] ? "; did you mean: " : "", near,
		    near[0] ? "?" : "");
		return EXIT_ERR;
	}
	sqlite3_reset(c->stmts[0]);
	return output__statement(&c->out, c->stmts[0], 0, NULL) == SQLITE_OK ? 0 : EXIT_ERR;
}

/*
 * Planning dry run: every statement runs once over empty windows, so each table scan sees its
 * constraints' actual values (parameters, workload_pid()) and turns them into kernel filters.
 */
static int dry_run(struct query *c, struct session *s)
{
	s->dry_run = true;
	lockdown__arm(&c->lock);
	for (int i = 0; i < c->nr_stmts; i++) {
		int rc;

		while ((rc = sqlite3_step(c->stmts[i])) == SQLITE_ROW)
			;
		sqlite3_reset(c->stmts[i]);
		if (rc != SQLITE_DONE) {
			s->dry_run = false;
			return sql_error(c, s, sqlite3_errmsg(c->db));
		}
	}
	s->dry_run = false;
	return 0;
}

static void sample_type_names(uint64_t st, char *buf, size_t len)
{
	static const struct { uint64_t bit; const char *name; } bits[] = {
		{ PERF_SAMPLE_IDENTIFIER, "IDENTIFIER" }, { PERF_SAMPLE_IP, "IP" },
		{ PERF_SAMPLE_TID, "TID" }, { PERF_SAMPLE_TIME, "TIME" }, { PERF_SAMPLE_ADDR, "ADDR" },
		{ PERF_SAMPLE_CPU, "CPU" }, { PERF_SAMPLE_PERIOD, "PERIOD" },
		{ PERF_SAMPLE_CALLCHAIN, "CALLCHAIN" }, { PERF_SAMPLE_RAW, "RAW" },
		{ PERF_SAMPLE_REGS_USER, "REGS_USER" },
	};
	size_t off = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < sizeof(bits) / sizeof(bits[0]); i++)
		if (st & bits[i].bit)
			off += (size_t)snprintf(buf + off, len - off, "%s%s", off ? "|" : "", bits[i].name);
}

/* --explain / -v: per table, what is opened, sampled and filtered where. */
static void explain(struct query *c, struct session *s, FILE *f)
{
	char st[256];

	if (!s->started)
		session__plan_filters(s);
	for (int i = 0; i < s->nr_src; i++) {
		struct source *src = s->src[i];

		sample_type_names(source__sample_type(src), st, sizeof(st));
		fprintf(f, "table %s\n", src->ev->full);
		if (src->ev->kind == EV_TRACEPOINT)
			fprintf(f, "  event        type=tracepoint config=%d (%s) %s\n", src->ev->id,
				src->ev->full, !source__counts(src) ? "sample_period=1" :
								      "counting (no column is read)");
		else
			fprintf(f, "  event        type=%s (%u) config=%#llx %s\n",
				event_kind_name(src->ev->kind), src->ev->pmu_type,
				(unsigned long long)src->ev->pmu_config, source__counts(src) ?
				"counting (no column is read)" : src->hz ? "sampled at the asked rate" :
				src->period ? "sampled every period events" : "sampled at the default rate");
		fprintf(f, "  sample_type  %s\n", !source__counts(src) ? st : "none");
		if (src->tree_filter)
			fprintf(f, "  target       every CPU; rows of the workload's tasks (the task, "
				"or %s%s%s) kept in user space: a per-task event misses wakeups\n",
				src->task_fields[0], src->task_fields[1] ? "/" : "",
				src->task_fields[1] ? src->task_fields[1] : "");
		else if (src->task_fields[0])
			fprintf(f, "  target       every CPU, filtered on %s%s%s (a per-task event would "
				"miss wakeups)\n", src->task_fields[0], src->task_fields[1] ? "/" : "",
				src->task_fields[1] ? src->task_fields[1] : "");
		else if (s->nr_tids)
			fprintf(f, "  target       %d thread%s (inherit: new threads followed), %d CPUs\n",
				s->nr_tids, s->nr_tids == 1 ? "" : "s", s->nr_cpus);
		else if (s->wl.pid && !s->opts.all)
			fprintf(f, "  target       workload pid %d and its children (inherit, "
				"enable_on_exec), %d CPUs\n", (int)s->wl.pid, s->nr_cpus);
		else
			fprintf(f, "  target       every task on %d CPUs (perf-sql itself left out)\n",
				s->nr_cpus);
		if (source__counts(src))
			fprintf(f, "  ring         none needed (1 page per CPU, unused)\n");
		else
			fprintf(f, "  ring         %d pages per CPU, wakeup at a quarter full\n",
				s->opts.mmap_pages);
		fprintf(f, "  kernel filter %s%s\n", src->filter[0] ? src->filter : "(none)",
			src->filter_rejected ? "  [rejected by the kernel: user space only]" : "");
		fprintf(f, "  from WHERE   %s\n", !src->want_all && src->want_filter[0] ?
			src->want_filter : "nothing the kernel can test (or a scan needs every row)");
		fprintf(f, "  user space   SQLite checks every WHERE term again\n");
	}
	if (!s->nr_src)
		fprintf(f, "no event tables: nothing is opened\n");
}

static void report_workload(const struct workload *w)
{
	if (!w->pid || !w->exited)
		return;
	if (WIFEXITED(w->status) && WEXITSTATUS(w->status))
		say("workload '%s' exited with status %d", w->argv[0], WEXITSTATUS(w->status));
	else if (WIFSIGNALED(w->status))
		say("workload '%s' was killed by signal %d (%s)", w->argv[0], WTERMSIG(w->status),
		    strsignal(WTERMSIG(w->status)));
}

/* --uprobe/--uretprobe/--breakpoint tables join the catalog before the tables are registered */
static int add_probes(struct query *c, struct session *s)
{
	struct err e = { 0 };
	int nr_bp = 0, ret = 0;

	for (int i = 0; i < c->nr_probes && !ret; i++) {
		if (c->probes[i].kind == PROBE_BREAKPOINT)
			ret = probes__add_breakpoint(s->cat, c->probes[i].spec,
						     c->so.workload ? c->so.workload[0] : NULL, nr_bp++, &e);
		else if (c->probes[i].kind == PROBE_USDT)
			ret = probes__add_usdt(s->cat, c->probes[i].spec, &e);
		else
			ret = probes__add_uprobe(s->cat, c->probes[i].spec,
						 c->probes[i].kind == PROBE_URETPROBE, &e);
	}
	return ret ? report(&e) : 0;
}

static int record_start(struct query *c, struct session *s)
{
	struct err e = { 0 };
	int ret;

	c->capture = capture__create(c->record_path, &e);
	if (!c->capture)
		return report(&e);
	ret = record__begin(s, c->capture, c->command_line ? c->command_line : "");
	if (ret) {
		say("%s: %s", c->record_path, strerror(-ret));
		return EXIT_ERR;
	}
	c->record_t0 = now_ns(CLOCK_MONOTONIC);
	return 0;
}

/* the capture's last block, then what was written: events, compression ratio, write rate */
static int record_finish(struct query *c, struct session *s)
{
	uint64_t raw, file, events = 0, lost = 0;
	double secs = (double)(now_ns(CLOCK_MONOTONIC) - c->record_t0) / 1e9;
	struct err e = { 0 };
	int ret = record__end(s, c->capture);

	capture__sizes(c->capture, &raw, &file);
	if (capture__close(c->capture, &e) || ret) {
		c->capture = NULL;
		return e.code ? report(&e) : (say("%s: %s", c->record_path, strerror(-ret)), EXIT_ERR);
	}
	c->capture = NULL;
	for (int i = 0; i < s->nr_src; i++) {
		events += s->src[i]->total_received;
		lost += s->src[i]->total_lost;
	}
	fprintf(stderr, "perf-sql: recorded %llu events (%llu lost) of %d tables in %s: %.1f MB of rows "
		"in %.1f MB (%.1fx), %.1f MB/s\n", (unsigned long long)events, (unsigned long long)lost,
		s->nr_src, c->record_path, (double)raw / 1e6, (double)file / 1e6,
		file ? (double)raw / (double)file : 0.0, secs > 0 ? (double)file / 1e6 / secs : 0.0);
	return 0;
}

static int run(struct query *c, struct session *s)
{
	struct err e = { 0 };
	char *msg = NULL;
	int rc;

	s->no_pushdown = c->no_pushdown;
	if ((rc = add_probes(c, s)))
		return rc;
	if (sqlite3_open_v2(":memory:", &c->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_MEMORY, NULL) ||
	    (rc = vtabs__register(c->db, s)) || (rc = sql_functions__register(c->db, s))) {
		say("sqlite: %s", c->db ? sqlite3_errmsg(c->db) : "out of memory");
		return EXIT_ERR;
	}
	if (lockdown__apply(c->db, &c->lock, &msg)) {
		say("%s", msg ? msg : "sqlite: cannot lock the connection down");
		sqlite3_free(msg);
		return EXIT_ERR;
	}
	if (c->schema)
		return print_schema(c, s);
	if ((rc = prepare_all(c, s)))
		return rc;
	if (session__fork(s, &e))
		return report(&e);
	if ((rc = dry_run(c, s)))
		return rc;
	if (c->explain) {
		explain(c, s, stdout);
		return 0;
	}
	if (session__start(s, &e))
		return report(&e);
	if (c->so.verbose)
		explain(c, s, stderr);
	if (c->record_path && (rc = record_start(c, s)))
		return rc;
	c->out.windowed = c->so.interval_ms > 0;
	if (session__run(s, on_window, c, &e) && !c->status)
		return report(&e);
	if (c->capture && (rc = record_finish(c, s)))
		return rc;
	report_workload(&s->wl);
	return c->status;
}

int query__run(struct query *c)
{
	struct err e = { 0 };
	struct session *s;
	int status;

	c->db = NULL;
	c->nr_stmts = 0;
	c->status = 0;
	session_stop = 0;
	s = c->replay_path ? session__new_replay(&c->so, c->replay_path, &e) : session__new(&c->so, &e);
	if (!s)
		return report(&e);
	if (c->flame_graph && !(c->out.flame = flame__new())) {
		session__close(s);
		say("out of memory");
		return EXIT_ERR;
	}
	c->out.want_heatmap = c->heatmap_svg != NULL;
	status = run(c, s);
	if (c->out.flame && !status) {
		int ret = flame__write(c->out.flame, c->flame_graph, c->sql ? c->sql : "perf-sql");

		if (ret) {
			say("--flame-graph %s: %s; check the directory is writable", c->flame_graph,
			    strerror(-ret));
			status = EXIT_ERR;
		}
	}
	flame__free(c->out.flame);
	c->out.flame = NULL;
	if (c->heatmap_svg && !status) {
		int ret = c->out.heatmap ? heatmap_svg__write(c->out.heatmap, c->out.heatmap_len,
							      c->heatmap_svg, c->sql ? c->sql : "") : -ENODATA;

		if (ret == -ENODATA)
			say("--heatmap %s: the result has no heatmap() value", c->heatmap_svg);
		else if (ret)
			say("--heatmap %s: %s; check the directory is writable", c->heatmap_svg,
			    strerror(-ret));
		status = ret ? EXIT_ERR : 0;
	}
	free(c->out.heatmap);
	c->out.heatmap = NULL;
	for (int i = 0; i < c->nr_stmts; i++)
		sqlite3_finalize(c->stmts[i]);
	sqlite3_close(c->db);   /* before the session: the tables point into it */
	c->db = NULL;
	session__close(s);
	return status;
}
