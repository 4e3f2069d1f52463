/*
 * cli/cli.h - the command line: one table of options (cli/options.c) and one of subcommands
 * (cmd/subcommands.c). getopt's long options and short string, --help, the man page, the
 * profiler runner (which arguments are an option's value) and the names a saved profiler may
 * not take are all made from these two tables, so they cannot drift.
 */
#ifndef PERF_SQL_CLI_H
#define PERF_SQL_CLI_H
#include <stdbool.h>
#include <stdio.h>
#include "cli/run.h"

#define PERF_SQL_VERSION "0.1.0"

struct cli {
	struct run q;
	const char *out_path; /* -o FILE */
	char **workload;      /* -- CMD ARGS */
	bool repl;
	bool record; /* perf-sql record ... */
};

/* one option: --name / -s, its value's placeholder (NULL: a flag), its help, its handler */
struct cli_option {
	const char *name;
	char short_name;  /* 0: long only */
	const char *arg;  /* "D", "FILE"; NULL: takes no value */
	const char *help; /* may hold '\n' for more lines */
	void (*set)(struct cli *c, const char *name, const char *value);
};

/* one subcommand: perf-sql NAME ...; main NULL: handled by main() itself (record) */
struct cli_subcommand {
	const char *name;
	const char *usage; /* its arguments: "NAME \"SQL\" [--summary TEXT] [--force]" */
	const char *help;
	int (*main)(int argc, char **argv, struct cli *c);
};

/* Parses options and the SQL into c; exits 2 with one line on bad usage. */
void options__parse(struct cli *c, int argc, char **argv);
/* Does the argument `a` (as typed: "-o", "--output") take the next argument as its value? */
bool options__takes_value(const char *a);
/* The whole --help text. */
void options__usage(FILE *f);
/* The examples of --help: lines "  perf-sql ...", a trailing '\\' continues a command. */
const char *options__examples(void);
/* The nth option / subcommand (NULL past the end): for help, docs and completion. */
const struct cli_option *options__nth(int n);
const struct cli_subcommand *subcommands__nth(int n);
const struct cli_subcommand *subcommands__find(const char *name);
/* The name a saved profiler may take: a profiler name that is no subcommand; else -EINVAL. */
int subcommands__check_name(const char *name, struct err *e);
/* One line "perf-sql: WHAT; see perf-sql --help", then exit(2). */
void usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
/* s as a whole number in [min, max] (decimal digits, a '-' first for a negative; no sign,
 * space, trailing junk or overflow): true and *out, else false */
bool parse_number(const char *s, long long min, long long max, long long *out);
/* the value of option opt as parse_number() reads it, or usage_error() with one line */
long long options__number(const char *opt, const char *s, long long min, long long max);
#endif
