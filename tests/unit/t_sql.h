/*
 * tests/unit/t_sql.h - SQL checks for the function tests: open_db() for an in-memory database
 * with every SQL function and hist_rows()/heatmap_rows() registered (no session), q() for the
 * first column of the first row as text ("NULL", "NO ROWS" or "ERROR: <message>"), Q(sql, want)
 * to assert it, and SEQ(n) for a CTE s(x) of the integers 1..n.
 *
 *   open_db(); Q("SELECT dur(1000)", "1.00us");
 */
#ifndef PERF_SQL_T_SQL_H
#define PERF_SQL_T_SQL_H
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>
#include "sqlite/functions.h"
#include "vtab/blob_rows.h"
#include "tests/unit/t.h"

#define SEQ(n) "WITH RECURSIVE s(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM s WHERE x < " #n ") "

static sqlite3 *db;
static char out[8192];

static inline void open_db(void)
{
	T(sqlite3_open(":memory:", &db) == SQLITE_OK, "open :memory:");
	T(sql_functions__register(db, NULL) == SQLITE_OK, "register functions");
	T(blob_rows__register(db) == SQLITE_OK, "register hist_rows and heatmap_rows");
}

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

/* the first column of the first row, a BLOB that is_fn accepts, rendered by render_fn
 * ("ERROR" if the statement fails, "NULL" if it renders nothing) */
static inline const char *q_blob(const char *sql, bool (*is_fn)(const void *, int),
				 char *(*render_fn)(const void *, int))
{
	sqlite3_stmt *stmt;
	const void *blob;
	char *s;
	int len;

	snprintf(out, sizeof(out), "ERROR");
	if (sqlite3_prepare_v2(db, sql, -1, &stmt, NULL) != SQLITE_OK)
		return out;
	if (sqlite3_step(stmt) == SQLITE_ROW) {
		blob = sqlite3_column_blob(stmt, 0);
		len = sqlite3_column_bytes(stmt, 0);
		T(is_fn(blob, len), "%s: not the expected value kind", sql);
		s = render_fn(blob, len);
		snprintf(out, sizeof(out), "%s", s ? s : "NULL");
		free(s);
	}
	sqlite3_finalize(stmt);
	return out;
}

#define Q(sql, want)                                                                               \
	do {                                                                                       \
		const char *got_ = q(sql);                                                         \
		T(!strcmp(got_, want), "%s\n  got:  %s\n  want: %s", sql, got_, want);             \
	} while (0)
#endif
