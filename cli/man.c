/*
 * cli/man.c - the manual pages perf-sql(1) and perf-sql-profilers(7) as roff, made from the
 * registries --help and the docs are made from, so they cannot drift:
 *
 *   perf-sql --help-man perf-sql             > docs/man/perf-sql.1      (scripts/gen-man.sh;
 *   perf-sql --help-man perf-sql-profilers   > docs/man/perf-sql-profilers.7   tests/live/man.sh
 *                                                                       diffs them)
 *
 * (1) Options are the rows of cli_options[] (options__nth), subcommands the rows of
 *     cli_subcommands[], functions the rows of sql_funcs[], profilers the built-in ones of the
 *     registry (saved ones are the user's, not the manual's), examples those of --help.
 * (2) Nothing depends on the machine: no catalog is opened, no privileges are needed, and the
 *     page has no date, so the same source gives the same page.
 * (3) Text is escaped for roff: a backslash as \e, a leading '.' or '\'' guarded by \&; in
 *     commands, options and SQL '-' is \- (an ASCII minus however the page is rendered).
 */
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include "profilers/profiler.h"
#include "cli/cli.h"
#include "cli/man.h"
#include "sqlite/functions.h"

/* n bytes of s as roff; code: '-' is a minus (commands, options, SQL) */
static void put_n(FILE *f, const char *s, size_t n, bool code)
{
	bool bol = true;

	for (const char *end = s + n; s < end; s++) {
		if (bol && (*s == '.' || *s == '\''))
			fputs("\\&", f);
		bol = *s == '\n';
		if (*s == '\\')
			fputs("\\e", f);
		else if (*s == '-' && code)
			fputs("\\-", f);
		else
			fputc(*s, f);
	}
}

static void put(FILE *f, const char *s, bool code) { put_n(f, s, strlen(s), code); }

/* a paragraph of text lines (roff fills them) */
static void para(FILE *f, const char *s)
{
	fputs(".PP\n", f);
	put(f, s, false);
	fputc('\n', f);
}

/* lines kept as they are, indented: commands and SQL */
static void verbatim(FILE *f, const char *s)
{
	size_t n = strlen(s);

	fputs(".PP\n.RS 4\n.nf\n", f);
	put(f, s, true);
	if (n && s[n - 1] != '\n')
		fputc('\n', f);
	fputs(".fi\n.RE\n", f);
}

static void option_entry(FILE *f, const struct cli_option *o)
{
	fputs(".TP\n", f);
	if (o->short_name)
		fprintf(f, "\\fB\\-%c\\fR, ", o->short_name);
	fputs("\\fB\\-\\-", f);
	put(f, o->name, true);
	fputs("\\fR", f);
	if (o->arg) {
		fputs(" \\fI", f);
		put(f, o->arg, true);
		fputs("\\fR", f);
	}
	fputc('\n', f);
	put(f, o->help, false);
	fputc('\n', f);
}

static void subcommand_entry(FILE *f, const struct cli_subcommand *sc)
{
	fputs(".TP\n\\fBperf\\-sql ", f);
	put(f, sc->name, true);
	fputs("\\fR", f);
	if (sc->usage[0]) {
		fputc(' ', f);
		put(f, sc->usage, true);
	}
	fputc('\n', f);
	put(f, sc->help, false);
	fputc('\n', f);
}

static const char description[] =
	"perf-sql is a SQL-first Linux event query engine: every kernel event stream is a SQL "
	"table.\n"
	"Each tracepoint, the perf software, hardware and cache events, uprobes, USDT probes and\n"
	"hardware breakpoints are tables; the tables a query names, the columns it reads and its "
	"WHERE\n"
	"decide what perf-sql opens in the kernel, what it collects and what the kernel filters "
	"out.\n"
	"perf-sql prepares the SQL (one or more statements separated by ';'), opens the events "
	"they\n"
	"read, collects until Ctrl-C, the end of -d, or the end of CMD, then runs the statements "
	"over\n"
	"what it collected and prints the results. With -i, it prints one result per window.\n";

static const char status_text[] = "While collecting, when stderr is a terminal, one status line is "
				  "redrawn there at most five\n"
				  "times a second: the time elapsed (and the duration of -d), the "
				  "events received and lost so\n"
				  "far, the window count with -i, and that Ctrl-C stops. It is "
				  "erased before results print and\n"
				  "never written to stdout, -o FILE or a pipe; -q turns it off.\n";

