/*
 * cli/options.c - the options of perf-sql, one row each (see cli/cli.h): getopt_long's
 * table and short string, --help, and the profiler runner's "does this take a value" are made
 * from cli_options[] at run time.
 *
 * (1) Every handler checks its value and says what was wrong in one line (exit 2): numbers
 *     through options__number() (range, no overflow, sign or trailing junk), durations and
 *     sizes through core/units.h (no overflow past 9e18 ns or bytes), then each its bounds.
 * (2) Short options are the ones perf and perf-prof users expect (-d -i -f -o -a -C -p -t -m
 *     -F -r -v -h); everything else is long only.
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>
#include "cli/cli.h"
#include "cli/man.h"
#include "symbols/usdt.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define HELP_COL 25
#define HELP_WIDTH 94
#define SUB_COL 35

void usage_error(const char *fmt, ...)
{
	char raw[2048], line[4096];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(raw, sizeof(raw), fmt, ap);
	va_end(ap);
	/* the option's value as printable UTF-8 (core/err.h) */
	fprintf(stderr, "perf-sql: %s; see perf-sql --help\n", err_quote(line, sizeof(line), raw));
	exit(EXIT_USAGE);
}

bool parse_number(const char *s, long long min, long long max, long long *out)
{
	const char *digits = s[0] == '-' ? s + 1 : s;
	char *end;
	long long v;

	if (!isdigit((unsigned char)digits[0]))
		return false;
	errno = 0;
	v = strtoll(s, &end, 10);
	if (*end || errno || v < min || v > max)
		return false;
	*out = v;
	return true;
}

long long options__number(const char *opt, const char *s, long long min, long long max)
{
	long long v;

	if (!parse_number(s, min, max, &v))
		usage_error("%s '%s': expected a whole number from %lld to %lld", opt, s, min, max);
	return v;
}

/* -d and -i: at most a year (the run loop's deadlines are ns in 64 bits) */
#define MAX_SPAN_MS (366L * 24 * 3600 * 1000)

/* a duration of -d, -i or --query-timeout in ms (core/units.h: a bare number is ms) */
static long span_ms(const char *o, const char *v, long min)
{
	long ms = parse_duration(v);

	if (ms < min || ms > MAX_SPAN_MS)
		usage_error("%s '%s': expected a duration like 500ms, 5s or 2m (a bare number is "
			    "ms; %s, at most 366 days)",
			    o, v, min ? "at least 1ms" : "0: no limit");
	return ms;
}

/* "-d 5" is 5 ms: said once, as a user of timeout(1) may mean 5 s */
static void bare_hint(const char *o, const char *v, long ms)
{
	char *end;

	strtod(v, &end);
	if (!*end && ms < 100)
		say("note: %s %s is %ld ms (a bare number is milliseconds); write %ss for seconds",
		    o, v, ms, v);
}

static void set_duration(struct cli *c, const char *o, const char *v)
{
	c->q.q.so.duration_ms = span_ms(o, v, 1);
	bare_hint(o, v, c->q.q.so.duration_ms);
}

static void set_interval(struct cli *c, const char *o, const char *v)
{
	c->q.q.so.interval_ms = span_ms(o, v, 1);
}

static void set_format(struct cli *c, const char *o, const char *v)
{
	int mode = output__mode(v);

	if (mode < 0)
		usage_error("no such output format '%s'; choices: table csv json pprof", v);
	c->q.out.mode = mode;
}

static void set_csv(struct cli *c, const char *o, const char *v) { c->q.out.mode = OUT_CSV; }
static void set_json(struct cli *c, const char *o, const char *v) { c->q.out.mode = OUT_JSON; }
static void set_csv_crlf(struct cli *c, const char *o, const char *v)
{
	c->q.out.mode = OUT_CSV;
	c->q.out.crlf = true;
}
static void set_output(struct cli *c, const char *o, const char *v) { c->out_path = v; }
static void set_all(struct cli *c, const char *o, const char *v) { c->q.q.so.all = true; }
static void set_cpu(struct cli *c, const char *o, const char *v) { c->q.q.so.cpu_list = v; }
static void set_pid(struct cli *c, const char *o, const char *v) { c->q.q.so.pid_list = v; }
static void set_tid(struct cli *c, const char *o, const char *v) { c->q.q.so.tid_list = v; }
static void set_cgroup(struct cli *c, const char *o, const char *v) { c->q.q.so.cgroup = v; }
static void set_schema(struct cli *c, const char *o, const char *v) { c->q.schema = v; }
static void set_explain(struct cli *c, const char *o, const char *v) { c->q.explain = true; }
static void set_flame(struct cli *c, const char *o, const char *v) { c->q.flame_graph = v; }
static void set_heatmap(struct cli *c, const char *o, const char *v) { c->q.heatmap_svg = v; }
static void set_replay(struct cli *c, const char *o, const char *v) { c->q.q.replay_path = v; }

