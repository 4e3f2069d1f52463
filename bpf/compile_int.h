/*
 * bpf/compile_int.h - what bpf/compile.c shares with the files that emit parts of its program
 * (bpf/stack.c: a stack key; bpf/pairs.c: the pairs' start and end): the compiler's state and a
 * few of its steps. Not for other files.
 */
#ifndef PERF_SQL_BPF_COMPILE_INT_H
#define PERF_SQL_BPF_COMPILE_INT_H
#include "bpf/compile.h"

#define FP BPF_REG_10

/* the frame, fp-relative; then the key below OFF_STR, the pair's area below it (bpf/pairs.c) */
#define OFF_CGROUP (-8)   /* u64 from bpf_get_current_cgroup_id() */
#define OFF_PIDTGID (-16) /* u64 from bpf_get_current_pid_tgid() */
#define OFF_CPU (-24)     /* u64 from bpf_get_smp_processor_id() */
#define OFF_ZERO32 (-32)  /* u32 0: the outer map's key, the pairs' counts' key */
#define OFF_TID (-28)     /* u32: the thread, the workload tree's key */
#define OFF_COMM (-48)    /* char[16] from bpf_get_current_comm() */
#define OFF_STR (-120)    /* char[BPF_MAX_STR + 8]: a char[N] field, bytes after NUL zeroed */
#define OFF_NOW (-128)    /* u64 from bpf_ktime_get_ns(), once a run (struct cc's now) */

struct cc {
	const struct bpf_plan *p;
	const struct bpf_prog_maps *m;
	const struct bpf_kernel_offs *k;
	struct basm *a;
	int out;  /* label: return 1 */
	int key;  /* fp offset of the key */
	int pair; /* fp offset of the pair's area (bpf/pairs.c), below the key */
	int done; /* a program both ending and starting pairs: its real out */
	bool bad; /* a field the hook cannot read (bpf_compile fails with -EINVAL) */
	/* the time is at OFF_NOW from here on: a pair's end took it first thing, before any
	 * branch to what follows (the aggregates, a BOTH program's start), so one instant serves
	 * them all, as one ring row's _time does */
	bool now;
};
/* r0 = the time: this run's (OFF_NOW) once taken, else bpf_ktime_get_ns() */
void bpf_cc__now(struct cc *c);

static inline void emit(struct cc *c, struct bpf_insn i) { basm__emit(c->a, i); }
/* ++stats[cpu] at byte off of the stats value, then return */
void bpf_cc__count_lost(struct cc *c, int off);
/* r = k */
void bpf_cc__load_const(struct cc *c, int r, int64_t k);
/* bpf/agg.c: r0 the group's value: count and aggregates updated (bpf/compile.h (5)) */
void bpf_cc__update_group(struct cc *c);
/* the value v into register r (t: scratch) */
void bpf_cc__load_val(struct cc *c, const struct bpf_val *v, int r, int t);
/* char[size] at the record's off into fp+dst, bytes from the first NUL on zeroed */
void bpf_cc__copy_str(struct cc *c, const struct bpf_val *v, int dst);
/* r0 = this CPU's value of the key at c->key, created on first sight; have: found */
void bpf_cc__find_group(struct cc *c, int have);
/* out = floor(log2(v)), v >= 0 (0 for 0 and 1); v is consumed, t scratch */
void bpf_cc__log2(struct cc *c, int v, int out, int t);
/* WHERE node i: jump to yes or no */
void bpf_cc__pred(struct cc *c, int i, int yes, int no);

/* bpf/hook.c: a system call's field v into r (SYS_ENTER/SYS_EXIT); the task argument
 * (into r) the record's field at rec_off is copied from, the member's offset (its name into
 * *member); a task member's field v into r in size (BPF_B...); the one system call's test */
void bpf_cc__syscall_field(struct cc *c, const struct bpf_val *v, int r);
int16_t bpf_cc__task_arg(struct cc *c, int rec_off, int r, const char **member);
void bpf_cc__task_member(struct cc *c, const struct bpf_val *v, int r, int t, int size);
void bpf_cc__syscall_filter(struct cc *c);
/* bpf/who.c: perf-sql left out, the targets' tasks, -C's CPUs (the pid_tgid and the CPU to
 * the stack when the program reads them); the current task's name into fp+at (clobbers r0-r5) */
void bpf_cc__who(struct cc *c, bool need_pidtgid, bool need_cpu);
void bpf_cc__current_comm(struct cc *c, int at);
/* r0 = the value in the map of tasks of the tid at fp+at (4 bytes), or 0 (clobbers r0-r5) */
void bpf_cc__member(struct cc *c, int at);

/* bpf/regs.c: a uprobe's user register (perf's number v->off) in its size and sign */
void bpf_cc__load_reg(struct cc *c, const struct bpf_val *v, int r);

/* bpf/stack.c: the stack key at fp+at (bpf/plan.h (5)) */
void bpf_cc__stack_key(struct cc *c, int at);

/* bpf/pairs.c */
#define BPF_PAIR_AREA 104 /* key, then the largest pending value (bpf/pairs.h) */
bool bpf_pair__load(struct cc *c, const struct bpf_val *v, int r);
int bpf_pair__str_at(const struct cc *c, const struct bpf_val *v);
void bpf_pair__copy_str(struct cc *c, const struct bpf_val *v, int dst);
void bpf_pair__copy_stack(struct cc *c, int dst);
void bpf_pair__start(struct cc *c);
void bpf_pair__end(struct cc *c);
void bpf_pair__both_start(struct cc *c);
void bpf_pair__loglin(struct cc *c);
#endif