static const char tables_text[] =
	"Every tracepoint is a table, named by its event (sched_switch) or system:event in double\n"
	"quotes (\"sched:sched_switch\"). Its columns are _time (the perf clock, ns since boot),\n"
	"_cpu, _pid, _tid, _comm and _period (aliases time, cpu, pid, tid, comm where no field "
	"has\n"
	"the name), then the event's own fields; a syscalls:sys_enter_* table has NAME_str (TEXT)\n"
	"for each const char * argument NAME: the string, copied at the call by a BPF program\n"
	"(filename_str of sys_enter_openat). PMU tables: cpu_clock, task_clock, page_faults,\n"
	"context_switches, cycles, instructions, cache tables and sysfs PMU events, with ip and "
	"addr;\n"
	"a sampling rate is a table argument: cpu_clock(999). Every table has a hidden stack "
	"column,\n"
	"read with stack_text() or folded_stack(). counters is perf stat as a table; pairs(START,\n"
	"KEY, END, KEY) pairs start and end events into latencies; pending(START, KEY, END, KEY\n"
	"[, START_COL [, START_COL2]]) lists the starts still waiting for their end (their age\n"
	"and START_COL values: objects allocated and not freed); perf_sql_events is the catalog\n"
	"of events and their fields; perf_sql_stats has the events received and lost per table "
	"and\n"
	"CPU. Every profiler is a table too (perf-sql-profilers(7)). --uprobe, --uretprobe, "
	"--usdt\n"
	"and --breakpoint add tables of their own. perf-sql --schema TABLE prints a table's "
	"columns.\n";

static void functions(FILE *f)
{
	int nr;
	const struct sql_func *fn = sql_functions__table(&nr);

	for (int i = 0; i < nr; i++) {
		if (i && !strcmp(fn[i].name, fn[i - 1].name))
			continue; /* one entry per name: the first row's usage covers the others */
		fputs(".TP\n\\fB", f);
		put(f, fn[i].usage, true);
		fprintf(f, "\\fR%s\n", fn[i].step ? " (aggregate)" : "");
		put(f, fn[i].summary, false);
		fputc('\n', f);
	}
}

static void examples(FILE *f)
{
	const char *s = options__examples();

	fputs(".PP\n.RS 4\n.nf\n", f);
	while (*s) {
		size_t n;

		s += strspn(s, " ");
		n = strcspn(s, "\n");
		fputs(strncmp(s, "perf-sql", 8) ? "    " : "", f); /* a continued command */
		put_n(f, s, n, true);
		fputc('\n', f);
		s += n + (s[n] == '\n');
	}
	fputs(".fi\n.RE\n", f);
}

/* cli/run.c's table; scripts/gen-man.sh writes docs/cli.md's from this section */
static void exit_status(FILE *f)
{
	const struct exit_status *x;

	for (int i = 0; (x = run__exit_status(i)); i++) {
		fprintf(f, ".TP\n\\fB%d\\fR\n", x->code);
		put(f, x->meaning, false);
		fputs(": ", f);
		put(f, x->examples, false);
		fputs("\n", f);
	}
}

static const char files_text[] =
	".TP\n"
	"\\fI/etc/perf\\-sql/profilers/NAME.sql\\fR\n"
	"System-wide saved profilers, read only (PERF_SQL_SYSTEM_PROFILERS overrides the "
	"directory).\n"
	".TP\n"
	"\\fI$XDG_CONFIG_HOME/perf\\-sql/profilers/NAME.sql\\fR\n"
	"The user's saved profilers (perf-sql save, .save in the REPL); ~/.config when\n"
	"XDG_CONFIG_HOME is not set. They shadow built-in and system ones of the same name.\n"
	".TP\n"
	"\\fI$XDG_STATE_HOME/perf\\-sql/history\\fR\n"
	"The REPL's history; ~/.local/state when XDG_STATE_HOME is not set.\n"
	".TP\n"
	"\\fI/sys/kernel/tracing\\fR\n"
	"tracefs: the tracepoints and their formats (mounted by perf-sql when it is not).\n";

