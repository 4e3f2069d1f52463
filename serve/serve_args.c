/*
 * serve/serve_args.c - perf-sql serve's command line (serve/serve.c (1)): NAME [PARAM=VALUE ...],
 * "SQL", serve's own options (serve_opts[]: --listen, --name, the limits of docs/security.md),
 * and the collection options of a query, each applied through its handler in cli_options[] as
 * main() would.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli/cli.h"
#include "serve/serve_int.h"

static const char serve_usage_head[] =
	"usage: perf-sql serve [--listen ADDR:PORT] [SERVE OPTIONS] [OPTIONS]\n"
	"                      NAME [PARAM=VALUE ...] | [--name NAME] \"SQL\" ...\n"
	"\n"
	"Runs the profilers and queries every window (-i D, default 1s) and serves the last\n"
	"window's results as Prometheus metrics at http://ADDR:PORT/metrics (docs/prometheus.md),\n"
	"and pprof profiles on request at http://ADDR:PORT/debug/pprof/ (docs/pprof.md).\n"
	"\n";

static const char serve_usage_tail[] =
	"  OPTIONS              a query's collection options: -i -d -C -p -t --cgroup -m\n"
	"                       --max-memory --query-timeout --allow-attach --no-pushdown -F\n"
	"                       --uprobe --uretprobe --usdt --breakpoint --no-bpf --max-groups\n"
	"                       --call-graph --stack-size -v\n"
	"\n"
	"Ends on SIGTERM or Ctrl-C (exit 0). Example:\n"
	"  perf-sql serve syscalls --name writes \\\n"
	"      \"select comm, count(*) as calls, log2_hist(count) as bytes from sys_enter_write "
	"group by comm\"\n";

static void set_listen(struct serve *sv, const char *o, const char *v) { sv->listen = v; }
static void set_name(struct serve *sv, const char *o, const char *v) { sv->next_name = v; }

static void set_web_config(struct serve *sv, const char *o, const char *v)
{
	sv->web_config_path = v;
}

static void set_max_series(struct serve *sv, const char *o, const char *v)
{
	sv->max_series = (long)options__number(o, v, 1, 1 << 24);
}

static void set_per_client(struct serve *sv, const char *o, const char *v)
{
	sv->limits.per_client = (unsigned)options__number(o, v, 1, HTTP_MAX_CONNECTIONS);
}

static void set_deadline(struct serve *sv, const char *o, const char *v)
{
	long ms = parse_duration(v);

	if (ms < 100 || ms > 3600 * 1000)
		usage_error("%s '%s': expected a duration from 100ms to 1h (5s, 500ms; a bare "
			    "number is ms)",
			    o, v);
	sv->limits.deadline_ms = ms;
}

static void set_label_bytes(struct serve *sv, const char *o, const char *v)
{
	sv->max_label_bytes = (size_t)options__number(o, v, 16, 1 << 20);
}

static void set_exposition_bytes(struct serve *sv, const char *o, const char *v)
{
	size_t n = parse_size(v);

	if (n < 65536 || n > (size_t)1 << 32)
		usage_error("%s '%s': expected a size from 64K to 4G (16M, 256M)", o, v);
	sv->max_bytes = n;
}

static void set_pprof_max(struct serve *sv, const char *o, const char *v)
{
	sv->pprof_max_seconds = (int)options__number(o, v, 0, 3600);
}

/* --pprof NAME SQL|PROFILER: its two values */
static void add_pprof(struct serve *sv, int argc, char **argv, int i)
{
	if (strchr(argv[i], '=') || i + 2 >= argc || argv[i + 1][0] == '-')
		usage_error("--pprof needs NAME and \"SQL\" (or a profiler's name): "
			    "--pprof offcpu \"select stack, ... group by stack\"");
	if (sv->nr_pprof == PPROF_MAX_ENDPOINTS - 1)
		usage_error("serve: at most %d --pprof", PPROF_MAX_ENDPOINTS - 1);
	sv->pprof[sv->nr_pprof].name = argv[i + 1];
	sv->pprof[sv->nr_pprof++].spec = argv[i + 2];
}

