/*
 * shell/complete.c - Tab completion: SQL keywords, table names, the columns of the tables the
 * statement names, SQL functions, dot commands and their arguments, saved query names.
 *
 * (1) Tables come from the catalog (short name, or system:event inside double quotes), so no
 *     format is parsed; columns are read (pragma_table_xinfo) only for the tables the
 *     statement being typed names, which parses just those formats.
 * (2) After FROM / JOIN only tables are offered; at the start of a statement only keywords
 *     (no statement starts with a table, so "sel" is not ambiguous with selinux_audited). A
 *     keyword is offered in the case the word was started in ("sel" -> "select", "SEL" ->
 *     "SELECT").
 * (3) The candidates are gathered once per Tab (prefix-matched), then handed to readline.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <readline/readline.h>
#include "shell/repl.h"
#include "profilers/profiler.h"
#include "profilers/view.h"
#include "sqlite/functions.h"

struct cands {
	char **v;
	int n, cap, next;
	const char *prefix;
	size_t len;
};

static struct repl *cr; /* readline's completion hooks take no context pointer */
static struct cands found;

static void add(struct cands *c, const char *s, bool lower)
{
	char **v;

	if (strncasecmp(s, c->prefix, c->len))
		return;
	if (c->n == c->cap) {
		if (!(v = realloc(c->v, (size_t)(c->cap * 2 + 64) * sizeof(*v))))
			return;
		c->v = v;
		c->cap = c->cap * 2 + 64;
	}
	if (!(c->v[c->n] = strdup(s)))
		return;
	for (char *p = c->v[c->n]; lower && *p; p++)
		*p = (char)tolower((unsigned char)*p);
	c->n++;
}

/* every profiler is a table too (profilers/view.c), under its name as a table */
static void add_profiler_tables(struct cands *c)
{
	int nr = 0;
	struct profiler **list = cr->cat ? profilers__list(&nr, &(struct err){ 0 }) : NULL;
	char name[96];

	for (int i = 0; list && i < nr; i++)
		if (!profilers__table_name(cr->cat, list[i]->name, name, sizeof(name)))
			add(c, name, false);
	profilers__free(list, nr);
}

static void add_tables(struct cands *c, bool quoted)
{
	struct catalog *cat = cr->cat ? cr->cat->cat : NULL;
	int nr = cat ? catalog__nr_events(cat) : 0;

	for (int i = 0; i < nr; i++) {
		const struct tp_event *ev = catalog__event(cat, i);

		if (ev->short_unique)
			add(c, ev->name, false);
		if (quoted || !ev->short_unique)
			add(c, ev->full, false); /* system:event needs "quotes" in SQL */
	}
	add(c, "perf_sql_events", false);
	add(c, "perf_sql_stats", false);
	add(c, "hist_rows", false);
	add(c, "heatmap_rows", false);
	add_profiler_tables(c);
}

static void add_keywords(struct cands *c)
{
	bool lower = !c->len || islower((unsigned char)c->prefix[0]);
	const char *name;
	int n;

	for (int i = 0; i < sqlite3_keyword_count(); i++) {
		char kw[32];

		if (sqlite3_keyword_name(i, &name, &n) == SQLITE_OK && n < (int)sizeof(kw)) {
			snprintf(kw, sizeof(kw), "%.*s", n, name);
			add(c, kw, lower);
		}
	}
}

static void add_functions(struct cands *c)
{
	static const char *const builtin[] = {
		"abs",    "avg",      "coalesce", "count",       "group_concat",
		"hex",    "ifnull",   "iif",      "instr",       "length",
		"lower",  "max",      "min",      "printf",      "round",
		"substr", "sum",      "total",    "trim",        "typeof",
		"upper",  "datetime", "strftime", "json_object", "json_group_array",
	};
	const struct sql_func *f;
	int nr = 0;

	for (size_t i = 0; i < sizeof(builtin) / sizeof(builtin[0]); i++)
		add(c, builtin[i], false);
	f = sql_functions__table(&nr);
	for (int i = 0; i < nr; i++)
		add(c, f[i].name, false);
}

/* the columns of every table named in text (identifiers and "quoted" names) */
static void add_columns(struct cands *c, const char *text)
{
	sqlite3_stmt *st = NULL;
	struct catalog *cat = cr->cat ? cr->cat->cat : NULL;

	if (!cr->db || !cat ||
	    sqlite3_prepare_v2(cr->db, "SELECT name FROM pragma_table_xinfo(?)", -1, &st, NULL))
		return;
	for (const char *p = text; *p;) {
		bool quoted = *p == '"';
		size_t n = quoted ? strcspn(p + 1, "\"")
				  : strspn(p, "abcdefghijklmnopqrstuvwxyz"
					      "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_:");
		const char *name = p + quoted;

		if (!n) {
			p++;
			continue;
		}
		p = name + n + (quoted && name[n]);
		char word[256];

		snprintf(word, sizeof(word), "%.*s", (int)n, name);
		if (!catalog__find(cat, word) && strcmp(word, "perf_sql_events") &&
		    strcmp(word, "perf_sql_stats"))
			continue;
		sqlite3_bind_text(st, 1, word, -1, SQLITE_TRANSIENT);
		while (sqlite3_step(st) == SQLITE_ROW)
			add(c, (const char *)sqlite3_column_text(st, 0), false);
		sqlite3_reset(st);
	}
	sqlite3_finalize(st);
}