static void page_perf_sql(FILE *f)
{
	const struct cli_option *o;
	const struct cli_subcommand *sc;

	fputs(".SH NAME\nperf\\-sql \\- query Linux kernel events with SQL\n.SH SYNOPSIS\n.nf\n"
	      "\\fBperf\\-sql\\fR [\\fIOPTIONS\\fR] \\fI\"SQL\"\\fR [\\fB\\-\\-\\fR \\fICMD\\fR "
	      "[\\fIARGS\\fR...]]\n"
	      "\\fBperf\\-sql\\fR \\fB\\-r\\fR \\fIFILE\\fR [\\fIOPTIONS\\fR] \\fI\"SQL\"\\fR\n"
	      "\\fBperf\\-sql\\fR [\\fIOPTIONS\\fR] [\\fB\\-\\-repl\\fR]\n"
	      "\\fBperf\\-sql\\fR \\fINAME\\fR [\\fIPARAM\\fR=\\fIVALUE\\fR...] [\\fIOPTIONS\\fR] "
	      "[\\fB\\-\\-\\fR \\fICMD\\fR [\\fIARGS\\fR...]]\n",
	      f);
	for (int i = 0; (sc = subcommands__nth(i)); i++) {
		fputs("\\fBperf\\-sql ", f);
		put(f, sc->name, true);
		fputs("\\fR ", f);
		put(f, sc->usage, true);
		fputc('\n', f);
	}
	fputs(".fi\n.SH DESCRIPTION\n", f);
	put(f, description, false);
	para(f,
	     "Without SQL, or with --repl, perf-sql is an interactive shell; it reads statements "
	     "from stdin when stdin is not a terminal.");
	para(f, status_text);
	fputs(".SH OPTIONS\n", f);
	for (int i = 0; (o = options__nth(i)); i++)
		option_entry(f, o);
	fputs(".SH SUBCOMMANDS\n", f);
	for (int i = 0; (sc = subcommands__nth(i)); i++)
		subcommand_entry(f, sc);
	fputs(".TP\n\\fBperf\\-sql\\fR \\fINAME\\fR [\\fIPARAM\\fR=\\fIVALUE\\fR...]\n"
	      "run the profiler NAME, with any option above (perf-sql-profilers(7))\n",
	      f);
	fputs(".SH TABLES\n", f);
	put(f, tables_text, false);
	fputs(".SH FUNCTIONS\nBesides SQLite's own:\n", f);
	functions(f);
	fputs(".SH EXIT STATUS\n", f);
	exit_status(f);
	fputs(".SH ENVIRONMENT\n.TP\n\\fBXDG_CONFIG_HOME\\fR, \\fBXDG_STATE_HOME\\fR, "
	      "\\fBHOME\\fR\nwhere saved profilers and the REPL's history are (FILES)\n"
	      ".TP\n\\fBPERF_SQL_SYSTEM_PROFILERS\\fR\n"
	      "the system directory of saved profilers instead of /etc/perf\\-sql/profilers\n"
	      ".SH FILES\n",
	      f);
	fputs(files_text, f);
	fputs(".SH EXAMPLES\n", f);
	examples(f);
	fputs(".SH SEE ALSO\n\\fBperf\\-sql\\-profilers\\fR(7), \\fBperf\\fR(1), "
	      "\\fBsqlite3\\fR(1); the Markdown documents in share/doc/perf\\-sql\n",
	      f);
}

static const char profilers_text[] =
	"A profiler is an annotated SQL file: a header of comment lines (its summary, what it "
	"needs,\n"
	"its parameters with their types and defaults, examples) and one or more statements. The\n"
	"built-in ones below are embedded in perf-sql; perf-sql list shows them with the saved "
	"ones,\n"
	"perf-sql help NAME shows one with its SQL. A profiler run takes every option a query "
	"takes\n"
	"(-d, -i, -f, -o, -p, -C, -- CMD, ...). Parameters are given as PARAM=VALUE anywhere "
	"before\n"
	"--; absent ones take their defaults.\n";

static const char tables_of_profilers[] = "Every profiler is also a table: its parameters are the "
					  "table-valued function's arguments, in\n"
					  "the order of its usage line, or hidden columns set in "
					  "WHERE (a parameter named as a result\n"
					  "column is _NAME). A name with '-' is quoted in SQL "
					  "(\"page-faults\"). A tracepoint or PMU\n"
					  "table of the same name wins; perf-sql help NAME says "
					  "what the profiler is called as a table\n"
					  "on this machine.\n";

static const char saved_text[] =
	"perf-sql save NAME \"SQL\" [--summary TEXT] saves a query as a profiler in\n"
	"$XDG_CONFIG_HOME/perf-sql/profilers/NAME.sql (~/.config when it is not set), and\n"
	"perf-sql delete NAME removes it; a saved profiler of a built-in's name shadows it "
	"(--force).\n"
	"Profilers in /etc/perf-sql/profilers are for every user and read only. A :NAME in the SQL "
	"of\n"
	"a saved query is a parameter: perf-sql NAME NAME=VALUE.\n";

