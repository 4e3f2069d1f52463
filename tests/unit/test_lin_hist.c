/*
 * tests/unit/test_lin_hist.c - lin_hist() through SQL: bucket bounds, under- and overflow,
 * text and JSON rendering, argument errors (numbers refer to sqlite/lin_hist.c).
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>

#include "sqlite/functions.h"
#include "sqlite/hist.h"
#include "tests/unit/t.h"

#include "tests/unit/t_sql.h"

static const char *qhist(const char *sql, bool json)
{
	return q_blob(sql, hist_is, json ? hist_to_json : hist_to_text);
}

/* (1) regular buckets of width STEP, under- and overflow buckets */
static void test_buckets(void)
{
	Q(SEQ(100) "SELECT group_concat(ifnull(low, '-') || '..' || ifnull(high, '+') || '=' "
		   "|| count, ' ') "
		   "FROM hist_rows((SELECT lin_hist(x - 11, 0, 50, 10) FROM s))",
	  "-..-1=10 0..9=10 10..19=10 20..29=10 30..39=10 40..49=10 50..+=40");
	/* the last regular bucket ends at MAX-1 when STEP does not divide MAX-MIN */
	Q("SELECT group_concat(low || '..' || high || '=' || count, ' ') FROM hist_rows("
	  "(SELECT lin_hist(column1, 0, 25, 10) FROM (VALUES (0), (24), (21))))",
	  "0..9=1 10..19=0 20..24=2");
	/* negative values and REAL floors */
	Q("SELECT group_concat(low || '=' || count, ' ') FROM hist_rows("
	  "(SELECT lin_hist(column1, -20, 20, 10) FROM (VALUES (-20), (-0.5), (0), (9.99))))",
	  "-20=1 -10=1 0=2");
}

static void test_text_json(void)
{
	const char *want =
		"     bytes         : count    distribution\n"
		"        < 0        : 10       |**********                              |\n"
		"        0          : 10       |**********                              |\n"
		"        10         : 10       |**********                              |\n"
		"        20         : 10       |**********                              |\n"
		"        30         : 10       |**********                              |\n"
		"        40         : 10       |**********                              |\n"
		"        >= 50      : 40       |****************************************|\n";
	const char *got =
		qhist(SEQ(100) "SELECT lin_hist(x - 11, 0, 50, 10, 'bytes') FROM s", false);

	T(!strcmp(got, want), "text:\n%s\nwant:\n%s", got, want);
	got = qhist("SELECT lin_hist(column1, 0, 100, 10) FROM (VALUES (15), (-1), (35))", true);
	T(!strcmp(got, "[{\"low\":null,\"high\":-1,\"count\":1},{\"low\":0,\"high\":9,\"count\":0},"
		       "{\"low\":10,\"high\":19,\"count\":1},{\"low\":20,\"high\":29,\"count\":0},"
		       "{\"low\":30,\"high\":39,\"count\":1}]"),
	  "json: %s", got);
	/* wide labels shrink the bars, lines stay within 80 columns */
	got = qhist("SELECT lin_hist(column1, -9000000000000000000, 9000000000000000000, "
		    "1000000000000000000) FROM (VALUES (-9000000000000000000), (0))",
		    false);
	T(strstr(got, "        -9000000000000000000 : 1        "
		      "|**************************************|\n") == strchr(got, '\n') + 1,
	  "wide text (38 stars, 80 columns): %s", got);
}

/* (2), (3) argument and value errors */
static void test_errors(void)
{
	Q("SELECT lin_hist(1, 0, 10, 0)", "ERROR: lin_hist: need step > 0 and max > min");
	Q("SELECT lin_hist(1, 10, 10, 1)", "ERROR: lin_hist: need step > 0 and max > min");
	Q("SELECT lin_hist(1, 0, 1000000, 1)",
	  "ERROR: lin_hist: more than 100000 buckets; raise step");
	Q("SELECT lin_hist(1, 'a', 10, 1)", "ERROR: lin_hist: min 'a' is not an integer");
	Q("SELECT lin_hist(1, 0, 10.5, 1)", "ERROR: lin_hist: max '10.5' is not an integer");
	Q("SELECT lin_hist('x', 0, 10, 1)", "ERROR: lin_hist: value 'x' is not a number");
	Q("SELECT lin_hist(1, 0, 10)",
	  "ERROR: lin_hist: usage: lin_hist(V, MIN, MAX, STEP [, UNIT])");
	Q("SELECT lin_hist(NULL, 0, 10, 1)", "NULL");
	Q("SELECT lin_hist(1, 0, 10, 1, 'a-unit-name-that-is-far-too-long')",
	  "ERROR: lin_hist: unit must be a text of at most 31 bytes");
}

/* (5) lin_hist_merge of bucket counts is lin_hist of the values counted, same checks */
static void test_merge(void)
{
	Q("SELECT lin_hist_merge(b, 0, 10, 5, 'B') = (SELECT lin_hist(x, 0, 10, 5, 'B') FROM "
	  "(SELECT -1 x UNION ALL SELECT 3 UNION ALL SELECT 7 UNION ALL SELECT 12 UNION ALL SELECT "
	  "9)) "
	  "FROM (SELECT x'0100000000000000010000000000000001000000000000000100000000000000' b "
	  "UNION ALL SELECT CAST(zeroblob(16) || x'0100000000000000' || zeroblob(8) AS BLOB))",
	  "1");
	Q("SELECT lin_hist_merge(x'01', 0, 10, 5)",
	  "ERROR: lin_hist_merge: COUNTS must be a blob of 4 u64 bucket counts");
	Q("SELECT lin_hist_merge(x'01', 0, 10, 0)",
	  "ERROR: lin_hist_merge: need step > 0 and max > min");
}

int main(void)
{
	open_db();
	RUN(test_buckets);
	RUN(test_text_json);
	RUN(test_errors);
	RUN(test_merge);
	sqlite3_close(db);
	return t_done("lin_hist");
}
