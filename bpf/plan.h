/*
 * bpf/plan.h - what one table's BPF program computes: a GROUP BY aggregation decided by the
 * SQL layer (engine/bpf_plan.c), compiled by bpf/compile.c, run by bpf/table.c.
 *
 *   select comm, count(*), sum(count) from sys_enter_write where fd = 1 group by comm
 *     keys  = { BCOL_COMM }
 *     aggs  = { BA_SUM of field count }            count(*) is every group's count
 *     where = CMP(field fd, BC_EQ, 1)
 *
 * (1) A value is a column of the event (an integer field, _pid, _tid, _cpu) followed by up to
 *     BPF_MAX_OPS operations with integer constants, left to right: "field / 8 & 255".
 *     Integers are read in their size and sign-extended when signed, as core/field.c does,
 *     so the kernel sees the values SQLite would.
 * (2) Strings (comm, char[N] fields) are compared and grouped as the text up to the first NUL:
 *     bytes after it are zeroed.
 * (3) The predicate is a tree of nodes in where[] (AND, OR, NOT over comparisons); root < 0
 *     means no WHERE.
 * (4) The layout (bpf_plan__layout) puts every key part in 8-byte slots and every group's
 *     value as: count, flags (bit i: aggregate i overflowed or saw a value SQLite rejects),
 *     then each aggregate's state.
 * (5) A stack key is BPF_STACK_KEY bytes: pid_tgid u64, the kernel chain's and the user
 *     chain's keys in the stack map (u64 each: a 63-bit hash of the frames, which the map
 *     keeps by it; 0: no such chain), comm char[16]: what the stack BLOB holds
 *     (symbols/stack.h), with the frames in the stack map. A chain is compared frame by frame
 *     with the map's of the same hash, so two chains never share a key.
 * (5b) With windows (stack_window_ms) there are two stack maps, one per window in turn: a key's
 *     bit 63 says it is the second map's (bpf/table.h (2c)).
 */
#ifndef PERF_SQL_BPF_PLAN_H
#define PERF_SQL_BPF_PLAN_H
#include <stdbool.h>
#include <stdint.h>

#define BPF_MAX_OPS 4
#define BPF_MAX_KEYS 8
#define BPF_MAX_AGGS 16
#define BPF_MAX_PRED 64
#define BPF_MAX_STR 64    /* longest char[N] field grouped or compared */
#define BPF_LOG2_SLOTS 64 /* log2 buckets 0..62 (blob_format.h) and one unused */
#define BPF_LIN_MAX 512   /* most lin_hist buckets (with under- and overflow) */

enum bpf_col {
	BCOL_FIELD, /* integer field at off, size bytes */
	BCOL_PID,   /* _pid: the process (tgid) */
	BCOL_TID,   /* _tid: the thread */
	BCOL_CPU,
	BCOL_COMM,   /* the current task's name (16 bytes) */
	BCOL_STR,    /* char[size] field at off */
	BCOL_DSTR,   /* __data_loc char[] field: its u32 (len << 16 | offset) at off, the text up
		      * to its NUL, at most BPF_MAX_STR bytes with it (size BPF_MAX_STR); rel:
		      * __rel_loc (the offset counts from the end of the u32). A longer text is
		      * not aggregated: the event is counted lost, as one the map has no room for */
	BCOL_IP,     /* PMU samples: the sampled instruction pointer */
	BCOL_ADDR,   /* PMU samples: the data address (page faults) */
	BCOL_PERIOD, /* PMU samples: events this sample stands for */
	BCOL_STACK,  /* a key only: the call chain (5) */
	BCOL_REG,    /* uprobes: the user register of perf number off (x86), size bytes (0: 8) */
	BCOL_CGROUP, /* the task's cgroup v2 id (bpf_get_current_cgroup_id()); size 1: a key
		      * the groups show as its path (_cgroup, named in user space: core/cgroup.h) */
	/* pairs() (bpf/pairs.h): what the end program found of the pair, on its stack */
	BCOL_PAIR_KEY,   /* the key */
	BCOL_PAIR_LAT,   /* latency: end time - start time, ns */
	BCOL_PAIR_SVAL,  /* the start value, an integer */
	BCOL_PAIR_SSTR,  /* the start value, text (char[N <= 16] or the start's comm) */
	BCOL_PAIR_STID,  /* the start's thread */
	BCOL_PAIR_SPID,  /* the start's process */
	BCOL_PAIR_COMM,  /* the start task's name */
	BCOL_PAIR_STACK, /* a key only: the start's call chain (pairs()'s START_COL 'stack'), a
			  * stack key (5) the start's program took into the pending value */
};

