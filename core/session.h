/*
 * core/session.h - one collection session: the events a query needs, their rings, the window
 * stores, task names, the workload, and the per-window statistics.
 *
 *   planning (prepare)   session__reading() per statement, session__source() per table named,
 *                        source__plan() per xBestIndex
 *   collecting           session__start(), session__run(on_window) ... session__close()
 */
#ifndef PERF_SQL_SESSION_H
#define PERF_SQL_SESSION_H
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "core/catalog.h"
#include "core/comm.h"
#include "core/err.h"
#include "core/kfilter.h"
#include "core/plan_note.h"
#include "core/tree.h"
#include "core/u32set.h"
#include "core/window.h"
#include "core/workload.h"

struct event_source_ops;
struct sample;
struct session;
struct perf_evsel;
struct pollfd;

struct session_opts {
	int mmap_pages;        /* ring pages per CPU (power of 2), -m */
	bool all;              /* -a: whole system even with a workload */
	char *const *workload; /* -- CMD ARGS, or NULL */
	size_t max_memory;     /* bytes of window data, --max-memory */
	const char *cpu_list;  /* -C: "0,2-3" (NULL: every online CPU) */
	const char *pid_list;  /* -p: processes (all their threads) */
	const char *tid_list;  /* -t: threads */
	const char *cgroup;    /* --cgroup NAME|PATH: the threads in it now, and their children */
	long interval_ms;      /* -i: 0 = one window */
	long duration_ms;      /* -d: 0 = until Ctrl-C / workload end */
	int verbose;
	int freq;            /* -F: default sampling rate of clocks and hardware events */
	int call_graph;      /* --call-graph: CALL_GRAPH_AUTO (0, the default), _FP or _DWARF */
	uint32_t stack_size; /* --stack-size: user stack bytes copied per sample (0: 8192) */
	bool inline_frames;  /* --inline: stacks list inlined functions as frames */
	/* called while collecting or replaying, at most every SESSION_TICK_MS, with the counts
	 * read and the rings drained: the front end's status line (cli/status.c); may be NULL */
	void (*tick)(void *ctx, struct session *s);
	void *tick_ctx;
};

#define SESSION_TICK_MS 200

/* How user stacks are walked: the kernel's frame-pointer chain, or a copy of the user stack
 * (PERF_SAMPLE_STACK_USER + REGS_USER) unwound through the binaries' CFI while draining;
 * auto takes both for tables sampled at a rate (clocks, hardware) and keeps the CFI walk
 * unless the fp chain is deeper (symbols/unwind.c), and the fp chain alone elsewhere. */
enum { CALL_GRAPH_AUTO, CALL_GRAPH_FP, CALL_GRAPH_DWARF };
#define STACK_SIZE_DEFAULT 8192u

/* x86-64 user registers sampled for uprobes and USDT probes: ax bx cx dx si di bp sp ip
 * (perf_regs 0-8) and r8-r15 (16-23); a row's registers are in that order */
#define UPROBE_REGS_MASK (0x1ffull | (0xffull << 16))

/* index of perf register reg among the sampled ones, or -1 */
static inline int uprobe_reg_slot(int reg)
{
	if (reg < 0 || reg > 63 || !((UPROBE_REGS_MASK >> reg) & 1))
		return -1;
	return __builtin_popcountll(UPROBE_REGS_MASK & ((1ull << reg) - 1));
}

/* What core asks of the layer that unwinds and names stacks (symbols/, installed by
 * vtab/tp_table.c once a table reads stacks), each given the session's stack_ctx. */
struct stack_names_ops {
	/* a pid's first stack */
	void (*new_pid)(void *ctx, uint32_t pid);
	/* an executable mapping seen by the sideband (filename NULL: pid exec'd, forget its
	 * maps) */
	void (*mmap)(void *ctx, uint32_t pid, uint64_t start, uint64_t len, uint64_t pgoff,
		     const char *filename);
	/* smp's call chain with its user part unwound from the stack copy (--call-graph
	 * dwarf/auto) into chain (at most max entries); returns its length */
	size_t (*user_stack)(void *ctx, const struct sample *smp, uint64_t *chain, size_t max);
	/* the file mappings learnt since *cursor, in order, each given to fn as mmap takes them
	 * (for captures: record writes them, replay gives them back) */
	void (*maps_since)(void *ctx, size_t *cursor,
			   void (*fn)(void *arg, uint32_t pid, uint64_t start, uint64_t len,
				      uint64_t pgoff, const char *filename),
			   void *arg);
	/* the symbols of the files first mapped since *cursor, one opaque blob each (record
	 * writes them, so a replay names the functions of a file gone since), and taking them
	 * back (replay) */
	void (*syms_since)(void *ctx, size_t *cursor,
			   void (*fn)(void *arg, const void *blob, size_t len), void *arg);
	void (*add_syms)(void *ctx, const void *blob, size_t len);
	void (*free)(void *ctx);
};

