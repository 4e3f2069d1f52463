/*
 * core/clock.h - perf's clock and the wall clock. Event times (_time) are the perf clock
 * (local_clock: ns since boot, CLOCK_MONOTONIC's rate); ts() shows them as wall-clock time
 * through the offset CLOCK_REALTIME - CLOCK_MONOTONIC, measured once per process and, for a
 * capture, recorded in it (META clock_offset_ns) so its replay shows the times of the machine
 * that recorded it, the same on every replay.
 */
#ifndef PERF_SQL_CLOCK_H
#define PERF_SQL_CLOCK_H
#include <stdint.h>

/* CLOCK_REALTIME - CLOCK_MONOTONIC in ns, measured on the first call (0 if a clock fails) */
int64_t clock__wall_offset_ns(void);
#endif