/* BOP_LT..BOP_NE: "v < k" as SQLite gives it, 1 or 0 (signed) */
enum bpf_op {
	BOP_DIV,
	BOP_MOD,
	BOP_AND,
	BOP_ADD, /* wrapping at 64 bits (SQLite would turn a sum past 2^63 into a REAL) */
	BOP_SUB,
	BOP_SHR, /* >> k, 0 <= k < 64: arithmetic, as SQLite shifts its signed integers */
	BOP_SHL, /* << k, 0 <= k < 64 */
	BOP_LT,
	BOP_LE,
	BOP_GT,
	BOP_GE,
	BOP_EQ,
	BOP_NE
};

#define BPF_MAX_OPNDS 8 /* columns a plan's operations take as their right side */

struct bpf_val {
	enum bpf_col col;
	int off, size;  /* BCOL_FIELD, BCOL_STR, BCOL_DSTR; BCOL_PAIR_SSTR: 0 (16) or 64 bytes */
	bool is_signed; /* BCOL_FIELD */
	bool rel;       /* BCOL_DSTR */
	int nr_ops;
	struct {
		enum bpf_op op;
		int64_t k; /* DIV, MOD: k > 0 */
		int opnd;  /* 0: k; n > 0: the plan's opnds[n - 1], an integer column (no ops):
			    * "bytes_alloc - bytes_req", "target_cpu != _cpu" (ADD, SUB, LT..NE) */
	} ops[BPF_MAX_OPS];
};

#define BPF_STACK_KEY 40
#define BPF_STACK_KERNEL 8 /* (5): the kernel chain's hash (0: no chain) */
#define BPF_STACK_USER 16  /* the user chain's */
#define BPF_STACK_COMM 24

/* a stack key (5): the event's own chain, or the pair's start's */
static inline bool bpf_val__is_stack(const struct bpf_val *v)
{
	return v->col == BCOL_STACK || v->col == BCOL_PAIR_STACK;
}

static inline bool bpf_val__is_str(const struct bpf_val *v)
{
	return v->col == BCOL_COMM || v->col == BCOL_STR || v->col == BCOL_DSTR ||
	       v->col == BCOL_PAIR_SSTR || v->col == BCOL_PAIR_COMM;
}

/* the bytes a text value is compared and grouped on */
static inline int bpf_val__str_size(const struct bpf_val *v)
{
	return v->col == BCOL_STR || v->col == BCOL_DSTR || (v->col == BCOL_PAIR_SSTR && v->size)
		       ? v->size
		       : 16;
}

enum bpf_cmp { BC_EQ, BC_NE, BC_LT, BC_LE, BC_GT, BC_GE };

struct bpf_pred {
	enum { BP_AND, BP_OR, BP_NOT, BP_CMP, BP_STREQ, BP_TRUE, BP_FALSE } kind;
	int a, b;                /* children: AND, OR (a, b), NOT (a) */
	struct bpf_val v;        /* CMP, STREQ */
	enum bpf_cmp cmp;        /* CMP */
	int64_t k;               /* CMP: v CMP k, signed 64-bit */
	char s[BPF_MAX_STR + 8]; /* STREQ: the text, zero-padded */
};

/*
 * BA_BARE: a column beside aggregates that is not a key ("_comm" of GROUP BY _pid), with
 * SQLite 3.40's meaning: the value of the group's first row (rows come in time order), or,
 * when the statement has min() or max() aggregates, of the row where the last of them (in
 * SQLite's list) took its value (the first row reaching it). The state is the row's time
 * (bpf_ktime_get_ns()) and the value (an integer, or text of bpf_val__str_size() bytes):
 * CPUs merge to the earliest row, or to the followed aggregate's best value and the earliest
 * row of it.
 */
enum bpf_agg_kind { BA_SUM, BA_MIN, BA_MAX, BA_LOG2, BA_LIN, BA_LOGLIN, BA_BARE };

#define BPF_BARE_VAL 8 /* BA_BARE: the value's offset in the state, after the time */

struct bpf_agg {
	enum bpf_agg_kind kind;
	struct bpf_val v;
	int follow; /* BA_BARE: -1 the first row, or the BA_MIN/BA_MAX aggregate followed */
	int64_t lo, hi, step; /* BA_LIN; BA_LOGLIN: step is the percentile x 1000 */
	int nr_buckets;       /* BA_LIN: with under- and overflow; BA_LOG2: BPF_LOG2_SLOTS */
	int off;              /* in the value (bpf_plan__layout) */
	int size;
};

/* BA_LOG2 keeps a negative value it saw after its buckets (SQLite's log2_hist refuses one) */
#define BPF_LOG2_NEG_OFF (BPF_LOG2_SLOTS * 8)