/* The data of one table: one tracepoint opened on every CPU. */
struct source {
	struct session *s;
	struct tp_event *ev;
	struct perf_evsel *evsel;
	uint64_t sample_type;
	bool need_raw;                 /* a field column is read */
	bool need_comm;                /* _comm / comm is read */
	bool need_rows;                /* some scan reads a column: sample (else only count) */
	bool need_stack;               /* stack is read: PERF_SAMPLE_CALLCHAIN */
	bool need_addr;                /* addr is read: PERF_SAMPLE_ADDR */
	bool need_regs;                /* uprobe arguments: PERF_SAMPLE_REGS_USER */
	bool need_cgroup;              /* _cgroup or _cgroup_id is read: PERF_SAMPLE_CGROUP */
	uint64_t hz, period;           /* asked by the query (0: default) */
	uint64_t hz_used, period_used; /* what was opened */
	bool counting;                 /* opened as a counter: no samples, rows = the count */
	bool counter;                  /* a row of the counters table (never a table's source) */
	bool optional;                 /* its open may fail (hardware in a VM): then unsupported */
	bool bpf;                      /* aggregated in the kernel (bpf/): no perf event, no ring */
	/* a scan reads a user string (NAME_str): want_user_str at planning; user_str once a BPF
	 * program on the tracepoint writes the rows, strings included, into this table's ring
	 * (a BPF output event on every CPU, bpf/user_str.c) instead of the tracepoint */
	bool want_user_str, user_str;
	/* who reads it, as the readers state it while the statements are prepared (s->reading):
	 * bit i of scanned_by, statement i scans it; of paired_by, a pairs() or pending() of
	 * statement i reads it; nr_pairers: the pairs() and pending() made over it (once a run) */
	uint64_t scanned_by, paired_by;
	int nr_pairers;
	bool unsupported;
	uint64_t enabled_ns, running_ns; /* counters: time enabled/running, all CPUs, so far */
	/* scheduler and signal events that name tasks in fields (the wakee, the task switched
	 * in, the child) are opened on every CPU under a task target: a per-task event sees only
	 * what runs in its tasks, and the kernel counts but never writes what it delivers to a
	 * sleeping task's event (sched_wakeup of it). Rows are then kept on these fields. */
	const char *task_fields[2];
	bool tree_filter; /* a task target's rows kept in user space (core/tree.c) */
	struct window *win;
	/* kernel filter: the OR of what the dry run's scans asked for, unless one asked nothing */
	char want_filter[KFILTER_MAX -
			 128];    /* room beside it for the self filter (core/target.c) */
	bool want_all;            /* some scan needs every row: no filter from the query */
	bool want_too_long;       /* a scan's filter, or the OR of them all, is over KFILTER_MAX */
	int nr_scans;             /* scans seen in the dry run */
	char filter[KFILTER_MAX]; /* the filter actually set ("" for none) */
	bool filter_rejected;     /* the kernel refused the planned filter (PLAN_FILTER says) */
	/* what planning says of it, printed by --explain and -v: its path, why a filter wanted
	 * (the query's, the targets', perf-sql's own) is not in the kernel, ... (core/plan_note.h) */
	char *notes[PLAN_NR_NOTES];
	/* per CPU index: this window's rows and losses (dropped: refused past --max-memory) */
	uint64_t *received, *lost, *dropped, *filtered; /* filtered: not the workload's */
	/* per CPU index, cumulative: the kernel's event count at the last read, and ours */
	uint64_t *count_seen, *received_all, *lost_all, *lost_samples;
	/* per CPU index: of lost, those the ring had no room for (the kernel's PERF_FORMAT_LOST,
	 * children's included) or --max-memory refused: -m or WHERE helps these. The rest the
	 * kernel counted and never wrote: it samples only an event active on its CPU (not one
	 * delivered to a sleeping task's event), and 6.18 writes no tracepoint sample fired in
	 * an idle CPU's interrupts on some machines. This window, and the kernel's at the last read */
	uint64_t *lost_ring, *lost_ring_all;
	uint64_t total_received, total_lost;
	/* windows that lost only events the kernel never wrote: the first is said, the later
	 * ones' losses summed and said once at the end (engine/query.c query__lost_again) */
	bool unwritten_said;
	uint64_t unwritten_later;
};

/* event identifier -> its source (NULL: the sideband event) */
struct id_map {
	uint64_t id;
	struct source *src;
};

