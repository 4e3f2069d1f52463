/*
 * bpf/table.h - one table aggregated in the kernel: its maps, its program, attached to its
 * tracepoint, and each window's groups read back and merged over CPUs.
 *
 *   t = bpf_table__new(&plan, src, true, &e);     maps, compile, load, attach (switched off)
 *   bpf_table__enable(t, true);                    collecting
 *   bpf_table__read(t, &waited);                   end of a window: t->rows, src->received[]
 *   bpf_table__free(t);                            closes every fd: the program detaches
 *
 * (1) Windows: two per-CPU hashes; the program finds the current one through a one-slot
 *     array of maps. At a window's end the slot is switched to the other map; the kernel
 *     returns from that update only after every program run that may still use the old map
 *     has finished (maybe_wait_bpf_programs: synchronize_rcu), so the old map is then read
 *     and emptied (lookup-and-delete batches) with no writer left: every event is in
 *     exactly one window. Without -i there is one map, which the program names directly;
 *     the end (switched off first) waits the same way, by an update of the array of maps.
 * (1b) That wait is a grace period of the whole kernel, so one covers every table switched
 *     off before it: at the session's end the one-map tables wait once between them (the
 *     `waited` of bpf_table__read), not once each (20 count(*) tables: 20 waits of ~12 ms).
 * (2) A group the map has no room for is not aggregated: the event is counted per CPU in
 *     the stats map and reported as lost.
 * (2b) The front end's tick (the status line) reads too, within a window: each read's groups
 *     are merged into the window's rows, which start afresh with the session's next window;
 *     with ticks there are two maps even without -i, as deleting from a map the program is
 *     still writing would lose events.
 * (2c) A stack key (bpf/plan.h (5)) keeps its chains in a stack trace map of --max-groups
 *     entries: a chain that finds no room, or whose hash bucket holds another chain (-EEXIST:
 *     the map keeps the first), is counted per CPU and reported as lost, like a full map.
 *     With windows (-i) there are two, used a window each in turn (the control map's
 *     BPF_CTL_STACKS; an id's BPF_STACK_MAP1 says whose), so that a profile that runs for
 *     hours does not fill its map: at a window's end (the session's window_end read, not a
 *     tick's) the map of the window before, whose rows were read, is emptied and named to
 *     the program; the runs that read the old number are waited for (as in (1)) before the
 *     groups' maps are swapped, so the window's rows name only its own map. pairs() keep one
 *     map: their starts' chains wait across windows.
 * (3) Attachment is to a perf event of the tracepoint (PERF_EVENT_IOC_SET_BPF on an fd of
 *     ours, disabled: it only carries the program), so it ends with the process, however it
 *     ends. The program is attached at planning and switched on by the control map.
 * (4) A run the kernel skips is not aggregated: a classic tracepoint, uprobe or perf event
 *     program is not run while another kprobe/tracepoint program or a BPF map syscall holds
 *     the CPU (bpf_prog_active), a tp_btf one only while it runs itself. The program's
 *     recursion_misses (bpf_prog_info) counts them, over CPUs: each window's new ones are
 *     lost, on the row of the table's first CPU (pairs(): its own row, bpf/pairs_read.c).
 */
#ifndef PERF_SQL_BPF_TABLE_H
#define PERF_SQL_BPF_TABLE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "bpf/plan.h"
#include "core/err.h"

struct source;

/* a log-linear bucket of a group (bpf/pairs.h (3)) */
struct bpf_hist_ent {
	uint32_t row, bucket;
	uint64_t count;
};

struct bpf_table {
	struct bpf_plan plan;
	struct source *src;
	int nr_insns;
	uint32_t prog_id;
	int btf_id; /* tp_btf: the raw tracepoint's typedef in the kernel's BTF */
	int ctl_fd, stats_fd, zero_fd, outer_fd, map_fd[2], prog_fd, perf_fd;
	int stacks_fd, stacks1_fd; /* a stack key: the stack maps (2c); the second: -1 */
	int stack_buf_fd;          /* and the per-CPU buffer a chain is taken into */
	int nr_stacks;             /* entries of each */
	int stack_map;             /* the one this window's chains go to (2c) */
	int *pmu_fds, nr_pmu_fds;  /* BPF_HOOK_PERF: the sampled event on each CPU */
	int nr_maps, cur;          /* maps (1, or 2 with windows); the one the program uses */
	int nr_possible;           /* per-CPU values per key */
	bool enabled;
	bool secondary;   /* another table of the same source counts its events (received) */
	bool read_failed; /* a readout failed: errno in read_errno */
	int read_errno;
	uint64_t *full_seen;    /* per possible CPU: map-full events counted so far */
	uint64_t *nostack_seen; /* and events whose chain the stack map could not take */
	uint64_t nr_nostack;    /* of those, this window's (window nostack_window) */
	uint64_t nr_skipped;    /* this window's runs the kernel skipped (4) */
	int nostack_window;
	/* readout buffers (one batch) */
	void *keys, *vals;
	uint32_t batch;
	/* this window's groups, merged over CPUs and over the reads of the window (a status
	 * line's tick reads too): key_size + value_size bytes each, found by key through index */
	uint8_t *rows;
	size_t nr_rows, cap_rows;
	int row_size;
	uint32_t *index; /* open addressing: row + 1, 0 empty */
	size_t index_cap;
	int window; /* the session's window the rows are of */
	/* percentiles: the rows' buckets, sorted by row and bucket after each read */
	struct bpf_hist_ent *hist;
	size_t nr_hist, cap_hist;
	/* pairs(): the start table's program (when not the same table), its source (set by the
	 * planner), the pending and counts maps, the counts read so far, perf_sql_stats' row */
	int start_prog_fd, start_perf_fd, start_nr_insns, start_btf_id;
	uint32_t start_prog_id;
	struct source *start_src;
	int pending_fd, counts_fd, tasks_fd; /* tasks_fd: task storage (bpf/pairs.h (4)) */
	uint64_t *counts_seen;               /* per possible CPU, BPF_PAIR_NR_COUNTS each */
	uint64_t misses_seen[2]; /* the start's and the (end's) program's recursion_misses (4) */
	int pair_stat;
	/* pending(): the starts waiting at the window's end, 8 + BPF_PAIR_VALUE bytes each (the
	 * key, then the pending value), and the time they were read */
	uint8_t *pend;
	size_t nr_pend, cap_pend;
	uint64_t pend_now;
	char log[1024]; /* the verifier's last lines after a rejection */
};

