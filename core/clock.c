/*
 * core/clock.c - the wall clock's offset from the monotonic clock (see core/clock.h).
 *
 * (1) The realtime read is the mean of two reads around the monotonic one.
 * (2) Measured once per process (pthread_once), so the times of one run are consistent; a
 *     later clock step (NTP, settimeofday) is not followed.
 */
#include <pthread.h>
#include <time.h>
#include "core/clock.h"

static pthread_once_t offset_once = PTHREAD_ONCE_INIT;
static int64_t offset_ns;

static int64_t ns_of(const struct timespec *t)
{
	return (int64_t)t->tv_sec * 1000000000 + t->tv_nsec;
}

static void measure(void)
{
	struct timespec r0, m, r1;

	if (clock_gettime(CLOCK_REALTIME, &r0) || clock_gettime(CLOCK_MONOTONIC, &m) ||
	    clock_gettime(CLOCK_REALTIME, &r1))
		return;
	offset_ns = ns_of(&r0) + (ns_of(&r1) - ns_of(&r0)) / 2 - ns_of(&m);
}

int64_t clock__wall_offset_ns(void)
{
	pthread_once(&offset_once, measure);
	return offset_ns;
}
