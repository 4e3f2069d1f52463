/*
 * cli/man.h - the manual pages as roff, made from the registries --help is made from
 * (cli/man.c): perf-sql --help-man perf-sql | perf-sql-profilers.
 */
#ifndef PERF_SQL_MAN_H
#define PERF_SQL_MAN_H
#include <stdio.h>
#include "core/err.h"

/* Writes the page named page ("perf-sql" or "perf-sql-profilers") to f: 0, or -EINVAL with
 * e set (e->usage: no such page) or -ENOENT (the profiler registry failed). */
int man__write(FILE *f, const char *page, struct err *e);
#endif