/* serve's own options: --help lists them in this order */
static const struct serve_opt {
	const char *name, *arg, *help;
	void (*set)(struct serve *sv, const char *opt, const char *value);
} serve_opts[] = {
	{ "--listen", "ADDR:PORT",
	  "where to listen (default 127.0.0.1:9464; 0.0.0.0:9464 for every address, which is "
	  "warned about; port 0 picks a free one, printed at start)",
	  set_listen },
	{ "--web.config.file", "FILE",
	  "TLS and basic authentication, in the exporter-toolkit's YAML (tls_server_config, "
	  "basic_auth_users) as Prometheus reads it; read again when it changes",
	  set_web_config },
	{ "--name", "NAME",
	  "the metric names' part for the next profiler or SQL (perf_sql_NAME_COLUMN)", set_name },
	{ "--max-series", "N",
	  "series held at most (default 10000); rows of new series past it are dropped and "
	  "counted in perf_sql_dropped_series_total",
	  set_max_series },
	{ "--max-per-client", "N",
	  "connections one client address may hold open at once (default 16, of 256 in all); "
	  "more are closed at once",
	  set_per_client },
	{ "--request-deadline", "D",
	  "a request must be whole within D of the connection's start or of the previous "
	  "response (default 5s), or the connection is closed",
	  set_deadline },
	{ "--max-label-bytes", "N",
	  "label values are cut to N bytes (default 4096); the bytes cut are counted in "
	  "perf_sql_dropped_label_bytes_total",
	  set_label_bytes },
	{ "--max-exposition-bytes", "SIZE",
	  "the held series' exposition at most SIZE (default 16M); rows of new series past it are "
	  "dropped and counted in perf_sql_dropped_series_over_bytes_total",
	  set_exposition_bytes },
	{ "--pprof", "NAME SQL|PROFILER",
	  "also serve /debug/pprof/NAME?seconds=N: a pprof profile of the SQL (a stack query: "
	  "GROUP BY stack), or of the profiler's stack query, collected for N seconds on request "
	  "(docs/pprof.md); /debug/pprof/profile, the CPU profile at -F HZ, is served unless "
	  "--pprof-max-seconds is 0",
	  NULL },
	{ "--pprof-max-seconds", "N",
	  "the longest profile a request may ask for, ?seconds=N (default 60; a request without "
	  "it gets 30 s); 0 serves no /debug/pprof/",
	  set_pprof_max },
};

static void serve_usage(void)
{
	fputs(serve_usage_head, stdout);
	for (size_t i = 0; i < sizeof(serve_opts) / sizeof(serve_opts[0]); i++) {
		const struct serve_opt *o = &serve_opts[i];
		char left[64];
		const char *h = o->help;

		snprintf(left, sizeof(left), "  %s %s", o->name, o->arg);
		if (strlen(left) >= 22) /* no room for the two spaces before the help */
			printf("%s\n%23s", left, "");
		else
			printf("%-23s", left);
		while (*h) { /* folded at 69 columns */
			size_t n = strlen(h);

			if (n > 69) {
				n = 69;
				while (n && h[n] != ' ')
					n--;
			}
			printf("%.*s\n", (int)n, h);
			h += n + (h[n] == ' ');
			if (*h)
				printf("%23s", "");
		}
	}
	fputs(serve_usage_tail, stdout);
}

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

/* serve's own option a (--opt VALUE or --opt=VALUE), or NULL */
static const struct serve_opt *serve_opt(const char *a)
{
	for (size_t i = 0; i < sizeof(serve_opts) / sizeof(serve_opts[0]); i++) {
		size_t n = strlen(serve_opts[i].name);

		if (!strncmp(a, serve_opts[i].name, n) && (a[n] == '\0' || a[n] == '='))
			return &serve_opts[i];
	}
	return NULL;
}

static void add_arg(struct serve *sv, const char *a)
{
	struct serve_arg *sa;

	if (sv->nr_arg == SERVE_MAX_ARGS)
		usage_error("serve: at most %d profilers and queries", SERVE_MAX_ARGS);
	sa = &sv->arg[sv->nr_arg++];
	sa->name = sv->next_name;
	sv->next_name = NULL;
	if (!profiler__check_name(a, &(struct err){ 0 }))
		sa->prof_name = a;
	else
		sa->sql = a;
}

void serve__parse_args(struct serve *sv, struct cli *c, int argc, char **argv)
{
	const struct serve_opt *so;

	for (int i = 2; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			serve_usage();
			exit(0);
		} else if (!strcmp(a, "--")) {
			usage_error("serve takes no command: it runs until SIGTERM; pick tasks "
				    "with -p, --cgroup or WHERE");
		} else if ((so = serve_opt(a)) && !so->set) {
			add_pprof(sv, argc, argv, i);
			i += 2;
		} else if (so) {
			size_t n = strlen(so->name);

			if (a[n] != '=' && i + 1 >= argc)
				usage_error("option '%s' needs a value", so->name);
			so->set(sv, so->name, a[n] == '=' ? a + n + 1 : argv[++i]);
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
			add_arg(sv, a);
		}
	}
	if (sv->next_name)
		usage_error("serve: --name %s names nothing: put it before a profiler or SQL",
			    sv->next_name);
	if (sv->nr_pprof && !sv->pprof_max_seconds)
		usage_error("serve: --pprof %s with --pprof-max-seconds 0: no profile is served",
			    sv->pprof[0].name);
	if (!sv->nr_arg)
		usage_error("serve: give at least one profiler NAME or \"SQL\" (perf-sql serve "
			    "--help)");
}
