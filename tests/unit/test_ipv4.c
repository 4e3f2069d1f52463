/*
 * tests/unit/test_ipv4.c - ipv4() through SQL (numbers refer to sqlite/ipv4.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>

#include "sqlite/functions.h"
#include "tests/unit/t.h"

#include "tests/unit/t_sql.h"

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
	Q("SELECT ipv4(4294967296)",
	  "ERROR: ipv4: expected a 4-byte blob or an integer in [0, 2^32)");
	Q("SELECT ipv4(-1)", "ERROR: ipv4: expected a 4-byte blob or an integer in [0, 2^32)");
	Q("SELECT ipv4(x'7f0001')",
	  "ERROR: ipv4: expected a 4-byte blob or an integer in [0, 2^32)");
	Q("SELECT ipv4('1.2.3.4')",
	  "ERROR: ipv4: expected a 4-byte blob or an integer in [0, 2^32)");
}

int main(void)
{
	open_db();
	RUN(test_ipv4);
	sqlite3_close(db);
	return t_done("ipv4");
}
