/*
 * bpf/who.c - whose events a table's program counts (bpf/compile.h (2)), and the current
 * task's name as the perf ring gives it.
 *
 * (1) perf-sql left out (plan.self_tid): of a table that names tasks (plan.task_vals), the
 *     rows that name no task but perf-sql and the idle task (its switches to and from idle,
 *     its wakeups): a switch from perf-sql to another task is that task's switch-in too, and
 *     a wakeup in an interrupt that lands in perf-sql is the woken task's. Of other tables,
 *     the events perf-sql's thread runs, as the ring's "common_pid != self" (core/target.c);
 *     a software event's samples of perf-sql's process (plan.self_pid), as core/ring.c
 *     drops them.
 * (2) The targets (plan.tree_fd, bpf/tree.h): a table that names tasks counts an event when
 *     a task it names is a member, alive or exited (its last switch out comes after its
 *     exit), whoever runs it, as core/tree.c (3) keeps a row; any other table when the
 *     current thread is an alive member, as a per-task perf event counts it.
 * (3) -C: only the CPUs whose bit is set in the control map (plan.cpu_filter).
 * (4) The idle task (tid 0) is named "swapper", as perf and core/comm.c name it, where
 *     bpf_get_current_comm() gives its per-CPU name ("swapper/1").
 *
 * core/tree.c asks whether a task was a member at the row's time, as its rows arrive after
 * the fact; here the map is the membership at the moment the event fires (bpf/tree.h keeps
 * it), so no time is kept. Both run in the order things happen on one CPU: a child joins in
 * its parent's fork, before it can run anywhere, and leaves once freed, after its last switch.
 * What (1) cannot do here: leave out an event in an interrupt that lands in perf-sql's thread
 * while keeping perf-sql's own, for tables that do not name tasks (irq:*, timer:*): a classic
 * tracepoint's program finds the record's common_flags overwritten with the registers, and
 * this kernel's kallsyms has no data symbols for the per-CPU preempt count, so both paths
 * leave out every event of perf-sql's thread there.
 */
#include <string.h>
#include "bpf/compile_int.h"
#include "bpf/tree.h"

/* jump to yes when the named task in r1 is neither perf-sql nor the idle task */
static void not_self(struct cc *c, int yes)
{
	int next = basm__label(c->a);

	basm__jmp_imm(c->a, BPF_JEQ, BPF_REG_1, 0, next);
	basm__note(c->a, true, "self_tid");
	basm__jmp_imm(c->a, BPF_JNE, BPF_REG_1, (int32_t)c->p->self_tid, yes);
	basm__place(c->a, next);
}

/* (1), right after the pid_tgid's call: r0 holds it (and fp+OFF_PIDTGID) */
static void self(struct cc *c)
{
	const struct bpf_plan *p = c->p;
	int keep = basm__label(c->a);

	if (p->self_tid && p->nr_task_vals) {
		for (int i = 0; i < p->nr_task_vals; i++) {
			bpf_cc__load_val(c, &p->task_vals[i], BPF_REG_1, BPF_REG_2);
			not_self(c, keep);
		}
		basm__ja(c->a, c->out);
	} else if (p->self_tid) {
		basm__note(c->a, true, "self_tid");
		basm__jmp32_imm(c->a, BPF_JEQ, BPF_REG_0, (int32_t)p->self_tid, c->out);
	}
	if (p->self_pid) {
		emit(c, bi_alu64_imm(BPF_RSH, BPF_REG_0, 32));
		basm__note(c->a, true, "self_pid");
		basm__jmp32_imm(c->a, BPF_JEQ, BPF_REG_0, (int32_t)p->self_pid, c->out);
	}
	basm__place(c->a, keep);
}

void bpf_cc__member(struct cc *c, int at)
{
	basm__ld_map(c->a, BPF_REG_1, c->p->tree_fd);
	emit(c, bi_mov64_reg(BPF_REG_2, FP));
	emit(c, bi_alu64_imm(BPF_ADD, BPF_REG_2, at));
	emit(c, bi_call(BPF_FUNC_map_lookup_elem));
}

static void member(struct cc *c) { bpf_cc__member(c, OFF_TID); }

