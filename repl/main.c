/*
 * repl/main.c - the front end: perf-sql [OPTIONS] "SQL" [-- CMD [ARGS...]]
 *
 * Plan (prepare every statement: the tables named and columns read decide what is opened),
 * then collect (until Ctrl-C, -d, or the workload's end; -i windows), then query and print.
 * This is the only place that prints errors: one line, "perf-sql: what; how to fix".
 *
 * Exit status: 0 ok; 1 a runtime error (SQL, event, workload); 2 bad usage; 77 not enough
 * privilege (the skip code of test suites).
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include "core/session.h"
#include "repl/output.h"
#include "sqlite/functions.h"
#include "vtab/tp_table.h"

#define PERF_SQL_VERSION "0.1.0"

enum { EXIT_ERR = 1, EXIT_USAGE = 2, EXIT_PRIV = 77 };

struct cli {
	struct session_opts so;
	struct output out;
	const char *sql;
	const char *schema;     /* --schema TABLE */
	const char *out_path;
	bool explain;           /* --explain: print the plan, collect nothing */
	bool no_pushdown;       /* --no-pushdown: benchmarks only */
	char **workload;
	sqlite3 *db;
	sqlite3_stmt *stmts[32];
	int nr_stmts;
	int status;             /* first failure's exit status */
};