static void set_kernel_facts(struct cli *c, const char *o, const char *v)
{
	c->q.q.kernel_facts = v;
	c->q.explain = true;
}
static void set_verbose(struct cli *c, const char *o, const char *v) { c->q.q.so.verbose++; }
static void set_repl(struct cli *c, const char *o, const char *v) { c->repl = true; }
static void set_quiet(struct cli *c, const char *o, const char *v) { c->q.quiet = true; }

static void set_no_pushdown(struct cli *c, const char *o, const char *v)
{
	c->q.q.no_pushdown = true;
}

static void set_no_bpf(struct cli *c, const char *o, const char *v) { c->q.q.no_bpf = true; }

static void set_max_groups(struct cli *c, const char *o, const char *v)
{
	c->q.q.max_groups = (int)options__number(o, v, 1, 1 << 24);
}

static void set_attach(struct cli *c, const char *o, const char *v)
{
	c->q.q.lock.opts.allow_attach = true;
}

static void set_pages(struct cli *c, const char *o, const char *v)
{
	int n = (int)options__number(o, v, 1, 1 << 20); /* 4 GiB per CPU */

	if (n & (n - 1))
		usage_error("%s %s: ring size must be a power of two pages (64 = 256 KiB per CPU)",
			    o, v);
	c->q.q.so.mmap_pages = n;
}

static void set_call_graph(struct cli *c, const char *o, const char *v)
{
	static const char *const modes[] = { "auto", "fp", "dwarf" }; /* CALL_GRAPH_* order */

	for (int i = 0; i < (int)ARRAY_SIZE(modes); i++)
		if (!strcmp(v, modes[i])) {
			c->q.q.so.call_graph = i;
			return;
		}
	usage_error("no such call graph '%s'; choices: auto fp dwarf", v);
}

static void set_stack_size(struct cli *c, const char *o, const char *v)
{
	size_t n = parse_size(v);

	/* the kernel takes a multiple of 8 below 64 KiB (one record holds it all) */
	if (!n || n > 65528)
		usage_error("%s '%s': expected a size from 8 to 65528 bytes, like 8K", o, v);
	c->q.q.so.stack_size = (uint32_t)((n + 7) & ~(size_t)7);
}

static void set_inline(struct cli *c, const char *o, const char *v)
{
	c->q.q.so.inline_frames = true;
}

static void set_max_memory(struct cli *c, const char *o, const char *v)
{
	if (!(c->q.q.so.max_memory = parse_size(v)))
		usage_error("%s '%s': expected a size like 64M or 1G", o, v);
}

static void set_timeout(struct cli *c, const char *o, const char *v)
{
	long ms = span_ms(o, v, 0);

	c->q.q.lock.opts.timeout_ms = ms ? ms : -1; /* 0: no limit */
}

static void set_freq(struct cli *c, const char *o, const char *v)
{
	c->q.q.so.freq = (int)options__number(o, v, 1, 1000000);
}

static void add_probe(struct cli *c, const char *o, const char *v)
{
	static const struct {
		const char *name;
		enum probe_kind kind;
	} kinds[] = {
		{ "--uprobe", PROBE_UPROBE },
		{ "--uretprobe", PROBE_URETPROBE },
		{ "--usdt", PROBE_USDT },
		{ "--breakpoint", PROBE_BREAKPOINT },
	};
	struct query *q = &c->q.q;

	if (q->nr_probes == QUERY_MAX_PROBES)
		usage_error(
			"too many --uprobe/--uretprobe/--usdt/--breakpoint options (at most %d)",
			QUERY_MAX_PROBES);
	for (size_t i = 0; i < ARRAY_SIZE(kinds); i++)
		if (!strcmp(o, kinds[i].name))
			q->probes[q->nr_probes].kind = kinds[i].kind;
	q->probes[q->nr_probes++].spec = v;
}

