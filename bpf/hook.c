/*
 * bpf/hook.c - where a tracepoint table's program runs (see bpf/hook.h), and where a tp_btf
 * program finds there what a classic tracepoint's record holds: a system call's fields in its
 * struct pt_regs and arguments (bpf/syscall.h (2)), a scheduler tracepoint's in the members
 * of its task arguments (bpf/sched_btf.h), each offset from the kernel facts (bpf/facts.h),
 * noted in the listing (bpf/listing.h).
 */
#include <assert.h>
#include <stdbool.h>
#include <string.h>
#include "bpf/compile_int.h"
#include "bpf/hook.h"
#include "bpf/sched_btf.h"
#include "bpf/syscall.h"
#include "core/catalog.h"

/* does every field the plan reads have a place in a system call's tp_btf context? */
static bool syscall_fields(const struct bpf_plan *p, bool enter)
{
	const struct bpf_val *v[BPF_MAX_VALS];
	int n = bpf_plan__values(p, v);

	for (int i = 0; i < n; i++)
		if (v[i]->col == BCOL_STR || v[i]->col == BCOL_DSTR ||
		    (v[i]->col == BCOL_FIELD &&
		     bpf_syscall__field(enter, v[i]->off, v[i]->size) == BPF_SYSF_NONE))
			return false;
	return true;
}

void bpf_hook__pick(const struct tp_event *ev, struct bpf_plan *p)
{
	bool enter;

	p->hook = BPF_HOOK_TP;
	p->syscall_nr = -1;
	p->stack_user = !strcmp(ev->system, "syscalls"); /* (3) */
	if (!strcmp(ev->system, "raw_syscalls") &&
	    (!strcmp(ev->name, "sys_enter") || !strcmp(ev->name, "sys_exit"))) {
		enter = !strcmp(ev->name, "sys_enter");
	} else if (!strcmp(ev->system, "syscalls") &&
		   (!strncmp(ev->name, "sys_enter_", 10) || !strncmp(ev->name, "sys_exit_", 9))) {
		enter = ev->name[5] == 'n';
		p->syscall_nr = bpf_syscall__nr(ev->name + (enter ? 10 : 9));
		if (p->syscall_nr < 0) /* "newfstat" is fstat's: not a name of the UAPI table */
			return;
	} else { /* (2) */
		bpf_sched_btf__pick(ev, p);
		return;
	}
	if (syscall_fields(p, enter) && !bpf_plan__has_stack(p))
		p->hook = enter ? BPF_HOOK_SYS_ENTER : BPF_HOOK_SYS_EXIT;
}

bool bpf_hook__counts(const struct tp_event *ev)
{
	struct bpf_plan p = { .nr_keys = 0 };

	bpf_hook__pick(ev, &p);
	return p.hook == BPF_HOOK_SYS_ENTER || p.hook == BPF_HOOK_SYS_EXIT ||
	       (p.hook == BPF_HOOK_TP_BTF && !strcmp(ev->name, "sched_switch"));
}

/*
 * A field of a system call's record where the kernel takes it from (bpf/syscall.h (2)): the
 * number, sys_enter's argument i, sys_exit's return value. The context is (struct pt_regs
 * *regs, long id/ret).
 */
