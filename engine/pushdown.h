/*
 * engine/pushdown.h - which WHERE values of a table scan are constants (engine/pushdown.c).
 *
 *   pushdown__mark(db, stmt, s);   before the dry run, once per statement
 *
 * Marks, in the session, the scan arguments the statement computes from rows (subqueries,
 * CTEs, other tables' columns): vtab/tp_table.c never turns those into kernel filters.
 */
#ifndef PERF_SQL_ENGINE_PUSHDOWN_H
#define PERF_SQL_ENGINE_PUSHDOWN_H
#include <sqlite3.h>
#include "core/session.h"

int pushdown__mark(sqlite3 *db, sqlite3_stmt *st, struct session *s);
#endif
