/*
 * tests/unit/test_metrics.c - the Prometheus mapping of perf-sql serve (serve/metrics.h): names,
 * labels, counters over windows, histograms, the series cap, a failed statement, both formats,
 * the select-list reading and the Accept header. The numbers cite serve/metrics.h.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>
#include "serve/metrics.h"
#include "serve/serve.h"
#include "sqlite/functions.h"
#include "tests/unit/t.h"

static sqlite3 *db;
static struct metrics_health health;

/* the rendering of m (format fmt) */
static char *render(struct metrics *m, enum metrics_format fmt)
{
	static struct mbuf b;

	mbuf__free(&b);
	metrics__render(m, &health, fmt, &b);
	return b.p ? b.p : "";
}

static bool has_line(const char *text, const char *line)
{
	size_t n = strlen(line);

	for (const char *p = text; (p = strstr(p, line)); p++)
		if ((p == text || p[-1] == '\n') && p[n] == '\n')
			return true;
	return false;
}

#define LINE(text, line) T(has_line(text, line), "no line '%s' in:\n%s", line, text)
#define NO(text, s) T(!strstr(text, s), "'%s' should not be in:\n%s", s, text)

static sqlite3_stmt *prep(const char *sql)
{
	sqlite3_stmt *st = NULL;

	T(sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK, "prepare %s: %s", sql,
	  sqlite3_errmsg(db));
	return st;
}

/* one window over table t: each statement k stepped */
static void window(struct metrics *m, sqlite3_stmt **st, int nr)
{
	metrics__window_begin(m);
	for (int k = 0; k < nr; k++)
		T(metrics__step(m, k, st[k]) == SQLITE_DONE, "step %d: %s", k, sqlite3_errmsg(db));
}

static void test_counted_columns(void)
{
	unsigned char c[8];

	metrics__counted_columns("select comm, count(*) as n, sum(x) s, round(sum(x) / 1e3, 1) "
				 "as us, max(x) from t group by comm",
				 5, c);
	T(!c[0] && c[1] && c[2] && !c[3] && !c[4], "(3) count/sum as whole expressions only");
	metrics__counted_columns("with a as (select count(*) as z from t) select total(x) "
				 "filter (where x > 0) as \"t, x\", count(*) over (), sum(x) + 1, "
				 "'a,b' from a -- count(*)",
				 4, c);
	T(c[0] && !c[1] && !c[2] && !c[3],
	  "(3) FILTER and quoted aliases; OVER and + do not count");
	metrics__counted_columns("select * from t", 2, c);
	T(!c[0] && !c[1], "(3) a * reads as no counter");
	metrics__counted_columns("select count(*) from t; select 1", 1, c);
	T(c[0], "(3) the first statement, to its ';'");
	metrics__counted_columns("pragma x; select count(*) from t", 1, c);
	T(!c[0], "(3) no select in the statement: not the next one's");
}

static void test_split(void)
{
	const char *st[4];
	const char *sql = "-- head\nselect ';' as a; /* ; */ ;\n select (1;2) \"x;\";  -- tail";

	T(metrics__split(sql, st, 4) == 2, "two statements, the empty one skipped");
	T(!strncmp(st[0], "select ';'", 10) && !strncmp(st[1], "select (1;2)", 12), "their starts");
	T(metrics__split("  -- only a comment\n", st, 4) == 0, "no statement");
}

static void test_names_and_text(void)
{
	char s[64], num[48];
	struct mbuf b = { 0 };

	metrics__sanitize(s, sizeof(s), "p99(lat ency)");
	T(!strcmp(s, "p99_lat_ency"), "(1) sanitized: %s", s);
	metrics__sanitize(s, sizeof(s), "kvm-exit");
	T(!strcmp(s, "kvm_exit"), "(1) sanitized: %s", s);
	metrics__escape(&b, "a\\b\"c\nd\xff", 9, true);
	T(!strcmp(b.p, "a\\\\b\\\"c\\nd\xef\xbf\xbd"), "escaped: %s", b.p);
	mbuf__free(&b);
	metrics__format_value(1234567, num, sizeof(num));
	T(!strcmp(num, "1234567"), "integer %s", num);
	metrics__format_value(0.1, num, sizeof(num));
	T(!strcmp(num, "0.1"), "shortest %s", num);
	metrics__format_value(INFINITY, num, sizeof(num));
	T(!strcmp(num, "+Inf"), "+Inf %s", num);
}

