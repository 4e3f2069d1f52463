/*
 * stats(V) - aggregate: count, min, avg, max and stddev of V in one TEXT value, like
 * bpftrace's stats() (which prints count, average, total) plus the spread.
 *
 *   SELECT comm, stats(latency) FROM rundelay_pairs GROUP BY comm;
 *   -- count 1000, min 1, avg 500.5, max 1000, stddev 288.67
 *
 * (1) stddev is the population standard deviation (divide by n, as bpftrace does), computed
 *     with Welford's update so large values do not cancel.
 * (2) avg and stddev print with two decimals, trailing zeros dropped ("500.5", "288.67", "3");
 *     min and max print as integers while every V is an integer, else like avg.
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

struct stats_state {
	uint64_t n;
	double mean, m2;
	double min, max;
	sqlite3_int64 imin, imax;
	bool all_int;
};

void stats_step(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	struct stats_state *st = sqlite3_aggregate_context(ctx, sizeof(*st));
	int type = sqlite3_value_numeric_type(argv[0]);
	double v, delta;

	if (!st) {
		sqlite3_result_error_nomem(ctx);
		return;
	}
	if (type == SQLITE_NULL)
		return;
	if (type != SQLITE_INTEGER && type != SQLITE_FLOAT) {
		sql_result_errorf(ctx, "stats: value '%.40s' is not a number",
				  (const char *)sqlite3_value_text(argv[0]));
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
	delta = v - st->mean;
	st->mean += delta / (double)st->n;
	st->m2 += delta * (v - st->mean);
}

/* two decimals, trailing zeros (and a bare '.') dropped */
static void fmt2(char *buf, size_t size, double v)
{
	char *dot, *end;

	snprintf(buf, size, "%.2f", v);
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
	char min[48], max[48], avg[48], sd[48];
	char *s;

	if (!st || !st->n) {
		sqlite3_result_text(ctx, "count 0", -1, SQLITE_STATIC);
		return;
	}
	if (st->all_int) {
		snprintf(min, sizeof(min), "%lld", st->imin);
		snprintf(max, sizeof(max), "%lld", st->imax);
	} else {
		fmt2(min, sizeof(min), st->min);
		fmt2(max, sizeof(max), st->max);
	}
	fmt2(avg, sizeof(avg), st->mean);
	fmt2(sd, sizeof(sd), sqrt(st->m2 / (double)st->n));
	s = sqlite3_mprintf("count %llu, min %s, avg %s, max %s, stddev %s",
			    (unsigned long long)st->n, min, avg, max, sd);
	if (!s) {
		sqlite3_result_error_nomem(ctx);
		return;
	}
	sqlite3_result_text(ctx, s, -1, sqlite3_free);
}
