/*
 * cmd/subcommands.h - the subcommands of the command line (cmd/subcommands.c; the table's
 * lookups are declared in cli/cli.h).
 */
#ifndef PERF_SQL_SUBCOMMANDS_H
#define PERF_SQL_SUBCOMMANDS_H

struct cli;

/*
 * Called first by main(). Runs `perf-sql list | --list | help [NAME] | save NAME SQL
 * [--summary TEXT] [--force] | delete NAME | info FILE` and returns their exit status (>= 0).
 * `perf-sql record ...` sets c->record, drops the word and returns -1: main() parses the rest.
 * For `perf-sql NAME [PARAM=VALUE ...] [OPTIONS] [-- CMD ...]` it sets the query's sql and
 * params, removes NAME and the PARAM=VALUE arguments from argc and argv and returns -1, so
 * main() parses the options and runs the query as it runs any other. `--save NAME` on a query
 * run saves the query (if it prepares), drops the option and returns -1 too. Anything else:
 * -1, argv untouched.
 */
int subcommands__main(int *argc, char ***argv, struct cli *c);
/* The profiler being run's SQL for -f pprof (its `-- pprof:` line, bound), or NULL. */
const char *subcommands__pprof_sql(void);
#endif