static void test_accept(void)
{
	T(http__wants_openmetrics("application/openmetrics-text;version=1.0.0,application/"
				  "openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;"
				  "q=0.5,*/*;q=0.1"),
	  "Prometheus's Accept asks for OpenMetrics");
	T(!http__wants_openmetrics(
		  "text/plain;version=0.0.4;q=1,application/openmetrics-text;q=0.5"),
	  "text preferred");
	T(!http__wants_openmetrics(NULL) && !http__wants_openmetrics("*/*"), "no preference: text");
}

static void test_counters_and_labels(void)
{
	struct metrics *m = metrics__new(100);
	sqlite3_stmt *st[1];
	char *t;

	sqlite3_exec(db,
		     "create table w(comm text, n int); insert into w values('a', 2), "
		     "('b', 3), ('a', 5)",
		     NULL, NULL, NULL);
	metrics__family(m, "my-q", "writes per comm");
	st[0] = prep("select comm as le, count(*) as calls, max(n) as top from w group by comm");
	T(metrics__statement(m, 0, st[0], NULL) == 0, "statement");
	window(m, st, 1);
	window(m, st, 1);
	t = render(m, METRICS_TEXT);
	LINE(t, "# TYPE perf_sql_my_q_calls_total counter");
	LINE(t, "perf_sql_my_q_calls_total{le_=\"a\"} 4");
	LINE(t, "perf_sql_my_q_calls_total{le_=\"b\"} 2");
	LINE(t, "perf_sql_my_q_calls_window{le_=\"a\"} 2");
	LINE(t, "perf_sql_my_q_top{le_=\"a\"} 5");
	LINE(t, "# HELP perf_sql_my_q_top writes per comm (column top, the last window)");
	sqlite3_exec(db, "delete from w where comm = 'b'", NULL, NULL, NULL);
	window(m, st, 1);
	t = render(m, METRICS_OPENMETRICS);
	LINE(t, "# TYPE perf_sql_my_q_calls counter");
	LINE(t, "perf_sql_my_q_calls_total{le_=\"b\"} 2"); /* (5) counters keep their series */
	NO(t, "perf_sql_my_q_calls_window{le_=\"b\"}");    /* gauges: the last window only */
	LINE(t, "# EOF");
	T(metrics__nr_series(m) == 2, "2 series");
	sqlite3_finalize(st[0]);
	sqlite3_exec(db, "drop table w", NULL, NULL, NULL);
	metrics__free(m);
}

/* columns whose label names sanitize alike get the first free name_N, as metric names do */
static void test_label_names_unique(void)
{
	struct metrics *m = metrics__new(100);
	sqlite3_stmt *st[1];
	char *t;

	metrics__family(m, "u", "labels");
	st[0] = prep("select 'x' as \"a b\", 'y' as a_b, 'z' as \"a-b\", 'w' as a_b_2, "
		     "'v' as le, 'u' as le_, 1 as n");
	T(metrics__statement(m, 0, st[0], NULL) == 0, "statement");
	window(m, st, 1);
	t = render(m, METRICS_TEXT);
	LINE(t, "perf_sql_u_n{a_b=\"x\",a_b_2=\"y\",a_b_3=\"z\",a_b_2_2=\"w\",le_=\"v\","
		"le__2=\"u\"} 1");
	sqlite3_finalize(st[0]);
	metrics__free(m);
}

static void test_histogram(void)
{
	struct metrics *m = metrics__new(100);
	sqlite3_stmt *st[1];
	char *t;

	sqlite3_exec(db, "create table v(x int); insert into v values(0), (1), (2), (3), (600)",
		     NULL, NULL, NULL);
	metrics__family(m, "h", "sizes");
	st[0] = prep("select log2_hist(x) as sz, sum(x) as sz_sum from v");
	metrics__statement(m, 0, st[0], NULL);
	window(m, st, 1);
	window(m, st, 1);
	t = render(m, METRICS_TEXT);
	LINE(t, "# TYPE perf_sql_h_sz histogram");
	LINE(t, "perf_sql_h_sz_bucket{le=\"1.0\"} 4");
	LINE(t, "perf_sql_h_sz_bucket{le=\"3.0\"} 8");
	LINE(t, "perf_sql_h_sz_bucket{le=\"511.0\"} 8");
	LINE(t, "perf_sql_h_sz_bucket{le=\"1023.0\"} 10");
	LINE(t, "perf_sql_h_sz_bucket{le=\"+Inf\"} 10");
	LINE(t, "perf_sql_h_sz_count 10");
	LINE(t, "perf_sql_h_sz_sum 1212"); /* (4) the sz_sum column, not a metric of its own */
	NO(t, "perf_sql_h_sz_sum_");
	sqlite3_finalize(st[0]);
	st[0] = prep("select lin_hist(x, 0, 10, 5) as l from v");
	metrics__family(m, "lin", "linear");
	metrics__statement(m, 1, st[0], NULL);
	metrics__window_begin(m);
	metrics__step(m, 1, st[0]);
	t = render(m, METRICS_TEXT);
	LINE(t, "perf_sql_lin_l_bucket{le=\"-1.0\"} 0");
	LINE(t, "perf_sql_lin_l_bucket{le=\"4.0\"} 4");
	LINE(t, "perf_sql_lin_l_bucket{le=\"9.0\"} 4");
	LINE(t, "perf_sql_lin_l_bucket{le=\"+Inf\"} 5");
	sqlite3_finalize(st[0]);
	sqlite3_exec(db, "drop table v", NULL, NULL, NULL);
	metrics__free(m);
}

