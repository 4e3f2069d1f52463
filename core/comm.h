/*
 * core/comm.h - task names over time: tid -> [(since_ns, comm)], fed by a /proc snapshot at
 * start and by PERF_RECORD_COMM / FORK records while collecting, so a row's _comm is the name
 * its task had when the event happened, even after the task is gone.
 */
#ifndef PERF_SQL_COMM_H
#define PERF_SQL_COMM_H
#include <stdint.h>

struct comm_map;

struct comm_map *comm_map__new(void);
void comm_map__free(struct comm_map *m);
/* Records that tid is named comm from time on; 0 or -ENOMEM. */
int comm_map__set(struct comm_map *m, uint32_t tid, uint64_t time, const char *comm);
/* A forked child is named as its parent was at time, looked up when asked (records of the
 * parent may be read after the child's FORK record). */
int comm_map__fork(struct comm_map *m, uint32_t parent_tid, uint32_t child_tid, uint64_t time);
/* The name tid had at time: the last entry at or before it (else the first); NULL if unknown. */
const char *comm_map__get(struct comm_map *m, uint32_t tid, uint64_t time);
/* Calls fn for every (tid, since, comm) entry: captures save the map with it. */
void comm_map__for_each(struct comm_map *m,
			void (*fn)(void *ctx, uint32_t tid, uint64_t since, const char *comm),
			void *ctx);
/* Replaying a capture: unknown tids stay unknown (no /proc lookup on this machine). */
void comm_map__set_offline(struct comm_map *m);
/* Reads /proc/PID/task/TID/comm of every task alive now (time 0). */
int comm_map__snapshot(struct comm_map *m);
#endif
