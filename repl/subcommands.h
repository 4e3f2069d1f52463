/*
 * repl/subcommands.h - the subcommands of the command line (repl/subcommands.c).
 */
#ifndef PERF_SQL_SUBCOMMANDS_H
#define PERF_SQL_SUBCOMMANDS_H

struct query;

/*
 * Called first by main(). Handles `perf-sql list | --list | help [NAME] | save NAME SQL
 * [--summary TEXT] [--force] | delete NAME` and returns their exit status (>= 0).
 * For `perf-sql NAME [PARAM=VALUE ...] [OPTIONS] [-- CMD ...]` it sets q->sql and q->params,
 * removes NAME and the PARAM=VALUE arguments from argc and argv and returns -1, so main() parses
 * the options and runs the query as it runs any other. `--save NAME` on a query run saves the
 * query, drops the option and returns -1 too. Anything else: -1, argv untouched.
 */
int profilers__main(int *argc, char ***argv, struct query *q);
#endif
