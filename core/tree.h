/*
 * core/tree.h - the tasks a session follows: a workload's process tree, or the -p/-t/--cgroup
 * targets and every task they create, and which rows of the tables that name tasks are theirs.
 *
 *   session__start      tree__start(root or targets)
 *   each ring drain     samples held (tree__hold), the sideband's FORK and COMM records
 *                       (tree__fork, tree__exec), then tree__release decides
 */
#ifndef PERF_SQL_TREE_H
#define PERF_SQL_TREE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sample;
struct source;

struct tree_task;

struct tree {
	bool active;             /* some table keeps only the tree's rows */
	struct tree_task *tasks; /* tid -> when it was a member: open addressing */
	uint32_t nr, cap;
	uint32_t root; /* the workload: a member from its exec on (0: none) */
	uint8_t *held; /* records held until the drain's sideband is read */
	size_t len, cap_held;
	/* this window's task records (FORK, COMM, EXIT) read, and lost by the sideband's ring (a
	 * fork missed: a task missed), shown in perf_sql_stats as extra stat number stat */
	uint64_t nr_side, lost_side;
	int stat;
};

/* A member from the start (-p/-t targets). */
void tree__add(struct tree *t, uint32_t tid);
/* A task a member created at time (every FORK record of the sideband: it lives in members). */
void tree__fork(struct tree *t, uint32_t tid, uint64_t time);
/* A COMM record with the exec flag: the workload's first one makes it a member from time. */
void tree__exec(struct tree *t, uint32_t tid, uint64_t time);
/* A member's process (from its FORK or exec record; 0: not known, as for -p/-t threads) */
void tree__set_pid(struct tree *t, uint32_t tid, uint32_t pid);
uint32_t tree__pid(const struct tree *t, uint32_t tid);
/* Whether tid is a member at time. */
bool tree__has(const struct tree *t, uint32_t tid, uint64_t time);
/* Keeps a copy of a sample record until tree__release; -ENOMEM if it cannot. */
int tree__hold(struct tree *t, const void *record, size_t size);
/* Calls fn on every held record, in the order held, then forgets them. */
void tree__release(struct tree *t, void (*fn)(void *ctx, const void *record), void *ctx);
/* Whether a sample of src (a table that names tasks) is the tree's: (3) in core/tree.c. */
bool tree__keeps(const struct tree *t, const struct source *src, const struct sample *smp);
void tree__free(struct tree *t);
#endif
