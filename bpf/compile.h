/*
 * bpf/compile.h - a plan (bpf/plan.h) to the instructions of one classic tracepoint program.
 *
 * The program, per event:
 *   (1) returns at once unless the control map says collecting (so it can be attached at
 *       planning and switched on with the other sources);
 *   (2) leaves out perf-sql's own thread and the CPUs -C does not name;
 *   (3) evaluates WHERE; builds the key on the stack;
 *   (3b) a stack key: the chains by bpf_get_stackid() (an event whose chain the stack map
 *       cannot take, -EEXIST or -ENOMEM, is counted in the stats map, not aggregated);
 *   (4) finds the group in the map the outer array-of-maps holds now (windows swap it), adds
 *       the group on first sight (a full map: the event is counted in the stats map, per CPU);
 *   (5) updates count and each aggregate in this CPU's value (per-CPU hash: no atomics);
 *   (6) a tracepoint program returns 1, always: 0 would hide the event from every other perf
 *       user of the tracepoint; a perf_event program (software events: our own event on each
 *       CPU) and a uprobe's (a uprobe event of our own: no one else's) return 0, so their
 *       samples go to no ring.
 */
#ifndef PERF_SQL_BPF_COMPILE_H
#define PERF_SQL_BPF_COMPILE_H
#include "bpf/insn.h"
#include "bpf/plan.h"

/* the control map's one value */
#define BPF_CTL_ENABLED 0  /* u32: 1 while collecting */
#define BPF_CTL_RESERVED 4 /* u32: always 0 */
#define BPF_CTL_STACKS 8   /* u32: this window's stack map, 0 or 1 (bpf/plan.h (5b)) */
#define BPF_CTL_CPUMASK 16 /* bit c of byte c / 8: CPU c is collected (plan.cpu_filter) */

/* byte offsets in the kernel's structures, from its BTF (tp_btf hooks) */
struct bpf_kernel_offs {
	int regs_arg[6];           /* struct pt_regs: di si dx r10 r8 r9, the syscall arguments */
	int regs_orig_ax;          /* the syscall number */
	int task_status;           /* struct task_struct: thread_info.status (TS_COMPAT: ia32) */
	int tp_off[BPF_TP_FIELDS]; /* BPF_HOOK_TP_BTF: tp_btf.f[i]'s member in struct task_struct */
};

struct bpf_prog_maps {
	int ctl;       /* array, 1 entry of bpf_ctl_size() bytes */
	int stats;     /* array, 1 entry: u64 full[nr_cpu_ids], events that found the map full, then
		     * u64 nostack[nr_cpu_ids], events whose chain the stack map could not take */
	int outer;     /* array of maps, 1 entry: the per-CPU hash of this window (windows) */
	int direct;    /* or, without windows, that hash itself (-1: through outer) */
	int zero;      /* array, 1 entry of value_size zero bytes: a new group's first value */
	int stacks;    /* a stack key: the stack trace map (-1: none) */
	int stacks1;   /* and with windows (bpf/plan.h (5b)) the second one (-1: none) */
	int stack_buf; /* a stack key: a per-CPU array of one chain, where it is taken */
};

/* the stats map's one value: its size, and where the stack map's losses start */
#define BPF_STATS_SIZE(p) ((p)->nr_cpu_ids * 16)
#define BPF_STATS_NOSTACK(p) ((p)->nr_cpu_ids * 8)

int bpf_ctl_size(const struct bpf_plan *p);
/* Can a uprobe's program read perf's x86 register reg (BCOL_REG)? */
bool bpf_reg_readable(int reg);

struct err;
struct bpf_facts;
/* bpf/regs.c: tp_btf hooks (SYS_ENTER/SYS_EXIT, TP_BTF): the kernel's offsets and the raw
 * tracepoint's BTF id of p's hook, from the kernel facts f (bpf/facts.h); 0/-errno with e set */
int bpf_kernel_btf(const struct bpf_plan *p, const struct bpf_facts *f, int *btf_id,
		   struct bpf_kernel_offs *k, struct err *e);
/* bpf/sched_btf.c: the same for BPF_HOOK_TP_BTF: p->tp_btf's members; 0/-errno with e set */
int bpf_sched_btf__offs(const struct bpf_plan *p, const struct bpf_facts *f, int *btf_id,
			struct bpf_kernel_offs *k, struct err *e);

/*
 * Emits the program into a (empty); 0, or -E2BIG (key too large), -ENOMEM, -EINVAL. k: only
 * for the tp_btf hooks.
 */
int bpf_compile(const struct bpf_plan *p, const struct bpf_prog_maps *m,
		const struct bpf_kernel_offs *k, struct basm *a);
#endif
