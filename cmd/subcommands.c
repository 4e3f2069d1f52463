/*
 * cmd/subcommands.c - perf-sql list | help NAME | save NAME SQL | delete NAME | NAME [PARAM=VALUE]
 *
 *   perf-sql list                                  every profiler: name, kind, summary, needs
 *   perf-sql help rundelay                         its parameters, an example, its SQL
 *   perf-sql rundelay than=4ms -i 1000             runs it as main() runs any query
 *   perf-sql save busy "select ..." --summary "..." [--force]
 *   perf-sql "select ..." --save busy              runs the query and saves it
 *   perf-sql delete busy
 *
 * (1) A profiler run only rewrites the command line: NAME and PARAM=VALUE go, q->sql and
 *     q->params come, and main() parses the options, so a profiler takes every option a query
 *     takes, and the REPL and the query path stay the only runners.
 * (2) PARAM=VALUE may sit anywhere before "--"; an argument that is the value of an option
 *     (-o x=y) is not one: the option table says which options take a value.
 * (3) The profiler and its SQL live until exit (reachable from statics): q points into them.
 * (4) The subcommands are one table, cli_subcommands[]: dispatch, --help and the names a saved
 *     profiler may not take (subcommands__check_name) are made from it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sqlite3.h>
#include "core/record.h"
#include "profilers/view.h"
#include "cli/cli.h"
#include "serve/serve.h"
#include "cmd/subcommands.h"
#include "profilers/profiler.h"

static struct profiler *running; /* (3) */
static char *running_sql;
static char *running_pprof_sql; /* its `-- pprof:` line's, bound alike */
static char **new_argv;

static int usage_err(struct err *e)
{
	report(e);
	return EXIT_USAGE;
}

static int cmd_list(int argc, char **argv, struct cli *c)
{
	struct err e = { 0 };
	int nr, wn = 4, wk = 9, ws = 7;
	struct profiler **list;

	if (argc > 2)
		usage_error("list takes no argument ('%s'): perf-sql list", argv[2]);
	if (!(list = profilers__list(&nr, &e)))
		return report(&e);
	for (int i = 0; i < nr; i++) {
		int n = (int)strlen(list[i]->name), s = (int)strlen(list[i]->summary);

		wn = n > wn ? n : wn;
		ws = s > ws ? (s < 72 ? s : 72) : ws;
	}
	printf("%-*s  %-*s  %-*s  %s\n", wn, "name", wk, "kind", ws, "summary", "needs");
	for (int i = 0; i < nr; i++) {
		const struct profiler *p = list[i];
		char kind[16], needs[200];

		profiler__kind(p, kind, sizeof(kind));
		snprintf(needs, sizeof(needs), "%s", p->needs[0] ? p->needs : "-");
		for (char *c = needs; *c; c++)
			if (*c == '\n')
				*c = ';';
		printf("%-*s  %-*s  %-*s  %s\n", wn, p->name, wk, kind, ws, p->summary, needs);
	}
	printf("\n%d profilers; perf-sql help NAME shows one; * = a saved profiler shadowing a "
	       "built-in\nevery profiler is usable as a table: select * from syscalls('1ms') where "
	       "calls > 100 (perf-sql help NAME: its name as a table)\n",
	       nr);
	profilers__free(list, nr);
	return 0;
}

static void print_indented(const char *s, const char *indent)
{
	while (*s) {
		size_t n = strcspn(s, "\n");

		printf("%s%.*s\n", n ? indent : "", (int)n, s);
		s += n + (s[n] == '\n');
	}
}

