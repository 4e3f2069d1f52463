/*
 * ts(NS) - scalar: a CLOCK_MONOTONIC timestamp (what perf events carry in time) as RFC 3339
 * local wall-clock time with microseconds.
 *
 *   SELECT ts(time), comm, prev_state FROM sched_sched_switch LIMIT 3;
 *   -- '2024-05-01T12:34:56.123456+02:00'
 *
 * (1) The offset CLOCK_REALTIME - CLOCK_MONOTONIC is measured once per process (the realtime
 *     read is the mean of two reads around the monotonic one), so ts() of one run is
 *     consistent; a later clock step (NTP, settimeofday) is not followed.
 * (2) The zone is the local one (TZ), written as +HH:MM; microseconds are truncated.
 * (3) NULL gives NULL; a non-integer NS is an error quoting it.
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>
#include <sqlite3.h>

#include "sqlite/functions.h"

static pthread_once_t ts_once = PTHREAD_ONCE_INIT;
static int64_t ts_offset_ns; /* CLOCK_REALTIME - CLOCK_MONOTONIC, written once */

static int64_t ns_of(const struct timespec *t)
{
	return (int64_t)t->tv_sec * 1000000000 + t->tv_nsec;
}

static void ts_measure(void)
{
	struct timespec r0, m, r1;

	/* both clocks exist on every Linux; a failure leaves the offset 0 (monotonic time) */
	if (clock_gettime(CLOCK_REALTIME, &r0) || clock_gettime(CLOCK_MONOTONIC, &m) ||
	    clock_gettime(CLOCK_REALTIME, &r1))
		return;
	ts_offset_ns = ns_of(&r0) + (ns_of(&r1) - ns_of(&r0)) / 2 - ns_of(&m);
}

/* 0, or -EINVAL when the time does not fit the calendar */
static int ts_format(char *buf, size_t size, int64_t mono_ns)
{
	int64_t wall, sec, usec;
	struct tm tm;
	char date[40], zone[8];
	time_t t;

	pthread_once(&ts_once, ts_measure);
	if (__builtin_add_overflow(mono_ns, ts_offset_ns, &wall))
		return -EINVAL;
	sec = wall / 1000000000;
	if (wall % 1000000000 < 0)
		sec--;
	usec = (wall - sec * 1000000000) / 1000;
	t = (time_t)sec;
	if (!localtime_r(&t, &tm) || !strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%S", &tm) ||
	    strftime(zone, sizeof(zone), "%z", &tm) != 5)
		return -EINVAL;
	snprintf(buf, size, "%s.%06lld%.3s:%s", date, (long long)usec, zone, zone + 3);
	return 0;
}

void ts_func(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	char buf[80]; /* date[40] + ".%06lld" + zone: room for what gcc assumes, too */

	if (sqlite3_value_type(argv[0]) == SQLITE_NULL)
		return;
	if (sqlite3_value_numeric_type(argv[0]) != SQLITE_INTEGER ||
	    ts_format(buf, sizeof(buf), sqlite3_value_int64(argv[0]))) {
		sql_result_errorf(ctx, "ts: '%.40s' is not a CLOCK_MONOTONIC time in ns",
				  (const char *)sqlite3_value_text(argv[0]));
		return;
	}
	sqlite3_result_text(ctx, buf, -1, SQLITE_TRANSIENT);
}
