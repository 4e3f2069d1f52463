/*
 * shell/commands.c - the dot commands: one row each (name, handler, arguments, help), so .help
 * and completion cannot drift from what runs.
 *
 * (1) A setting command without its argument prints the current value (".mode" -> "table").
 * (2) Every failure prints one line (say) and returns an exit status; the REPL carries on.
 * (3) Messages are lower case and list the choices for a bad value.
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include "cli/cli.h"
#include "shell/repl.h"
#include "profilers/profiler.h"
#include "profilers/view.h"

#define MAX_ARGS 64

struct dot_cmd {
	const char *name;
	int (*fn)(struct repl *r, int argc, char **argv, const char *rest);
	int min_args, max_args; /* after the name */
	const char *args;
	const char *help;
};

static const struct dot_cmd dot_cmds[];

static int usage(const struct dot_cmd *c)
{
	say(".%s: usage: .%s %s", c->name, c->name, c->args);
	return EXIT_USAGE;
}

/* "on"/"off" into *flag; prints the value when not given */
static int on_off(const char *name, int argc, char **argv, bool *flag)
{
	if (argc == 1) {
		printf("%s\n", *flag ? "on" : "off");
		return 0;
	}
	if (strcmp(argv[1], "on") && strcmp(argv[1], "off")) {
		say(".%s '%s': choices: on off", name, argv[1]);
		return EXIT_USAGE;
	}
	*flag = !strcmp(argv[1], "on");
	return 0;
}

static int cmd_help(struct repl *r, int argc, char **argv, const char *rest)
{
	for (const struct dot_cmd *c = dot_cmds; c->name; c++) {
		char head[64];

		if (argc > 1 && strcmp(argv[1] + (argv[1][0] == '.'), c->name))
			continue;
		snprintf(head, sizeof(head), ".%s %s", c->name, c->args);
		printf("%-28s %s\n", head, c->help);
	}
	if (argc == 1)
		printf("\nQueries end with ';'. Tab completes keywords, tables, columns, functions "
		       "and commands.\n");
	return 0;
}

static void print_names(char **names, int nr)
{
	struct winsize ws = { 0 };
	int width = 0, cols;

	if (!isatty(STDOUT_FILENO) || ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) || !ws.ws_col) {
		for (int i = 0; i < nr; i++)
			printf("%s\n", names[i]);
		return;
	}
	for (int i = 0; i < nr; i++)
		if ((int)strlen(names[i]) > width)
			width = (int)strlen(names[i]);
	cols = ws.ws_col / (width + 2) > 0 ? ws.ws_col / (width + 2) : 1;
	for (int i = 0; i < nr; i++)
		printf("%-*s%s", width + 2, names[i],
		       i % cols == cols - 1 || i == nr - 1 ? "\n" : "");
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* the profilers, by their names as tables (profilers/view.c), added to names: sorted */
static int add_profiler_tables(struct repl *r, const char *glob, char ***names, int nr)
{
	int nr_prof = 0;
	struct profiler **list = profilers__list(&nr_prof, &(struct err){ 0 });
	char name[96];

	for (int i = 0; list && i < nr_prof; i++) {
		char **more;

		if (profilers__table_name(r->cat, list[i]->name, name, sizeof(name)) ||
		    sqlite3_strglob(glob, list[i]->name) ||
		    !(more = realloc(*names, (size_t)(nr + 1) * sizeof(char *))))
			continue;
		*names = more;
		(*names)[nr++] = strdup(name);
	}
	profilers__free(list, nr_prof);
	qsort(*names, (size_t)nr, sizeof(char *), by_name);
	return nr;
}

