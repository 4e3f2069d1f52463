/*
 * core/perf_glue.h - the few libperf internals perf-sql needs (file descriptors and filters),
 * kept behind functions so only core/perf_glue.c sees libperf's internal headers.
 */
#ifndef PERF_SQL_PERF_GLUE_H
#define PERF_SQL_PERF_GLUE_H
struct perf_evsel;
/* fd of the event on cpu index / thread index, or -1 */
int evsel__fd(struct perf_evsel *evsel, int cpu_idx, int thread);
/* PERF_EVENT_IOC_SET_FILTER on every fd of evsel; 0 or -errno */
int evsel__set_filter(struct perf_evsel *evsel, const char *filter);
/* marks evsel as opened on every CPU whatever the evlist's threads (before set_maps) */
void evsel__set_system_wide(struct perf_evsel *evsel);
/*
 * What perf_evsel__delete() leaves, which frees the struct alone in libperf 6.1: the event's
 * ids (perf_evlist__mmap() allocates them) and its references to the evlist's CPU and thread
 * maps, freed as perf's own evsel__exit() frees them. Once the evsel is unmapped and closed,
 * before perf_evlist__delete(); a session's ~700 bytes each run otherwise (perf-sql serve
 * runs one per profile request).
 */
void evsel__exit(struct perf_evsel *evsel);

struct perf_mmap;
union perf_event;
/*
 * ev as perf_mmap__read_event() returned it, whole: libperf 6.1 copies a record that wraps
 * around the ring's end into its buffer only up to sizeof(union perf_event) (4168 bytes), so
 * the rest of a bigger one (an 8 KiB user stack copy, a large raw tracepoint) is stale. Such a
 * record is copied again whole; any other is returned as it is. Call before consuming it.
 */
union perf_event *mmap__whole_event(struct perf_mmap *map, union perf_event *ev);
#endif
