/*
 * tests/unit/test_heatmap.c - heatmap(), heatmap_rows() and heatmap_to_text() through SQL:
 * slots and buckets, out-of-order times, the text rendering, errors (numbers refer to
 * sqlite/heatmap.c and vtab/blob_rows.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>

#include "sqlite/functions.h"
#include "sqlite/heatmap.h"
#include "tests/unit/t.h"

#include "tests/unit/t_sql.h"

static const char *qtext(const char *sql) { return q_blob(sql, heatmap_is, heatmap_to_text); }

#define CELLS(h)                                                                                   \
	"SELECT group_concat(slot_start || '/' || low || '-' || high || '=' || count, ' ') "       \
	"FROM heatmap_rows((" h "))"

/* (1) slot = floor(time / slot_ns), bucket as log2_hist; rows slot-major, empty cells omitted */
static void test_cells(void)
{
	Q(CELLS("SELECT heatmap(column1, column2, 100) FROM (VALUES "
		"(250, 5), (210, 6), (120, 1000), (199, 0), (420, 5))"),
	  "100/0-1=1 100/512-1023=1 200/4-7=2 400/4-7=1");
	/* out of order and negative times, default slot of 1 s */
	Q(CELLS("SELECT heatmap(column1, column2) FROM (VALUES "
		"(5000000000, 3), (-1, 3), (1500000000, 3), (1000000000, 2))"),
	  "-1000000000/2-3=1 1000000000/2-3=2 5000000000/2-3=1");
	/* (2) NULLs skipped, nothing left: NULL */
	Q("SELECT heatmap(NULL, 1) IS NULL AND heatmap(1, NULL) IS NULL", "1");
	Q(SEQ(1000) "SELECT sum(count) FROM heatmap_rows((SELECT heatmap(x * 1000000, x) FROM s))",
	  "1000");
	Q("SELECT count(*) FROM heatmap_rows(NULL)", "0");
	Q("SELECT count(*) FROM heatmap_rows((SELECT log2_hist(1)))",
	  "ERROR: heatmap_rows: argument is not a heatmap");
	Q("SELECT count(*) FROM heatmap_rows", "ERROR: heatmap_rows: missing argument H");
}

static void test_errors(void)
{
	Q("SELECT heatmap(1, -1)", "ERROR: heatmap: value -1 is negative");
	Q("SELECT heatmap('now', 1)", "ERROR: heatmap: time 'now' is not an integer");
	Q("SELECT heatmap(1, 1, 0)", "ERROR: heatmap: slot_ns '0' is not a positive integer");
	Q("SELECT heatmap(column1, 1, 10) FROM (VALUES (0), (100000))",
	  "ERROR: heatmap: more than 10000 time slots; raise slot_ns");
	Q("SELECT heatmap(1)", "ERROR: heatmap: usage: heatmap(TIME_NS, VALUE [, SLOT_NS])");
}