/* how the profiler is named as a table, or what shadows it (profilers/view.c) */
static void as_table(const struct profiler *p)
{
	struct session_opts so = { 0 };
	struct err e = { 0 };
	struct session *s = session__new(&so, &e);
	char name[96], args[400] = "";
	const char *full;
	size_t off = 0;

	if (!s)
		return; /* no catalog (not root): nothing to say */
	for (int i = 0; i < p->nr_params && off < sizeof(args) - 80; i++)
		off += (size_t)snprintf(args + off, sizeof(args) - off, "%s%s", i ? ", " : "",
					p->params[i].name);
	if (profilers__table_name(s, p->name, name, sizeof(name)))
		printf("\nas a table: none: tables named %s shadow it (run it by name)\n", p->name);
	else
		printf("\nas a table:\n  select * from %s%s%s%s\n  (parameters: arguments in this "
		       "order, or WHERE NAME = value; _NAME where a column has the name)\n",
		       name, p->nr_params ? "(" : "", args, p->nr_params ? ")" : "");
	if (!profilers__shadowed(s, p->name, name, sizeof(name), &full))
		printf("  (%s is the table %s: it wins over this profiler)\n", name, full);
	session__close(s);
}

/* which path each table of the profiler takes here, from its --explain (ids and sizes left out:
 * "kernel" or "perf ring" and why); nothing where it cannot be planned (not root) */
static void path_of(const struct profiler *p)
{
	char cmd[4400], line[1024], table[160] = "", self[4096];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	bool any = false;
	FILE *f;

	if (n <= 0 || memchr(self, '\'', (size_t)n) || strchr(p->name, '\''))
		return;
	self[n] = '\0';
	snprintf(cmd, sizeof(cmd), "'%s' --explain '%s' 2>/dev/null", self, p->name);
	if (!(f = popen(cmd, "r")))
		return;
	while (fgets(line, sizeof(line), f)) {
		const char *path = line + 15;

		line[strcspn(line, "\n")] = '\0';
		if (!strncmp(line, "table ", 6))
			snprintf(table, sizeof(table), "%.150s", line + 6);
		if (strncmp(line, "  path         ", 15) || !table[0])
			continue;
		printf("%s  %s: ",
		       any ? ""
			   : "\npath (as planned on this machine; --no-bpf: the "
			     "perf ring):\n",
		       table);
		any = true;
		if (!strncmp(path, "pairs() starts in the kernel", 28))
			printf("in the kernel (BPF: pairs()' starts)\n");
		else if (!strncmp(path, "aggregated in the kernel", 24))
			printf("in the kernel (BPF: %s)\n", strstr(path, "pairs()")
								    ? "pairs() ended and aggregated"
								    : "aggregated");
		else
			printf("%s\n", path);
	}
	pclose(f);
}

static int help_of(const char *name)
{
	struct err e = { 0 };
	struct profiler *p = profiler__find(name, &e);

	if (!p)
		return usage_err(&e);
	printf("%s - %s\n", p->name, p->summary);
	printf("  %s: %s\n", profiler__origin_name(p), p->path);
	if (p->needs[0]) {
		printf("  needs: ");
		print_indented(p->needs, "");
	}
	if (p->desc[0]) {
		putchar('\n');
		print_indented(p->desc, "  ");
	}
	printf("\nusage:\n  perf-sql %s", p->name);
	for (int i = 0; i < p->nr_params; i++)
		printf(" [%s=%s]", p->params[i].name, param_type__name(p->params[i].type));
	printf(" [OPTIONS] [-- CMD [ARGS...]]\n  (OPTIONS as for a query: -d, -i, -f, -o, -p, -C, "
	       "...; see perf-sql --help)\n");
	if (p->nr_params) {
		int w = 4;

		for (int i = 0; i < p->nr_params; i++)
			w = (int)strlen(p->params[i].name) > w ? (int)strlen(p->params[i].name) : w;
		printf("\nparameters:\n");
		for (int i = 0; i < p->nr_params; i++) {
			const struct prof_param *pp = &p->params[i];

			printf("  %-*s  %-8s  default %-6s  %s\n", w, pp->name,
			       param_type__name(pp->type), pp->def, pp->help);
		}
	}
	if (p->example[0]) {
		printf("\nexample:\n");
		print_indented(p->example, "  ");
	}
	as_table(p);
	path_of(p);
	printf("\nSQL:\n");
	print_indented(p->body, "  ");
	if (p->pprof[0]) /* its -- pprof: line (docs/pprof.md) */
		printf("\nSQL with -f pprof:\n  %s\n", p->pprof);
	profiler__free(p);
	free(p);
	return 0;
}