static void profiler_entry(FILE *f, const struct profiler *p)
{
	bool dash = strchr(p->name, '-') != NULL;

	fputs(".SS ", f);
	put(f, p->name, true);
	fputc('\n', f);
	put(f, p->summary, false);
	fputc('\n', f);
	if (p->needs[0]) {
		fputs(".PP\nNeeds: ", f);
		put(f, p->needs, false);
		fputc('\n', f);
	}
	if (p->desc[0])
		para(f, p->desc);
	fputs(".PP\n.RS 4\n.nf\nperf\\-sql ", f);
	put(f, p->name, true);
	for (int i = 0; i < p->nr_params; i++)
		fprintf(f, " [%s=%s]", p->params[i].name, param_type__name(p->params[i].type));
	fputs(" [OPTIONS] [\\-\\- CMD [ARGS...]]\nselect * from ", f);
	fprintf(f, "%s", dash ? "\"" : "");
	put(f, p->name, true);
	fprintf(f, "%s%s", dash ? "\"" : "", p->nr_params ? "(" : "");
	for (int i = 0; i < p->nr_params; i++)
		fprintf(f, "%s%s", i ? ", " : "", p->params[i].name);
	fprintf(f, "%s\n.fi\n.RE\n", p->nr_params ? ")" : "");
	for (int i = 0; i < p->nr_params; i++) {
		const struct prof_param *pp = &p->params[i];

		fprintf(f, ".TP\n\\fB%s\\fR=\\fI%s\\fR (default ", pp->name,
			param_type__name(pp->type));
		put(f, pp->def, true);
		fputs(")\n", f);
		put(f, pp->help, false);
		fputc('\n', f);
	}
	if (p->example[0]) {
		fputs(".PP\nExample:\n", f);
		verbatim(f, p->example);
	}
	fputs(".PP\nSQL:\n", f);
	verbatim(f, p->body);
}

static void parameter_types(FILE *f)
{
	for (int t = PT_DURATION; t <= PT_COLUMN; t++) {
		fprintf(f, ".TP\n\\fB%s\\fR\n", param_type__name((enum param_type)t));
		put(f, param_type__example((enum param_type)t), false);
		fputc('\n', f);
	}
}

static int page_profilers(FILE *f, struct err *e)
{
	int nr, n = 0;
	struct profiler **list = profilers__list(&nr, e);

	if (!list)
		return e->code ? e->code : -ENOMEM;
	fputs(".SH NAME\nperf\\-sql\\-profilers \\- the built\\-in profilers of perf\\-sql\n"
	      ".SH SYNOPSIS\n.nf\n\\fBperf\\-sql list\\fR\n\\fBperf\\-sql help\\fR \\fINAME\\fR\n"
	      "\\fBperf\\-sql\\fR \\fINAME\\fR [\\fIPARAM\\fR=\\fIVALUE\\fR...] [\\fIOPTIONS\\fR] "
	      "[\\fB\\-\\-\\fR \\fICMD\\fR [\\fIARGS\\fR...]]\n"
	      "\\fBperf\\-sql\\fR \\fI\"select ... from NAME(ARGS) ...\"\\fR\n.fi\n"
	      ".SH DESCRIPTION\n",
	      f);
	put(f, profilers_text, false);
	para(f, tables_of_profilers);
	fputs(".SH PARAMETER TYPES\n", f);
	parameter_types(f);
	fputs(".SH PROFILERS\n", f);
	for (int i = 0; i < nr; i++)
		if (list[i]->origin == PROF_BUILTIN) {
			profiler_entry(f, list[i]);
			n++;
		}
	fputs(".SH SAVED PROFILERS\n", f);
	put(f, saved_text, false);
	fputs(".SH SEE ALSO\n\\fBperf\\-sql\\fR(1)\n", f);
	profilers__free(list, nr);
	return n ? 0 : err_set(e, -ENOENT, "no built-in profilers");
}

int man__write(FILE *f, const char *page, struct err *e)
{
	static const struct {
		const char *name, *section, *title;
	} pages[] = {
		{ "perf-sql", "1", "User Commands" },
		{ "perf-sql-profilers", "7", "perf-sql Manual" },
	};

	for (size_t i = 0; i < sizeof(pages) / sizeof(pages[0]); i++) {
		if (strcmp(page, pages[i].name))
			continue;
		fprintf(f,
			".\\\" generated by perf-sql --help-man %s (scripts/gen-man.sh): do not "
			"edit\n.TH ",
			page);
		for (const char *c = page; *c; c++) /* PERF\-SQL */
			if (*c == '-')
				fputs("\\-", f);
			else
				fputc(toupper((unsigned char)*c), f);
		fprintf(f, " %s \"\" \"perf\\-sql %s\" \"%s\"\n.nh\n.ad l\n", pages[i].section,
			PERF_SQL_VERSION, pages[i].title);
		if (i == 0) {
			page_perf_sql(f);
			return 0;
		}
		return page_profilers(f, e);
	}
	err_set(e, -EINVAL, "--help-man: no such page '%s'; choices: perf-sql perf-sql-profilers",
		page);
	return err_usage(e);
}