/* --list-usdt BINARY: the USDT probes in a binary */
static void list_usdt(struct cli *c, const char *o, const char *path)
{
	struct usdt_probe *p = NULL;
	struct err e = { 0 };
	int nr = 0;

	if (usdt__list(path, &p, &nr, &e))
		exit(report(&e));
	printf("%-16s %-24s %-18s %-18s %s\n", "provider", "name", "address", "semaphore",
	       "arguments");
	for (int i = 0; i < nr; i++)
		printf("%-16s %-24s %#-18llx %#-18llx %s\n", p[i].provider, p[i].name,
		       (unsigned long long)p[i].pc, (unsigned long long)p[i].semaphore, p[i].args);
	if (!nr)
		printf("(no USDT probes in %s)\n", path);
	free(p);
	exit(0);
}

static void help(struct cli *c, const char *o, const char *v)
{
	options__usage(stdout);
	exit(0);
}

/* --help-man PAGE: roff for docs/man/ (scripts/gen-man.sh) */
static void help_man(struct cli *c, const char *o, const char *v)
{
	struct err e = { 0 };

	if (man__write(stdout, v, &e)) {
		if (e.usage)
			usage_error("%s", e.msg);
		exit(report(&e));
	}
	exit(fflush(stdout) ? EXIT_ERR : 0);
}

static void version(struct cli *c, const char *o, const char *v)
{
	printf("perf-sql %s (SQLite %s)\n", PERF_SQL_VERSION, sqlite3_libversion());
	exit(0);
}