static char *read_stdin(void)
{
	char *buf = NULL;
	size_t cap = 0;

	if (getdelim(&buf, &cap, '\0', stdin) < 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* perf-sql save NAME SQL [--summary TEXT] [--force]; SQL "-" is read from stdin */
static int cmd_save(int argc, char **argv, struct cli *c)
{
	const char *pos[2] = { 0 }, *summary = NULL;
	char path[4200], *sql = NULL;
	struct err e = { 0 };
	bool force = false;
	int nr = 0, rc;

	for (int i = 2; i < argc; i++) {
		if (!strcmp(argv[i], "--force")) {
			force = true;
		} else if (!strcmp(argv[i], "--summary") && i + 1 < argc) {
			summary = argv[++i];
		} else if (argv[i][0] == '-' && argv[i][1]) {
			err_set(&e, -EINVAL, "save: unknown option '%s'", argv[i]);
			err_hint(&e,
				 "usage: perf-sql save NAME \"SQL\" [--summary TEXT] [--force]");
			return usage_err(&e);
		} else if (nr < 2) {
			pos[nr++] = argv[i];
		} else {
			err_set(&e, -EINVAL,
				"save: unexpected argument '%s' (quote the SQL as one argument)",
				argv[i]);
			return usage_err(&e);
		}
	}
	if (nr < 2) {
		err_set(&e, -EINVAL, "save: needs a name and the SQL");
		err_hint(&e, "usage: perf-sql save NAME \"SQL\" [--summary TEXT] [--force]");
		return usage_err(&e);
	}
	if (subcommands__check_name(pos[0], &e))
		return usage_err(&e);
	if (!strcmp(pos[1], "-") && !(sql = read_stdin())) {
		say("save: cannot read the SQL from stdin");
		return EXIT_ERR;
	}
	rc = profiler__save(pos[0], sql ? sql : pos[1], summary, force, path, sizeof(path), &e);
	free(sql);
	if (rc)
		return rc == -EINVAL || rc == -EEXIST ? usage_err(&e) : report(&e);
	printf("saved %s (%s); run it with: perf-sql %s\n", pos[0], path, pos[0]);
	return 0;
}

static int cmd_delete(int argc, char **argv, struct cli *c)
{
	char path[4200];
	struct err e = { 0 };

	if (argc != 3) {
		err_set(&e, -EINVAL, "delete: needs one profiler name");
		err_hint(&e, "usage: perf-sql delete NAME");
		return usage_err(&e);
	}
	if (profiler__delete(argv[2], path, sizeof(path), &e))
		return report(&e);
	printf("deleted %s (%s)\n", argv[2], path);
	return 0;
}

static int usage_of(const struct profiler *p, struct err *e)
{
	if (!e->hint[0])
		err_hint(e,
			 "usage: perf-sql %s [PARAM=VALUE ...] [OPTIONS] [-- CMD ...]; perf-sql "
			 "help %s",
			 p->name, p->name);
	return usage_err(e);
}

/*
 * Splits argv[first..] into options (kept, in order, with "--" and the command after it) and
 * the other arguments (params); finds --save NAME. new_argv holds the kept ones.
 */
static int split_args(int argc, char **argv, int first, char **params, int *nr_params,
		      const char **save_as)
{
	int n = 1;

	if (!(new_argv = calloc((size_t)argc + 2, sizeof(char *))))
		return -ENOMEM;
	new_argv[0] = argv[0];
	*nr_params = 0;
	for (int i = first; i < argc; i++) {
		if (!strcmp(argv[i], "--")) {
			while (i < argc)
				new_argv[n++] = argv[i++];
			break;
		}
		if (!strcmp(argv[i], "--save") && i + 1 < argc) {
			*save_as = argv[++i];
		} else if (!strncmp(argv[i], "--save=", 7)) {
			*save_as = argv[i] + 7;
		} else if (argv[i][0] == '-' && argv[i][1]) {
			new_argv[n++] = argv[i];
			if (options__takes_value(argv[i]) && i + 1 < argc)
				new_argv[n++] = argv[++i];
		} else {
			params[(*nr_params)++] = argv[i];
		}
	}
	new_argv[n] = NULL;
	return n;
}

/* the SQL -f pprof runs for the profiler p: its pprof line, with the parameters bound as the
 * body's (they were checked there, so they hold here) */
static int bind_pprof(const struct profiler *p, char **params, int nr_params)
{
	struct profiler *alt = malloc(sizeof(*alt));
	struct query_param scratch[QUERY_MAX_PARAMS];
	struct err e = { 0 };
	int nr, rc;

	if (!alt)
		return report(&(struct err){ -ENOMEM, "out of memory", "" });
	*alt = *p;
	alt->text = alt->pprof; /* the SQL bound is the whole text */
	alt->body = alt->pprof;
	rc = profiler__bind(alt, nr_params, params, scratch, QUERY_MAX_PARAMS, &nr,
			    &running_pprof_sql, &e);
	free(alt);
	return rc ? report(&e) : -1;
}

static int run_profiler(const char *name, char **params, int nr_params, struct query *q)
{
	struct err e = { 0 };
	int rc;

	if (!(running = profiler__find(name, &e)))
		return usage_err(&e);
	rc = profiler__bind(running, nr_params, params, q->params,
			    (int)(sizeof(q->params) / sizeof(q->params[0])), &q->nr_params,
			    &running_sql, &e);
	if (rc)
		return rc == -EINVAL ? usage_of(running, &e) : report(&e);
	q->sql = running_sql;
	return running->pprof[0] ? bind_pprof(running, params, nr_params) : -1;
}

const char *subcommands__pprof_sql(void) { return running_pprof_sql; }

static int save_query(const char *save_as, const char *sql)
{
	char path[4200];
	struct err e = { 0 };

	if (!sql) {
		err_set(&e, -EINVAL, "--save %s: no SQL to save", save_as);
		return usage_err(&e);
	}
	if (subcommands__check_name(save_as, &e))
		return usage_err(&e);
	if (profiler__save(save_as, sql, NULL, false, path, sizeof(path), &e))
		return e.code == -EINVAL || e.code == -EEXIST ? usage_err(&e) : report(&e);
	fprintf(stderr, "perf-sql: saved %s (%s)\n", save_as, path);
	return -1;
}

/*
 * A query or a profiler run: the first argument that is neither an option nor an option's
 * value is the SQL, or, when it is a bare name, the profiler (the rest are its PARAM=VALUE).
 */
static int run(int *argc, char ***argv, struct query *q)
{
	const char *save_as = NULL;
	char **pos = calloc((size_t)*argc + 1, sizeof(char *));
	int nr_pos, n, rc = -1;

	if (!pos || (n = split_args(*argc, *argv, 1, pos, &nr_pos, &save_as)) < 0) {
		free(pos);
		return report(&(struct err){ -ENOMEM, "out of memory", "" });
	}
	if (nr_pos && !profiler__check_name(pos[0], &(struct err){ 0 })) {
		if (save_as) {
			struct err e = { 0 };

			err_set(&e, -EINVAL, "--save saves a query, and %s is a profiler already",
				pos[0]);
			err_hint(&e,
				 "copy it with: perf-sql help %s, then perf-sql save NAME \"SQL\"",
				 pos[0]);
			rc = usage_err(&e);
		} else {
			rc = run_profiler(pos[0], pos + 1, nr_pos - 1, q);
		}
		nr_pos = 0; /* main() must not see them */
	} else if (save_as) {
		rc = save_query(save_as, nr_pos ? pos[0] : NULL);
	}
	if (rc >= 0 || (!save_as && q->sql == NULL)) {
		/* nothing to change: main() parses the arguments as they are */
		free(pos);
		free(new_argv);
		new_argv = NULL;
		return rc;
	}
	/* the SQL of a query goes back among the arguments, after "--" is not possible: before */
	memmove(new_argv + 1 + nr_pos, new_argv + 1, (size_t)n * sizeof(char *));
	memcpy(new_argv + 1, pos, (size_t)nr_pos * sizeof(char *));
	free(pos);
	*argc = n + nr_pos;
	*argv = new_argv;
	return -1;
}

/* perf-sql info FILE: what a capture holds */
static int cmd_info(int argc, char **argv, struct cli *c)
{
	struct err e = { 0 };

	if (argc != 3)
		usage_error("usage: perf-sql info FILE");
	return replay__info(argv[2], stdout, &e) ? report(&e) : 0;
}

static int cmd_help(int argc, char **argv, struct cli *c)
{
	const struct cli_subcommand *sc;

	if (argc == 3)
		return help_of(argv[2]);
	if (argc > 3)
		usage_error("help takes one profiler name: perf-sql help NAME");
	for (int i = 0; (sc = subcommands__nth(i)); i++)
		printf("%s perf-sql %s%s%s\n", i ? "      " : "usage:", sc->name,
		       sc->usage[0] ? " " : "", sc->usage);
	printf("       perf-sql NAME [PARAM=VALUE ...] [OPTIONS] [-- CMD [ARGS...]]\n"
	       "       perf-sql --help: options and queries\n");
	return 0;
}

static const struct cli_subcommand cli_subcommands[] = {
	{ "list", "", "the profilers (built-in and saved)", cmd_list },
	{ "help", "NAME", "a profiler's parameters, example and SQL", cmd_help },
	{ "save", "NAME \"SQL\" [--summary TEXT] [--force]",
	  "save a query as a profiler (or: \"SQL\" --save NAME); the SQL must prepare", cmd_save },
	{ "delete", "NAME", "delete a saved profiler", cmd_delete },
	{ "record", "-o FILE [OPTIONS] TABLE[,TABLE...]|\"SQL\" [-- CMD]",
	  "capture events to FILE for later queries (-r FILE)", NULL },
	{ "info", "FILE", "what a capture holds", cmd_info },
	{ "serve", "[--listen ADDR:PORT] [SERVE OPTIONS] [OPTIONS] [--name NAME] NAME|\"SQL\" ...",
	  "serve profilers (with their PARAM=VALUE) and queries as Prometheus metrics at /metrics; "
	  "--listen: default 127.0.0.1:9464; --name: the metric names' part of the next profiler "
	  "or SQL; --max-series: default 10000; --web.config.file: TLS and basic authentication "
	  "as Prometheus reads them; limits per client (docs/security.md): "
	  "--max-per-client 16, --request-deadline 5s, --max-label-bytes 4096, "
	  "--max-exposition-bytes 16M; pprof profiles on request (docs/pprof.md): "
	  "/debug/pprof/profile?seconds=N, the CPU profile at -F HZ, and --pprof NAME SQL|PROFILER "
	  "for any stack query, N at most --pprof-max-seconds 60; "
	  "perf-sql serve --help (docs/prometheus.md)",
	  serve__main },
};

const struct cli_subcommand *subcommands__nth(int n)
{
	return n >= 0 && n < (int)(sizeof(cli_subcommands) / sizeof(cli_subcommands[0]))
		       ? &cli_subcommands[n]
		       : NULL;
}

const struct cli_subcommand *subcommands__find(const char *name)
{
	const struct cli_subcommand *sc;

	for (int i = 0; (sc = subcommands__nth(i)); i++)
		if (!strcmp(sc->name, name))
			return sc;
	return NULL;
}

int subcommands__check_name(const char *name, struct err *e)
{
	if (profiler__check_name(name, e))
		return e->code;
	if (subcommands__find(name))
		return err_set(e, -EINVAL,
			       "profiler name '%s' is a subcommand of perf-sql; pick "
			       "another",
			       name);
	return 0;
}

int subcommands__main(int *argc, char ***argv, struct cli *c)
{
	const char *a = *argc > 1 ? (*argv)[1] : NULL;
	const struct cli_subcommand *sc =
		a ? subcommands__find(!strcmp(a, "--list") ? "list" : a) : NULL;

	if (!a)
		return -1;
	if (sc && sc->main)
		return sc->main(*argc, *argv, c);
	if (sc) { /* record: the rest is a query's command line, with -o the capture */
		c->record = true;
		(*argv)[1] = (*argv)[0];
		(*argv)++;
		(*argc)--;
		return -1;
	}
	return run(argc, argv, &c->q.q);
}