void bpf_cc__syscall_field(struct cc *c, const struct bpf_val *v, int r)
{
	bool enter = c->p->hook == BPF_HOOK_SYS_ENTER;
	enum bpf_sysf f = bpf_syscall__field(enter, v->off, v->size);

	if (f == BPF_SYSF_NONE) { /* bpf/hook.c keeps such a plan on the tracepoint */
		c->bad = true;
	} else if (f == BPF_SYSF_NR && c->p->syscall_nr >= 0) {
		emit(c, bi_mov64_imm(r, c->p->syscall_nr));
	} else if ((f == BPF_SYSF_NR && enter) || f == BPF_SYSF_RET) {
		emit(c, bi_ldx(BPF_DW, r, BPF_REG_6, 8));
	} else {
		assert(f == BPF_SYSF_NR || (f >= BPF_SYSF_ARG0 && f < BPF_SYSF_ARG0 + 6));
		emit(c, bi_ldx(BPF_DW, r, BPF_REG_6, 0));
		basm__note(c->a, false, "pt_regs.%s",
			   f == BPF_SYSF_NR ? "orig_ax" : bpf_syscall__arg_reg(f - BPF_SYSF_ARG0));
		emit(c, bi_ldx(BPF_DW, r, r,
			       (int16_t)(f == BPF_SYSF_NR ? c->k->regs_orig_ax
							  : c->k->regs_arg[f - BPF_SYSF_ARG0])));
	}
}

/* tp_btf of a sched:* tracepoint (bpf/sched_btf.h): r = the task argument the record's field
 * at rec_off is copied from; the member's offset in it (its name in *member), or 0 (c->bad)
 * when there is none */
int16_t bpf_cc__task_arg(struct cc *c, int rec_off, int r, const char **member)
{
	const struct bpf_tp_btf *t = &c->p->tp_btf;

	for (int i = 0; i < t->nr; i++)
		if (t->f[i].rec_off == rec_off) {
			emit(c, bi_ldx(BPF_DW, r, BPF_REG_6, (int16_t)(8 * t->f[i].arg)));
			*member = t->f[i].member;
			return (int16_t)c->k->tp_off[i];
		}
	c->bad = true;
	return 0;
}

/*
 * r = sched_switch's prev_state as __trace_sched_switch_state(preempt, prev_state, prev) gives
 * it (include/trace/events/sched.h, 4.14 to 6.18; sched_btf.c checks the format's encoding):
 * TASK_REPORT_MAX (0x100) when preempted, else the highest bit of the reported state, which
 * is (prev_state | prev->exit_state) & TASK_REPORT (0x7f), TASK_REPORT_IDLE (0x80) for a
 * TASK_IDLE (0x402) wait, TASK_UNINTERRUPTIBLE (2) for TASK_RTLOCK_WAIT (0x1000) or
 * TASK_FROZEN (0x8000). t: scratch; exit_off: prev's exit_state.
 */
static void switch_state(struct cc *c, int r, int t, int16_t exit_off)
{
	int done = basm__label(c->a), preempt = basm__label(c->a), idle = basm__label(c->a);
	int unint = basm__label(c->a), top = basm__label(c->a), noload = basm__label(c->a);
	int bit[7];

	basm__note(c->a, false, "argument 0, preempt");
	emit(c, bi_ldx(BPF_DW, r, BPF_REG_6, 0));
	emit(c, bi_alu64_imm(BPF_AND, r, 0xff));
	basm__jmp_imm(c->a, BPF_JNE, r, 0, preempt);
	emit(c, bi_ldx(BPF_DW, t, BPF_REG_6, 8));
	basm__note(c->a, false, "task_struct.exit_state");
	emit(c, bi_ldx(BPF_W, t, t, exit_off));
	basm__note(c->a, false, "argument 3, prev_state (an unsigned int: zero-extended)");
	emit(c, bi_ldx(BPF_DW, r, BPF_REG_6, 24));
	emit(c, bi_alu64_reg(BPF_OR, t, r));
	emit(c, bi_alu64_imm(BPF_AND, t, 0x7f));
	basm__jmp_imm(c->a, BPF_JSET, r, 0x9000, unint);
	basm__jmp_imm(c->a, BPF_JSET, r, 0x400, noload);
	basm__place(c->a, top);
	for (int b = 6; b >= 0; b--) {
		bit[b] = basm__label(c->a);
		basm__jmp_imm(c->a, BPF_JSET, t, 1 << b, bit[b]);
	}
	emit(c, bi_mov64_imm(r, 0));
	basm__ja(c->a, done);
	for (int b = 6; b >= 0; b--) {
		basm__place(c->a, bit[b]);
		emit(c, bi_mov64_imm(r, 1 << b));
		basm__ja(c->a, done);
	}
	basm__place(c->a, noload); /* TASK_NOLOAD: TASK_IDLE with TASK_UNINTERRUPTIBLE */
	basm__jmp_imm(c->a, BPF_JSET, r, 0x2, idle);
	basm__ja(c->a, top);
	basm__place(c->a, idle);
	emit(c, bi_mov64_imm(r, 0x80));
	basm__ja(c->a, done);
	basm__place(c->a, unint);
	emit(c, bi_mov64_imm(r, 2));
	basm__ja(c->a, done);
	basm__place(c->a, preempt);
	emit(c, bi_mov64_imm(r, 0x100));
	basm__place(c->a, done);
}

