/*
 * ts(NS) - scalar: a CLOCK_MONOTONIC timestamp (what perf events carry in time) as RFC 3339
 * local wall-clock time with microseconds.
 *
 *   SELECT ts(time), comm, prev_state FROM sched_sched_switch LIMIT 3;
 *   -- '2024-05-01T12:34:56.123456+02:00'
 *
 * (1) The offset CLOCK_REALTIME - CLOCK_MONOTONIC is the session's: measured once per process
 *     (core/clock.c), or, over a capture, the one recorded with it, so every replay of a
 *     capture shows the same times, those of the machine that recorded it.
 * (2) The zone is the local one (TZ), written as +HH:MM; microseconds are truncated.
 * (3) NULL gives NULL; a non-integer NS is an error quoting it, and so is a time that,
 *     moved to the wall clock, leaves int64 ns (INT64_MAX, with the offset of any machine
 *     booted after 1970) or the calendar. INT64_MIN is in 1677.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>
#include <sqlite3.h>

#include "core/clock.h"
#include "core/session.h"
#include "sqlite/functions.h"

/* 0, or -EINVAL when the time does not fit the calendar */
static int ts_format(char *buf, size_t size, int64_t mono_ns, int64_t offset_ns)
{
	int64_t wall, sec, rem;
	struct tm tm;
	char date[40], zone[8];
	time_t t;

	if (__builtin_add_overflow(mono_ns, offset_ns, &wall))
		return -EINVAL;
	/* floor division without sec * 1e9, which leaves int64 near INT64_MIN */
	rem = wall % 1000000000;
	sec = wall / 1000000000 - (rem < 0);
	rem += rem < 0 ? 1000000000 : 0;
	t = (time_t)sec;
	if (!localtime_r(&t, &tm) || !strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%S", &tm) ||
	    strftime(zone, sizeof(zone), "%z", &tm) != 5)
		return -EINVAL;
	snprintf(buf, size, "%s.%06lld%.3s:%s", date, (long long)(rem / 1000), zone, zone + 3);
	return 0;
}

void ts_func(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	char buf[80]; /* date[40] + ".%06lld" + zone: room for what gcc assumes, too */
	struct session *s = sqlite3_user_data(ctx);
	int64_t offset = s && s->clock_offset_ns ? s->clock_offset_ns : clock__wall_offset_ns();

	if (sqlite3_value_type(argv[0]) == SQLITE_NULL)
		return;
	if (sqlite3_value_numeric_type(argv[0]) != SQLITE_INTEGER ||
	    ts_format(buf, sizeof(buf), sqlite3_value_int64(argv[0]), offset)) {
		sql_result_value_error(ctx, "ts: ", argv[0],
				       " is not a CLOCK_MONOTONIC time in ns");
		return;
	}
	sqlite3_result_text(ctx, buf, -1, SQLITE_TRANSIENT);
}