/* statistics of derived streams (pairs): shown in perf_sql_stats with cpu NULL */
struct extra_stat {
	char name[96];
	bool pairs;              /* a pairs() row: the counts below are kept */
	uint64_t received, lost; /* this window */
	/* pairs(): starts replaced by a newer start of their key before any end, ends that found
	 * no pending start; in the kernel, of lost: starts the pending map refused (full), and
	 * starts and ends the kernel skipped (another BPF program held the CPU) */
	uint64_t replaced, unmatched, refused, skipped;
};

struct session {
	struct session_opts opts;
	struct catalog *cat;
	struct source **src;
	int nr_src;
	int nr_cpus;       /* window streams: one per CPU collected on */
	int *cpu_num;      /* stream index -> cpu number (nr_cpus entries) */
	int *cpu_idx;      /* cpu number -> stream index, -1: not collected on */
	int nr_cpu_ids;    /* entries of cpu_idx: the kernel's nr_cpu_ids (core/target.c) */
	uint64_t nr_stray; /* samples from a CPU outside cpu_idx: never stored (none expected) */
	struct perf_cpu_map *cpus;
	struct perf_thread_map *threads;
	struct perf_thread_map *any_thread; /* pid -1: system-wide events under -p/-t */
	pid_t *tids;                        /* -p/-t targets, expanded to threads */
	struct u32set targets;              /* the same tids, for picking rows in user space */
	struct tree tree;         /* the workload's (or the targets') tasks: core/tree.h */
	struct u32set stack_pids; /* pids whose stacks were collected */
	/* the layer that names stacks (symbols/), once a table reads them: core stays below it */
	const struct stack_names_ops *stacks;
	void *stack_ctx; /* theirs */
	bool need_mmaps;
	size_t maps_cursor; /* record: the mappings written so far */
	size_t syms_cursor; /* record: the files whose symbols are written */
	int nr_tids;
	/* how events arrive (core/event_source.h), each with its state (session__source_data) */
	const struct event_source_ops *evsrc[4];
	void *evsrc_data[4];
	int nr_evsrc;
	struct perf_evlist **evlists; /* one per source (+ the sideband): one ring per CPU each */
	int nr_evlists;
	int nr_open; /* evlists whose event opened */
	struct pollfd *pollfds;
	int nr_pollfds;
	struct perf_evsel *sideband;
	struct comm_map *comms;
	/* cgroup v2 ids -> paths (core/cgroup.h), made when a table's _cgroup is first planned;
	 * cgroup_ring: PERF_SAMPLE_CGROUP gives v2 ids here; cgroup_note: why the columns are
	 * NULL ("" when they are not) */
	struct cgroup_map *cgroups;
	bool cgroup_ring;
	char cgroup_note[320];
	struct id_map *ids; /* sorted by id */
	int nr_ids;
	struct workload wl;
	size_t budget;
	bool started, collecting;
	bool window_end;  /* the kernel's counts are read for a window's end, not a tick */
	bool dry_run;     /* planning: statements run once over empty windows */
	int reading;      /* the statement being prepared (its index in the query), -1: none */
	bool no_pushdown; /* --no-pushdown (benchmarks): no query filter in the kernel */
	/* dry run: scan arguments (by the scan's idxStr) whose values come from rows, not from
	 * constants (engine/pushdown.c): the dry run's empty tables gave them, so never pushed */
	struct {
		char idx_str[120];
		uint32_t args; /* bit k: argument k */
	} row_args[16];
	int nr_row_args;
	bool row_args_full;         /* more than row_args holds: no argument is pushed */
	uint64_t window_start_ns;   /* CLOCK_REALTIME of this window's start */
	uint64_t window_start_mono; /* CLOCK_MONOTONIC (perf clock) of the same */
	int64_t clock_offset_ns;    /* wall - perf clock for ts(); 0: this machine's (core/clock.h);
				      * a replay's: the recording machine's */
	int nr_windows;
	uint32_t self; /* perf-sql's pid: its own samples are left out */
	void *replay;  /* core/replay.c: rows come from a capture */
	void (*replay_free)(void *replay);
	struct extra_stat extra[32];
	int nr_extra;

	/* vtab/tp_lazy.c: the event tables registered as statements name them (one malloc) */
	void *tables;
	/* a recording: every task's name is kept (the /proc snapshot), whatever the query reads */
	bool keep_names;
	pthread_t closer; /* core/events.c: closing the events in the background */
	bool closer_on;
};

/* Set by SIGINT/SIGTERM/SIGHUP handlers: the one process-wide flag. Non-zero ends collection;
 * each signal adds one (session__signal()), so a statement armed after one signal is stopped
 * by the next (engine/lockdown.h). */
extern volatile sig_atomic_t session_stop;
/* The front ends' handler of those signals: session_stop moves on (async-signal-safe). */
void session__signal(int sig);

