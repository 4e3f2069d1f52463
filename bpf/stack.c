/*
 * bpf/stack.c - the chains of a stack key (bpf/plan.h (5)): the program's part that takes them
 * (bpf_get_stackid()), how deep the kernel walks, a group's frames read back from the stack map
 * as a perf sample has them, and the processes whose mappings user space must read while they
 * live.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <linux/perf_event.h>
#include "bpf/compile_int.h"
#include "bpf/table.h"
#include "core/session.h"

/* the stack key at fp+at (bpf/plan.h (5)): the task, its chains' ids, its name */
void bpf_cc__stack_key(struct cc *c, int at)
{
	emit(c, bi_call(BPF_FUNC_get_current_pid_tgid));
	emit(c, bi_stx(BPF_DW, FP, BPF_REG_0, (int16_t)at));
	for (int user = 0; user < 2; user++) {
		int have = basm__label(c->a), none = basm__label(c->a), lost = basm__label(c->a);
		int next = basm__label(c->a);

		if (!user && c->p->stack_user) {
			emit(c, bi_st(BPF_W, FP, (int16_t)(at + 8), BPF_STACK_NONE));
			continue;
		}
		emit(c, bi_mov64_reg(BPF_REG_1, BPF_REG_6));
		basm__ld_map(c->a, BPF_REG_2, c->m->stacks);
		emit(c, bi_mov64_imm(BPF_REG_3, user ? BPF_F_USER_STACK : 0));
		emit(c, bi_call(BPF_FUNC_get_stackid));
		basm__jmp_imm(c->a, BPF_JSGE, BPF_REG_0, 0, have);
		basm__jmp_imm(c->a, BPF_JEQ, BPF_REG_0, -EFAULT, none); /* no frame at all */
		if (user) /* 6.18 answers -EPERM for a task with no user memory (the idle task, a
			   * kernel thread): no user chain, as the ring's sample has none */
			basm__jmp_imm(c->a, BPF_JEQ, BPF_REG_0, -EPERM, none);
		basm__ja(c->a, lost);
		basm__place(c->a, none);
		emit(c, bi_mov64_imm(BPF_REG_0, BPF_STACK_NONE));
		basm__place(c->a, have);
		emit(c, bi_stx(BPF_W, FP, BPF_REG_0, (int16_t)(at + 8 + 4 * user)));
		basm__ja(c->a, next);
		basm__place(c->a, lost);
		bpf_cc__count_lost(c, BPF_STATS_NOSTACK(c->p));
		basm__place(c->a, next);
	}
	bpf_cc__current_comm(c, at + 16);
}

/* the kernel's longest callchain (perf_event_max_stack), which perf samples are cut at too */
int bpf_stack__max_depth(void)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_max_stack", "r");
	int n = 0;

	if (f && fscanf(f, "%d", &n) != 1)
		n = 0;
	if (f)
		fclose(f);
	return n > 0 && n <= 4096 ? n : 127;
}

static size_t chain(const struct bpf_table *t, int32_t id, uint64_t marker, uint64_t *frames,
		    size_t max, uint64_t *buf)
{
	size_t n = 0;

	if (id < 0 || max < 2 || bpf_map_lookup_elem(t->stacks_fd, &id, buf))
		return 0;
	frames[n++] = marker;
	for (int i = 0; i < t->plan.stack_depth && buf[i] && n < max; i++)
		frames[n++] = buf[i];
	return n > 1 ? n : 0;
}

size_t bpf_table__stack(const struct bpf_table *t, const uint8_t *key, uint64_t *frames, size_t max)
{
	uint64_t *buf = calloc((size_t)t->plan.stack_depth, 8);
	int32_t kid, uid;
	size_t n;

	if (!buf)
		return 0;
	memcpy(&kid, key + 8, 4);
	memcpy(&uid, key + 12, 4);
	n = chain(t, kid, (uint64_t)PERF_CONTEXT_KERNEL, frames, max, buf);
	n += chain(t, uid, (uint64_t)PERF_CONTEXT_USER, frames + n, max - n, buf);
	free(buf);
	return n;
}

/* a stack's process: its mappings are read now, while it may still live (symbols/) */
void bpf_table__note_stack_pids(struct bpf_table *t, const uint8_t *key)
{
	struct session *s = t->src->s;
	uint32_t pid;

	for (int i = 0; i < t->plan.nr_keys && s->on_new_stack_pid; i++) {
		if (!bpf_val__is_stack(&t->plan.keys[i]))
			continue;
		memcpy(&pid, key + t->plan.key_off[i] + 4, 4);
		if (u32set__add(&s->stack_pids, pid))
			s->on_new_stack_pid(s->stack_ctx, pid);
	}
}
