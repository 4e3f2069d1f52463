/*
 * cli/status.h - the status line on a terminal's stderr while a query collects, records or
 * replays (cli/status.c):
 *
 *   collecting 2.4s of 5s: 1000 events, 0 lost; Ctrl-C to stop
 *
 * run__query() starts it, the session's tick (core/session.h, every SESSION_TICK_MS) redraws
 * it, and anything else printed to the terminal erases it first (status__erase).
 */
#ifndef PERF_SQL_STATUS_H
#define PERF_SQL_STATUS_H
#include <stdbool.h>
#include <stdint.h>

struct run;
struct session;

struct status {
	bool on;           /* stderr is a terminal, no -q, something is collected */
	bool shown;        /* a line is on the screen now */
	int fd;            /* stderr */
	uint64_t start_ns; /* CLOCK_MONOTONIC at the start of collection */
	const struct run *r;
};

/* Decides whether r gets a status line and hooks it into r's session options (tick). */
void status__init(struct status *st, struct run *r);
/* Collection starts now: the elapsed time counts from here. */
void status__start(struct status *st);
/* The session's tick: redraws the line with the counts so far. */
void status__tick(void *ctx, struct session *s);
/* Erases the line, if one is shown (before results, notices and errors are printed). */
void status__erase(struct status *st);
/* The events received and lost so far over the tables of s, this window's and the ones
 * before: what core/ring.c accounts at a window's end, taken between two ends (a replay:
 * this window's, from the capture). */
void status__counts(const struct session *s, uint64_t *received, uint64_t *lost);
#endif
