/*
 * core/perf_glue.c - access to libperf's per-event fd array (see core/perf_glue.h).
 * libperf 6.1 has no public getter for an event's fds; its internal header is stable within the
 * version setup builds, and this is the only file that includes it.
 */
#include <errno.h>
#include <sys/ioctl.h>
#include <linux/perf_event.h>
#include <internal/evsel.h>
#include <internal/xyarray.h>
#include <perf/cpumap.h>
#include <perf/threadmap.h>
#include "core/perf_glue.h"

int evsel__fd(struct perf_evsel *evsel, int cpu_idx, int thread)
{
	int *fd;

	if (!evsel->fd || cpu_idx < 0 || thread < 0 ||
	    cpu_idx >= xyarray__max_x(evsel->fd) || thread >= xyarray__max_y(evsel->fd))
		return -1;
	fd = xyarray__entry(evsel->fd, cpu_idx, thread);
	return fd ? *fd : -1;
}

int evsel__set_filter(struct perf_evsel *evsel, const char *filter)
{
	for (int x = 0; evsel->fd && x < xyarray__max_x(evsel->fd); x++)
		for (int y = 0; y < xyarray__max_y(evsel->fd); y++) {
			int fd = *(int *)xyarray__entry(evsel->fd, x, y);

			if (fd >= 0 && ioctl(fd, PERF_EVENT_IOC_SET_FILTER, filter) < 0)
				return -errno;
		}
	return 0;
}

void evsel__set_system_wide(struct perf_evsel *evsel)
{
	evsel->system_wide = true;
}
