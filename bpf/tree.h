/*
 * bpf/tree.h - the workload's tasks as a BPF map, for tables aggregated in the kernel under
 * `-- CMD`, -p, -t or --cgroup: the same tasks the perf ring's per-task events (inherit,
 * enable_on_exec) follow.
 *
 *   (1) armed at the workload's exec: task:task_rename, which the kernel fires right after
 *       perf_event_exec() (where enable_on_exec switches the ring's events on), adds its tid;
 *   (2) inherited: task:task_newtask of a member (the parent, in copy_process) adds the child,
 *       thread or process, before it can run;
 *   (3) exited: sched:sched_process_exit marks the task exited: its own events (the current
 *       task's, as a per-task perf event counts them) end there, where perf_event_exit_task()
 *       ends the ring's, while rows that name it (its last switch out) are still its;
 *   (4) freed: sched:sched_process_free (after its last switch) removes an exited task (its
 *       tid may be reused: a tid that joined again since stays).
 * Under -p, -t or --cgroup (workload 0) there is no (1): the targets' threads (s->tids) are
 * members from the start, and (2)-(4) follow them as the perf ring's inherit does.
 * A table's program counts an event only when the current thread is a member and alive, or,
 * for a table that names tasks (bpf/plan.h: task_vals), when a task it names is a member. The
 * programs are attached at planning, before the workload is released.
 *
 * They run on raw tracepoints (bpf_raw_tracepoint_open: closing the link at exit takes ~0.1
 * ms, where closing a classic tracepoint's perf event waits for RCU grace periods, 50-80 ms
 * each); (2) reads the child's tid at task_struct.pid (offset from the kernel's BTF) of the
 * tracepoint's first argument ((4) too). Where the kernel has no BTF or refuses the raw tracepoint,
 * they fall back to the classic tracepoints (the child's tid from the record's field pid).
 * Raw tracepoint programs hide nothing from other perf users; the classic ones return 1,
 * so others' perf users of those tracepoints see every event there too.
 *
 * The map holds BPF_TREE_MAX tasks alive at once; a member the map has no room for (or
 * whose tid cannot be read) is counted per CPU in the kernel, and bpf_tree__nr_refused()
 * says how many: its events are missed, which the front end must say.
 */
#ifndef PERF_SQL_BPF_TREE_H
#define PERF_SQL_BPF_TREE_H
#include <stdbool.h>
#include <sys/types.h>
#include "core/err.h"

struct session;

/* tasks alive at once (the map grows as they appear; its buckets, 16 bytes each, are made at
 * creation): never reached where pid_max <= 65536, the kernel's default below 64 CPUs */
#define BPF_TREE_MAX 65536
#define BPF_TREE_PROGS 4
/* a member's value in the map */
#define BPF_TREE_ALIVE 1
#define BPF_TREE_EXITED 2

struct bpf_tree {
	int map_fd;     /* hash u32 tid -> u32 BPF_TREE_ALIVE or BPF_TREE_EXITED */
	int max;        /* its size: BPF_TREE_MAX (test builds: $PERF_SQL_TEST_TREE_MAX) */
	int refused_fd; /* per-CPU array, 1 u64: members the map had no room for */
	int prog_fd[BPF_TREE_PROGS];
	/* raw tracepoint links, or perf events (the classic fallback) */
	int link_fd[BPF_TREE_PROGS];
	bool raw; /* the programs are on raw tracepoints */
};

/* The map, and unless attach is false (--explain) the programs; 0 or -errno with e set. */
int bpf_tree__open(struct bpf_tree *t, struct session *s, pid_t workload, bool attach,
		   struct err *e);
void bpf_tree__close(struct bpf_tree *t);
/* Members refused so far (the map full, or a child's tid unreadable), summed over the CPUs */
unsigned long long bpf_tree__nr_refused(const struct bpf_tree *t);
/* A disabled perf event of tracepoint tp_id on cpu carrying prog_fd; the fd or -errno. */
int bpf_attach_tracepoint(int tp_id, int cpu, int prog_fd);
#endif