static int cmd_tables(struct repl *r, int argc, char **argv, const char *rest)
{
	static const char sql[] =
		"SELECT name FROM (SELECT name FROM perf_sql_events UNION ALL "
		"SELECT 'perf_sql_events' UNION ALL SELECT 'perf_sql_stats') WHERE name GLOB ?1 "
		"ORDER BY 1";
	char *glob = argc < 2                  ? sqlite3_mprintf("*")
		     : strpbrk(argv[1], "*?[") ? sqlite3_mprintf("%s", argv[1])
					       : sqlite3_mprintf("*%s*", argv[1]);
	sqlite3_stmt *st = NULL;
	char **names = NULL;
	int nr = 0, rc = 0;

	if (!r->db) {
		say(".tables: the event catalog could not be read (see the error above)");
		return EXIT_ERR;
	}
	if (sqlite3_prepare_v2(r->db, sql, -1, &st, NULL) ||
	    sqlite3_bind_text(st, 1, glob, -1, SQLITE_TRANSIENT)) {
		say(".tables: %s", sqlite3_errmsg(r->db));
		rc = EXIT_ERR;
		goto out;
	}
	while (sqlite3_step(st) == SQLITE_ROW) {
		char **more = realloc(names, (size_t)(nr + 1) * sizeof(*names));

		if (!more)
			break;
		names = more;
		names[nr++] = strdup((const char *)sqlite3_column_text(st, 0));
	}
	nr = add_profiler_tables(r, glob, &names, nr);
	if (nr)
		print_names(names, nr);
	else
		say(".tables: no table matches '%s'", glob);
out:
	for (int i = 0; i < nr; i++)
		free(names[i]);
	free(names);
	sqlite3_finalize(st);
	sqlite3_free(glob);
	return rc;
}

static int cmd_schema(struct repl *r, int argc, char **argv, const char *rest)
{
	struct run q = r->q;

	q.q.sql = NULL;
	q.schema = argv[1];
	q.out.headers_done = 0;
	return repl__query(r, &q);
}

/* .interval and .duration take what -i and -d take (core/units.h), or off */
static int span_arg(const char *cmd, const char *v, long *ms_out)
{
	long ms = strcmp(v, "off") ? parse_duration(v) : 0;

	if (ms < 0 || ms > 366L * 24 * 3600 * 1000 || (ms == 0 && strcmp(v, "off"))) {
		say(".%s '%s': expected a duration like 500ms, 1s or 2m (a bare number is ms), or "
		    "off",
		    cmd, v);
		return EXIT_USAGE;
	}
	*ms_out = ms;
	return 0;
}

static int cmd_interval(struct repl *r, int argc, char **argv, const char *rest)
{
	if (argc == 1) {
		r->interval_ms ? printf("%ld ms\n", r->interval_ms) : printf("off\n");
		return 0;
	}
	return span_arg("interval", argv[1], &r->interval_ms);
}

static int cmd_duration(struct repl *r, int argc, char **argv, const char *rest)
{
	if (argc == 1) {
		r->duration_ms ? printf("%ld ms\n", r->duration_ms)
			       : printf("off (until Ctrl-C)\n");
		return 0;
	}
	return span_arg("duration", argv[1], &r->duration_ms);
}

static int cmd_mode(struct repl *r, int argc, char **argv, const char *rest)
{
	static const char *const names[] = { "table", "csv", "json" };
	int mode;

	if (argc == 1) {
		printf("%s\n", names[r->q.out.mode]);
		return 0;
	}
	if ((mode = output__mode(argv[1])) == OUT_PPROF) {
		say(".mode pprof: a profile is one run's: perf-sql -f pprof -o FILE \"SQL\" "
		    "(docs/pprof.md)");
		return EXIT_USAGE;
	}
	if (mode < 0) {
		say("no such output mode '%s'; choices: table csv json", argv[1]);
		return EXIT_USAGE;
	}
	r->q.out.mode = mode;
	return 0;
}

static int cmd_output(struct repl *r, int argc, char **argv, const char *rest)
{
	struct err e = { 0 };
	FILE *f = stdout;

	if (argc == 1 || !strcmp(argv[1], "stdout")) {
		if (argc == 1) {
			printf("%s\n", r->q.out.f == stdout ? "stdout"
				       : r->out_path[0]     ? r->out_path
							    : "the -o file");
			return 0;
		}
	} else if (!(f = output__open(argv[1], &e))) {
		return report(&e);
	}
	if (r->own_out)
		fclose(r->q.out.f);
	r->q.out.f = f;
	r->own_out = f != stdout;
	snprintf(r->out_path, sizeof(r->out_path), "%s", f != stdout ? argv[1] : "");
	return 0;
}

