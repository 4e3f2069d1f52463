/*
 * bpf/pairs.h - pairs() in the kernel: start and end events paired by key in a BPF hash map,
 * each pair aggregated into its group as it completes (engine/bpf_pairs.c plans it).
 *
 *   start program (on the start table)      end program (on the end table)
 *     key = START_KEY                          key = END_KEY; now = ktime
 *     pending[key] = { time, start value,      p = pending[key], or nothing to do
 *                      pid/tid, comm }         latency = now - p->time; delete pending[key]
 *     (a newer start replaces an older one)    WHERE, GROUP BY and the aggregates over
 *                                              latency, the start's and the end's values
 * When one table both starts and ends (sched_switch prev_pid -> next_pid), one program does
 * both, ending first, as the ring path does.
 *
 * (1) The pending map is a hash of at most max_pending keys; a start whose update the map
 *     refuses (full) is dropped and counted (the ring path evicts its oldest half instead):
 *     the pairs() row of perf_sql_stats shows it as lost. It is not swapped with windows: a
 *     pair spanning windows is paired, in the window of its end.
 * (2) Per CPU, the counts map keeps BPF_PAIR_STARTS (stored), BPF_PAIR_DROPPED (refused),
 *     BPF_PAIR_PAIRS, BPF_PAIR_REPLACED (a start stored over a pending one of its key: the
 *     update is BPF_NOEXIST first, BPF_ANY after -EEXIST) and BPF_PAIR_UNMATCHED (an end
 *     with no pending start). A run the kernel skips (a tracepoint program is not run while
 *     another kprobe/tracepoint program or a map syscall holds the CPU's bpf_prog_active,
 *     e.g. a wakeup in an interrupt) is the program's recursion_misses (bpf_prog_info),
 *     read with the counts: a skipped start or end is a pair lost.
 * (3) Percentiles: a log-linear histogram of the value per group, each non-empty bucket a row
 *     of the group map under the group's key with its last slot = 1 + bucket (0: the group's
 *     own row). Values below 128 have a bucket each (exact); above, [2^k, 2^(k+1)) is cut into
 *     64 buckets of width 2^(k-6), read as their middle: within 1/128 (0.78 %) of any value
 *     in them, so a percentile interpolated between two ranks is too.
 * (4) Task storage: when both keys name a task (a sched:* pid field of a tp_btf argument:
 *     prev_pid, next_pid, pid; or _tid, the current task) and the statement reads no
 *     pending() rows, a start is kept in the task's own storage (BPF_MAP_TYPE_TASK_STORAGE):
 *     written in place (its fields, then its time), read and consumed (time 0) by the end,
 *     without the hash's allocation, locks and deletes. It ends with the task, as the task's
 *     pairs do. Key 0, the idle tasks (one per CPU, one key), stays in the hash, so that
 *     its starts and ends pair as on the ring. A start the storage cannot take (the kernel
 *     refuses to allocate, or it is busy on this CPU) is dropped and counted, as in (1).
 */
#ifndef PERF_SQL_BPF_PAIRS_H
#define PERF_SQL_BPF_PAIRS_H
#include <stdint.h>
#include "bpf/plan.h"

#define BPF_PAIRS_MAX_PENDING (1 << 15) /* pending starts, or --max-groups when larger */

/* (4): the tasks the start and end keys of p name, and whether the starts go to task storage */
void bpf_pair__pick_tasks(struct bpf_plan *p);
/* the pending value: time, start value (16 bytes, BPF_MAX_STR of a __data_loc text, or the
 * start's stack key, bpf/plan.h (5)),
 * pid_tgid, comm[16] */
static inline int bpf_pair__val_size(const struct bpf_pair *pp)
{
	return !pp->has_start_val                ? 16
	       : pp->start_val.col == BCOL_DSTR  ? BPF_MAX_STR
	       : pp->start_val.col == BCOL_STACK ? BPF_STACK_KEY
						 : 16;
}
#define BPF_PAIR_VALUE(pp) (8 + bpf_pair__val_size(pp) + 8 + 16)
#define BPF_PAIR_STARTS 0 /* counts: u64 each */
#define BPF_PAIR_DROPPED 1
#define BPF_PAIR_PAIRS 2
#define BPF_PAIR_REPLACED 3
#define BPF_PAIR_UNMATCHED 4
#define BPF_PAIR_NR_COUNTS 5

#define BPF_LOGLIN_EXACT 128 /* values below: a bucket each */
#define BPF_LOGLIN_SUB 64    /* buckets per power of 2 above */
#define BPF_LOGLIN_SHIFT 6   /* log2(BPF_LOGLIN_SUB) */

static inline int bpf_loglin_bucket(uint64_t v)
{
	int k = 63 - __builtin_clzll(v | 1);

	if (v < BPF_LOGLIN_EXACT)
		return (int)v;
	return BPF_LOGLIN_EXACT + (k - 7) * BPF_LOGLIN_SUB +
	       (int)((v >> (k - BPF_LOGLIN_SHIFT)) & (BPF_LOGLIN_SUB - 1));
}

/* the value bucket b stands for: itself below 128, else its middle */
static inline double bpf_loglin_value(int b)
{
	int k, sub;
	uint64_t lo, w;

	if (b < BPF_LOGLIN_EXACT)
		return b;
	k = 7 + (b - BPF_LOGLIN_EXACT) / BPF_LOGLIN_SUB;
	sub = (b - BPF_LOGLIN_EXACT) % BPF_LOGLIN_SUB;
	w = 1ull << (k - BPF_LOGLIN_SHIFT);
	lo = (uint64_t)(BPF_LOGLIN_SUB + sub) * w;
	return (double)lo + (double)(w - 1) / 2;
}
#endif
