/*
 * core/units.h - durations and sizes as people type them, one grammar for every place that
 * takes one: -d, -i, --query-timeout, .interval, .duration, profiler parameters (than=4ms),
 * perf_sql_collect()'s DURATION; sizes for --max-memory 256M, size=4k.
 *
 *   units__ns("4ms") == 4000000      units__ns("5") == 5000000 (a bare number is milliseconds)
 *   units__bytes("256M") == 268435456        a malformed or negative value: -1
 */
#ifndef PERF_SQL_UNITS_H
#define PERF_SQL_UNITS_H

/* ns, us, ms, s, m, h, or a bare number: milliseconds, as perf stat -I and perf-prof -i */
#define UNITS_BARE "ms"

/* the duration in ns; -1 if malformed */
long long units__ns(const char *s);
/* bytes: k, m, g, t (powers of 1024, any case, optional b/ib), or a bare number; -1 if malformed */
long long units__bytes(const char *s);
#endif
