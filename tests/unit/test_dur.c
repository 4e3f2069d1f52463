/*
 * tests/unit/test_dur.c - dur() through SQL (numbers refer to sqlite/dur.c).
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

static void test_dur(void)
{
	Q("SELECT dur(512)", "512ns");
	Q("SELECT dur(0)", "0ns");
	Q("SELECT dur(999)", "999ns");
	Q("SELECT dur(1000)", "1.00us");
	Q("SELECT dur(2500)", "2.50us");
	Q("SELECT dur(1234567)", "1.23ms");
	Q("SELECT dur(4000000000)", "4.00s");
	Q("SELECT dur(4e9)", "4.00s");
	Q("SELECT dur(3600000000000)", "3600.00s");
	/* (1) the unit is chosen after rounding */
	Q("SELECT dur(999999)", "1.00ms");
	Q("SELECT dur(999994)", "999.99us");
	Q("SELECT dur(999.7)", "1.00us");
	Q("SELECT dur(999999999)", "1.00s");
	/* (2) */
	Q("SELECT dur(-2500)", "-2.50us");
	Q("SELECT dur(12.4)", "12ns");
	/* (3) */
	Q("SELECT dur(NULL)", "NULL");
	Q("SELECT dur('soon')", "ERROR: dur: 'soon' is not a number of nanoseconds");
}

int main(void)
{
	open_db();
	RUN(test_dur);
	sqlite3_close(db);
	return t_done("dur");
}