/* r = the task member v's field is copied from, in size (tp_btf of a sched:* tracepoint), or
 * the argument it is (kmem's: a u64 of the context, zero-extended from the argument's size);
 * t: scratch */
void bpf_cc__task_member(struct cc *c, const struct bpf_val *v, int r, int t, int size)
{
	const struct bpf_tp_btf *tb = &c->p->tp_btf;
	const char *member = "?";
	int16_t off;

	for (int i = 0; i < tb->nr; i++)
		if (tb->f[i].rec_off == v->off && !strcmp(tb->f[i].member, BPF_TP_SWITCH_STATE)) {
			switch_state(c, r, t, (int16_t)c->k->tp_off[i]);
			return;
		}
	for (int i = 0; i < tb->nr; i++)
		if (tb->f[i].rec_off == v->off && !tb->f[i].member[0]) {
			basm__note(c->a, false, "argument %d", tb->f[i].arg);
			emit(c, bi_ldx(BPF_DW, r, BPF_REG_6, (int16_t)(8 * tb->f[i].arg)));
			if (v->size < 8) { /* the field's bytes, as the record has them */
				emit(c, bi_alu64_imm(BPF_LSH, r, 64 - 8 * v->size));
				emit(c, bi_alu64_imm(BPF_RSH, r, 64 - 8 * v->size));
			}
			return;
		}
	off = bpf_cc__task_arg(c, v->off, r, &member);

	basm__note(c->a, false, "task_struct.%s", member);
	emit(c, bi_ldx(size, r, r, off));
}

/* tp_btf: the one system call of syscalls:sys_*_NAME, a 64-bit one as ftrace's syscall events
 * take them (trace_get_syscall_nr() leaves ia32 calls out) */
void bpf_cc__syscall_filter(struct cc *c)
{
	if (c->p->syscall_nr < 0)
		return;
	if (c->p->hook == BPF_HOOK_SYS_ENTER) {
		emit(c, bi_ldx(BPF_DW, BPF_REG_1, BPF_REG_6, 8));
	} else {
		emit(c, bi_ldx(BPF_DW, BPF_REG_1, BPF_REG_6, 0));
		basm__note(c->a, false, "pt_regs.orig_ax");
		emit(c, bi_ldx(BPF_DW, BPF_REG_1, BPF_REG_1, (int16_t)c->k->regs_orig_ax));
	}
	basm__jmp_imm(c->a, BPF_JNE, BPF_REG_1, c->p->syscall_nr, c->out);
	emit(c, bi_call(BPF_FUNC_get_current_task_btf));
	basm__note(c->a, false, "task_struct.thread_info.status");
	emit(c, bi_ldx(BPF_W, BPF_REG_1, BPF_REG_0, (int16_t)c->k->task_status));
	emit(c, bi_alu64_imm(BPF_AND, BPF_REG_1, BPF_SYSCALL_TS_COMPAT));
	basm__jmp_imm(c->a, BPF_JNE, BPF_REG_1, 0, c->out);
}
