/*
 * tests/unit/test_ts.c - ts() through SQL: format, the monotonic -> wall offset, microsecond
 * steps, the time zone (numbers refer to sqlite/ts.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>

#include "sqlite/functions.h"
#include <time.h>
#include "tests/unit/t.h"

#include "tests/unit/t_sql.h"

static long long mono_now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (long long)t.tv_sec * 1000000000 + t.tv_nsec;
}

static void test_ts(void)
{
	char sql[512], from[64], to[64], a[64];
	struct timespec t0, t1;
	long long m;
	struct tm tm;

	clock_gettime(CLOCK_REALTIME, &t0);
	m = mono_now();

	/* (2) with TZ=UTC the zone is +00:00 */
	snprintf(sql, sizeof(sql), "SELECT ts(%lld)", m);
	snprintf(a, sizeof(a), "%s", q(sql));
	T(strlen(a) == 32 && a[4] == '-' && a[10] == 'T' && a[19] == '.' &&
		  !strcmp(a + 26, "+00:00"),
	  "format YYYY-MM-DDTHH:MM:SS.uuuuuu+00:00: %s", a);
	/* (1) the wall clock then, to the second: between the wall clock read before and after
	 * (however slow the run: under valgrind the query took over a second's edge) */
	clock_gettime(CLOCK_REALTIME, &t1);
	gmtime_r(&t0.tv_sec, &tm);
	strftime(from, sizeof(from), "%Y-%m-%dT%H:%M:%S", &tm);
	gmtime_r(&t1.tv_sec, &tm);
	strftime(to, sizeof(to), "%Y-%m-%dT%H:%M:%S", &tm);
	T(strncmp(a, from, 19) >= 0 && strncmp(a, to, 19) <= 0, "ts(now) %s is in %s..%s", a, from,
	  to);
	/* 1000 ns later is one microsecond later (mod 1 s); a minute later is the next minute */
	snprintf(sql, sizeof(sql),
		 "SELECT (substr(ts(%lld + 1000), 21, 6) - substr(ts(%lld), 21, 6)) IN (1, -999999)"
		 " AND substr(ts(%lld + 60000000000), 15, 2) <> substr(ts(%lld), 15, 2)",
		 m, m, m, m);
	Q(sql, "1");
	Q("SELECT ts(NULL)", "NULL");
	Q("SELECT ts(9223372036854775807)",
	  "ERROR: ts: '9223372036854775807' is not a CLOCK_MONOTONIC time in ns");
	Q("SELECT ts(1.5)", "ERROR: ts: '1.5' is not a CLOCK_MONOTONIC time in ns");
}

/* another zone: the offset is printed with a colon */
static void test_zone(void)
{
	char sql[64], a[64];

	setenv("TZ", "UTC-5:30", 1);
	tzset();
	snprintf(sql, sizeof(sql), "SELECT ts(%lld)", mono_now());
	snprintf(a, sizeof(a), "%s", q(sql));
	T(strlen(a) == 32 && !strcmp(a + 26, "+05:30"), "zone +05:30: %s", a);
}

int main(void)
{
	setenv("TZ", "UTC", 1);
	tzset();
	open_db();
	RUN(test_ts);
	RUN(test_zone);
	sqlite3_close(db);
	return t_done("ts");
}
