/*
 * repl/main.c - the front end: perf-sql [OPTIONS] "SQL" [-- CMD [ARGS...]]
 *                                perf-sql [OPTIONS] [--repl]    (the REPL: repl/repl.c)
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
#include "repl/subcommands.h"
#include "core/record.h"
#include "repl/run.h"
#include "symbols/usdt.h"
#include "repl/repl.h"

#define PERF_SQL_VERSION "0.1.0"

struct cli {
	struct run q;
	const char *out_path;
	char **workload;
	bool repl;
};

static const char usage_text[] =
"usage: perf-sql [OPTIONS] \"SQL\" [-- CMD [ARGS...]]\n"
"       perf-sql record -o FILE [OPTIONS] TABLE[,TABLE...]|\"SQL\" [-- CMD]   capture for later\n"
"       perf-sql -r FILE [OPTIONS] \"SQL\"      query a capture\n"
"       perf-sql info FILE                     what a capture holds\n"
"       perf-sql [OPTIONS] [--repl]   interactive shell; reads statements from stdin when\n"
"                                     it is not a terminal (docs/repl.md)\n"
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
"      --cgroup NAME|PATH the threads in this cgroup now (v2, or v1 perf_event) and their\n"
"                         children; threads that join it later are not seen\n"
"  -m, --mmap-pages N     ring buffer pages per CPU, a power of two (default 64)\n"
"      --max-memory SIZE  cap on one window's event data (default 256M)\n"
"      --query-timeout D  stop a window's query after D (default 10s; 0: no limit)\n"
"      --allow-attach     let the SQL ATTACH database files (docs/security.md)\n"
"      --schema TABLE     print TABLE's columns and types, then exit\n"
"      --explain          print the plan (events, sample_type, kernel filters), collect nothing\n"
"      --no-pushdown      keep WHERE out of the kernel (for benchmarks)\n"
"  -F, --freq HZ          sampling rate of cpu_clock, task_clock and hardware tables (99)\n"
"      --uprobe FUNC@BIN  a table uprobe_FUNC of calls of FUNC in BIN (arg0..arg5)\n"
"      --uretprobe FUNC@BIN  a table uretprobe_FUNC of returns of FUNC (ret)\n"
"      --usdt PROV:NAME@BIN  a table usdt_NAME of a USDT probe's hits (arg0.. from its spec)\n"
"      --list-usdt BIN    list a binary's USDT probes (.note.stapsdt), then exit\n"
"      --breakpoint ADDR|SYMBOL[@BIN][/LEN][:rwx]\n"
"                         a table breakpoint of accesses (default 8 bytes, w); SYMBOL is\n"
"                         looked up in BIN or the workload's binary (static binaries only:\n"
"                         PIE addresses are not relocated); 4 at most\n"
"      --flame-graph FILE write FILE (SVG) and FILE.folded from a folded_stack() column\n"
"      --heatmap FILE     write FILE (SVG) from a heatmap() value of the result\n"
"  -r, --replay FILE      query a capture instead of the live kernel (no privileges needed);\n"
"                         with -i, one result per recorded window\n"
"  -v, --verbose          say what is opened\n"
"  -h, --help             this help\n"
"      --version          print the version\n"
"\n"
"subcommands:\n"
"  perf-sql list                    the profilers (built-in and saved)\n"
"  perf-sql help NAME               a profiler's parameters, example and SQL\n"
"  perf-sql NAME [PARAM=VALUE...]   run a profiler, with any option above\n"
"  perf-sql save NAME \"SQL\"         save a query as a profiler (or: \"SQL\" --save NAME)\n"
"  perf-sql delete NAME             delete a saved profiler\n"
"\n"
"tables:  every tracepoint (columns: _time _cpu _pid _tid _comm _period, aliases time cpu\n"
"         pid tid comm, then the event's fields; _time is the perf clock, ns since boot);\n"
"         PMU tables cpu_clock(HZ), task_clock, page_faults, cycles, ... (ip, addr);\n"
"         every table has a hidden stack column (the call chain, read with stack_text());\n"
"         counters (perf stat counts); pairs(START, KEY, END, KEY) (latency);\n"
"         perf_sql_events (the catalog); perf_sql_stats (received/lost per table and CPU)\n"
"functions: workload_pid(), log2_hist(), lin_hist(), percentile(), p50() .. p999(), stats(),\n"
"         heatmap(), syscall_name(), errno_name(), task_state(), symbolic(), flags(),\n"
"         dur(), ts(), ipv4(), stack_text(), folded_stack(), ksym(), usym(), ...\n"
"         (docs/functions.md)\n"
"\n"
"examples:\n"
"  perf-sql \"select comm, count(*) from sched_switch group by comm order by 2 desc\"\n"
"  perf-sql -d 5 \"select prev_comm, count(*) n from sched_switch group by 1 order by n desc limit 5\"\n"
"  perf-sql -i 1000 --csv \"select count(*) from sys_enter_write\"\n"
"  perf-sql \"select count(*), sum(count) from sys_enter_write where _pid = workload_pid()\" \\\n"
"      -- dd if=/dev/zero of=/dev/null count=1000\n"
"  perf-sql \"select name, fields from perf_sql_events where system = 'sched'\"\n"
"  perf-sql --schema sched_switch\n";

static long parse_long(const char *opt, const char *s, long min)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (*end || end == s || v < min) {
		say("%s '%s': expected a whole number >= %ld; see perf-sql --help", opt, s, min);
		exit(EXIT_USAGE);
	}
	return v;
}

static void usage_error(const char *what)
{
	say("%s; see perf-sql --help", what);
	exit(EXIT_USAGE);
}

/* --list-usdt BINARY: the USDT probes in a binary */
static int list_usdt(const char *path)
{
	struct usdt_probe *p = NULL;
	struct err e = { 0 };
	int nr = 0;

	if (usdt__list(path, &p, &nr, &e))
		return report(&e);
	printf("%-16s %-24s %-18s %-18s %s\n", "provider", "name", "address", "semaphore", "arguments");
	for (int i = 0; i < nr; i++)
		printf("%-16s %-24s %#-18llx %#-18llx %s\n", p[i].provider, p[i].name,
		       (unsigned long long)p[i].pc, (unsigned long long)p[i].semaphore, p[i].args);
	if (!nr)
		printf("(no USDT probes in %s)\n", path);
	free(p);
	return 0;
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
		{ "query-timeout", required_argument, NULL, 'T' + 256 },
		{ "allow-attach", no_argument, NULL, 'A' + 256 },
		{ "schema", required_argument, NULL, 'S' + 256 },
		{ "explain", no_argument, NULL, 'E' + 256 },
		{ "no-pushdown", no_argument, NULL, 'N' + 256 },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' + 256 },
		{ "repl", no_argument, NULL, 'R' + 256 },
		{ "freq", required_argument, NULL, 'F' },
		{ "uprobe", required_argument, NULL, 'U' + 256 },
		{ "uretprobe", required_argument, NULL, 'u' + 256 },
		{ "usdt", required_argument, NULL, 'D' + 256 },
		{ "list-usdt", required_argument, NULL, 'L' + 256 },
		{ "breakpoint", required_argument, NULL, 'B' + 256 },
		{ "flame-graph", required_argument, NULL, 'G' + 256 },
		{ "replay", required_argument, NULL, 'r' },
		{ "heatmap", required_argument, NULL, 'H' + 256 },
		{ "cgroup", required_argument, NULL, 'g' + 256 },
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
	while ((opt = getopt_long(nargs, argv, ":d:i:f:o:aC:p:t:m:F:r:vh", longs, NULL)) != -1) {
		switch (opt) {
		case 'd':
			c->q.q.so.duration_ms = parse_duration(optarg);
			if (c->q.q.so.duration_ms <= 0) {
				snprintf(msg, sizeof(msg), "-d '%s': expected a duration like 5, 5s, 500ms or 2m", optarg);
				usage_error(msg);
			}
			break;
		case 'i': c->q.q.so.interval_ms = parse_long("-i", optarg, 1); break;
		case 'f':
			if ((mode = output__mode(optarg)) < 0) {
				snprintf(msg, sizeof(msg), "no such output format '%s'; choices: table csv json", optarg);
				usage_error(msg);
			}
			c->q.out.mode = mode;
			break;
		case 'C' + 256: c->q.out.mode = OUT_CSV; break;
		case 'J' + 256: c->q.out.mode = OUT_JSON; break;
		case 'o': c->out_path = optarg; break;
		case 'a': c->q.q.so.all = true; break;
		case 'C': c->q.q.so.cpu_list = optarg; break;
		case 'p': c->q.q.so.pid_list = optarg; break;
		case 't': c->q.q.so.tid_list = optarg; break;
		case 'm':
			c->q.q.so.mmap_pages = (int)parse_long("-m", optarg, 1);
			if (c->q.q.so.mmap_pages & (c->q.q.so.mmap_pages - 1)) {
				snprintf(msg, sizeof(msg), "-m %s: ring size must be a power of two pages "
					 "(64 = 256 KiB per CPU)", optarg);
				usage_error(msg);
			}
			break;
		case 'M' + 256:
			if (!(c->q.q.so.max_memory = parse_size(optarg))) {
				snprintf(msg, sizeof(msg), "--max-memory '%s': expected a size like 64M or 1G", optarg);
				usage_error(msg);
			}
			break;
		case 'T' + 256:
			c->q.q.lock.opts.timeout_ms = parse_duration(optarg);
			if (c->q.q.lock.opts.timeout_ms < 0) {
				snprintf(msg, sizeof(msg), "--query-timeout '%s': expected a duration "
					 "like 10s or 500ms (0: no limit)", optarg);
				usage_error(msg);
			}
			if (!c->q.q.lock.opts.timeout_ms)
				c->q.q.lock.opts.timeout_ms = -1;   /* 0: no limit */
			break;
		case 'A' + 256: c->q.q.lock.opts.allow_attach = true; break;
		case 'S' + 256: c->q.schema = optarg; break;
		case 'F': c->q.q.so.freq = (int)parse_long("-F", optarg, 1); break;
		case 'L' + 256: exit(list_usdt(optarg));
		case 'U' + 256: case 'u' + 256: case 'B' + 256: case 'D' + 256:
			if (c->q.q.nr_probes == (int)(QUERY_MAX_PROBES))
				usage_error("too many --uprobe/--uretprobe/--breakpoint options (at most 16)");
			c->q.q.probes[c->q.q.nr_probes].spec = optarg;
			c->q.q.probes[c->q.q.nr_probes++].kind = opt == 'U' + 256 ? PROBE_UPROBE :
							     opt == 'u' + 256 ? PROBE_URETPROBE :
							     opt == 'D' + 256 ? PROBE_USDT :
										PROBE_BREAKPOINT;
			break;
		case 'G' + 256: c->q.flame_graph = optarg; break;
		case 'r': c->q.q.replay_path = optarg; break;
		case 'H' + 256: c->q.heatmap_svg = optarg; break;
		case 'g' + 256: c->q.q.so.cgroup = optarg; break;
		case 'E' + 256: c->q.explain = true; break;
		case 'N' + 256: c->q.q.no_pushdown = true; break;
		case 'R' + 256: c->repl = true; break;
		case 'v': c->q.q.so.verbose++; break;
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
		c->q.q.sql = argv[optind++];
	if (optind < nargs) {
		snprintf(msg, sizeof(msg), "unexpected argument '%s' (quote the SQL as one argument; "
			 "put a command after --)", argv[optind]);
		usage_error(msg);
	}
	if (c->repl && (c->q.q.sql || c->q.schema))
		usage_error("--repl takes no SQL: type it at the prompt");
	if (!c->q.q.sql && !c->q.schema && c->workload)
		usage_error("no SQL given");
	c->repl = !c->q.q.sql && !c->q.schema;
	if (c->workload && (c->q.q.so.pid_list || c->q.q.so.tid_list || c->q.q.so.cgroup))
		usage_error("-p/-t/--cgroup and -- CMD cannot be combined: pick one target");
	if (c->q.q.so.cgroup && (c->q.q.so.pid_list || c->q.q.so.tid_list))
		usage_error("--cgroup and -p/-t cannot be combined: pick one target");
	c->q.q.so.workload = c->workload;
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

/* perf-sql info FILE: what a capture holds */
static int info_main(int argc, char **argv)
{
	struct err e = { 0 };

	if (argc != 3)
		usage_error("usage: perf-sql info FILE");
	return replay__info(argv[2], stdout, &e) ? report(&e) : 0;
}

/* record: -o is the capture; TABLE[,TABLE...] means every column of each */
static int record_args(struct cli *c, int argc, char **argv)
{
	static char sql[4096], cmd[1024];
	size_t off = 0;

	if (!c->out_path)
		usage_error("record needs -o FILE (the capture to write)");
	if (c->q.q.replay_path)
		usage_error("record and -r cannot be combined");
	c->q.q.record_path = c->out_path;
	c->out_path = NULL;
	if (c->q.q.sql && !strpbrk(c->q.q.sql, " \t\n")) {
		const char *p = c->q.q.sql;

		while (*p && off < sizeof(sql) - 256) {
			size_t n = strcspn(p, ",");

			off += (size_t)snprintf(sql + off, sizeof(sql) - off, "SELECT * FROM \"%.*s\";",
						(int)n, p);
			p += n + (p[n] == ',');
		}
		c->q.q.sql = sql;
	}
	for (int i = 0, o = 0; i < argc && o < (int)sizeof(cmd) - 2; i++)
		o += snprintf(cmd + o, sizeof(cmd) - (size_t)o, "%s%s", i ? " " : "perf-sql record",
			      i ? argv[i] : "");
	c->q.q.command_line = cmd;
	return 0;
}

int main(int argc, char **argv)
{
	struct cli c = { .q = { .out = { .mode = OUT_TABLE, .f = stdout } } };
	bool record = argc > 1 && !strcmp(argv[1], "record");
	int status;

	if (argc > 1 && !strcmp(argv[1], "info"))
		return info_main(argc, argv);
	if (record) {   /* perf-sql record -o FILE [OPTIONS] TABLE[,TABLE]|"SQL" [-- CMD] */
		argv[1] = argv[0];
		argv++;
		argc--;
	}
	/* perf-sql list | help NAME | save | delete | NAME [PARAM=VALUE...]: profilers/cli.c */
	if (!record && (status = profilers__main(&argc, &argv, &c.q.q)) >= 0)
		return status;
	parse_args(&c, argc, argv);
	if (record && (status = record_args(&c, argc, argv)))
		return status;
	if (c.out_path && !(c.q.out.f = fopen(c.out_path, "w"))) {
		say("%s: %s; check the directory exists and is writable", c.out_path, strerror(errno));
		return EXIT_ERR;
	}
	if (c.repl) {
		status = repl__main(&c.q);
	} else {
		install_signals();
		status = run__query(&c.q);
	}
	if (c.q.out.f != stdout && fclose(c.q.out.f) == EOF && !status) {
		say("%s: %s", c.out_path, strerror(errno));
		status = EXIT_ERR;
	}
	return status;
}