/* (2) */
static void targets(struct cc *c)
{
	const struct bpf_plan *p = c->p;
	int keep = basm__label(c->a);

	if (p->nr_task_vals) {
		for (int i = 0; i < p->nr_task_vals; i++) {
			bpf_cc__load_val(c, &p->task_vals[i], BPF_REG_1, BPF_REG_2);
			emit(c, bi_stx(BPF_W, FP, BPF_REG_1, OFF_TID));
			member(c);
			basm__jmp_imm(c->a, BPF_JNE, BPF_REG_0, 0, keep);
		}
		basm__ja(c->a, c->out);
	} else {
		emit(c, bi_ldx(BPF_DW, BPF_REG_0, FP, OFF_PIDTGID));
		emit(c, bi_stx(BPF_W, FP, BPF_REG_0, OFF_TID));
		member(c);
		basm__jmp_imm(c->a, BPF_JEQ, BPF_REG_0, 0, c->out);
		emit(c, bi_ldx(BPF_W, BPF_REG_1, BPF_REG_0, 0));
		basm__jmp_imm(c->a, BPF_JNE, BPF_REG_1, BPF_TREE_ALIVE, c->out);
	}
	basm__place(c->a, keep);
}

/* (3); r0 = fp+OFF_CPU on entry */
static void cpus(struct cc *c)
{
	basm__jmp_imm(c->a, BPF_JGE, BPF_REG_0, c->p->nr_cpu_ids, c->out);
	emit(c, bi_mov64_reg(BPF_REG_1, BPF_REG_0));
	emit(c, bi_alu64_imm(BPF_RSH, BPF_REG_1, 3));
	basm__ld_map_value(c->a, BPF_REG_2, c->m->ctl, BPF_CTL_CPUMASK);
	emit(c, bi_alu64_reg(BPF_ADD, BPF_REG_2, BPF_REG_1));
	emit(c, bi_ldx(BPF_B, BPF_REG_3, BPF_REG_2, 0));
	emit(c, bi_alu64_imm(BPF_AND, BPF_REG_0, 7));
	emit(c, bi_alu64_reg(BPF_RSH, BPF_REG_3, BPF_REG_0));
	emit(c, bi_alu64_imm(BPF_AND, BPF_REG_3, 1));
	basm__jmp_imm(c->a, BPF_JEQ, BPF_REG_3, 0, c->out);
}

void bpf_cc__who(struct cc *c, bool need_pidtgid, bool need_cpu)
{
	const struct bpf_plan *p = c->p;

	if (p->self_tid || p->self_pid || p->tree_fd >= 0 || need_pidtgid) {
		emit(c, bi_call(BPF_FUNC_get_current_pid_tgid));
		emit(c, bi_stx(BPF_DW, FP, BPF_REG_0, OFF_PIDTGID));
	}
	if (p->tree_fd >= 0)
		targets(c);
	else
		self(c);
	if (p->cpu_filter || need_cpu) {
		emit(c, bi_call(BPF_FUNC_get_smp_processor_id));
		emit(c, bi_stx(BPF_DW, FP, BPF_REG_0, OFF_CPU));
	}
	if (p->cpu_filter)
		cpus(c);
}

void bpf_cc__current_comm(struct cc *c, int at)
{
	int named = basm__label(c->a);
	uint64_t swapper = 0;

	emit(c, bi_mov64_reg(BPF_REG_1, FP));
	emit(c, bi_alu64_imm(BPF_ADD, BPF_REG_1, at));
	emit(c, bi_mov64_imm(BPF_REG_2, 16));
	emit(c, bi_call(BPF_FUNC_get_current_comm));
	emit(c, bi_call(BPF_FUNC_get_current_pid_tgid));
	basm__jmp32_imm(c->a, BPF_JNE, BPF_REG_0, 0, named);
	memcpy(&swapper, "swapper", 8);
	basm__ld_imm64(c->a, BPF_REG_1, swapper);
	emit(c, bi_stx(BPF_DW, FP, BPF_REG_1, (int16_t)at));
	emit(c, bi_st(BPF_DW, FP, (int16_t)(at + 8), 0));
	basm__place(c->a, named);
}
