/*
 * tests/unit/test_ipv6.c - ipv6() through SQL (numbers refer to sqlite/ipv6.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>

#include "sqlite/functions.h"
#include "tests/unit/t.h"

#include "tests/unit/t_sql.h"

static void test_ipv6(void)
{
	Q("SELECT ipv6(x'20010db8000000000000000000000001')", "2001:db8::1");
	Q("SELECT ipv6(x'00000000000000000000000000000001')", "::1");
	Q("SELECT ipv6(zeroblob(16))", "::");
	Q("SELECT ipv6(x'fe800000000000000a0027fffe4e6f01')", "fe80::a00:27ff:fe4e:6f01");
	/* (2) IPv4-mapped */
	Q("SELECT ipv6(x'00000000000000000000ffffc0a80001')", "::ffff:192.168.0.1");
	/* (3) */
	Q("SELECT ipv6(NULL)", "NULL");
	Q("SELECT ipv6(x'7f000001')", "ERROR: ipv6: expected a 16-byte blob");
	Q("SELECT ipv6('::1')", "ERROR: ipv6: expected a 16-byte blob");
}

int main(void)
{
	open_db();
	RUN(test_ipv6);
	sqlite3_close(db);
	return t_done("ipv6");
}
