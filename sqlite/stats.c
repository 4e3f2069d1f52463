/*
 * stats(V) - aggregate: count, min, avg, max and stddev of V in one TEXT value, like
 * bpftrace's stats() (which prints count, average, total) plus the spread.
 *
 *   SELECT comm, stats(latency) FROM rundelay_pairs GROUP BY comm;
 *   -- count 1000, min 1, avg 500.5, max 1000, stddev 288.67
 *
 * (1) stddev is the population standard deviation (divide by n, as bpftrace does), computed
 *     with Welford's update so large values do not cancel.
 * (1b) The running mean and squares are long doubles (x86-64: 15 exponent bits), so values
 *     as far apart as -1e308 and 1e308 give a finite avg and stddev; where long double is no
 *     wider than double, a spread that overflows is an error naming min and max.
 * (2) avg and stddev print with two decimals, trailing zeros dropped ("500.5", "288.67", "3");
 *     min and max print as integers while every V is an integer, else like avg. From 1e19
 *     on (past every int64) a number prints in exponent form, 6 digits: 1e308 is "1e+308".
 * (3) NULL is skipped; a non-numeric V is an error quoting it; over no rows the result is
 *     "count 0".
 */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sqlite3.h>

#include "sqlite/functions.h"

#define FMT_MAX 48
#define FIXED_MAX 1e19L /* from here on (past any int64) exponent form: (2) */

/* SQLite's aggregate context is 8-byte aligned, a long double wants 16: kept as bytes */
typedef unsigned char ld_bytes[sizeof(long double)];

static long double ld_get(const ld_bytes b)
{
	long double v;

	memcpy(&v, b, sizeof(v));
	return v;
}

static void ld_set(ld_bytes b, long double v) { memcpy(b, &v, sizeof(v)); }

struct stats_state {
	uint64_t n;
	ld_bytes mean, m2; /* (1b) */
	double min, max;
	sqlite3_int64 imin, imax;
	bool all_int;
};

void stats_step(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	struct stats_state *st = sqlite3_aggregate_context(ctx, sizeof(*st));
	int type = sqlite3_value_numeric_type(argv[0]);
	long double delta, mean;
	double v;

	if (!st) {
		sqlite3_result_error_nomem(ctx);
		return;
	}
	if (type == SQLITE_NULL)
		return;
	if (type != SQLITE_INTEGER && type != SQLITE_FLOAT) {
		sql_result_value_error(ctx, "stats: value ", argv[0], " is not a number");
		return;
	}
	v = sqlite3_value_double(argv[0]);
	if (st->n == 0) {
		st->all_int = true;
		st->min = st->max = v;
	}
	if (type == SQLITE_INTEGER) {
		sqlite3_int64 i = sqlite3_value_int64(argv[0]);

		if (st->n == 0 || i < st->imin)
			st->imin = i;
		if (st->n == 0 || i > st->imax)
			st->imax = i;
	} else {
		st->all_int = false;
	}
	if (v < st->min)
		st->min = v;
	if (v > st->max)
		st->max = v;
	st->n++;
	delta = v - ld_get(st->mean);
	mean = ld_get(st->mean) + delta / (long double)st->n;
	ld_set(st->mean, mean);
	ld_set(st->m2, ld_get(st->m2) + delta * (v - mean));
}

/* two decimals, trailing zeros (and a bare '.') dropped */
static void fmt2(char *buf, size_t size, long double v)
{
	char *dot, *end;

	if (fabsl(v) >= FIXED_MAX) {
		snprintf(buf, size, "%.6Lg", v); /* "1e+308", "-1.79769e+308" */
		return;
	}
	snprintf(buf, size, "%.2Lf", v);
	dot = strchr(buf, '.');
	if (!dot)
		return;
	end = buf + strlen(buf) - 1;
	while (end > dot && *end == '0')
		*end-- = '\0';
	if (end == dot)
		*end = '\0';
	if (!strcmp(buf, "-0"))
		strcpy(buf, "0");
}

void stats_final(sqlite3_context *ctx)
{
	struct stats_state *st = sqlite3_aggregate_context(ctx, 0);
	char min[FMT_MAX], max[FMT_MAX], avg[FMT_MAX], sd[FMT_MAX];
	long double var;
	char *s;

	if (!st || !st->n) {
		sqlite3_result_text(ctx, "count 0", -1, SQLITE_STATIC);
		return;
	}
	var = ld_get(st->m2) / (long double)st->n;
	if (!isfinite(ld_get(st->mean)) ||
	    !isfinite(var)) { /* not on x86-64: long double has room */
		sql_result_errorf(ctx, "stats: the values' spread (min %!g, max %!g) overflows",
				  st->min, st->max);
		return;
	}
	if (st->all_int) {
		snprintf(min, sizeof(min), "%lld", st->imin);
		snprintf(max, sizeof(max), "%lld", st->imax);
	} else {
		fmt2(min, sizeof(min), st->min);
		fmt2(max, sizeof(max), st->max);
	}
	fmt2(avg, sizeof(avg), ld_get(st->mean));
	fmt2(sd, sizeof(sd), sqrtl(var));
	s = sqlite3_mprintf("count %llu, min %s, avg %s, max %s, stddev %s",
			    (unsigned long long)st->n, min, avg, max, sd);
	if (!s) {
		sqlite3_result_error_nomem(ctx);
		return;
	}
	sqlite3_result_text(ctx, s, -1, sqlite3_free);
}
