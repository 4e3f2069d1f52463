/*
 * bpf/source.h - the tables aggregated in the kernel, as one event source of a session
 * (core/event_source.h): enable and disable switch their programs on and off, the end of a
 * window reads their groups. Kept in s->bpf, with one line per table saying which path it
 * takes and why (--explain).
 */
#ifndef PERF_SQL_BPF_SOURCE_H
#define PERF_SQL_BPF_SOURCE_H
#include "core/event_source.h"
#include "core/session.h"

struct bpf_table;

/* The session's BPF state, created (and the source registered) on first use; NULL: no memory. */
struct bpf_session *bpf_session__get(struct session *s);
/* Table t now feeds its source (src->bpf): the rings leave that source alone. */
int bpf_session__add(struct session *s, struct bpf_table *t);
/* Takes t back (its source to the rings again); the caller frees it. */
void bpf_session__remove(struct session *s, struct bpf_table *t);
/* The map of the workload's tasks (bpf/tree.h), made on first use; its fd, or -errno with e
 * set. attach false (--explain): the map only. */
int bpf_session__tree(struct session *s, bool attach, struct err *e);
/* Tasks the map of the workload's tasks refused since the last call (their events are
 * missed: say so), 0 without the map; the map's size into max_out. */
unsigned long long bpf_session__tree_refused(struct session *s, int *max_out);
/* The table feeding src, or NULL. */
struct bpf_table *bpf_session__table(const struct session *s, const struct source *src);
extern const struct event_source_ops bpf_source;
/* Runs of program prog_fd the kernel skipped (its recursion_misses: bpf/table.h (4)) since
 * *seen, which is moved on; 0 if unknown. */
uint64_t bpf_prog__new_misses(int prog_fd, uint64_t *seen);
#endif
