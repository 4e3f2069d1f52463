/*
 * core/target.h - what a session watches: its CPUs (-C, one window stream each) and its tasks
 * (-p, -t, --cgroup, or a workload's process tree), and the filters that keep a table's rows
 * to those tasks: in the kernel (an ftrace filter on the task fields) or in user space.
 */
#ifndef PERF_SQL_TARGET_H
#define PERF_SQL_TARGET_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "core/sample.h"
#include "core/session.h"

/* -C (or every online CPU) -> s->cpus, s->nr_cpus and the cpu <-> stream maps */
int target__open_cpus(struct session *s, struct err *e);
/* -p PIDS (every thread of each), -t TIDS, --cgroup -> s->tids; each must exist now */
int target__read(struct session *s, struct err *e);
/* -p/-t: every target has exited (threads they created are followed while one lives) */
bool target__gone(struct session *s);
/* The window stream of a sample's CPU. */
int target__stream(const struct session *s, uint32_t cpu);
/* A scheduler row of the workload: its task, or a task field, is in the tree. */
bool target__in_tree(const struct session *s, const struct source *src,
		     const struct sample *smp);
/* "common_pid != self" where perf-sql must leave itself out ("" where not). */
void target__self_filter(struct session *s, const struct source *src, char *buf, size_t len);
#endif
