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

struct perf_cpu_map;

/* CPU numbers this high are a corrupt list, not a machine (the kernel's NR_CPUS is 8192 at most) */
#define CPU_NR_MAX 65536

/* -C (or every online CPU) -> s->cpus and its streams (target__set_cpus) */
int target__open_cpus(struct session *s, struct err *e);
/* s->cpus = map (a reference is taken) and its streams: how a test gives a session 128 CPUs */
int target__set_cpus(struct session *s, struct perf_cpu_map *map, struct err *e);
/*
 * One window stream per CPU of cpus[0..nr), in that order: s->cpu_num[stream] and
 * s->cpu_idx[cpu] (-1: not collected), sized by the kernel's nr_cpu_ids or the highest CPU + 1,
 * whichever is larger. -EINVAL for a negative, huge or repeated CPU; -ENOMEM.
 */
int target__map_cpus(struct session *s, const int *cpus, int nr, struct err *e);
/* -p PIDS (every thread of each), -t TIDS, --cgroup -> s->tids; each must exist now */
int target__read(struct session *s, struct err *e);
/* -p/-t: every target has exited (threads they created are followed while one lives) */
bool target__gone(struct session *s);
/* The window stream of a sample's CPU, or -1 for a CPU the session does not collect on. */
static inline int target__stream(const struct session *s, uint32_t cpu)
{
	return cpu < (uint32_t)s->nr_cpu_ids ? s->cpu_idx[cpu] : -1;
}
/* "common_pid != self" where perf-sql must leave itself out ("" where not). */
void target__self_filter(struct session *s, const struct source *src, char *buf, size_t len);
#endif
