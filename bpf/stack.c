/*
 * bpf/stack.c - the chains of a stack key (bpf/plan.h (5)): the program's part that takes them
 * (bpf_get_stackid()), how deep the kernel walks, a group's frames read back from the stack map
 * as a perf sample has them, and the processes whose mappings user space must read while they
 * live.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <linux/perf_event.h>
#include "bpf/compile_int.h"
#include "bpf/table.h"
#include "core/err.h"
#include "core/session.h"

/* r2 = the stack map of this window; with two (bpf/plan.h (5b)), which one is kept at fp+slot */
static void stack_map(struct cc *c, int slot)
{
	int second = basm__label(c->a), have = basm__label(c->a);

	if (c->m->stacks1 < 0) {
		basm__ld_map(c->a, BPF_REG_2, c->m->stacks);
		return;
	}
	basm__ld_map_value(c->a, BPF_REG_2, c->m->ctl, 0);
	emit(c, bi_ldx(BPF_W, BPF_REG_3, BPF_REG_2, BPF_CTL_STACKS));
	emit(c, bi_stx(BPF_W, FP, BPF_REG_3, (int16_t)slot));
	basm__jmp_imm(c->a, BPF_JNE, BPF_REG_3, 0, second);
	basm__ld_map(c->a, BPF_REG_2, c->m->stacks);
	basm__ja(c->a, have);
	basm__place(c->a, second);
	basm__ld_map(c->a, BPF_REG_2, c->m->stacks1);
	basm__place(c->a, have);
}

/* r0 |= BPF_STACK_MAP1 when the id is the second map's (its number at fp+slot) */
static void stack_tag(struct cc *c, int slot)
{
	int first = basm__label(c->a);

	if (c->m->stacks1 < 0)
		return;
	emit(c, bi_ldx(BPF_W, BPF_REG_1, FP, (int16_t)slot));
	basm__jmp_imm(c->a, BPF_JEQ, BPF_REG_1, 0, first);
	emit(c, bi_alu64_imm(BPF_OR, BPF_REG_0, BPF_STACK_MAP1));
	basm__place(c->a, first);
}

/* the stack key at fp+at (bpf/plan.h (5)): the task, its chains' ids, its name */
void bpf_cc__stack_key(struct cc *c, int at)
{
	emit(c, bi_call(BPF_FUNC_get_current_pid_tgid));
	emit(c, bi_stx(BPF_DW, FP, BPF_REG_0, (int16_t)at));
	for (int user = 0; user < 2; user++) {
		int have = basm__label(c->a), none = basm__label(c->a), lost = basm__label(c->a);
		int next = basm__label(c->a), slot = at + 8 + 4 * user;

		if (!user && c->p->stack_user) {
			emit(c, bi_st(BPF_W, FP, (int16_t)slot, BPF_STACK_NONE));
			continue;
		}
		emit(c, bi_mov64_reg(BPF_REG_1, BPF_REG_6));
		stack_map(c, slot); /* r2, r3 */
		emit(c, bi_mov64_imm(BPF_REG_3, user ? BPF_F_USER_STACK : 0));
		emit(c, bi_call(BPF_FUNC_get_stackid));
		basm__jmp_imm(c->a, BPF_JSGE, BPF_REG_0, 0, have);
		basm__jmp_imm(c->a, BPF_JEQ, BPF_REG_0, -EFAULT, none); /* no frame at all */
		if (user) /* 6.18 answers -EPERM for a task with no user memory (the idle task, a
			   * kernel thread): no user chain, as the ring's sample has none */
			basm__jmp_imm(c->a, BPF_JEQ, BPF_REG_0, -EPERM, none);
		basm__ja(c->a, lost);
		basm__place(c->a, none);
		emit(c,
		     bi_mov64_imm(BPF_REG_0, BPF_STACK_NONE)); /* all bits: the tag changes none */
		basm__place(c->a, have);
		stack_tag(c, slot);
		emit(c, bi_stx(BPF_W, FP, BPF_REG_0, (int16_t)slot));
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

	int fd = t->stacks_fd;

	if (id >= 0 && (id & BPF_STACK_MAP1)) { /* bpf/plan.h (5b) */
		fd = t->stacks1_fd;
		id &= ~BPF_STACK_MAP1;
	}
	if (id < 0 || max < 2 || fd < 0 || bpf_map_lookup_elem(fd, &id, buf))
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

/* every chain of map fd deleted (a stack trace map's next key after a deleted one is its
 * first: the next is taken before) */
static void empty_map(int fd)
{
	uint32_t key, next;
	bool more;

	if (bpf_map_get_next_key(fd, NULL, &key))
		return;
	do {
		more = !bpf_map_get_next_key(fd, &key, &next);
		bpf_map_delete_elem(fd, &key);
		key = next;
	} while (more);
}

int bpf_stack__create_maps(struct bpf_table *t, struct err *e)
{
	const struct bpf_plan *p = &t->plan;
	uint32_t size = (uint32_t)p->stack_depth * 8;

	t->nr_stacks = p->max_groups;
	t->stacks_fd = bpf_map_create(BPF_MAP_TYPE_STACK_TRACE, "psql_stacks", 4, size,
				      (uint32_t)t->nr_stacks, NULL);
	if (t->stacks_fd >= 0 && bpf_stack__swapped(p))
		t->stacks1_fd = bpf_map_create(BPF_MAP_TYPE_STACK_TRACE, "psql_stacks1", 4, size,
					       (uint32_t)t->nr_stacks, NULL);
	if (t->stacks_fd < 0 || (bpf_stack__swapped(p) && t->stacks1_fd < 0))
		return err_set(e, -errno, "cannot create the BPF stack map: %s", strerror(errno));
	return 0;
}

bool bpf_stack__swapped(const struct bpf_plan *p)
{
	return p->stack_swap && p->pair.role == BPF_PAIR_NONE && bpf_plan__has_stack(p);
}

void bpf_stack__describe(const struct bpf_plan *p, int nr, int depth, char *buf, size_t len)
{
	snprintf(buf, len, ", %s of %d chains (%s, up to %d frames each%s)",
		 bpf_stack__swapped(p) ? "two stack maps" : "stack map", nr,
		 p->stack_user ? "user" : "kernel and user", depth,
		 bpf_stack__swapped(p) ? "; one a window, emptied in turn" : "");
}

int bpf_stack__next_window(struct bpf_table *t)
{
	uint32_t zero = 0;

	if (t->stacks1_fd < 0)
		return 0;
	empty_map(t->stack_map ? t->stacks_fd : t->stacks1_fd);
	t->stack_map = !t->stack_map;
	if (bpf_table__set_ctl(t, t->enabled))
		return -errno;
	/* a run that read the old number finishes before the groups' maps are swapped, so its
	 * group is in this window's map (bpf/table.h (1)'s wait, once more) */
	return bpf_map_update_elem(t->outer_fd, &zero, &t->map_fd[t->cur], BPF_ANY) ? -errno : 0;
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