static const struct cli_option cli_options[] = {
	{ "duration", 'd', "D", "collect for D (500ms, 5s, 2m; a bare number is ms), then print",
	  set_duration },
	{ "interval", 'i', "D", "print one result per window of D (1000, 1s, 250ms)",
	  set_interval },
	{ "format", 'f', "FMT",
	  "table (default), csv, json (JSON Lines) or pprof (a gzip'd profile for go tool pprof, "
	  "with -o FILE: docs/pprof.md)",
	  set_format },
	{ "csv", 0, NULL, "shorthand for -f csv", set_csv },
	{ "json", 0, NULL, "shorthand for -f json", set_json },
	{ "csv-crlf", 0, NULL, "-f csv with lines ending in CRLF, as RFC 4180 has it (default: LF)",
	  set_csv_crlf },
	{ "output", 'o', "FILE", "write results to FILE (a new file: never through a link)",
	  set_output },
	{ "all-cpus", 'a', NULL, "with -- CMD: trace the whole system while CMD runs", set_all },
	{ "cpu", 'C', "LIST", "only these CPUs (0,2-3)", set_cpu },
	{ "pid", 'p', "PIDS",
	  "only these processes (all their threads, and threads they create); scheduler events are "
	  "taken on every CPU and filtered on the task fields (pid, prev_pid, next_pid), so "
	  "wakeups are not missed",
	  set_pid },
	{ "tid", 't', "TIDS", "only these threads", set_tid },
	{ "cgroup", 0, "NAME|PATH",
	  "the threads in this cgroup now (v2, or v1 perf_event) and their children; threads that "
	  "join it later are not seen",
	  set_cgroup },
	{ "mmap-pages", 'm', "N", "ring buffer pages per CPU, a power of two (default 64)",
	  set_pages },
	{ "max-memory", 0, "SIZE", "cap on one window's event data (default 256M)",
	  set_max_memory },
	{ "query-timeout", 0, "D", "stop a window's query after D (default 10s; 0: no limit)",
	  set_timeout },
	{ "allow-attach", 0, NULL, "let the SQL ATTACH database files (docs/security.md)",
	  set_attach },
	{ "schema", 0, "TABLE", "print TABLE's columns and types, then exit", set_schema },
	{ "explain", 0, NULL,
	  "print the plan (events, sample_type, kernel filters; a table aggregated in the kernel: "
	  "its rewritten statement and BPF instruction listing), collect nothing; with -r, the "
	  "programs are built and listed, not loaded, as any user (docs/bpf.md)",
	  set_explain },
	{ "kernel-facts", 0, "DIR",
	  "plan and list as --explain does, against another kernel, offline, as any user: its "
	  "tracepoint formats "
	  "(DIR/events) and BTF facts (DIR/facts), as scripts/kernel-facts.sh writes them",
	  set_kernel_facts },
	{ "no-pushdown", 0, NULL, "keep WHERE out of the kernel (for benchmarks)",
	  set_no_pushdown },
	{ "no-bpf", 0, NULL,
	  "aggregate on the perf ring in user space, never in the kernel with BPF, and copy no "
	  "user strings (NAME_str columns: NULL, an error where named) (docs/bpf.md)",
	  set_no_bpf },
	{ "max-groups", 0, "N",
	  "groups a BPF map holds per window (default 10240); events of further groups are counted "
	  "as lost",
	  set_max_groups },
	{ "freq", 'F', "HZ", "sampling rate of cpu_clock, task_clock and hardware tables (99)",
	  set_freq },
	{ "uprobe", 0, "FUNC@BIN", "a table uprobe_FUNC of calls of FUNC in BIN (arg0..arg5)",
	  add_probe },
	{ "uretprobe", 0, "FUNC@BIN", "a table uretprobe_FUNC of returns of FUNC (ret)",
	  add_probe },
	{ "usdt", 0, "PROV:NAME@BIN",
	  "a table usdt_NAME of a USDT probe's hits (arg0.. from its spec)", add_probe },
	{ "list-usdt", 0, "BIN", "list a binary's USDT probes (.note.stapsdt), then exit",
	  list_usdt },
	{ "breakpoint", 0, "ADDR|SYMBOL[@BIN][/LEN][:rwx]",
	  "a table breakpoint of accesses (default 8 bytes, w); SYMBOL is looked up in BIN or the "
	  "workload's binary (static binaries only: PIE addresses are not relocated); 4 at most",
	  add_probe },
	{ "call-graph", 0, "MODE",
	  "user stacks: auto (default: clock and hardware tables copy the stack and unwind it "
	  "through the binaries' CFI, unless the frame-pointer chain is deeper; other tables use "
	  "frame pointers), dwarf (every table copies and unwinds), fp (frame pointers only, no "
	  "copy)",
	  set_call_graph },
	{ "stack-size", 0, "SIZE",
	  "user stack copied per sample for CFI unwinding (default 8K, at most 65528)",
	  set_stack_size },
	{ "inline", 0, NULL, "stack_text() and folded_stack() list inlined functions as frames",
	  set_inline },
	{ "flame-graph", 0, "FILE", "write FILE (SVG) and FILE.folded from a folded_stack() column",
	  set_flame },
	{ "heatmap", 0, "FILE", "write FILE (SVG) from a heatmap() value of the result",
	  set_heatmap },
	{ "replay", 'r', "FILE",
	  "query a capture instead of the live kernel (no privileges needed); with -i, one result "
	  "per recorded window",
	  set_replay },
	{ "save", 0, "NAME", "save the query as a profiler NAME, then run it", NULL },
	{ "repl", 0, NULL, "the interactive shell (the default without SQL)", set_repl },
	{ "verbose", 'v', NULL, "say what is opened", set_verbose },
	{ "quiet", 'q', NULL, "no status line on a terminal's stderr while collecting", set_quiet },
	{ "help", 'h', NULL, "this help", help },
	{ "help-man", 0, "PAGE",
	  "print the manual page PAGE (perf-sql or perf-sql-profilers) as roff", help_man },
	{ "version", 0, NULL, "print the version", version },
};

const struct cli_option *options__nth(int n)
{
	return n >= 0 && n < (int)ARRAY_SIZE(cli_options) ? &cli_options[n] : NULL;
}

bool options__takes_value(const char *a)
{
	for (size_t i = 0; i < ARRAY_SIZE(cli_options); i++) {
		const struct cli_option *o = &cli_options[i];

		if (!o->arg)
			continue;
		if ((a[0] == '-' && a[1] == o->short_name && o->short_name && !a[2]) ||
		    (a[0] == '-' && a[1] == '-' && !strcmp(a + 2, o->name)))
			return true;
	}
	return false;
}

/* getopt's tables from cli_options[]: long options return 256 + their row */
static void build_getopt(struct option *longs, char *shorts)
{
	char *s = shorts;

	*s++ = ':'; /* a missing value is ':', not '?' */
	for (size_t i = 0; i < ARRAY_SIZE(cli_options); i++) {
		const struct cli_option *o = &cli_options[i];

		longs[i] = (struct option){ o->name, o->arg ? required_argument : no_argument, NULL,
					    256 + (int)i };
		if (o->short_name) {
			*s++ = o->short_name;
			if (o->arg)
				*s++ = ':';
		}
	}
	longs[ARRAY_SIZE(cli_options)] = (struct option){ 0 };
	*s = '\0';
}