/* (2b) times anywhere in int64: issue 23's statement wrote out of bounds (a signed span) */
static void test_extremes(void)
{
	const char *too_many = "ERROR: heatmap: more than 10000 time slots; raise slot_ns";

	Q("SELECT length(heatmap(column1, 1, 1)) FROM "
	  "(VALUES (-4611686018427387904), (4611686018428487904))",
	  too_many);
	Q("SELECT heatmap(column1, 1, 1) FROM (VALUES (-9223372036854775808), "
	  "(9223372036854775807))",
	  too_many);
	Q("SELECT heatmap(column1, 1, 1) FROM (VALUES (9223372036854775807), "
	  "(-9223372036854775808))",
	  too_many);
	/* rows at either end of int64, growing towards it: the rows' range stays inside */
	Q(CELLS("SELECT heatmap(column1, 2, 1) FROM (VALUES (9223372036854775800), "
		"(9223372036854775807), (9223372036854775790))"),
	  "9223372036854775790/2-3=1 9223372036854775800/2-3=1 9223372036854775807/2-3=1");
	Q(CELLS("SELECT heatmap(column1, 2, 1) FROM (VALUES (-9223372036854775800), "
		"(-9223372036854775808), (-9223372036854775790))"),
	  "-9223372036854775808/2-3=1 -9223372036854775800/2-3=1 -9223372036854775790/2-3=1");
	Q(CELLS("SELECT heatmap(9223372036854775807, 9223372036854775807, "
		"9223372036854775807)"),
	  "9223372036854775807/4611686018427387904-9223372036854775807=1");
	/* INT64_MIN is no multiple of 3: its slot would start below it */
	Q("SELECT heatmap(-9223372036854775808, 1, 3)",
	  "ERROR: heatmap: time -9223372036854775808: its slot of 3 ns would start before "
	  "-9223372036854775808");
	Q("SELECT heatmap(1e308, 1)", "ERROR: heatmap: time '1.0e+308' is not an integer");
	Q("SELECT heatmap(1, -1e308)", "ERROR: heatmap: value -1.0e+308 is negative");
	Q("SELECT heatmap(1, 1e308)", "ERROR: heatmap: value 1.0e+308 is out of range");
	Q("SELECT heatmap(1, 1, 9223372036854775808)",
	  "ERROR: heatmap: slot_ns '9.22337203685478e+18' is not a positive integer");
	/* a crafted blob whose second slot would start past INT64_MAX is no heatmap */
	Q("SELECT sum(count) FROM heatmap_rows(CAST(x'5053514c4845415401000000' || x'02000000' || "
	  "x'ffffffffffffff7f' || x'0000000000000000' || x'0100000000000000' || "
	  "x'0200000000000000' AS BLOB))",
	  "3");
	Q("SELECT count(*) FROM heatmap_rows(CAST(x'5053514c4845415401000000' || x'02000000' || "
	  "x'ffffffffffffff7f' || x'0100000000000000' || zeroblob(16) AS BLOB))",
	  "ERROR: heatmap_rows: argument is not a heatmap");
}

/* one row per bucket, highest first; ceil(9 * count / max) picks the shade */
static void test_text(void)
{
	const char *want = "        16 -> 31         |     @|\n"
			   "         8 -> 15         |      |\n"
			   "         4 -> 7          |  .:  |\n"
			   "         2 -> 3          |@     |\n"
			   "time: 6 columns of 1.00us from 0 ns; '@' = 9 per cell\n";
	const char *got;

	got = qtext("WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r WHERE i < 9) "
		    "SELECT heatmap(t, v, 1000) FROM ("
		    "SELECT 0 AS t, 2 AS v FROM r UNION ALL SELECT 5500, 20 FROM r "
		    "UNION ALL SELECT 2000, 4 UNION ALL SELECT 3000, 4 UNION ALL SELECT 3000, 5)");
	T(!strcmp(got, want), "text:\n%s\nwant:\n%s", got, want);
	/* 200 slots fold into 50 columns of 4 slots; every line within 80 columns */
	got = qtext(SEQ(200) "SELECT heatmap(x * 1000000000, x) FROM s");
	T(strstr(got, "time: 50 columns of 4.00s from 1000000000 ns; '@' = 4 per cell\n") != NULL,
	  "folded footer: %s", got);
	for (const char *p = got, *nl; (nl = strchr(p, '\n')); p = nl + 1)
		T(nl - p <= 80, "line within 80 columns: %.*s", (int)(nl - p), p);
	T(!heatmap_is("PSQLHEAT", 8), "short blob is not a heatmap");
	T(heatmap_to_text("PSQLHIST", 8) == NULL, "no text for a non-heatmap");
}

int main(void)
{
	open_db();
	RUN(test_cells);
	RUN(test_errors);
	RUN(test_extremes);
	RUN(test_text);
	sqlite3_close(db);
	return t_done("heatmap");
}
