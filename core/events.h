/*
 * core/events.h - the perf events of a session: attributes from each source's needs, one
 * evlist (so one ring per CPU) per source plus the sideband, the errno advice table, kernel
 * filters set on the fds, enabling and closing. core/ring.c reads what these rings hold.
 */
#ifndef PERF_SQL_EVENTS_H
#define PERF_SQL_EVENTS_H
#include "core/session.h"

/* Opens and maps every source (and the sideband when task names are read), sets filters. */
int events__open(struct session *s, struct err *e);
void events__enable(struct session *s);
void events__disable(struct session *s);
/* Unmaps and closes every event; safe after a failed or no open. */
/* the events closed in a thread of their own from now (events__close() waits for it) */
void events__release(struct session *s);
void events__close(struct session *s);
#endif