static const struct cli_option *option_of(int opt)
{
	if (opt >= 256)
		return options__nth(opt - 256);
	for (size_t i = 0; i < ARRAY_SIZE(cli_options); i++)
		if (cli_options[i].short_name == opt)
			return &cli_options[i];
	return NULL;
}

/* the arguments before "--"; what follows is the workload */
static int split_workload(struct cli *c, int argc, char **argv)
{
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--")) {
			c->workload = i + 1 < argc ? &argv[i + 1] : NULL;
			if (!c->workload)
				usage_error("nothing after '--': give a command to run");
			return i;
		}
	return argc;
}

static void check_combinations(struct cli *c)
{
	struct session_opts *so = &c->q.q.so;

	if (c->repl && (c->q.q.sql || c->q.schema))
		usage_error("--repl takes no SQL: type it at the prompt");
	if (!c->q.q.sql && !c->q.schema && c->workload)
		usage_error("no SQL given");
	c->repl = !c->q.q.sql && !c->q.schema;
	if (c->workload && (so->pid_list || so->tid_list || so->cgroup))
		usage_error("-p/-t/--cgroup and -- CMD cannot be combined: pick one target");
	if (so->cgroup && (so->pid_list || so->tid_list))
		usage_error("--cgroup and -p/-t cannot be combined: pick one target");
	so->workload = c->workload;
}

void options__parse(struct cli *c, int argc, char **argv)
{
	struct option longs[ARRAY_SIZE(cli_options) + 1];
	char shorts[2 + 3 * ARRAY_SIZE(cli_options)];
	int nargs = split_workload(c, argc, argv), opt;

	build_getopt(longs, shorts);
	opterr = 0;
	while ((opt = getopt_long(nargs, argv, shorts, longs, NULL)) != -1) {
		const struct cli_option *o = option_of(opt);
		char name[64];

		if (opt == ':')
			usage_error("option '%s' needs a value", argv[optind - 1]);
		if (opt == '?' || !o || !o->set)
			usage_error("unknown option '%s'", argv[optind - 1]);
		if (opt < 256)
			snprintf(name, sizeof(name), "-%c", opt);
		else
			snprintf(name, sizeof(name), "--%s", o->name);
		o->set(c, name, optarg);
	}
	if (optind < nargs)
		c->q.q.sql = argv[optind++];
	if (optind < nargs)
		usage_error(
			"unexpected argument '%s' (quote the SQL as one argument; put a command "
			"after --)",
			argv[optind]);
	check_combinations(c);
}

/* help text folded at spaces into lines of at most width, each starting at column col */
static void wrap(FILE *f, const char *h, int col, int width)
{
	bool first = true;

	while (*h) {
		int n = (int)strlen(h);

		if (n > width) {
			n = width;
			while (n > 0 && h[n] != ' ')
				n--;
			if (!n)
				n = width;
		}
		fprintf(f, "%*s%.*s\n", first ? 0 : col, "", n, h);
		first = false;
		h += n;
		h += strspn(h, " ");
	}
}

/* "  -d, --duration D       help", longer help folded under the help column */
static void usage_option(FILE *f, const struct cli_option *o)
{
	char left[80];
	int n;

	if (o->short_name)
		n = snprintf(left, sizeof(left), "  -%c, --%s%s%s", o->short_name, o->name,
			     o->arg ? " " : "", o->arg ? o->arg : "");
	else
		n = snprintf(left, sizeof(left), "      --%s%s%s", o->name, o->arg ? " " : "",
			     o->arg ? o->arg : "");
	if (n >= HELP_COL - 1)
		fprintf(f, "%s\n%*s", left, HELP_COL, "");
	else
		fprintf(f, "%-*s", HELP_COL, left);
	wrap(f, o->help, HELP_COL, HELP_WIDTH - HELP_COL);
}

