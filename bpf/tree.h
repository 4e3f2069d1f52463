/*
 * bpf/tree.h - the workload's tasks as a BPF map, for tables aggregated in the kernel under
 * `-- CMD`, -p, -t or --cgroup: the same tasks the perf ring's per-task events (inherit,
 * enable_on_exec) follow.
 *
 *   (1) armed at the workload's exec: task:task_rename, which the kernel fires right after
 *       perf_event_exec() (where enable_on_exec switches the ring's events on), adds its tid;
 *   (2) inherited: task:task_newtask of a member (the parent, in copy_process) adds the child,
 *       thread or process, before it can run;
 *   (3) left: sched:sched_process_exit removes the task (its tid may be reused).
 * Under -p, -t or --cgroup (workload 0) there is no (1): the targets' threads (s->tids) are
 * members from the start, and (2), (3) follow them as the perf ring's inherit does.
 * A table's program counts an event only when the current thread is a member. The three
 * programs return 1 (others' perf users of those tracepoints see every event) and are
 * attached at planning, before the workload is released.
 */
#ifndef PERF_SQL_BPF_TREE_H
#define PERF_SQL_BPF_TREE_H
#include <stdbool.h>
#include <sys/types.h>
#include "core/err.h"

struct session;

#define BPF_TREE_MAX (1 << 20) /* tasks alive at once (the map grows as they appear) */

struct bpf_tree {
	int map_fd; /* hash u32 tid -> u32 1 */
	int prog_fd[3], perf_fd[3];
};

/* The map, and unless attach is false (--explain) the three programs; 0 or -errno with e set. */
int bpf_tree__open(struct bpf_tree *t, struct session *s, pid_t workload, bool attach,
		   struct err *e);
void bpf_tree__close(struct bpf_tree *t);
/* A disabled perf event of tracepoint tp_id on cpu carrying prog_fd; the fd or -errno. */
int bpf_attach_tracepoint(int tp_id, int cpu, int prog_fd);
#endif