static const char usage_text[] =
"usage: perf-sql [OPTIONS] \"SQL\" [-- CMD [ARGS...]]\n"
"\n"
"Every tracepoint is a table (sched_switch or \"sched:sched_switch\"). perf-sql opens the\n"
"events the SQL reads, collects until Ctrl-C, -d, or the end of CMD, then prints the result.\n"
"\n"
"options:\n"
"  -d, --duration D       collect for D (5, 5s, 500ms, 2m), then print\n"
"  -i, --interval MS      print one result per window of MS milliseconds\n"
"  -f, --format FMT       table (default), csv or json (JSON Lines)\n"
"      --csv, --json      shorthands for -f csv, -f json\n"
"  -o, --output FILE      write results to FILE\n"
"  -a, --all-cpus         with -- CMD: trace the whole system while CMD runs\n"
"  -C, --cpu LIST         only these CPUs (0,2-3)\n"
"  -p, --pid PIDS         only these processes (all their threads, and threads they create);\n"
"                         scheduler events are taken on every CPU and filtered on the task\n"
"                         fields (pid, prev_pid, next_pid), so wakeups are not missed\n"
"  -t, --tid TIDS         only these threads\n"
"  -m, --mmap-pages N     ring buffer pages per CPU, a power of two (default 64)\n"
"      --max-memory SIZE  cap on one window's event data (default 256M)\n"
"      --schema TABLE     print TABLE's columns and types, then exit\n"
"      --explain          print the plan (events, sample_type, kernel filters), collect nothing\n"
"      --no-pushdown      keep WHERE out of the kernel (for benchmarks)\n"
"  -v, --verbose          say what is opened\n"
"  -h, --help             this help\n"
"      --version          print the version\n"
"\n"
"tables:  every tracepoint (columns: _time _cpu _pid _tid _comm _period, aliases time cpu\n"
"         pid tid comm, then the event's fields); perf_sql_events (the catalog);\n"
"         perf_sql_stats (received/lost per table and CPU in the window)\n"
"functions: workload_pid(), log2_hist(), lin_hist(), percentile(), p50() .. p999(), stats(),\n"
"         heatmap(), syscall_name(), errno_name(), task_state(), dur(), ts(), ipv4(), ...\n"
"         (docs/functions.md)\n"
"\n"
"examples:\n"
"  perf-sql \"select comm, count(*) from sched_switch group by comm order by 2 desc\"\n"
"  perf-sql -d 5 \"select prev_comm, count(*) n from sched_switch group by 1 order by n desc limit 5\"\n"
"  perf-sql -i 1000 --csv \"select count(*) from sys_enter_write\"\n"
"  perf-sql \"select count(*), sum(count) from sys_enter_write where _pid = workload_pid()\" -- dd if=/dev/zero of=/dev/null count=1000\n"
"  perf-sql \"select name, fields from perf_sql_events where system = 'sched'\"\n"
"  perf-sql --schema sched_switch\n";

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
{
	va_list ap;

	fputs("perf-sql: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static int report(const struct err *e)
{
	if (e->hint[0])
		say("%s; %s", e->msg, e->hint);
	else
		say("%s", e->msg);
	return e->code == -EACCES || e->code == -EPERM ? EXIT_PRIV : EXIT_ERR;
}

/* "5" (seconds), "5s", "500ms", "2m", "1h" -> ms; -1 if malformed */
static long parse_duration(const char *s)
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
static size_t parse_size(const char *s)
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

static long parse_long(const char *opt, const char *s, long min)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (*end || end == s || v < min) {
		say("%s '%s': expected a whole number >= %ld", opt, s, min);
		exit(EXIT_USAGE);
	}
	return v;
}

static void usage_error(const char *what)
{
	say("%s; see perf-sql --help", what);
	exit(EXIT_USAGE);
}

static void parse_args(struct cli *c, int argc, char **argv)
{
	static const struct option longs[] = {
		{ "duration", required_argument, NULL, 'd' },
		{ "interval", required_argument, NULL, 'i' },
		{ "format", required_argument, NULL, 'f' },
		{ "csv", no_argument, NULL, 'C' + 256 },
		{ "json", no_argument, NULL, 'J' + 256 },
		{ "output", required_argument, NULL, 'o' },
		{ "all-cpus", no_argument, NULL, 'a' },
		{ "cpu", required_argument, NULL, 'C' },
		{ "pid", required_argument, NULL, 'p' },
		{ "tid", required_argument, NULL, 't' },
		{ "mmap-pages", required_argument, NULL, 'm' },
		{ "max-memory", required_argument, NULL, 'M' + 256 },
		{ "schema", required_argument, NULL, 'S' + 256 },
		{ "explain", no_argument, NULL, 'E' + 256 },
		{ "no-pushdown", no_argument, NULL, 'N' + 256 },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' + 256 },
		{ 0 },
	};
	int nargs = argc, opt, mode;
	char msg[300];

	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--")) {
			nargs = i;
			c->workload = i + 1 < argc ? &argv[i + 1] : NULL;
			if (!c->workload)
				usage_error("nothing after '--': give a command to run");
			break;
		}
	opterr = 0;
	while ((opt = getopt_long(nargs, argv, ":d:i:f:o:aC:p:t:m:vh", longs, NULL)) != -1) {
		switch (opt) {
		case 'd':
			c->so.duration_ms = parse_duration(optarg);
			if (c->so.duration_ms <= 0) {
				snprintf(msg, sizeof(msg), "-d '%s': expected a duration like 5, 5s, 500ms or 2m", optarg);
				usage_error(msg);
			}
			break;
		case 'i': c->so.interval_ms = parse_long("-i", optarg, 1); break;
		case 'f':
			if ((mode = output__mode(optarg)) < 0) {
				snprintf(msg, sizeof(msg), "no such output format '%s'; choices: table csv json", optarg);
				usage_error(msg);
			}
			c->out.mode = mode;
			break;
		case 'C' + 256: c->out.mode = OUT_CSV; break;
		case 'J' + 256: c->out.mode = OUT_JSON; break;
		case 'o': c->out_path = optarg; break;
		case 'a': c->so.all = true; break;
		case 'C': c->so.cpu_list = optarg; break;
		case 'p': c->so.pid_list = optarg; break;
		case 't': c->so.tid_list = optarg; break;
		case 'm':
			c->so.mmap_pages = (int)parse_long("-m", optarg, 1);
			if (c->so.mmap_pages & (c->so.mmap_pages - 1)) {
				snprintf(msg, sizeof(msg), "-m %s: ring size must be a power of two pages "
					 "(64 = 256 KiB per CPU)", optarg);
				usage_error(msg);
			}
			break;
		case 'M' + 256:
			if (!(c->so.max_memory = parse_size(optarg))) {
				snprintf(msg, sizeof(msg), "--max-memory '%s': expected a size like 64M or 1G", optarg);
				usage_error(msg);
			}
			break;
		case 'S' + 256: c->schema = optarg; break;
		case 'E' + 256: c->explain = true; break;
		case 'N' + 256: c->no_pushdown = true; break;
		case 'v': c->so.verbose++; break;
		case 'h': fputs(usage_text, stdout); exit(0);
		case 'V' + 256: printf("perf-sql %s (SQLite %s)\n", PERF_SQL_VERSION, sqlite3_libversion()); exit(0);
		case ':':
			snprintf(msg, sizeof(msg), "option '%s' needs a value", argv[optind - 1]);
			usage_error(msg);
			break;
		default:
			snprintf(msg, sizeof(msg), "unknown option '%s'", argv[optind - 1]);
			usage_error(msg);
		}
	}
	if (optind < nargs)
		c->sql = argv[optind++];
	if (optind < nargs) {
		snprintf(msg, sizeof(msg), "unexpected argument '%s' (quote the SQL as one argument; "
			 "put a command after --)", argv[optind]);
		usage_error(msg);
	}
	if (!c->sql && !c->schema)
		usage_error("no SQL given");
	if (c->workload && (c->so.pid_list || c->so.tid_list))
		usage_error("-p/-t and -- CMD cannot be combined: pick one target");
	c->so.workload = c->workload;
}

