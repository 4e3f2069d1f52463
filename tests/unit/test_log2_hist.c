/*
 * tests/unit/test_log2_hist.c - log2_hist() through SQL: the required buckets of 1..1000, the
 * bcc text layout, JSON, NULL and error handling (numbers refer to sqlite/log2_hist.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>

#include "sqlite/functions.h"
#include "sqlite/hist.h"
#include "tests/unit/t.h"

#include "tests/unit/t_sql.h"

/* renders the blob of the first row with hist_to_text (json false) or hist_to_json */
static const char *qhist(const char *sql, bool json)
{
	return q_blob(sql, hist_is, json ? hist_to_json : hist_to_text);
}

static bool lines_fit(const char *s, size_t cols)
{
	for (const char *nl; *s; s = nl + 1) {
		nl = strchr(s, '\n');
		if (!nl || (size_t)(nl - s) > cols)
			return false;
	}
	return true;
}

/* the required buckets of 1..1000: [1]=1 (bucket 0, "0 -> 1"), [2,3]=2, ..., [512,1023]=489 */
static void test_buckets_1_to_1000(void)
{
	Q(SEQ(1000) "SELECT group_concat(low || '-' || high || '=' || count, ' ') "
		    "FROM hist_rows((SELECT log2_hist(x) FROM s))",
	  "0-1=1 2-3=2 4-7=4 8-15=8 16-31=16 32-63=32 64-127=64 128-255=128 256-511=256 "
	  "512-1023=489");
	Q(SEQ(1000) "SELECT sum(count) FROM hist_rows((SELECT log2_hist(x) FROM s))", "1000");
}

/* (3) bcc's print_log2_hist layout, 40 stars for the largest bucket, <= 80 columns */
static void test_text(void)
{
	const char *want =
		"     ns                  : count    distribution\n"
		"         0 -> 1          : 1        |                                        |\n"
		"         2 -> 3          : 2        |                                        |\n"
		"         4 -> 7          : 4        |                                        |\n"
		"         8 -> 15         : 8        |                                        |\n"
		"        16 -> 31         : 16       |*                                       |\n"
		"        32 -> 63         : 32       |**                                      |\n"
		"        64 -> 127        : 64       |*****                                   |\n"
		"       128 -> 255        : 128      |**********                              |\n"
		"       256 -> 511        : 256      |********************                    |\n"
		"       512 -> 1023       : 489      |****************************************|\n";
	const char *got = qhist(SEQ(1000) "SELECT log2_hist(x, 'ns') FROM s", false);

	T(!strcmp(got, want), "text of 1..1000:\n%s\nwant:\n%s", got, want);
	T(lines_fit(got, 80), "lines fit 80 columns");
	/* no unit: "value"; 2^62 needs the wide layout (bucket 62 > 32), still <= 80 columns */
	got = qhist("SELECT log2_hist(column1) FROM (VALUES (0), (4611686018427387904))", false);
	T(!strncmp(got, "               value                         : count    distribution\n",
		   69),
	  "wide header: %s", got);
	T(strstr(got, "                   0 -> 1                    : 1        "
		      "|********************|\n") != NULL,
	  "wide bucket 0: %s", got);
	T(strstr(got, " 4611686018427387904 -> 9223372036854775807  : 1        |") != NULL,
	  "bucket 62 ends at INT64_MAX: %s", got);
	T(lines_fit(got, 80), "wide lines fit 80 columns");
}

/* hist_to_json: first..last non-empty bucket, empty ones between included */
static void test_json(void)
{
	T(!strcmp(qhist("SELECT log2_hist(column1) FROM (VALUES (5), (6), (40))", true),
		  "[{\"low\":4,\"high\":7,\"count\":2},{\"low\":8,\"high\":15,\"count\":0},"
		  "{\"low\":16,\"high\":31,\"count\":0},{\"low\":32,\"high\":63,\"count\":1}]"),
	  "json: %s", out);
}

/* (2) NULL skipped, errors quote the value; REAL counts as its integer part */
static void test_values(void)
{
	Q("SELECT log2_hist(NULL)", "NULL");
	Q("SELECT log2_hist(x) IS NULL FROM (SELECT 1 AS x WHERE 0)", "1");
	Q("SELECT group_concat(low || '=' || count) FROM hist_rows("
	  "(SELECT log2_hist(column1) FROM (VALUES (NULL), (0), (1), (3.9), (NULL))))",
	  "0=2,2=1");
	Q("SELECT log2_hist(column1) FROM (VALUES (1), (-5))",
	  "ERROR: log2_hist: value -5 is negative");
	Q("SELECT log2_hist('abc')", "ERROR: log2_hist: value 'abc' is not a number");
	Q("SELECT log2_hist(-0.5)", "ERROR: log2_hist: value -0.5 is negative");
	Q("SELECT log2_hist(1e300)", "ERROR: log2_hist: value 1.0e+300 is out of range");
	/* text that looks like a number converts, as with SQLite's numeric affinity */
	Q("SELECT low FROM hist_rows((SELECT log2_hist('12')))", "8");
	Q("SELECT log2_hist(1, 2)", "ERROR: log2_hist: unit must be a text of at most 31 bytes");
	Q("SELECT log2_hist(1, 2, 3)", "ERROR: log2_hist: usage: log2_hist(V [, UNIT])");
}

/* GROUP BY gives one histogram per group */
static void test_group_by(void)
{
	Q(SEQ(100) ", h AS (SELECT x % 2 AS odd, log2_hist(x) AS h FROM s GROUP BY 1) "
		   "SELECT group_concat(odd || ':' || low || '=' || count, ' ') "
		   "FROM h, hist_rows(h.h) WHERE low >= 32",
	  "0:32=16 0:64=19 1:32=16 1:64=18");
}

/* (5) log2_hist_merge of bucket counts (u64 LE) is log2_hist of the values counted */
static void test_merge(void)
{
	Q("SELECT log2_hist_merge(b, 'ns') = (SELECT log2_hist(x, 'ns') FROM (SELECT 1 x UNION ALL "
	  "SELECT 2 UNION ALL SELECT 3 UNION ALL SELECT 1000)) FROM (SELECT x'0100000000000000' b "
	  "UNION ALL SELECT x'00000000000000000200000000000000' UNION ALL SELECT CAST(zeroblob(72) "
	  "|| "
	  "x'0100000000000000' AS BLOB))",
	  "1");
	Q("SELECT log2_hist_merge(b) FROM (SELECT 1 b WHERE 0)", "NULL");
	Q("SELECT log2_hist_merge(x'01')",
	  "ERROR: log2_hist_merge: COUNTS must be a blob of at most 64 u64 bucket counts");
	Q("SELECT log2_hist_merge(CAST(zeroblob(504) || x'0100000000000000' AS BLOB))",
	  "ERROR: log2_hist_merge: a count past bucket 62");
}

int main(void)
{
	open_db();
	RUN(test_buckets_1_to_1000);
	RUN(test_text);
	RUN(test_json);
	RUN(test_values);
	RUN(test_group_by);
	RUN(test_merge);
	sqlite3_close(db);
	return t_done("log2_hist");
}