/* .cpu / .pid: a list checked when the next query opens its events */
static int set_list(const char *name, int argc, char **argv, char *list, size_t len)
{
	if (argc == 1) {
		printf("%s\n", list[0] ? list : "all");
		return 0;
	}
	if (strspn(argv[1], "0123456789,-") != strlen(argv[1]) && strcmp(argv[1], "all")) {
		say(".%s '%s': expected a list like 0,2-3, or all", name, argv[1]);
		return EXIT_USAGE;
	}
	snprintf(list, len, "%s", strcmp(argv[1], "all") ? argv[1] : "");
	return 0;
}

static int cmd_cpu(struct repl *r, int argc, char **argv, const char *rest)
{
	return set_list("cpu", argc, argv, r->cpu_list, sizeof(r->cpu_list));
}

static int cmd_pid(struct repl *r, int argc, char **argv, const char *rest)
{
	return set_list("pid", argc, argv, r->pid_list, sizeof(r->pid_list));
}

static int cmd_freq(struct repl *r, int argc, char **argv, const char *rest)
{
	long long hz;

	if (argc == 1) {
		r->freq_hz ? printf("%ld Hz\n", r->freq_hz) : printf("default (99 Hz)\n");
		return 0;
	}
	if (!parse_number(argv[1], 1, 1000000, &hz)) {
		say(".freq '%s': expected a sampling frequency in Hz from 1 to 1000000 (e.g. 99)",
		    argv[1]);
		return EXIT_USAGE;
	}
	r->freq_hz = (long)hz;
	printf("sampling at %lld Hz: applies to PMU tables (cpu_clock, cycles, ...); tracepoint "
	       "tables record every event\n",
	       hz);
	return 0;
}

/* .run NAME [PARAM=VALUE ...]: a built-in, system or saved profiler (profilers/registry.c) */
static int cmd_run(struct repl *r, int argc, char **argv, const char *rest)
{
	struct query_param params[32];
	struct err e = { 0 };
	struct profiler *p = profiler__find(argv[1], &e);
	char *sql = NULL;
	int nr = 0, rc;

	if (!p)
		return report(&e);
	if (profiler__bind(p, argc - 2, argv + 2, params, 32, &nr, &sql, &e)) {
		report(&e);
		rc = EXIT_USAGE;
		goto out;
	}
	rc = repl__run_sql(r, sql, params, nr, false); /* it keeps its own copies */
out:
	sqlite3_free(sql);
	profiler__free(p);
	free(p);
	return rc;
}

/* .save NAME: the last query, as a saved profiler (0600 file under $XDG_CONFIG_HOME) */
static int cmd_save(struct repl *r, int argc, char **argv, const char *rest)
{
	struct err e = { 0 };
	char path[PATH_MAX + 80];

	if (subcommands__check_name(argv[1], &e))
		return report(&e);
	if (!r->last_sql) {
		say(".save: nothing to save yet: run a query first");
		return EXIT_ERR;
	}
	if (profiler__save(argv[1], r->last_sql, NULL, false, path, sizeof(path), &e))
		return report(&e);
	printf("saved %s (%s); run it with .run %s\n", argv[1], path, argv[1]);
	return 0;
}

/*
 * .profilers: every profiler, built-in, system and saved, as perf-sql list shows them (its kind
 * column, the same words; the needs column left to perf-sql list and .run's errors)
 */
static int cmd_profilers(struct repl *r, int argc, char **argv, const char *rest)
{
	struct err e = { 0 };
	int nr = 0, width = 4;
	struct profiler **list = profilers__list(&nr, &e);

	if (!list)
		return report(&e);
	for (int i = 0; i < nr; i++)
		if ((int)strlen(list[i]->name) > width)
			width = (int)strlen(list[i]->name);
	printf("%-*s  %-9s  %s\n", width, "name", "kind", "summary");
	for (int i = 0; i < nr; i++) {
		const struct profiler *p = list[i];
		char kind[16];

		printf("%-*s  %-9s  %s\n", width, p->name, profiler__kind(p, kind, sizeof(kind)),
		       p->summary);
	}
	printf("\n%d profilers; .run NAME runs one; * = a saved profiler shadowing a built-in\n",
	       nr);
	profilers__free(list, nr);
	return 0;
}