/* SQLite's message, with the closest table names when a table is unknown */
static int sql_error(struct cli *c, struct session *s, const char *msg)
{
	const char *key = "no such table: ";
	char near[256] = "";

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

static int prepare_all(struct cli *c, struct session *s)
{
	const char *sql = c->sql, *tail;

	while (sql && *sql) {
		sqlite3_stmt *st = NULL;

		if (sqlite3_prepare_v2(c->db, sql, -1, &st, &tail) != SQLITE_OK)
			return sql_error(c, s, sqlite3_errmsg(c->db));
		sql = tail;
		if (!st)
			continue;   /* whitespace or a comment */
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
		uint64_t lost = 0;

		for (int k = 0; k < s->nr_cpus; k++)
			lost += src->lost[k];
		if (lost)
			say("warning: %s lost %llu events in this window; raise -m (now %d pages) or "
			    "filter more in WHERE", src->ev->full, (unsigned long long)lost,
			    s->opts.mmap_pages);
	}
}

static int on_window(void *ctx, struct session *s)
{
	struct cli *c = ctx;
	char window[64];

	format_rfc3339(s->window_start_ns, window, sizeof(window));
	warn_lost(s);
	for (int i = 0; i < c->nr_stmts; i++) {
		int rc;

		sqlite3_reset(c->stmts[i]);
		rc = output__statement(&c->out, c->stmts[i], i, window);
		if (c->out.broken_pipe) {
			session_stop = 1;
			return 0;
		}
		if (rc != SQLITE_OK) {
			c->status = sql_error(c, s, sqlite3_errmsg(c->db));
			return -EIO;
		}
	}
	return 0;
}

static int print_schema(struct cli *c, struct session *s)
{
	c->sql = sqlite3_mprintf("SELECT name AS column, type FROM pragma_table_xinfo(%Q)", c->schema);
	if (prepare_all(c, s))
		return EXIT_ERR;
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
static int dry_run(struct cli *c, struct session *s)
{
	s->dry_run = true;
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
static void explain(struct cli *c, struct session *s, FILE *f)
{
	char st[256];

	if (!s->started)
		session__plan_filters(s);
	for (int i = 0; i < s->nr_src; i++) {
		struct source *src = s->src[i];

		sample_type_names(source__sample_type(src), st, sizeof(st));
		fprintf(f, "table %s\n", src->ev->full);
		fprintf(f, "  event        type=tracepoint config=%d (%s) sample_period=1\n",
			src->ev->id, src->ev->full);
		fprintf(f, "  sample_type  %s\n", st);
		if (src->task_fields[0])
			fprintf(f, "  target       every CPU, filtered on %s%s%s (a per-task event would "
				"miss wakeups)\n", src->task_fields[0], src->task_fields[1] ? "/" : "",
				src->task_fields[1] ? src->task_fields[1] : "");
		else if (s->nr_tids)
			fprintf(f, "  target       %d threads (inherit: new threads followed), %d CPUs\n",
				s->nr_tids, s->nr_cpus);
		else if (s->wl.pid && !s->opts.all)
			fprintf(f, "  target       workload pid %d and its children (inherit, "
				"enable_on_exec), %d CPUs\n", (int)s->wl.pid, s->nr_cpus);
		else
			fprintf(f, "  target       every task on %d CPUs (perf-sql itself left out)\n",
				s->nr_cpus);
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

static void on_signal(int sig)
{
	session_stop = 1;
}

static void install_signals(void)
{
	struct sigaction sa = { .sa_handler = on_signal };

	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);   /* a closed pipe shows as EPIPE: stop quietly */
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

static int run(struct cli *c, struct session *s)
{
	struct err e = { 0 };
	int rc;

	s->no_pushdown = c->no_pushdown;
	if (sqlite3_open_v2(":memory:", &c->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_MEMORY, NULL) ||
	    (rc = vtabs__register(c->db, s)) || (rc = sql_functions__register(c->db, s))) {
		say("sqlite: %s", c->db ? sqlite3_errmsg(c->db) : "out of memory");
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
	c->out.windowed = c->so.interval_ms > 0;
	if (session__run(s, on_window, c, &e) && !c->status)
		return report(&e);
	report_workload(&s->wl);
	return c->status;
}

int main(int argc, char **argv)
{
	struct cli c = { .out = { .mode = OUT_TABLE, .f = stdout } };
	struct session *s;
	struct err e = { 0 };
	int status;

	parse_args(&c, argc, argv);
	if (c.out_path && !(c.out.f = fopen(c.out_path, "w"))) {
		say("%s: %s; check the directory exists and is writable", c.out_path, strerror(errno));
		return EXIT_ERR;
	}
	install_signals();
	s = session__new(&c.so, &e);
	if (!s)
		return report(&e);
	status = run(&c, s);
	for (int i = 0; i < c.nr_stmts; i++)
		sqlite3_finalize(c.stmts[i]);
	sqlite3_close(c.db);   /* before the session: the tables point into it */
	session__close(s);
	if (c.out.f != stdout && fclose(c.out.f) == EOF && !status) {
		say("%s: %s", c.out_path, strerror(errno));
		status = EXIT_ERR;
	}
	return status;
}
