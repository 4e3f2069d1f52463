/*
 * repl/saved.h - saved queries (.save, .run, .profilers) as plain files, until the profiler
 * registry (profilers/) replaces them: $XDG_CONFIG_HOME/perf-sql/profilers/NAME.sql
 * (default ~/.config/perf-sql/profilers), mode 0600, directories 0700.
 */
#ifndef PERF_SQL_SAVED_H
#define PERF_SQL_SAVED_H
#include <stddef.h>
#include "core/err.h"

/* Creates dir and its missing parents, mode 0700; 0 or -errno. */
int saved__mkdirs(const char *dir);
/* 0 if name is [A-Za-z0-9_-]+ (at most 64), else -EINVAL with e saying what is allowed */
int saved__check_name(const char *name, struct err *e);
/* Writes sql as NAME.sql (replacing it); 0 or -errno. path_out gets the file's path. */
int saved__save(const char *name, const char *sql, char *path_out, size_t len, struct err *e);
/* The SQL saved as NAME (malloc'd), or NULL with e set (the saved names in the hint). */
char *saved__load(const char *name, struct err *e);
/* Calls fn for each saved query, by name; the summary is its first "--" comment line. */
typedef void (*saved_fn)(void *ctx, const char *name, const char *summary);
int saved__list(saved_fn fn, void *ctx, struct err *e);
#endif
