/*
 * tests/unit/test_stats.c - stats() through SQL: the text layout, population stddev, integer
 * and real min/max, NULL and errors (numbers refer to sqlite/stats.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>

#include "sqlite/functions.h"
#include "tests/unit/t.h"

#include "tests/unit/t_sql.h"

static void test_stats(void)
{
	Q(SEQ(1000) "SELECT stats(x) FROM s",
	  "count 1000, min 1, avg 500.5, max 1000, stddev 288.67");
	/* (1) population: {2, 4, 4, 4, 5, 5, 7, 9} has stddev 2 (the sample one is 2.14) */
	Q("SELECT stats(column1) FROM (VALUES (2), (4), (4), (4), (5), (5), (7), (9))",
	  "count 8, min 2, avg 5, max 9, stddev 2");
	/* (2) a REAL makes min and max print like avg (printf rounds 0.125 half-even: 0.12) */
	Q("SELECT stats(column1) FROM (VALUES (1.25), (-3), (2))",
	  "count 3, min -3, avg 0.08, max 2, stddev 2.2");
	Q("SELECT stats(column1) FROM (VALUES (0.125), (0.5))",
	  "count 2, min 0.12, avg 0.31, max 0.5, stddev 0.19");
	/* Welford keeps large offsets exact */
	Q(SEQ(1000) "SELECT stats(x + 1000000000000) FROM s",
	  "count 1000, min 1000000000001, avg 1000000000500.5, max 1000000001000, stddev 288.67");
	/* (3) */
	Q("SELECT stats(x) FROM (SELECT 1 AS x WHERE 0)", "count 0");
	Q("SELECT stats(column1) FROM (VALUES (NULL), (7))",
	  "count 1, min 7, avg 7, max 7, stddev 0");
	Q("SELECT stats('seven')", "ERROR: stats: value 'seven' is not a number");
	Q(SEQ(6) "SELECT group_concat(st, '; ') FROM (SELECT stats(x) AS st FROM s GROUP BY x % 2)",
	  "count 3, min 2, avg 4, max 6, stddev 1.63; count 3, min 1, avg 3, max 5, stddev 1.63");
}

int main(void)
{
	open_db();
	RUN(test_stats);
	sqlite3_close(db);
	return t_done("stats");
}
