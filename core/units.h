/*
 * core/units.h - durations and sizes as people type them, one parser each for the command
 * line (-d 5s, --max-memory 256M) and profiler parameters (than=4ms, size=4k).
 *
 *   units__ns("4ms", UNIT_S) == 4000000      units__ns("5", UNIT_S) == 5000000000
 *   units__bytes("256M") == 268435456        a malformed or negative value: -1
 */
#ifndef PERF_SQL_UNITS_H
#define PERF_SQL_UNITS_H

#define UNIT_NS 1.0 /* a bare number is nanoseconds (profiler parameters) */
#define UNIT_S 1e9  /* a bare number is seconds (-d, --query-timeout) */

/* ns, us, ms, s, m, h, or a bare number in bare_unit nanoseconds; -1 if malformed */
long long units__ns(const char *s, double bare_unit);
/* bytes: k, m, g, t (powers of 1024, any case, optional b/ib), or a bare number; -1 if malformed */
long long units__bytes(const char *s);
#endif