struct session *session__new(const struct session_opts *opts, struct err *e);
void session__close(struct session *s);
/* The source of event ev, created (and its format parsed) on first use. */
struct source *session__source(struct session *s, struct tp_event *ev, struct err *e);
/* Argument k of the scans planned as idx_str comes from rows: the dry run's value of it is
 * not the run's (engine/pushdown.c), so it is never a kernel filter. */
void session__row_arg(struct session *s, const char *idx_str, int k);
/* The fields of ev that name the tasks its row is about (sched_switch: prev_pid, next_pid;
 * sched_wakeup: pid), into out[0..1] (NULL past them); how many. */
int session__task_fields(const struct tp_event *ev, const char *out[2]);
bool session__is_row_arg(const struct session *s, const char *idx_str, int k);
/* A counting-only source for the counters table (separate from the event's table source). */
struct source *session__counter(struct session *s, struct tp_event *ev, struct err *e);
/* An event source of the session's, with its state (data, taken: ops->close frees it and
 * sets it NULL); 0, or -ENOSPC when the session has room for no more kinds of source. */
int session__add_event_source(struct session *s, const struct event_source_ops *ops, void *data);
/* The state of event source ops, NULL if ops is not one of s's (or its state is gone). */
void *session__source_data(const struct session *s, const struct event_source_ops *ops);
void session__set_source_data(struct session *s, const struct event_source_ops *ops, void *data);
/* Plan: what columns a scan of src reads. Called from xBestIndex; only adds needs, and
 * records that the statement being prepared (s->reading) scans src. */
void source__plan(struct source *src, bool raw, bool comm, bool rows);
/* The same for a pairs() or pending() made over src (planned once, whoever reads it). */
void source__plan_pairer(struct source *src, bool raw);
/* A pairs() or pending() over src is read by the statement being prepared. */
void source__read_by_pairer(struct source *src);
/* Statements prepared from now on are statement i (-1: none); -2: forget what the statements
 * prepared so far read (they are prepared again). */
void session__reading(struct session *s, int i);
/* Whether src will be (or is) opened as a counter: no scan reads a column of it. */
bool source__counts(const struct source *src);
/* What else a scan reads: call chains, sample addresses, user registers. */
void source__plan_more(struct source *src, bool stack, bool addr, bool regs);
/* A sampling rate the query asked for; -EINVAL if another scan asked another one. */
int source__set_rate(struct source *src, uint64_t hz, uint64_t period);
/* The rows of src come from a BPF program's output event on every CPU (bpf/user_str.c):
 * opened system-wide, a task target's rows picked in user space (core/tree.c). */
void source__use_user_str(struct source *src);
/* Opened on every CPU (pid -1) rather than per target task. */
static inline bool source__system_wide(const struct source *src)
{
	return src->task_fields[0] || src->user_str;
}
/* A dry-run scan of src asked for the kernel filter kf (NULL or empty: it needs every row). */
void source__dry_scan(struct source *src, const struct kfilter *kf);
/* The filter each source will get (src->filter), from the dry run; nothing is set yet. */
void session__plan_filters(struct session *s);
uint64_t source__sample_type(const struct source *src);
/* Forks the workload (held before exec), so workload_pid() is known to the dry run. */
int session__fork(struct session *s, struct err *e);
/* Opens and maps every source, sets filters, enables, releases the workload. */
int session__start(struct session *s, struct err *e);
/*
 * Collects until stopped (signal, -d, workload exit), calling on_window at the end of each
 * window (-i) and once at the end; the window is cleared after each call.
 */
typedef int (*window_fn)(void *ctx, struct session *s);
int session__run(struct session *s, window_fn on_window, void *ctx, struct err *e);
/* Replay (core/replay.c): the windows of a capture instead of perf events. */
int session__run_replay(struct session *s, window_fn on_window, void *ctx, struct err *e);
/* Calls opts.tick with the kernel's counts read and the rings drained (core/session.c). */
void session__tick(struct session *s);
/* Ends a window: clears stores and per-window counts. */
void session__clear_window(struct session *s);
/* core/cgroup.c: a scan of src reads _cgroup or _cgroup_id (the map is made, the ring's
 * path decided); the path of a cgroup id (NULL: unknown, or no v2 hierarchy) */
void source__plan_cgroup(struct source *src);
const char *session__cgroup_path(struct session *s, uint64_t id);
/* Name of tid at time (NULL if unknown). */
const char *session__comm(struct session *s, uint32_t tid, uint64_t time);
pid_t session__workload_pid(const struct session *s);
/* A named row of perf_sql_stats for a derived stream; its index (-1 if full). */
int session__extra_stat(struct session *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void session__extra_add(struct session *s, int idx, uint64_t received, uint64_t lost);
/* A pairs() row's counts (struct extra_stat): replaced, unmatched, refused, skipped. */
void session__extra_pairs(struct session *s, int idx, const uint64_t counts[4]);
uint64_t now_ns(int clock);
#endif