static const char usage_head[] =
	"usage: perf-sql [OPTIONS] \"SQL\" [-- CMD [ARGS...]]\n"
	"       perf-sql -r FILE [OPTIONS] \"SQL\"      query a capture\n"
	"       perf-sql [OPTIONS] [--repl]   interactive shell; reads statements from stdin when\n"
	"                                     it is not a terminal (docs/repl.md)\n"
	"       perf-sql SUBCOMMAND ...       (below)\n"
	"\n"
	"Every tracepoint is a table (sched_switch or \"sched:sched_switch\"). perf-sql opens the\n"
	"events the SQL reads, collects until Ctrl-C, -d, or the end of CMD, then prints the "
	"result.\n"
	"\n"
	"options:\n";

static const char usage_tail[] =
	"\n"
	"tables:  every tracepoint (columns: _time _cpu _pid _tid _comm _period, aliases time cpu\n"
	"         pid tid comm, then the event's fields; _time is the perf clock, ns since boot;\n"
	"         syscalls:sys_enter_* have NAME_str, the text of each const char * argument,\n"
	"         copied at the call by a BPF program: filename_str of sys_enter_openat);\n"
	"         PMU tables cpu_clock(HZ), task_clock, page_faults, cycles, ... (ip, addr);\n"
	"         every table has a hidden stack column (the call chain, read with stack_text());\n"
	"         counters (perf stat counts); pairs(START, KEY, END, KEY [, START_COL\n"
	"         [, END_COL]]) (latency; START_COL 'stack': the start's call chain);\n"
	"         pending(START, KEY, END, KEY [, START_COL [, START_COL2]]) (the starts\n"
	"         still waiting for their end: age, start_value, start_value2; kmemleak);\n"
	"         perf_sql_events (the catalog); perf_sql_stats (received/lost per table and CPU)\n"
	"functions: workload_pid(), log2_hist(), lin_hist(), percentile(), p50() .. p999(), "
	"stats(),\n"
	"         heatmap(), syscall_name(), errno_name(), task_state(), symbolic(), flags(),\n"
	"         dur(), ts(), ipv4(), stack_text(), folded_stack(), ksym(), usym(), ...\n"
	"         (docs/functions.md)\n"
	"\n"
	"\n";

/* one command a line, continued by a trailing backslash: --help and the man page */
static const char usage_examples[] =
	"  perf-sql \"select comm, count(*) from sched_switch group by comm order by 2 desc\"\n"
	"  perf-sql -d 5s \"select prev_comm, count(*) n from sched_switch group by 1 order by n "
	"desc limit 5\"\n"
	"  perf-sql -i 1000 --csv \"select count(*) from sys_enter_write\"\n"
	"  perf-sql \"select count(*), sum(count) from sys_enter_write where _pid = "
	"workload_pid()\" \\\n"
	"      -- dd if=/dev/zero of=/dev/null count=1000\n"
	"  perf-sql \"select name, fields from perf_sql_events where system = 'sched'\"\n"
	"  perf-sql --schema sched_switch\n"
	"  perf-sql -f pprof -o cpu.pb.gz \"select stack, count(*) as samples from cpu_clock group "
	"by "
	"stack\" -d 5s\n";

void options__usage(FILE *f)
{
	const struct cli_subcommand *sc;
	const struct exit_status *x;

	fputs(usage_head, f);
	for (size_t i = 0; i < ARRAY_SIZE(cli_options); i++)
		usage_option(f, &cli_options[i]);
	fputs("\nsubcommands:\n", f);
	for (int i = 0; (sc = subcommands__nth(i)); i++) {
		char left[120];

		int n = snprintf(left, sizeof(left), "  perf-sql %s%s%s", sc->name,
				 sc->usage[0] ? " " : "", sc->usage);

		if (n > SUB_COL - 2)
			fprintf(f, "%s\n%*s", left, SUB_COL, "");
		else
			fprintf(f, "%-*s", SUB_COL, left);
		wrap(f, sc->help, SUB_COL, HELP_WIDTH - SUB_COL);
	}
	fprintf(f, "%-*s%s\n", SUB_COL, "  perf-sql NAME [PARAM=VALUE...]",
		"run a profiler NAME, with any option above");
	fputs(usage_tail, f);
	fputs("exit status:\n", f);
	for (int i = 0; (x = run__exit_status(i)); i++) {
		fprintf(f, "  %-3d ", x->code);
		wrap(f, x->meaning, 6, HELP_WIDTH - 6);
	}
	fputs("\nexamples:\n", f);
	fputs(usage_examples, f);
}

const char *options__examples(void) { return usage_examples; }
