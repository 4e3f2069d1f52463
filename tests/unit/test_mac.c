/*
 * tests/unit/test_mac.c - mac() through SQL (numbers refer to sqlite/mac.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>

#include "sqlite/functions.h"
#include "tests/unit/t.h"

#include "tests/unit/t_sql.h"

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
