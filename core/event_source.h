/*
 * core/event_source.h - how events reach the window stores: one table of operations per kind
 * of event source. The perf rings (core/ring.c) are one; a BPF-map source can be the next.
 * The session's run loop (core/session.c) calls its sources only through this table:
 *
 *   session__start      ->open, then ->enable (after every source opened)
 *   each wakeup         ->drain                  records into the tables' window stores
 *   end of a window     ->read_counts, ->drain   then the lost accounting, then the query
 *   end of collecting   ->disable, then the last window: ->read_counts, ->drain, the lost
 *                       accounting, ->release (may be NULL), the query;  session__close: ->close
 *
 * A source keeps its state in the session (struct session) and adds the file descriptors the
 * loop should poll to s->pollfds. The kernel's counts a source reads go to each table's
 * count_seen[] and lost_samples[] (struct source), per CPU stream.
 */
#ifndef PERF_SQL_EVENT_SOURCE_H
#define PERF_SQL_EVENT_SOURCE_H

struct err;
struct session;

struct event_source_ops {
	const char *name;
	int (*open)(struct session *s, struct err *e); /* opens, maps, sets kernel filters */
	void (*enable)(struct session *s);
	void (*disable)(struct session *s);
	void (*drain)(struct session *s);       /* what arrived so far into the window stores */
	void (*read_counts)(struct session *s); /* the kernel's event counts, per table and CPU */
	/* nothing is read from the source any more: its kernel objects may start going, in the
	 * background, while the last window's query runs; ->close waits for them */
	void (*release)(struct session *s);
	void (*close)(struct session *s); /* safe after a failed open, or none, or a release */
};
#endif