static int cmd_explain(struct repl *r, int argc, char **argv, const char *rest)
{
	if (!rest[0] && !r->last_sql) {
		say(".explain: no query yet: give one (.explain SELECT ...) or run one first");
		return EXIT_USAGE;
	}
	if (rest[0])
		return repl__run_sql(r, rest, NULL, 0, true);
	return repl__run_sql(r, r->last_sql, r->last_params, r->nr_last_params, true);
}

static int cmd_stats(struct repl *r, int argc, char **argv, const char *rest)
{
	if (argc == 1 && r->last_sql)
		printf("last query: %.3f s, exit status %d\n", r->last_ms / 1e3, r->last_status);
	if (argc == 1)
		printf("stats after each query: %s\n", r->stats ? "on" : "off");
	return argc == 1 ? 0 : on_off("stats", argc, argv, &r->stats);
}

static int cmd_timer(struct repl *r, int argc, char **argv, const char *rest)
{
	return on_off("timer", argc, argv, &r->timer);
}

static int cmd_quit(struct repl *r, int argc, char **argv, const char *rest)
{
	r->quit = true;
	return 0;
}

static const struct dot_cmd dot_cmds[] = {
	{ "help", cmd_help, 0, 1, "[COMMAND]", "this list, or one command's line" },
	{ "tables", cmd_tables, 0, 1, "[GLOB]",
	  "list tables (a word without * ? [ matches anywhere)" },
	{ "schema", cmd_schema, 1, 1, "TABLE", "the columns and types of TABLE" },
	{ "interval", cmd_interval, 0, 1, "D|off",
	  "watch: print a result every D (1000, 1s) until Ctrl-C" },
	{ "duration", cmd_duration, 0, 1, "D|off",
	  "collect for D (500ms, 5s, 2m; default 1s), then print" },
	{ "mode", cmd_mode, 0, 1, "table|csv|json", "output format" },
	{ "output", cmd_output, 0, 1, "FILE|stdout", "write query results (and .schema) to FILE" },
	{ "cpu", cmd_cpu, 0, 1, "LIST|all", "only these CPUs (0,2-3)" },
	{ "pid", cmd_pid, 0, 1, "LIST|all", "only these processes (all their threads)" },
	{ "freq", cmd_freq, 0, 1, "HZ", "sampling frequency of PMU tables" },
	{ "run", cmd_run, 1, MAX_ARGS - 1, "NAME [PARAM=VALUE...]",
	  "run a profiler (built-in, system or saved) with its parameters" },
	{ "save", cmd_save, 1, 1, "NAME", "save the last query as a profiler, NAME" },
	{ "profilers", cmd_profilers, 0, 0, "",
	  "list every profiler and its kind (built-in, system, saved)" },
	{ "explain", cmd_explain, 0, MAX_ARGS - 1, "[SQL]",
	  "the plan of SQL or the last query (events, filters)" },
	{ "stats", cmd_stats, 0, 1, "[on|off]",
	  "last query's time; on: received/lost per table after each query" },
	{ "timer", cmd_timer, 0, 1, "on|off", "print the time each query took" },
	{ "quit", cmd_quit, 0, 0, "", "leave (so do EOF and Ctrl-C twice)" },
	{ 0 },
};

const char *commands__name(int nth)
{
	int nr = (int)(sizeof(dot_cmds) / sizeof(dot_cmds[0]));

	return nth >= 0 && nth < nr ? dot_cmds[nth].name : NULL;
}

int commands__run(struct repl *r, const char *line)
{
	char *copy = strdup(line), *argv[MAX_ARGS + 1], *save = NULL;
	const char *rest = line + 1 + strcspn(line + 1, " \t");
	const struct dot_cmd *c;
	int argc = 0, rc;

	if (!copy)
		return EXIT_ERR;
	for (char *t = strtok_r(copy + 1, " \t", &save); t && argc <= MAX_ARGS;
	     t = strtok_r(NULL, " \t", &save))
		argv[argc++] = t;
	rest += strspn(rest, " \t");
	for (c = dot_cmds; c->name && (!argc || strcmp(c->name, argv[0])); c++)
		;
	if (!argc || !c->name)
		rc = (say("no such command '.%s'; see .help", argc ? argv[0] : ""), EXIT_USAGE);
	else if (argc - 1 < c->min_args || argc - 1 > c->max_args)
		rc = usage(c);
	else
		rc = c->fn(r, argc, argv, rest);
	free(copy);
	return rc;
}
