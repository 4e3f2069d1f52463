/*
 * tests/unit/test_errno_name.c - errno_name() through SQL (numbers refer to
 * sqlite/errno_name.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>

#include "sqlite/functions.h"
#include "tests/unit/t.h"

#include "tests/unit/t_sql.h"

static void test_names(void)
{
	/* (1) both signs */
	Q("SELECT errno_name(-2)", "ENOENT");
	Q("SELECT errno_name(2)", "ENOENT");
	Q("SELECT errno_name(-13)", "EACCES");
	Q("SELECT errno_name(-11)", "EAGAIN");
	Q("SELECT errno_name(-95)", "EOPNOTSUPP");
	Q("SELECT errno_name(-110)", "ETIMEDOUT");
	Q("SELECT errno_name(-133)", "EHWPOISON");
	/* (2) kernel-internal */
	Q("SELECT errno_name(-512)", "ERESTARTSYS");
	Q("SELECT errno_name(-530)", "ERECALLCONFLICT");
	/* (3) no name */
	Q("SELECT errno_name(0)", "NULL");
	Q("SELECT errno_name(41)", "NULL");
	Q("SELECT errno_name(-520)", "NULL");
	Q("SELECT errno_name(4096)", "NULL");
	Q("SELECT errno_name(NULL)", "NULL");
	Q("SELECT errno_name(-9223372036854775807)", "NULL");
	/* (4) */
	Q("SELECT errno_name('EIO')", "ERROR: errno_name: 'EIO' is not an integer");
	/* every name from 1 to 133 is present except the two reserved numbers 41 and 58 */
	Q("WITH RECURSIVE s(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM s WHERE x < 133) "
	  "SELECT group_concat(x) FROM s WHERE errno_name(x) IS NULL",
	  "41,58");
}

int main(void)
{
	open_db();
	RUN(test_names);
	sqlite3_close(db);
	return t_done("errno_name");
}
