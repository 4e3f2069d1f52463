/*
 * tests/unit/test_ipv4.c - ipv4() through SQL (numbers refer to sqlite/ipv4.c).
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

static void test_ipv4(void)
{
	/* (1) network byte order blob */
	Q("SELECT ipv4(x'7f000001')", "127.0.0.1");
	Q("SELECT ipv4(x'c0a801fe')", "192.168.1.254");
	/* (2) the number */
	Q("SELECT ipv4(2130706433)", "127.0.0.1");
	Q("SELECT ipv4(0)", "0.0.0.0");
	Q("SELECT ipv4(4294967295)", "255.255.255.255");
	/* (3) */
	Q("SELECT ipv4(NULL)", "NULL");
	Q("SELECT ipv4(4294967296)", "ERROR: ipv4: expected a 4-byte blob or an integer in [0, 2^32)");
	Q("SELECT ipv4(-1)", "ERROR: ipv4: expected a 4-byte blob or an integer in [0, 2^32)");
	Q("SELECT ipv4(x'7f0001')", "ERROR: ipv4: expected a 4-byte blob or an integer in [0, 2^32)");
	Q("SELECT ipv4('1.2.3.4')", "ERROR: ipv4: expected a 4-byte blob or an integer in [0, 2^32)");
}

int main(void)
{
	open_db();
	RUN(test_ipv4);
	sqlite3_close(db);
	return t_done("ipv4");
}