static void add_profilers(struct cands *c)
{
	int nr = 0;
	struct profiler **list = profilers__list(&nr, &(struct err){ 0 });

	for (int i = 0; list && i < nr; i++)
		add(c, list[i]->name, false);
	profilers__free(list, nr);
}

/* arguments of a dot command: line holds ".cmd ..." */
static void add_command_args(struct cands *c, const char *line)
{
	static const struct {
		const char *cmd;
		const char *words[4];
	} fixed[] = {
		{ "mode", { "table", "csv", "json" } },
		{ "timer", { "on", "off" } },
		{ "stats", { "on", "off" } },
		{ "interval", { "off" } },
		{ "duration", { "off" } },
		{ "cpu", { "all" } },
		{ "pid", { "all" } },
		{ "output", { "stdout" } },
	};
	size_t n = strcspn(line + 1, " \t");

	for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
		if (strlen(fixed[i].cmd) == n && !strncmp(line + 1, fixed[i].cmd, n))
			for (int k = 0; k < 4 && fixed[i].words[k]; k++)
				add(c, fixed[i].words[k], false);
	if (!strncmp(line, ".schema ", 8) || !strncmp(line, ".tables ", 8))
		add_tables(c, false);
	if (!strncmp(line, ".run ", 5) || !strncmp(line, ".save ", 6))
		add_profilers(c);
	if (!strncmp(line, ".explain ", 9)) {
		add_keywords(c);
		add_tables(c, false);
	}
}

/* the word before position start ("from" in "select * from sch") */
static bool after_table_keyword(const char *line, int start)
{
	static const char *const kws[] = { "from", "join", "into", "table", "update", ".schema" };
	int end = start, begin;

	while (end > 0 && strchr(" \t\n,", line[end - 1]))
		end--;
	for (begin = end; begin > 0 && !strchr(" \t\n(", line[begin - 1]); begin--)
		;
	for (size_t i = 0; i < sizeof(kws) / sizeof(kws[0]); i++)
		if ((int)strlen(kws[i]) == end - begin &&
		    !strncasecmp(line + begin, kws[i], (size_t)(end - begin)))
			return true;
	return false;
}

/* the first word of a statement: no earlier line of it, and only blanks or a ';' before */
static bool at_statement_start(const char *line, int start)
{
	while (start > 0 && strchr(" \t\n", line[start - 1]))
		start--;
	return start > 0 ? line[start - 1] == ';' : !cr->pending;
}

static void gather(struct cands *c, const char *line, int start)
{
	char *stmt = NULL;

	if (!cr->pending && line[strspn(line, " \t")] == '.') {
		line += strspn(line, " \t");
		if (!strpbrk(line, " \t")) {
			for (int i = 0; commands__name(i); i++) {
				char name[32];

				snprintf(name, sizeof(name), ".%s", commands__name(i));
				add(c, name, false);
			}
		} else {
			add_command_args(c, line);
		}
		return;
	}
	if (rl_completion_quote_character == '"' || after_table_keyword(line, start)) {
		add_tables(c, rl_completion_quote_character == '"');
		return;
	}
	add_keywords(c);
	if (at_statement_start(line, start))
		return;
	add_functions(c);
	add_tables(c, false);
	if (asprintf(&stmt, "%s%s", cr->pending ? cr->pending : "", line) >= 0)
		add_columns(c, stmt);
	free(stmt);
}

static char *next_match(const char *text, int state)
{
	return found.next < found.n ? found.v[found.next++] : NULL;
}

static char **complete(const char *text, int start, int end)
{
	rl_attempted_completion_over = 1; /* no file names unless asked for below */
	for (int i = found.next; i < found.n; i++)
		free(found.v[i]);
	found.n = found.next = 0;
	found.prefix = text;
	found.len = strlen(text);
	gather(&found, rl_line_buffer, start);
	if (!strncmp(rl_line_buffer, ".output ", 8)) {
		rl_attempted_completion_over = 0;
		return NULL;
	}
	return rl_completion_matches(text, next_match);
}

void complete__init(struct repl *r)
{
	cr = r;
	rl_readline_name = "perf-sql";
	rl_attempted_completion_function = complete;
	rl_completer_word_break_characters = " \t\n'`<>=;|&(),*+/%!";
	rl_completer_quote_characters = "\"";
}
