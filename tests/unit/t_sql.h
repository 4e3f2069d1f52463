/*
 * tests/unit/t_sql.h - SQL checks for the function tests: an in-memory database with every
 * SQL function registered (no session), q() for the first column of the first row as text
 * ("NULL", "NO ROWS" or "ERROR: <message>"), and Q(sql, want) to assert it.
 *
 *   open_db(); Q("SELECT dur(1000)", "1.00us");
 */
#ifndef PERF_SQL_T_SQL_H
#define PERF_SQL_T_SQL_H
#include <stdio.h>
#include <string.h>
#include <sqlite3.h>
#include "sqlite/functions.h"
#include "tests/unit/t.h"

static sqlite3 *db;
static char out[8192];

static const char *q(const char *sql)
{
	sqlite3_stmt *stmt;
	int rc = sqlite3_prepare_v2(db, sql, -1, &stmt, NULL);

	if (rc != SQLITE_OK) {
		snprintf(out, sizeof(out), "ERROR: %s", sqlite3_errmsg(db));
		return out;
	}
	rc = sqlite3_step(stmt);
	if (rc == SQLITE_ROW && sqlite3_column_type(stmt, 0) == SQLITE_NULL)
		snprintf(out, sizeof(out), "NULL");
	else if (rc == SQLITE_ROW)
		snprintf(out, sizeof(out), "%s", (const char *)sqlite3_column_text(stmt, 0));
	else if (rc == SQLITE_DONE)
		snprintf(out, sizeof(out), "NO ROWS");
	else
		snprintf(out, sizeof(out), "ERROR: %s", sqlite3_errmsg(db));
	sqlite3_finalize(stmt);
	return out;
}

#define Q(sql, want)                                                                   \
	do {                                                                           \
		const char *got_ = q(sql);                                             \
		T(!strcmp(got_, want), "%s\n  got:  %s\n  want: %s", sql, got_, want); \
	} while (0)
#endif