/*
 * Where the program runs. A classic tracepoint program sees the event's record (field offsets
 * from its format). For system calls a BTF raw tracepoint (tp_btf) of raw_syscalls is about 3x
 * cheaper; it sees (struct pt_regs *, long id or ret), and the record's fields are read where
 * the kernel takes them from: __syscall_nr/id from the number, args[i] from the registers of
 * the x86-64 calling convention, ret from the tracepoint's argument.
 */
enum bpf_hook {
	BPF_HOOK_TP,        /* tracepoint program on tp_id */
	BPF_HOOK_SYS_ENTER, /* tp_btf/sys_enter: syscalls:sys_enter_NAME or raw_syscalls:sys_enter */
	BPF_HOOK_SYS_EXIT,  /* tp_btf/sys_exit */
	BPF_HOOK_PERF,      /* a perf_event program on a software event's samples, every CPU */
	BPF_HOOK_UPROBE,    /* a kprobe program on a uprobe event of ours (pmu_*, probe_path) */
	BPF_HOOK_TP_BTF,    /* tp_btf/NAME of a sched:* tracepoint (tp_btf, bpf/sched_btf.c) */
};

/*
 * BPF_HOOK_TP_BTF: a scheduler tracepoint's raw tracepoint. Its record's fields are members of
 * its task arguments (sched_switch's prev_pid is prev->pid): each field the program reads is
 * loaded from the member the tracepoint copies it from, through the BTF-typed pointer.
 * sched_switch's prev_state (member BPF_TP_SWITCH_STATE) is computed from the arguments as
 * __trace_sched_switch_state() computes it (bpf/hook.c).
 */
#define BPF_TP_FIELDS 8
#define BPF_TP_SWITCH_STATE "=switch_state"
struct bpf_tp_btf {
	char name[32]; /* "sched_switch": tp_btf/NAME, its BTF type btf_trace_NAME */
	int nr;
	struct {
		int rec_off, size; /* the field's offset and bytes in the tracepoint's record */
		int arg;           /* the task pointer's index in the raw tracepoint's arguments */
		char member[24];   /* of struct task_struct ("thread_info.cpu": task_cpu()) */
	} f[BPF_TP_FIELDS];
};

/*
 * pairs() in the kernel (bpf/pairs.h): the start program stores the start under its key in
 * a hash map; the end program looks the key up, deletes it and aggregates the pair.
 */
enum bpf_pair_role {
	BPF_PAIR_NONE,
	BPF_PAIR_START, /* this program stores starts */
	BPF_PAIR_END,   /* this program pairs ends and aggregates */
	BPF_PAIR_BOTH,  /* one table both starts and ends: each event ends first, then starts */
};

struct bpf_pair {
	enum bpf_pair_role role;
	struct bpf_val start_key, end_key; /* integers */
	struct bpf_val start_val;          /* .col BCOL_PID...: none when nr_ops < 0 */
	bool has_start_val, start_val_str; /* a value of the start kept; it is text */
	bool need_comm, need_tid;          /* the start's comm, pid/tid kept */
	/* pending() (vtab/pending.c (2)): the rows are the pending starts, read from the hash at
	 * the window's end; the end program only deletes; a second integer value of the start
	 * (START_COL2) is kept in the value's second 8 bytes */
	bool pending_rows, has_start_val2;
	struct bpf_val start_val2;
	/* is_target(key, start_time) (a term of the top AND of WHERE): a start whose key is not
	 * in the map of tasks (plan.tree_fd) when it fires is not stored, so no pair of it is */
	bool start_member;
	/* the start table's program: where it runs */
	int start_tp_id;
	struct bpf_val start_task_vals[2]; /* the start table's task_vals (bpf_plan) */
	int nr_start_task_vals;
	enum bpf_hook start_hook;
	int start_syscall_nr;
	struct bpf_tp_btf start_tp_btf; /* start_hook BPF_HOOK_TP_BTF */
	char start_hook_why[128];       /* a sched:* start on its tracepoint: why not tp_btf */
	int max_pending;                /* starts waiting for their end */
	int pending_fd, counts_fd;      /* maps, set by bpf/table.c */
	/* the pending starts in task storage (bpf/pairs.h (4)): each key names a task, the
	 * start's in start_task, the end's in end_task (BPF_PAIR_CURRENT, or the index of a
	 * tp_btf argument); key 0 (the idle tasks) stays in the hash */
	bool task_store;
	int start_task, end_task;
	int tasks_fd; /* set by bpf/table.c */
};
#define BPF_PAIR_CURRENT (-1)
#define BPF_PAIR_NO_TASK (-2)

