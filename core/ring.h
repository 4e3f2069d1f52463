/*
 * core/ring.h - the perf ring event source: draining each table's per-CPU rings, dispatching
 * records by event id (a sample to its table's window store, a sideband record to the task
 * names and the workload's tree), reading the kernel's counts, and the lost accounting.
 */
#ifndef PERF_SQL_RING_H
#define PERF_SQL_RING_H
#include <stdint.h>
#include <perf/event.h>
#include "core/event_source.h"
#include "core/session.h"

struct perf_evsel;

/* The perf rings as an event source (open, enable, disable, close: core/events.c). */
extern const struct event_source_ops ring_source;

/* Records evsel's id on every fd as src's (NULL: the sideband); 0 or -errno. */
int ring__add_ids(struct session *s, struct perf_evsel *evsel, struct source *src);
/* Sorts the ids for dispatch: after the last ring__add_ids. */
void ring__sort_ids(struct session *s);
/* One record from a ring: a sample into its table's window, a sideband record into the task
 * names and the workload's tree. */
void ring__handle(struct session *s, const union perf_event *ev);
/*
 * This window's lost events of every table, from the counts the sources read and the rows
 * received: after ->read_counts and the window's last ->drain.
 */
void session__account_lost(struct session *s);
#endif
