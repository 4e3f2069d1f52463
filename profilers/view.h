/*
 * profilers/view.h - every profiler as a table in SQL (profilers/view.c).
 */
#ifndef PERF_SQL_PROFILERS_VIEW_H
#define PERF_SQL_PROFILERS_VIEW_H
#include <stddef.h>
#include <sqlite3.h>
#include "core/err.h"

struct session;

/* Registers one table per profiler on db; sql is the query about to be prepared (its literal
 * arguments give identifier parameters their values). 0 or -errno with e set. */
int profilers__register_views(sqlite3 *db, struct session *s, const char *sql, struct err *e);
/* The name profiler `name` has as a table ("kvm-exit" quoted, or its kvm_exit alias when a
 * table has the other), or -EEXIST when tables of the same names shadow it. */
int profilers__table_name(struct session *s, const char *name, char *buf, size_t len);
/* The table that takes profiler `name`'s name or its '_' alias (kvm_exit, the tracepoint, over
 * the profiler kvm-exit): its name in buf and its event's full name in *full; 0, or -ENOENT
 * when no table takes either. */
int profilers__shadowed(struct session *s, const char *name, char *buf, size_t len,
			const char **full);
/* profilers/inline.c: sql with each profiler it names as a table where the table would answer
 * the same (no arguments, no parameter set) inlined as a CTE of its main statement; NULL when
 * none is (sqlite3_free) */
char *profilers__inline(sqlite3 *db, struct session *s, const char *sql);
#endif
