/*
 * tests/unit/test_dur.c - dur() through SQL (numbers refer to sqlite/dur.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>

#include "sqlite/functions.h"
#include "tests/unit/t.h"

#include "tests/unit/t_sql.h"

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