static void test_cap_and_failure(void)
{
	struct metrics *m = metrics__new(3);
	sqlite3_stmt *st[2];
	char *t;

	sqlite3_exec(db,
		     "create table c(k text); insert into c values('a'), ('b'), ('c'), ('d'), "
		     "('e')",
		     NULL, NULL, NULL);
	metrics__family(m, "c", "capped");
	st[0] = prep("select k, count(*) as n from c group by k");
	metrics__statement(m, 0, st[0], NULL);
	metrics__family(m, "bad", "fails");
	/* rows a and b are staged, then c fails: nothing of it may show */
	st[1] = prep("select k, case when k = 'c' then abs(-9223372036854775808) else 1 end as n "
		     "from c order by k");
	metrics__statement(m, 1, st[1], NULL);
	metrics__window_begin(m);
	T(metrics__step(m, 0, st[0]) == SQLITE_DONE, "capped statement runs");
	T(metrics__step(m, 1, st[1]) != SQLITE_DONE, "(6) the failing statement fails");
	t = render(m, METRICS_TEXT);
	LINE(t, "perf_sql_c_n_total{k=\"c\"} 1");
	NO(t, "k=\"d\"");
	LINE(t, "perf_sql_dropped_series_total 2");               /* (5) */
	LINE(t, "perf_sql_query_errors_total{family=\"bad\"} 1"); /* (6) */
	NO(t, "perf_sql_bad_n");
	sqlite3_finalize(st[0]);
	sqlite3_finalize(st[1]);
	sqlite3_exec(db, "drop table c", NULL, NULL, NULL);
	metrics__free(m);
}

/* (5) the byte caps: a long label value is cut at a character's start and the cut counted; a
 * series that would take the exposition past the cap is dropped and counted apart from the
 * count cap's */
static void test_byte_caps(void)
{
	struct metrics *m = metrics__new(100);
	sqlite3_stmt *st;
	char *t;

	/* series_bytes(): 2 lines of perf_sql_b_n (12) with k="abcdefg" (11), then "abcdefgh" */
	metrics__limit_bytes(m, 8, 2 * (12 + 11 + 40) + 2 * (12 + 12 + 40) + 1);
	sqlite3_exec(
		db,
		"create table b(k text); insert into b values('abcdefgh'), ('abcdefg\xc3\xa9x'), "
		"('zz'), ('abcdefghijklmnop')",
		NULL, NULL, NULL);
	metrics__family(m, "b", "bytes");
	st = prep("select k, count(*) as n from b group by k order by k");
	metrics__statement(m, 0, st, NULL);
	window(m, &st, 1);
	t = render(m, METRICS_TEXT);
	/* abcdefgh fits; abcdefghijklmnop is cut to it (the same series); the é of the 9-byte
	 * abcdefg\xc3\xa9 is not split: abcdefg; zz would be the third series: dropped */
	LINE(t, "perf_sql_b_n_total{k=\"abcdefgh\"} 2");
	LINE(t, "perf_sql_b_n_total{k=\"abcdefg\"} 1");
	NO(t, "k=\"zz\"");
	LINE(t, "perf_sql_dropped_label_bytes_total 11");
	LINE(t, "perf_sql_dropped_series_over_bytes_total 1");
	LINE(t, "perf_sql_dropped_series_total 0");
	sqlite3_finalize(st);
	sqlite3_exec(db, "drop table b", NULL, NULL, NULL);
	metrics__free(m);
}

int main(void)
{
	T(sqlite3_open(":memory:", &db) == SQLITE_OK, "open");
	T(sql_functions__register(db, NULL) == 0, "functions");
	RUN(test_counted_columns);
	RUN(test_split);
	RUN(test_names_and_text);
	RUN(test_accept);
	RUN(test_counters_and_labels);
	RUN(test_label_names_unique);
	RUN(test_histogram);
	RUN(test_cap_and_failure);
	RUN(test_byte_caps);
	sqlite3_close(db);
	return t_done("metrics");
}
