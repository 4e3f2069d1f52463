/*
 * vtab/tp_table.h - one eponymous virtual table per tracepoint, and the other tables' registry.
 */
#ifndef PERF_SQL_TP_TABLE_H
#define PERF_SQL_TP_TABLE_H
#include <sqlite3.h>

struct session;

/* The symbols layer's hooks on s (stacks unwound, mappings learnt, captures' mappings), with
 * its state as s->stack_ctx; nothing if it has one. 0 or -ENOMEM. */
int stack_hooks__install(struct session *s);
/* Registers every tracepoint table (short and full names) plus the catalog and stats tables:
 * for a connection others prepare on (the REPL's catalog, the extension's host). */
int vtabs__register(sqlite3 *db, struct session *s);
/* The tables that are not events (perf_sql_events, perf_sql_stats, pairs, counters, ...). */
int vtabs__register_builtin(sqlite3 *db, struct session *s);
/*
 * vtab/tp_lazy.c: the same tables, an event's module registered only once a statement names
 * it (registering all ~4,600 names costs more than the rest of a short run's start-up: SQLite's
 * module hash stops growing at 64 buckets). Every SQL text prepared on db goes through
 * vtabs__need_sql() first. SQLITE_OK or an SQLite error code.
 */
int vtabs__register_lazy(sqlite3 *db, struct session *s);
/* Registers the modules of the events sql names (as a bare, "quoted", `quoted`, [quoted] or
 * 'quoted' word: pragma_table_xinfo('sched_switch') too) under the names the eager
 * registration gives them; nothing on a connection registered eagerly. */
int vtabs__need_sql(sqlite3 *db, struct session *s, const char *sql);
/* The tracepoint tables' module (vtab/tp_table.c) and its aux, for vtab/tp_lazy.c */
const sqlite3_module *tp_table__module(void);
int perf_sql_events__register(sqlite3 *db, struct session *s);
int perf_sql_stats__register(sqlite3 *db, struct session *s);
int pairs__register(sqlite3 *db, struct session *s);
int pending__register(sqlite3 *db, struct session *s);
int counters__register(sqlite3 *db, struct session *s);
/* RFC 3339 local time with milliseconds, e.g. 2026-11-22T13:00:01.250+00:00 */
void format_rfc3339(unsigned long long ns, char *buf, unsigned long len);
#endif