/*
 * Creates the maps, compiles and loads the program (the verifier runs here), and unless
 * attach is false (--explain) opens the tracepoint's perf event and attaches. NULL with e
 * set; e->msg is one line, t's verifier log lines are in log_out (may be NULL).
 */
struct bpf_table *bpf_table__new(const struct bpf_plan *p, struct source *src, bool attach,
				 int nr_windows_maps, char *log_out, size_t log_len, struct err *e);
void bpf_table__free(struct bpf_table *t);
int bpf_table__enable(struct bpf_table *t, bool on);
/* The control map's value: collecting (on), the CPUs, the stack map (2c); 0 or -1 (errno) */
int bpf_table__set_ctl(struct bpf_table *t, bool on);
/*
 * The window's end: switch maps, read the old one into rows; this window's events and
 * map-full losses per CPU into the source's received[] and lost[] (and its totals).
 */
/* waited: set once a switched-off one-map table has waited for its programs (1b) */
void bpf_table__read(struct bpf_table *t, bool *waited);
/*
 * The frames of stack key part key (bpf/plan.h (5)) as a perf sample's callchain has them:
 * PERF_CONTEXT_KERNEL and the kernel chain, PERF_CONTEXT_USER and the user chain (a chain
 * with no frame has no marker either). How many were written (<= max).
 */
size_t bpf_table__stack(const struct bpf_table *t, const uint8_t *key, uint64_t *frames,
			size_t max);
/* bpf/stack.c: the kernel's longest callchain (perf_event_max_stack), which perf samples are
 * cut at too; and, for each stack key part of key, its process's mappings read now (symbols/) */
int bpf_stack__max_depth(void);
/* bpf/stack.c (2c): the stack maps of t's plan (two when bpf_stack__swapped), 0 or -errno with
 * e set; at a window's end, the other map emptied and named, 0 or -errno */
int bpf_stack__create_maps(struct bpf_table *t, struct err *e);
bool bpf_stack__swapped(const struct bpf_plan *p);
/* The chains each stack map of p holds: --max-groups, or with windows of a sampled event what
 * a window's samples on every CPU may take (two chains each, a quarter more), up to four
 * times --max-groups */
int bpf_stack__entries(const struct bpf_plan *p);
int bpf_stack__next_window(struct bpf_table *t);
/* --explain's words for p's stack maps of nr chains of depth frames: ", stack map of ..." */
void bpf_stack__describe(const struct bpf_plan *p, int nr, int depth, char *buf, size_t len);
void bpf_table__note_stack_pids(struct bpf_table *t, const uint8_t *key);
/* Row i's key and merged value. */
static inline const uint8_t *bpf_table__key(const struct bpf_table *t, size_t i)
{
	return t->rows + i * (size_t)t->row_size;
}

/* bpf/pairs_read.c: the buckets read sorted and merged; the pairs' counts to the start
 * table's received[] and the pairs() row of perf_sql_stats (pair_stat) */
void bpf_table__read_pairs(struct bpf_table *t);
/* The window's row of key, made (value zero) on first sight; NULL: out of memory. */
uint8_t *bpf_table__row_of(struct bpf_table *t, const uint8_t *key);
/* Key k of the read batch, a bucket's row: its count over CPUs to its group's buckets. */
int bpf_table__take_bucket(struct bpf_table *t, const uint8_t *key, size_t k);
/* Row i's buckets (sorted), *n of them. */
const struct bpf_hist_ent *bpf_table__hist(const struct bpf_table *t, size_t i, size_t *n);

static inline const uint8_t *bpf_table__value(const struct bpf_table *t, size_t i)
{
	return bpf_table__key(t, i) + t->plan.key_size;
}
#endif
