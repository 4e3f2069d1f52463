/*
 * tests/unit/test_mac.c - mac() through SQL (numbers refer to sqlite/mac.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>

#include "sqlite/functions.h"
#include "tests/unit/t.h"

static sqlite3 *db;
static char out[8192];

/* the first column of the first row as text: "NULL", "NO ROWS" or "ERROR: <message>" */
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

static void open_db(void)
{
	T(sqlite3_open(":memory:", &db) == SQLITE_OK, "open :memory:");
	T(sql_functions__register(db, NULL) == SQLITE_OK, "register functions");
}

static void test_mac(void)
{
	Q("SELECT mac(x'0242ac110002')", "02:42:ac:11:00:02");
	Q("SELECT mac(x'FFFFFFFFFFFF')", "ff:ff:ff:ff:ff:ff");
	Q("SELECT mac(NULL)", "NULL");
	Q("SELECT mac(x'0242ac1100')", "ERROR: mac: expected a 6-byte blob");
	Q("SELECT mac(12)", "ERROR: mac: expected a 6-byte blob");
}

int main(void)
{
	open_db();
	RUN(test_mac);
	sqlite3_close(db);
	return t_done("mac");
}
