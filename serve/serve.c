/*
 * serve/serve.c - perf-sql serve: the named profilers and queries, every window, as Prometheus
 * metrics at http://127.0.0.1:9464/metrics (docs/prometheus.md).
 *
 *   perf-sql serve syscalls
 *   perf-sql serve --listen 0.0.0.0:9464 -i 5000 syscalls than=1ms rundelay \
 *                  --name writes "select comm, count(*) as calls from sys_enter_write group by comm"
 *
 * (1) The arguments: NAME [PARAM=VALUE ...] runs a profiler (saved or built-in) with its
 *     parameters; any other argument is SQL; --name N names the next one (the <family> of its
 *     metric names; default the profiler's name, or query, query2, ... for SQL). The
 *     collection options of a query apply (-i, default 1000 ms; -d, -C, -p, -t, --cgroup, -m,
 *     --max-memory, --query-timeout, -F, --uprobe, ...); output options do not, nor a workload.
 * (2) The SQL is fixed here, at start: nothing a client sends is run.
 * (3) One engine run for all of them: their statements are joined, with a marker statement
 *     (SELECT 1 AS perf_sql_serve_next) between two arguments, so they share one session (one
 *     ring per table and CPU) and statement i is known to belong to family f. Parameters are
 *     bound by name to every statement, so two arguments may share a parameter name only with
 *     the same value.
 * (4) Each argument is prepared alone first, so a mistake names its argument.
 * (5) A window's failed statement (an SQL error, --query-timeout) is reported on stderr at
 *     most once a minute per family and counted in perf_sql_query_errors_total; the server
 *     keeps running. SIGTERM, SIGINT or SIGHUP end the run at once: a running statement is
 *     stopped (engine/lockdown.h), the window in progress is not queried (its scrapes would
 *     never come), the events closed, the server stopped, exit 0.
 */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>
#include "profilers/profiler.h"
#include "profilers/view.h"
#include "cli/cli.h"
#include "serve/serve.h"
#include "serve/serve_int.h"
#include "serve/web_config.h"

