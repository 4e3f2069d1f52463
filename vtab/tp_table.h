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
/* Registers every tracepoint table (short and full names) plus the catalog and stats tables. */
int vtabs__register(sqlite3 *db, struct session *s);
int perf_sql_events__register(sqlite3 *db, struct session *s);
int perf_sql_stats__register(sqlite3 *db, struct session *s);
int pairs__register(sqlite3 *db, struct session *s);
int counters__register(sqlite3 *db, struct session *s);
/* RFC 3339 local time with milliseconds, e.g. 2026-11-22T13:00:01.250+00:00 */
void format_rfc3339(unsigned long long ns, char *buf, unsigned long len);
#endif
