/*
 * core/perf_glue.c - access to libperf's per-event fd array and ring reader (see
 * core/perf_glue.h).
 * libperf 6.1 has no public getter for an event's fds; its internal header is stable within the
 * version setup builds, and this is the only file that includes it.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <linux/perf_event.h>
#include <internal/evsel.h>
#include <internal/mmap.h>
#include <perf/event.h>
#include <internal/xyarray.h>
#include <perf/cpumap.h>
#include <perf/threadmap.h>
#include "core/perf_glue.h"

int evsel__fd(struct perf_evsel *evsel, int cpu_idx, int thread)
{
	int *fd;

	if (!evsel->fd || cpu_idx < 0 || thread < 0 || cpu_idx >= xyarray__max_x(evsel->fd) ||
	    thread >= xyarray__max_y(evsel->fd))
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

void evsel__set_system_wide(struct perf_evsel *evsel) { evsel->system_wide = true; }

void evsel__exit(struct perf_evsel *evsel)
{
	perf_evsel__free_id(evsel);
	perf_cpu_map__put(evsel->cpus);
	perf_cpu_map__put(evsel->own_cpus);
	perf_thread_map__put(evsel->threads);
	evsel->cpus = NULL;
	evsel->own_cpus = NULL;
	evsel->threads = NULL;
}

union perf_event *mmap__whole_event(struct perf_mmap *map, union perf_event *ev)
{
	size_t size = ev ? ev->header.size : 0, first;
	const unsigned char *data;
	uint64_t start;

	if ((void *)ev != (void *)map->event_copy || size <= sizeof(union perf_event) ||
	    size > sizeof(map->event_copy))
		return ev;
	/* read advanced map->start past the record: it began size bytes before */
	data = (const unsigned char *)map->base + sysconf(_SC_PAGESIZE);
	start = (map->start - size) & (uint64_t)map->mask;
	first = (size_t)map->mask + 1 - start;
	memcpy(map->event_copy, data + start, first < size ? first : size);
	if (first < size)
		memcpy(map->event_copy + first, data, size - first);
	return ev;
}
