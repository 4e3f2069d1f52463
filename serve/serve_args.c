/*
 * serve/serve_args.c - perf-sql serve's command line (serve/serve.c (1)): NAME [PARAM=VALUE ...],
 * "SQL", --name, --listen, --max-series, and the collection options of a query, each applied
 * through its handler in cli_options[] as main() would.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli/cli.h"
#include "serve/serve_int.h"

static const char serve_usage[] =
	"usage: perf-sql serve [--listen ADDR:PORT] [--max-series N] [OPTIONS]\n"
	"                      NAME [PARAM=VALUE ...] | [--name NAME] \"SQL\" ...\n"
	"\n"
	"Runs the profilers and queries every window (-i MS, default 1000) and serves the last\n"
	"window's results as Prometheus metrics at http://ADDR:PORT/metrics (docs/prometheus.md).\n"
	"\n"
	"  --listen ADDR:PORT   where to listen (default 127.0.0.1:9464; 0.0.0.0:9464 for every\n"
	"                       address; port 0 picks a free one, printed at start)\n"
	"  --name NAME          the metric names' part for the next profiler or SQL\n"
	"                       (perf_sql_NAME_COLUMN)\n"
	"  --max-series N       series held at most (default 10000); rows of new series past it\n"
	"                       are dropped and counted in perf_sql_dropped_series_total\n"
	"  OPTIONS              a query's collection options: -i -d -C -p -t --cgroup -m\n"
	"                       --max-memory --query-timeout --allow-attach --no-pushdown -F\n"
	"                       --uprobe --uretprobe --usdt --breakpoint --no-bpf --max-groups\n"
	"                       --call-graph --stack-size -v\n"
	"\n"
	"Ends on SIGTERM or Ctrl-C (exit 0). Example:\n"
	"  perf-sql serve syscalls --name writes \\\n"
	"      \"select comm, count(*) as calls, log2_hist(count) as bytes from sys_enter_write "
	"group by comm\"\n";

/* the options of a query that serve takes (1) */
static const char *const serve_options[] = {
	"duration",   "interval",   "cpu",           "pid",          "tid",         "cgroup",
	"mmap-pages", "max-memory", "query-timeout", "allow-attach", "no-pushdown", "freq",
	"uprobe",     "uretprobe",  "usdt",          "breakpoint",   "verbose",     "no-bpf",
	"max-groups", "call-graph", "stack-size",
};

/* the option of cli_options[] that a is ("-i", "-i500", "--interval", "--interval=500") */
static const struct cli_option *query_option(const char *a, const char **inline_value)
{
	const struct cli_option *o;
	size_t n = strcspn(a + 2, "=");

	*inline_value = NULL;
	for (int i = 0; (o = options__nth(i)); i++) {
		if (a[1] == '-' && strlen(o->name) == n && !strncmp(a + 2, o->name, n)) {
			if (a[2 + n] == '=')
				*inline_value = a + 3 + n;
			return o;
		}
		if (a[1] != '-' && o->short_name && a[1] == o->short_name) {
			if (a[2])
				*inline_value = a + 2;
			return o;
		}
	}
	return NULL;
}

static bool serve_takes(const struct cli_option *o)
{
	for (size_t i = 0; i < sizeof(serve_options) / sizeof(serve_options[0]); i++)
		if (!strcmp(o->name, serve_options[i]))
			return true;
	return false;
}

/* a query option: applied to c through its handler, as main() would; returns args used */
static int query_opt(struct cli *c, int argc, char **argv, int i)
{
	const char *value;
	const struct cli_option *o = query_option(argv[i], &value);
	char name[64];
	int used = 1;

	if (!o)
		usage_error("serve: unknown option '%s'", argv[i]);
	if (!serve_takes(o) || !o->set)
		usage_error("serve: option '%s' does not apply: serve's output is /metrics and it "
			    "runs until SIGTERM",
			    argv[i]);
	if (o->arg && !value) {
		if (i + 1 >= argc)
			usage_error("option '%s' needs a value", argv[i]);
		value = argv[i + 1];
		used = 2;
	}
	if (!o->arg && value)
		usage_error("option '%s' takes no value", argv[i]);
	if (argv[i][1] == '-')
		snprintf(name, sizeof(name), "--%s", o->name);
	else
		snprintf(name, sizeof(name), "-%c", o->short_name);
	o->set(c, name, value);
	return used;
}

static bool is_param(const char *a)
{
	size_t n = strspn(a, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_");

	return n > 0 && a[n] == '=' && !(a[0] >= '0' && a[0] <= '9');
}

static const char *opt_value(int argc, char **argv, int *i, const char *opt)
{
	size_t n = strlen(opt);

	if (argv[*i][n] == '=')
		return argv[*i] + n + 1;
	if (*i + 1 >= argc)
		usage_error("option '%s' needs a value", opt);
	return argv[++*i];
}

static bool is_opt(const char *a, const char *opt)
{
	size_t n = strlen(opt);

	return !strncmp(a, opt, n) && (a[n] == '\0' || a[n] == '=');
}

static void add_arg(struct serve *sv, const char *a, const char **name)
{
	struct serve_arg *sa;

	if (sv->nr_arg == SERVE_MAX_ARGS)
		usage_error("serve: at most %d profilers and queries", SERVE_MAX_ARGS);
	sa = &sv->arg[sv->nr_arg++];
	sa->name = *name;
	*name = NULL;
	if (!profiler__check_name(a, &(struct err){ 0 }))
		sa->prof_name = a;
	else
		sa->sql = a;
}

void serve__parse_args(struct serve *sv, struct cli *c, int argc, char **argv)
{
	const char *name = NULL;

	for (int i = 2; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			fputs(serve_usage, stdout);
			exit(0);
		} else if (!strcmp(a, "--")) {
			usage_error("serve takes no command: it runs until SIGTERM; pick tasks "
				    "with -p, "
				    "--cgroup or WHERE");
		} else if (is_opt(a, "--listen")) {
			sv->listen = opt_value(argc, argv, &i, "--listen");
		} else if (is_opt(a, "--name")) {
			name = opt_value(argc, argv, &i, "--name");
		} else if (is_opt(a, "--max-series")) {
			const char *v = opt_value(argc, argv, &i, "--max-series");

			sv->max_series = (long)options__number("--max-series", v, 1, 1 << 24);
		} else if (a[0] == '-' && a[1]) {
			i += query_opt(c, argc, argv, i) - 1;
		} else if (is_param(a)) {
			struct serve_arg *sa = sv->nr_arg ? &sv->arg[sv->nr_arg - 1] : NULL;

			if (!sa || !sa->prof_name)
				usage_error("serve: '%s': PARAM=VALUE goes after the profiler NAME "
					    "it is for",
					    a);
			if (sa->nr_args == QUERY_MAX_PARAMS)
				usage_error("serve: too many parameters for %s", sa->prof_name);
			sa->args[sa->nr_args++] = (char *)a;
		} else {
			add_arg(sv, a, &name);
		}
	}
	if (name)
		usage_error("serve: --name %s names nothing: put it before a profiler or SQL",
			    name);
	if (!sv->nr_arg)
		usage_error("serve: give at least one profiler NAME or \"SQL\" (perf-sql serve "
			    "--help)");
}