struct bpf_plan {
	/* what the SQL asked */
	struct bpf_val keys[BPF_MAX_KEYS];
	int nr_keys;
	struct bpf_agg aggs[BPF_MAX_AGGS];
	int nr_aggs;
	struct bpf_pred where[BPF_MAX_PRED];
	int nr_where, where_root;            /* root -1: no WHERE */
	struct bpf_val opnds[BPF_MAX_OPNDS]; /* right sides of operations (struct bpf_val) */
	int nr_opnds;
	/* where the events come from and whose they are */
	int tp_id; /* tracepoint id (perf_event_open config) */
	enum bpf_hook hook;
	int syscall_nr;           /* syscalls:*: the one system call (not ia32's); -1: every one */
	struct bpf_tp_btf tp_btf; /* hook BPF_HOOK_TP_BTF */
	char hook_why[128];       /* a sched:* table on its tracepoint: why not tp_btf */
	/* perf-sql left out (0: not): events its thread runs, but in an interrupt (a classic
	 * tracepoint's common_flags); of a table that names tasks (task_vals), rows that name
	 * no task but it and the idle task (0) */
	uint32_t self_tid;
	uint32_t self_pid; /* samples of this process are left out (0: none) */
	int tree_fd;       /* -1, or only threads of this map (bpf/tree.h) count */
	/* a table that names tasks (core/tree.c (3)), its fields that do: with tree_fd, an
	 * event counts when one of them names a member (alive or exited), whoever runs it (else
	 * when the current thread is an alive member) */
	struct bpf_val task_vals[2];
	int nr_task_vals;
	int stack_depth; /* a stack key: frames kept per chain (perf_event_max_stack) */
	bool stack_user; /* a stack key: the user chain only (syscalls:*, as perf samples it) */
	long stack_window_ms; /* -i: windows, whose chains are freed in turn (5b); 0: none */
	/* BPF_HOOK_PERF: the event, sampled as the perf ring samples it */
	uint32_t pmu_type;
	uint64_t pmu_config, sample_period, sample_freq; /* one of period, freq */
	/* BPF_HOOK_UPROBE: the event as core/events.c opens it (config1 points at the path) */
	const char *probe_path;
	uint64_t pmu_config2;
	int nr_cpu_ids;  /* the kernel's: sizes the per-CPU slots of the maps */
	bool cpu_filter; /* -C: only the CPUs whose bit is set in the control map */
	int max_groups;
	struct bpf_pair pair;
	int hist_fd; /* BA_LOGLIN: the log-linear buckets' map (bpf/pairs.h), set by bpf/table.c */
	/* layout (bpf_plan__layout) */
	int key_off[BPF_MAX_KEYS];
	int key_size, value_size;
};

#define BPF_VAL_COUNT 0 /* u64: events of the group */
#define BPF_VAL_FLAGS 8 /* u64: bit i set when aggregate i cannot be given (see above) */

/* Does the plan group by stack? */
bool bpf_plan__has_stack(const struct bpf_plan *p);
/* Fills key_off/key_size, the aggregates' off/size and value_size. */
void bpf_plan__layout(struct bpf_plan *p);
/* One CPU's group value v merged into the row's value r (r's count 0: v's states are taken as
 * they are): counts and sums add, min and max keep the extreme, buckets add, bare columns
 * keep their row (BA_BARE). */
void bpf_plan__merge(const struct bpf_plan *p, uint8_t *r, const uint8_t *v);
/* Folds TRUE and FALSE into their parents: after it, only the root may be FALSE (no WHERE
 * when it would be TRUE). */
void bpf_plan__fold(struct bpf_plan *p);
/* Percentiles kept as a log-linear histogram: the key's last slot is a bucket (bpf/pairs.h). */
bool bpf_plan__has_loglin(const struct bpf_plan *p);
/* pairs(): the start table's own program's plan (bpf/pairs.h): it stores starts only. */
struct bpf_plan bpf_plan__start(const struct bpf_plan *p);
/* the most values a plan reads (bpf_plan__values) */
#define BPF_MAX_VALS (BPF_MAX_KEYS + BPF_MAX_AGGS + BPF_MAX_PRED + BPF_MAX_OPNDS + 5)
/* The values p's program reads into v[] (BPF_MAX_VALS): its keys, aggregates' values, WHERE's
 * compared values, the fields that name tasks and pairs()'s keys and start value as its role
 * reads them; how many. */
int bpf_plan__values(const struct bpf_plan *p, const struct bpf_val **v);
/* Adds a predicate node; its index, or -1 when where[] is full. */
int bpf_plan__pred(struct bpf_plan *p, const struct bpf_pred *n);
#endif
