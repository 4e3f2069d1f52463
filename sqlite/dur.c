/*
 * dur(NS) - scalar: a duration in nanoseconds as short human text.
 *
 *   SELECT comm, dur(max(latency)) FROM rundelay_pairs GROUP BY comm;
 *   -- dur(512) = '512ns', dur(2500) = '2.50us', dur(1234567) = '1.23ms', dur(4e9) = '4.00s'
 *
 * (1) Below 1000 ns the text is whole nanoseconds; above, two decimals of the largest of
 *     us, ms, s that keeps the number below 1000 after rounding (999999 ns is "1.00ms", not
 *     "1000.00us"); seconds are not carried into minutes.
 * (2) A negative NS keeps its sign ("-2.50us"); a REAL NS is allowed (rounded to whole ns).
 *     Every int64 prints in full (INT64_MIN is "-9223372036.85s"); from 1e15 s (1e24 ns, only
 *     a REAL) the seconds print in exponent form: dur(1e308) = '1.00e+299s'.
 * (3) NULL gives NULL; a non-numeric NS is an error quoting it.
 */
#include <math.h>
#include <stdio.h>
#include <sqlite3.h>

#include "sqlite/functions.h"

/* seconds past this print in exponent form, so any double fits a short buffer */
#define DUR_FIXED_MAX_S 1e15

static const char *const dur_units[] = { "us", "ms", "s" };

void dur_format(char *buf, size_t size, double ns)
{
	const char *sign = ns < 0 ? "-" : "";
	double v = fabs(ns);

	if (round(v) < 1000) {
		snprintf(buf, size, "%s%.0fns", sign, round(v));
		return;
	}
	v /= 1000;
	for (int i = 0; i < 3; i++, v /= 1000) {
		/* decide on the rounded value, so 999.996 moves up a unit */
		if (i == 2 && v >= DUR_FIXED_MAX_S) {
			snprintf(buf, size, "%s%.2es", sign, v); /* 1e308 ns: "1.00e+299s" */
			return;
		}
		if (i == 2 || round(v * 100) < 100000) {
			snprintf(buf, size, "%s%.2f%s", sign, v, dur_units[i]);
			return;
		}
	}
}

void dur_func(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	int type = sqlite3_value_numeric_type(argv[0]);
	char buf[64];

	if (type == SQLITE_NULL)
		return;
	if (type != SQLITE_INTEGER && type != SQLITE_FLOAT) {
		sql_result_value_error(ctx, "dur: ", argv[0], " is not a number of nanoseconds");
		return;
	}
	dur_format(buf, sizeof(buf), sqlite3_value_double(argv[0]));
	sqlite3_result_text(ctx, buf, -1, SQLITE_TRANSIENT);
}
