/*
 * tests/unit/test_hist_rows.c - hist_rows() as a table-valued function: columns, NULL and bad
 * arguments, the missing argument, use in a join (numbers refer to vtab/blob_rows.c).
 */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>

#include "sqlite/functions.h"
#include "tests/unit/t.h"

#include "tests/unit/t_sql.h"

static void test_rows(void)
{
	/* (1) low/high inclusive, empty buckets between included; rowid is the bucket */
	Q("SELECT group_concat(rowid || ':' || low || '-' || high || '=' || count, ' ') "
	  "FROM hist_rows((SELECT log2_hist(column1) FROM (VALUES (2), (17))))",
	  "1:2-3=1 2:4-7=0 3:8-15=0 4:16-31=1");
	/* (2) bucket 0 is 0..1 */
	Q("SELECT low || '-' || high || '=' || count FROM hist_rows((SELECT log2_hist(0)))",
	  "0-1=1");
	/* the hidden column is named h and may be given as a constraint */
	Q("SELECT count(*) FROM hist_rows WHERE h = (SELECT log2_hist(7))", "1");
	Q("SELECT typeof(low) || typeof(high) || typeof(count) FROM hist_rows("
	  "(SELECT lin_hist(-1, 0, 10, 5)))",
	  "nullintegerinteger");
}

static void test_arguments(void)
{
	/* (3) */
	Q("SELECT count(*) FROM hist_rows(NULL)", "0");
	Q("SELECT count(*) FROM hist_rows(x'00')",
	  "ERROR: hist_rows: argument is not a histogram (log2_hist or lin_hist)");
	Q("SELECT count(*) FROM hist_rows('PSQLHIST')",
	  "ERROR: hist_rows: argument is not a histogram (log2_hist or lin_hist)");
	/* a truncated blob is rejected by its length check */
	Q("SELECT count(*) FROM hist_rows((SELECT substr(log2_hist(100), 1, 50)))",
	  "ERROR: hist_rows: argument is not a histogram (log2_hist or lin_hist)");
	Q("SELECT count(*) FROM hist_rows", "ERROR: hist_rows: missing argument H");
}

/* one histogram per group, unnested with a join */
static void test_join(void)
{
	Q(SEQ(20) ", g AS (SELECT x % 3 AS k, log2_hist(x) AS h FROM s GROUP BY 1) "
		  "SELECT group_concat(k || ':' || low || '=' || count, ' ') FROM g, "
		  "hist_rows(g.h) "
		  "WHERE count > 0",
	  "0:2=1 0:4=1 0:8=3 0:16=1 1:0=1 1:4=2 1:8=2 1:16=2 2:2=1 2:4=1 2:8=3 2:16=2");
}

int main(void)
{
	open_db();
	RUN(test_rows);
	RUN(test_arguments);
	RUN(test_join);
	sqlite3_close(db);
	return t_done("hist_rows");
}