static double now_s(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* ------------------------------------------------------------- the statements to run */

/* a profiler's SQL and parameters; a query's family name and help */
static int bind_arg(struct serve_arg *sa, int nth_sql, struct err *e)
{
	size_t n;

	if (!sa->prof_name) {
		static char names[SERVE_MAX_ARGS][16];

		if (!sa->name) {
			snprintf(names[nth_sql], sizeof(names[0]), nth_sql ? "query%d" : "query",
				 nth_sql + 1);
			sa->name = names[nth_sql];
		}
		n = strlen(sa->sql);
		snprintf(sa->help, sizeof(sa->help), "perf-sql serve query: %.*s%s", 200, sa->sql,
			 n > 200 ? " ..." : "");
		for (char *p = sa->help; *p; p++) /* one line */
			if (*p == '\n' || *p == '\t')
				*p = ' ';
		return 0;
	}
	if (!(sa->p = profiler__find(sa->prof_name, e)))
		return err_usage(e);
	if (profiler__bind(sa->p, sa->nr_args, sa->args, sa->params, QUERY_MAX_PARAMS,
			   &sa->nr_params, &sa->owned_sql, e)) {
		if (!e->hint[0])
			err_hint(e, "perf-sql help %s lists its parameters", sa->p->name);
		return err_usage(e);
	}
	sa->sql = sa->owned_sql;
	if (!sa->name)
		sa->name = sa->p->name;
	snprintf(sa->help, sizeof(sa->help), "%s", sa->p->summary);
	return 0;
}

static bool same_param(const struct query_param *a, const struct query_param *b)
{
	if (a->type != b->type)
		return false;
	switch (a->type) {
	case SQLITE_INTEGER: return a->i == b->i;
	case SQLITE_FLOAT: return a->d == b->d;
	case SQLITE_TEXT: return !strcmp(a->text, b->text);
	default: return true;
	}
}

/* sa's parameters join q's (3) */
static int merge_params(struct query *q, const struct serve_arg *sa, struct err *e)
{
	for (int i = 0; i < sa->nr_params; i++) {
		const struct query_param *p = &sa->params[i];
		int j = 0;

		while (j < q->nr_params && strcmp(q->params[j].name, p->name))
			j++;
		if (j < q->nr_params && !same_param(&q->params[j], p)) {
			err_set(e, -EINVAL,
				"serve: %s: parameter %s differs from an earlier profiler's: "
				"the statements of one server share their parameters",
				sa->name, p->name);
			err_hint(e, "give both the same value, or run two servers");
			return err_usage(e);
		}
		if (j < q->nr_params)
			continue;
		if (q->nr_params == QUERY_MAX_PARAMS) {
			err_set(e, -E2BIG, "serve: more than %d parameters in all",
				QUERY_MAX_PARAMS);
			return err_usage(e);
		}
		q->params[q->nr_params++] = *p;
	}
	return 0;
}

/* (4): one argument (or --pprof's SQL) prepared alone; its error names it */
static int check_sql(const struct query *base, const char *name, const char *sql,
		     const struct query_param *params, int nr_params, struct err *e)
{
	struct query q = {
		.sql = sql, .lock = base->lock, .extend = base->extend, .rewrite = base->rewrite
	};
	char msg[sizeof(e->msg) + 80];
	char *ended = sqlite3_mprintf("%s\n;", sql);

	if (!ended)
		return err_set(e, -ENOMEM, "out of memory");
	if (!sqlite3_complete(ended)) { /* SQLite takes it alone: joined, it hides the rest (3) */
		sqlite3_free(ended);
		err_set(e, -EINVAL, "serve: %.64s: its SQL ends inside an unclosed /* comment",
			name);
		return err_hint(e, "close it with */ (serve joins the arguments' SQL: it would "
				   "hide the statements after it)");
	}
	sqlite3_free(ended);
	memcpy(q.params, params, (size_t)nr_params * sizeof(q.params[0]));
	q.nr_params = nr_params;
	if (base->nr_probes || !query__check(&q, e))
		return 0; /* probe tables are made by the run: it checks those */
	snprintf(msg, sizeof(msg), "serve: %.64s: %s", name, e->msg);
	snprintf(e->msg, sizeof(e->msg), "%.*s", (int)sizeof(e->msg) - 1, msg);
	return e->code;
}

static int check_arg(const struct query *base, const struct serve_arg *sa, struct err *e)
{
	return check_sql(base, sa->name, sa->sql, sa->params, sa->nr_params, e);
}

static int plan_args(struct serve *sv, struct query *q, struct err *e)
{
	int nth_sql = 0, ret;

	for (int i = 0; i < sv->nr_arg; i++) {
		struct serve_arg *sa = &sv->arg[i];

		if ((ret = bind_arg(sa, sa->prof_name ? 0 : nth_sql, e)) ||
		    (ret = merge_params(q, sa, e)) || (ret = check_arg(q, sa, e)))
			return ret;
		nth_sql += !sa->prof_name;
		mbuf__printf(&sv->sql, "%s\n;\n%s", sa->sql,
			     i + 1 < sv->nr_arg ? "SELECT 1 AS " SERVE_MARK ";\n" : "");
		if (metrics__family(sv->m, sa->name, sa->help) < 0)
			return err_set(e, -ENOMEM, "out of memory");
	}
	if (sv->sql.oom)
		return err_set(e, -ENOMEM, "out of memory");
	q->sql = sv->sql.p;
	return 0;
}

/* --pprof NAME PROFILER: the profiler's stack query (its pprof line, else its SQL), with its
 * parameters' defaults */
static int bind_pprof(struct serve_pprof *sp, struct err *e)
{
	char *text;
	int ret;

	if (!(sp->p = profiler__find(sp->spec, e)))
		return err_usage(e);
	text = sp->p->text;
	if (sp->p->pprof[0])
		sp->p->text = sp->p->pprof; /* what profiler__bind() reads */
	ret = profiler__bind(sp->p, 0, NULL, sp->params, QUERY_MAX_PARAMS, &sp->nr_params,
			     &sp->owned_sql, e);
	sp->p->text = text;
	return ret ? err_usage(e) : 0;
}

/* /debug/pprof/: the CPU profile and each --pprof (serve/debug_pprof.h) */
static int plan_pprof(struct serve *sv, const struct query *q, struct err *e)
{
	char what[240];
	int ret;

	if (!(sv->dp = debug_pprof__new(sv->pprof_max_seconds)))
		return err_set(e, -ENOMEM, "out of memory");
	if (!sv->pprof_max_seconds)
		return 0;
	snprintf(what, sizeof(what),
		 "CPU profile: cpu_clock's stacks at %d Hz (-F), counted in the kernel, of %s",
		 q->so.freq > 0 ? q->so.freq : 99,
		 q->so.pid_list || q->so.tid_list || q->so.cgroup ? "serve's -p, -t or --cgroup"
								  : "every task");
	if ((ret = debug_pprof__add(sv->dp, "profile", PPROF_CPU_SQL, NULL, 0, what, e)))
		return ret;
	for (int i = 0; i < sv->nr_pprof; i++) {
		struct serve_pprof *sp = &sv->pprof[i];
		const char *sql = sp->spec;

		if (!profiler__check_name(sp->spec, &(struct err){ 0 })) {
			if ((ret = bind_pprof(sp, e)))
				return ret;
			sql = sp->owned_sql;
		}
		snprintf(what, sizeof(what), "%s%s", sp->p ? "profiler " : "",
			 sp->p ? sp->p->name : sql);
		if ((ret = debug_pprof__add(sv->dp, sp->name, sql, sp->params, sp->nr_params, what,
					    e)))
			return err_usage(e);
		snprintf(what, sizeof(what), "--pprof %s", sp->name);
		if ((ret = check_sql(q, what, sql, sp->params, sp->nr_params, e)))
			return ret;
	}
	debug_pprof__set_query(sv->dp, q);
	return 0;
}

/* ------------------------------------------------------------------------ the run */

static void process_health(struct metrics_health *h)
{
	struct rusage ru;
	unsigned long size, resident;
	FILE *f = fopen("/proc/self/statm", "r");
	DIR *d = opendir("/proc/self/fd");
	struct dirent *de;

	if (f && fscanf(f, "%lu %lu", &size, &resident) == 2)
		h->rss_bytes = (uint64_t)resident * (uint64_t)sysconf(_SC_PAGESIZE);
	if (f)
		fclose(f);
	if (!getrusage(RUSAGE_SELF, &ru))
		h->cpu_seconds = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
				 (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
	while (d && (de = readdir(d)))
		h->open_fds += de->d_name[0] != '.';
	if (d) {
		closedir(d);
		h->open_fds--; /* opendir's own */
	}
}

/* both renderings of the state now, made what scrapes get */
static void publish(struct serve *sv, struct session *s)
{
	struct metrics_table *tables = s ? calloc((size_t)s->nr_src + 1, sizeof(*tables)) : NULL;
	struct metrics_health h = {
		.windows = sv->windows,
		.window_seconds = sv->window_seconds,
		.window_end = sv->window_end,
		.tables = tables,
		.start_time = sv->start_time,
	};
	struct mbuf text = { 0 }, om = { 0 };

	if (s && !tables)
		return; /* out of memory: scrapes keep the last whole one */
	for (int i = 0; s && i < s->nr_src; i++) { /* one series per table name */
		int t = 0;

		while (t < h.nr_tables && strcmp(tables[t].name, s->src[i]->ev->full))
			t++;
		if (t == h.nr_tables)
			tables[h.nr_tables++] = (struct metrics_table){ s->src[i]->ev->full, 0, 0 };
		tables[t].received += s->src[i]->total_received;
		tables[t].lost += s->src[i]->total_lost;
	}
	process_health(&h);
	metrics__render(sv->m, &h, METRICS_TEXT, &text);
	metrics__render(sv->m, &h, METRICS_OPENMETRICS, &om);
	if (!text.oom && !om.oom)
		http__publish(sv->http, &text, &om); /* else scrapes keep the last whole one */
	mbuf__free(&text);
	mbuf__free(&om);
	free(tables);
}

static bool is_mark(sqlite3_stmt *st)
{
	return sqlite3_column_count(st) == 1 && !strcmp(sqlite3_column_name(st, 0), SERVE_MARK);
}

/* the statements of the argument whose first is q->stmts[first] (up to a marker) */
static int stmts_in(const struct query *q, int first)
{
	int n = 0;

	while (first + n < q->nr_stmts && !is_mark(q->stmts[first + n]))
		n++;
	return n;
}

/* which statements belong to which argument (3), and the text each came from */
static int on_planned(void *ctx, struct query *q, struct session *s)
{
	struct serve *sv = ctx;
	const char *texts[QUERY_MAX_STMTS];
	int f = 0, j = 0, nr_texts = metrics__split(sv->arg[0].sql, texts, QUERY_MAX_STMTS);
	int marks = 0;

	for (int i = 0; i < q->nr_stmts; i++)
		marks += is_mark(q->stmts[i]);
	if (marks != sv->nr_arg - 1) { /* else statements would go to the wrong family */
		err_set(&sv->e, -EINVAL,
			"serve: the statements of %d arguments were not told "
			"apart (%d separators of %d)",
			sv->nr_arg, marks, sv->nr_arg - 1);
		return err_hint(&sv->e, "a column may not be named " SERVE_MARK);
	}
	sv->stmt_of = calloc((size_t)q->nr_stmts + 1, sizeof(int));
	sv->family_of = calloc((size_t)q->nr_stmts + 1, sizeof(int));
	if (!sv->stmt_of || !sv->family_of)
		return err_set(&sv->e, -ENOMEM, "out of memory");
	for (int i = 0; i < q->nr_stmts; i++) {
		sqlite3_stmt *st = q->stmts[i];

		sv->family_of[i] = f;
		if (is_mark(st)) {
			sv->stmt_of[i] = -1;
			nr_texts = metrics__split(sv->arg[++f].sql, texts, QUERY_MAX_STMTS);
			j = 0;
			continue;
		}
		/* a text for each statement, or none trusted (then no counters: never wrong ones) */
		if (metrics__statement(sv->m, f, st,
				       j < nr_texts && nr_texts == stmts_in(q, i - j) ? texts[j]
										      : ""))
			return err_set(&sv->e, -ENOMEM, "out of memory");
		j++;
		sv->stmt_of[i] = metrics__nr_statements(sv->m) - 1;
	}
	return 0;
}

/* the bound address (serve_http.c: "127.0.0.1:9464", "[::1]:9464") on this host only? */
static bool loopback(const char *bound)
{
	return !strncmp(bound, "127.", 4) || !strncmp(bound, "[::1]:", 6);
}

static int on_started(void *ctx, struct query *q, struct session *s)
{
	struct serve *sv = ctx;

	if (!s->nr_src) { /* the engine would answer once and end */
		err_set(&sv->e, -EINVAL, "serve: the SQL reads no event table: nothing to collect");
		err_hint(&sv->e,
			 "serve a query of a tracepoint or PMU table (perf-sql list: profilers)");
		return err_usage(&sv->e);
	}
	if (q->so.verbose)
		query__explain(s, stderr);
	say("serving %s://%s/metrics: %d profilers and queries, a window every %ld ms",
	    sv->web && sv->web->tls ? "https" : "http", sv->bound, sv->nr_arg, q->so.interval_ms);
	if (!loopback(sv->bound) && (!sv->web || !sv->web->tls || !sv->web->nr_users))
		say("warning: %s is reachable from other hosts, and /metrics has %s: whoever "
		    "reaches the port %s; give --web.config.file with tls_server_config and "
		    "basic_auth_users, or listen on 127.0.0.1 (docs/security.md)",
		    sv->bound,
		    !sv->web || (!sv->web->tls && !sv->web->nr_users)
			    ? "no TLS and no authentication"
		    : !sv->web->tls ? "no TLS (passwords cross the network in clear)"
				    : "no authentication",
		    !sv->web || !sv->web->nr_users ? "reads every task name and query"
						   : "may read the passwords sent");
	sv->window_end = 0;
	publish(sv, s);
	return 0;
}

/* --web.config.file changed: served with the new one, or said once why not */
static void reload(struct serve *sv)
{
	struct err e = { 0 };
	int ret = sv->web ? http__reload(sv->http, &e) : 0;

	if (ret < 0)
		say("warning: %s; still serving with what was read before", e.msg);
	else if (ret > 0)
		say("serve: %s read again", sv->web->path);
}

/* (5) */
static void statement_failed(struct serve *sv, struct query *q, struct session *s, int i, int rc)
{
	struct serve_arg *sa = &sv->arg[sv->family_of[i]];
	double now = now_s(CLOCK_MONOTONIC);
	struct err e = { 0 };

	/* SQLITE_NOMEM from metrics__step: SQLite's own message would be "not an error" */
	query__sql_err(q, s, rc == SQLITE_NOMEM ? "out of memory" : sqlite3_errmsg(q->db), &e);
	if (sa->err_said && now - sa->err_said < ERROR_EVERY_S)
		return;
	sa->err_said = now;
	say("serve: %s: %s; this window's rows of %s are left out (counted in "
	    "perf_sql_query_errors_total; said at most once a minute)",
	    sa->name, e.msg, sa->name);
}

static int on_window(void *ctx, struct query *q, struct session *s, struct err *e)
{
	struct serve *sv = ctx;

	if (session_stop) /* (5): the window a stop cut short is not queried */
		return 0;
	metrics__window_begin(sv->m);
	for (int i = 0; i < q->nr_stmts; i++) {
		int rc;

		if (sv->stmt_of[i] < 0 ||
		    (rc = metrics__step(sv->m, sv->stmt_of[i], q->stmts[i])) == SQLITE_DONE)
			continue;
		if (lockdown__stopped(&q->lock))
			return 0; /* a signal ended the statement: the run ends (the loop sees it) */
		statement_failed(sv, q, s, i, rc);
	}
	reload(sv);
	sv->windows++;
	sv->window_seconds = (double)(now_ns(CLOCK_MONOTONIC) - s->window_start_mono) / 1e9;
	sv->window_end = now_s(CLOCK_REALTIME);
	publish(sv, s);
	return 0;
}

/* where TABLE ends in the engine's warnings of lost events: "warning: TABLE lost N ..." and
 * "warning: TABLE: N events ... found the BPF map full" (or "... the BPF stack map could not
 * take", or "... the kernel did not run the program"); NULL for any other line */
static const char *table_end(const char *line)
{
	const char *p = strstr(line, " lost ");

	if (!p && (strstr(line, "the BPF map full") || strstr(line, "the BPF stack map") ||
		   strstr(line, "the kernel did not run the program")))
		p = strstr(line + 9, ": ");
	return p;
}

/* the engine's warnings of lost events come every window they happen: each table's at most once
 * a minute (the metrics count them all) */
static void on_notice(void *ctx, const char *line)
{
	struct serve *sv = ctx;
	const char *end = table_end(line);
	double now = now_s(CLOCK_MONOTONIC);
	int n = end ? (int)(end - line) - 9 : 0, i = 0;

	if (strncmp(line, "warning: ", 9) || n <= 0 || n >= (int)sizeof(sv->said[0].table)) {
		say("%s", line);
		return;
	}
	while (i < sv->nr_said && (strlen(sv->said[i].table) != (size_t)n ||
				   strncmp(sv->said[i].table, line + 9, (size_t)n)))
		i++;
	if (i < sv->nr_said && now - sv->said[i].t < ERROR_EVERY_S)
		return;
	if (i == sv->nr_said) { /* a new table (out of memory: said, not remembered) */
		struct said *p = realloc(sv->said, (size_t)(sv->nr_said + 1) * sizeof(*p));

		if (p) {
			sv->said = p;
			snprintf(p[sv->nr_said++].table, sizeof(p->table), "%.*s", n, line + 9);
		}
	}
	if (i < sv->nr_said)
		sv->said[i].t = now;
	say("%s (serve: said at most once a minute per table; perf_sql_events_lost_total{table} "
	    "counts them all)",
	    line);
}

static const struct query_ops serve_ops = {
	.planned = on_planned,
	.started = on_started,
	.window = on_window,
	.notice = on_notice,
};

static void serve_free(struct serve *sv)
{
	http__stop(sv->http); /* the collections of /debug/pprof/ first */
	debug_pprof__free(sv->dp);
	for (int i = 0; i < sv->nr_pprof; i++) {
		sqlite3_free(sv->pprof[i].owned_sql);
		if (sv->pprof[i].p)
			profiler__free(sv->pprof[i].p);
		free(sv->pprof[i].p);
	}
	metrics__free(sv->m);
	for (int i = 0; i < sv->nr_arg; i++) {
		sqlite3_free(sv->arg[i].owned_sql);
		if (sv->arg[i].p)
			profiler__free(sv->arg[i].p);
		free(sv->arg[i].p);
	}
	mbuf__free(&sv->sql);
	free(sv->stmt_of);
	free(sv->family_of);
	free(sv->said);
	if (sv->web)
		web_config__free(sv->web);
	free(sv->web);
}

int serve__main(int argc, char **argv, struct cli *c)
{
	struct serve sv = { .listen = DEFAULT_LISTEN,
			    .max_series = DEFAULT_MAX_SERIES,
			    .max_label_bytes = DEFAULT_MAX_LABEL_BYTES,
			    .max_bytes = DEFAULT_MAX_EXPOSITION_BYTES,
			    .pprof_max_seconds = PPROF_MAX_SECONDS_DEFAULT };
	struct sigaction sa = { .sa_handler = session__signal };
	struct query *q = &c->q.q;
	struct err e = { 0 };
	int ret;

	serve__parse_args(&sv, c, argc, argv);
	q->extend = profilers__register_views; /* profilers as tables, as in a query */
	q->rewrite = profilers__inline;
	q->lock.opts.heap_limit =
		q->so.max_memory ? (int64_t)q->so.max_memory : LOCKDOWN_HEAP_DEFAULT; /* as run.c */
	if (!q->so.interval_ms)
		q->so.interval_ms = DEFAULT_INTERVAL_MS;
	sv.start_time = now_s(CLOCK_REALTIME);
	if (!(sv.m = metrics__new(sv.max_series))) {
		say("out of memory");
		return EXIT_ERR;
	}
	metrics__limit_bytes(sv.m, sv.max_label_bytes, sv.max_bytes);
	if (sv.web_config_path && (!(sv.web = calloc(1, sizeof(*sv.web))) ||
				   web_config__load(sv.web, sv.web_config_path, &e))) {
		if (!sv.web)
			err_set(&e, -ENOMEM, "out of memory");
		serve_free(&sv);
		report(&e);
		return EXIT_USAGE; /* a file that is not a configuration is bad input */
	}
	session_stop = 0; /* before the handlers: a signal from now on stops the run */
	sigemptyset(&sa.sa_mask);
	sigaddset(&sa.sa_mask, SIGINT);
	sigaddset(&sa.sa_mask, SIGTERM);
	sigaddset(&sa.sa_mask, SIGHUP);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	if ((ret = plan_args(&sv, q, &e)) || (ret = plan_pprof(&sv, q, &e)) ||
	    !(sv.http = http__start(sv.listen, &sv.limits, sv.web, sv.dp, sv.bound,
				    sizeof(sv.bound), &e))) {
		serve_free(&sv);
		return report(&e);
	}
	publish(&sv, NULL);
	ret = query__run(q, &serve_ops, &sv, &e);
	if (ret && sv.e.code)
		e = sv.e;
	serve_free(&sv);
	if (ret)
		return report(&e);
	say("serve: stopped after %llu windows", (unsigned long long)sv.windows);
	return 0;
}
