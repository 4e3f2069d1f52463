/*
 * bpf/stack.c - the chains of a stack key (bpf/plan.h (5)): the program's part that takes them
 * (bpf_get_stack() into a hash map keyed by the frames' own hash), how deep the kernel walks, a group's frames read back from the stack map
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

#define HASH_SEED 0xcbf29ce484222325ull /* FNV-1a's offset basis and prime, 64 bits */
#define HASH_PRIME 0x100000001b3ull
#define TAG_MAP1 (1ull << 63) /* bpf/plan.h (5b) */

/* r = the stack map of this window: with two (bpf/plan.h (5b)), the one named at fp+par */
static void ld_stack_map(struct cc *c, int r, int par)
{
	int second = basm__label(c->a), have = basm__label(c->a);

	if (c->m->stacks1 < 0) {
		basm__ld_map(c->a, r, c->m->stacks);
		return;
	}
	emit(c, bi_ldx(BPF_W, r, FP, (int16_t)par));
	basm__jmp_imm(c->a, BPF_JNE, r, 0, second);
	basm__ld_map(c->a, r, c->m->stacks);
	basm__ja(c->a, have);
	basm__place(c->a, second);
	basm__ld_map(c->a, r, c->m->stacks1);
	basm__place(c->a, have);
}

/* r9 = this CPU's frame buffer (a per-CPU array: a chain is larger than the BPF stack), kept
 * over the helpers' calls: r9 is free until the group is found (bpf_cc__find_group) */
static void ld_buf(struct cc *c, int lost)
{
	emit(c, bi_st(BPF_W, FP, OFF_ZERO32, 0));
	basm__ld_map(c->a, BPF_REG_1, c->m->stack_buf);
	emit(c, bi_mov64_reg(BPF_REG_2, FP));
	emit(c, bi_alu64_imm(BPF_ADD, BPF_REG_2, OFF_ZERO32));
	emit(c, bi_call(BPF_FUNC_map_lookup_elem));
	basm__jmp_imm(c->a, BPF_JEQ, BPF_REG_0, 0, lost);
	emit(c, bi_mov64_reg(BPF_REG_9, BPF_REG_0));
}

/* fp+slot = the chain's hash over its r0 bytes of frames at r9 (never 0: no chain) */
static void hash_chain(struct cc *c, int slot, bool user)
{
	int hashed = basm__label(c->a), nonzero = basm__label(c->a);

	basm__ld_imm64(c->a, BPF_REG_2, HASH_SEED + user);
	basm__ld_imm64(c->a, BPF_REG_5, HASH_PRIME);
	for (int i = 0; i < c->p->stack_depth; i++) {
		basm__jmp_imm(c->a, BPF_JLE, BPF_REG_0, 8 * i, hashed);
		emit(c, bi_ldx(BPF_DW, BPF_REG_3, BPF_REG_9, (int16_t)(8 * i)));
		emit(c, bi_alu64_reg(BPF_XOR, BPF_REG_2, BPF_REG_3));
		emit(c, bi_alu64_reg(BPF_MUL, BPF_REG_2, BPF_REG_5));
	}
	basm__place(c->a, hashed);
	emit(c, bi_alu64_imm(BPF_RSH, BPF_REG_2, 1)); /* bit 63: the map's tag */
	basm__jmp_imm(c->a, BPF_JNE, BPF_REG_2, 0, nonzero);
	emit(c, bi_mov64_imm(BPF_REG_2, 1));
	basm__place(c->a, nonzero);
	emit(c, bi_stx(BPF_DW, FP, BPF_REG_2, (int16_t)slot));
}

/* the frames at r9 (the buffer) and at r0 (the map's chain of the same hash) equal, through
 * the first 0: to have, else to lost (a hash two chains share: not aggregated) */
static void same_chain(struct cc *c, int have, int lost)
{
	for (int i = 0; i < c->p->stack_depth; i++) {
		emit(c, bi_ldx(BPF_DW, BPF_REG_3, BPF_REG_9, (int16_t)(8 * i)));
		emit(c, bi_ldx(BPF_DW, BPF_REG_4, BPF_REG_0, (int16_t)(8 * i)));
		basm__jmp_reg(c->a, BPF_JNE, BPF_REG_3, BPF_REG_4, lost);
		basm__jmp_imm(c->a, BPF_JEQ, BPF_REG_3, 0, have);
	}
	basm__ja(c->a, have);
}

/* r1 = the map, r2 = fp+slot: the chain's key */
static void map_key_args(struct cc *c, int slot, int par)
{
	ld_stack_map(c, BPF_REG_1, par);
	emit(c, bi_mov64_reg(BPF_REG_2, FP));
	emit(c, bi_alu64_imm(BPF_ADD, BPF_REG_2, slot));
}

/* fp+slot = the hash of the chain (user or kernel) in the stack map, which keeps it by that
 * hash (added, or found with the same frames); 0: no chain; a chain the map cannot take: lost */
static void chain_key(struct cc *c, int at, int slot, bool user)
{
	int got = basm__label(c->a), none = basm__label(c->a), lost = basm__label(c->a);
	int add = basm__label(c->a), have = basm__label(c->a), next = basm__label(c->a);
	int par = at + BPF_STACK_COMM; /* the name's place, for now */

	emit(c, bi_mov64_reg(BPF_REG_1, BPF_REG_6));
	emit(c, bi_mov64_reg(BPF_REG_2, BPF_REG_9));
	emit(c, bi_mov64_imm(BPF_REG_3, c->p->stack_depth * 8));
	emit(c, bi_mov64_imm(BPF_REG_4, user ? BPF_F_USER_STACK : 0));
	emit(c, bi_call(BPF_FUNC_get_stack));
	basm__jmp_imm(c->a, BPF_JSGT, BPF_REG_0, 0, got);
	basm__jmp_imm(c->a, BPF_JEQ, BPF_REG_0, 0, none);
	basm__jmp_imm(c->a, BPF_JEQ, BPF_REG_0, -EFAULT, none); /* no frame at all */
	if (user) /* 6.18 answers -EPERM for a task with no user memory (the idle task, a
		   * kernel thread): no user chain, as the ring's sample has none */
		basm__jmp_imm(c->a, BPF_JEQ, BPF_REG_0, -EPERM, none);
	basm__ja(c->a, lost);
	basm__place(c->a, got);
	hash_chain(c, slot, user);
	map_key_args(c, slot, par);
	emit(c, bi_call(BPF_FUNC_map_lookup_elem));
	basm__jmp_imm(c->a, BPF_JEQ, BPF_REG_0, 0, add);
	same_chain(c, have, lost);
	basm__place(c->a, add);
	map_key_args(c, slot, par);
	emit(c, bi_mov64_reg(BPF_REG_3, BPF_REG_9));
	emit(c, bi_mov64_imm(BPF_REG_4, BPF_NOEXIST));
	emit(c, bi_call(BPF_FUNC_map_update_elem));
	basm__jmp_imm(c->a, BPF_JEQ, BPF_REG_0, 0, have);
	/* another CPU added the same hash meanwhile: its frames, by the hash's 63 bits */
	basm__jmp_imm(c->a, BPF_JEQ, BPF_REG_0, -EEXIST, have);
	basm__ja(c->a, lost);
	basm__place(c->a, none);
	emit(c, bi_st(BPF_DW, FP, (int16_t)slot, 0));
	basm__ja(c->a, next);
	basm__place(c->a, have);
	if (c->m->stacks1 >= 0) { /* the second map's: bit 63 (bpf/plan.h (5b)) */
		emit(c, bi_ldx(BPF_W, BPF_REG_1, FP, (int16_t)par));
		basm__jmp_imm(c->a, BPF_JEQ, BPF_REG_1, 0, next);
		emit(c, bi_ldx(BPF_DW, BPF_REG_1, FP, (int16_t)slot));
		basm__ld_imm64(c->a, BPF_REG_2, TAG_MAP1);
		emit(c, bi_alu64_reg(BPF_OR, BPF_REG_1, BPF_REG_2));
		emit(c, bi_stx(BPF_DW, FP, BPF_REG_1, (int16_t)slot));
	}
	basm__ja(c->a, next);
	basm__place(c->a, lost);
	bpf_cc__count_lost(c, BPF_STATS_NOSTACK(c->p));
	basm__place(c->a, next);
}

/* the stack key at fp+at (bpf/plan.h (5)): the task, its chains' hashes, its name */
void bpf_cc__stack_key(struct cc *c, int at)
{
	int par = at + BPF_STACK_COMM, lost = basm__label(c->a), have = basm__label(c->a);

	emit(c, bi_call(BPF_FUNC_get_current_pid_tgid));
	emit(c, bi_stx(BPF_DW, FP, BPF_REG_0, (int16_t)at));
	ld_buf(c, lost);
	basm__ja(c->a, have);
	basm__place(c->a, lost); /* never: the array has its one entry */
	bpf_cc__count_lost(c, BPF_STATS_NOSTACK(c->p));
	basm__place(c->a, have);
	if (c->m->stacks1 >= 0) { /* this window's map, once for both chains */
		basm__ld_map_value(c->a, BPF_REG_1, c->m->ctl, 0);
		emit(c, bi_ldx(BPF_W, BPF_REG_2, BPF_REG_1, BPF_CTL_STACKS));
		emit(c, bi_stx(BPF_W, FP, BPF_REG_2, (int16_t)par));
	}
	if (c->p->stack_user)
		emit(c, bi_st(BPF_DW, FP, (int16_t)(at + BPF_STACK_KERNEL), 0));
	else
		chain_key(c, at, at + BPF_STACK_KERNEL, false);
	chain_key(c, at, at + BPF_STACK_USER, true);
	bpf_cc__current_comm(c, at + BPF_STACK_COMM);
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

static size_t chain(const struct bpf_table *t, uint64_t h, uint64_t marker, uint64_t *frames,
		    size_t max, uint64_t *buf)
{
	int fd = h & TAG_MAP1 ? t->stacks1_fd : t->stacks_fd;
	size_t n = 0;

	h &= ~TAG_MAP1;
	if (!h || max < 2 || fd < 0 || bpf_map_lookup_elem(fd, &h, buf))
		return 0;
	frames[n++] = marker;
	for (int i = 0; i < t->plan.stack_depth && buf[i] && n < max; i++)
		frames[n++] = buf[i];
	return n > 1 ? n : 0;
}

size_t bpf_table__stack(const struct bpf_table *t, const uint8_t *key, uint64_t *frames, size_t max)
{
	uint64_t *buf = calloc((size_t)t->plan.stack_depth, 8);
	uint64_t kh, uh;
	size_t n;

	if (!buf)
		return 0;
	memcpy(&kh, key + BPF_STACK_KERNEL, 8);
	memcpy(&uh, key + BPF_STACK_USER, 8);
	n = chain(t, kh, (uint64_t)PERF_CONTEXT_KERNEL, frames, max, buf);
	n += chain(t, uh, (uint64_t)PERF_CONTEXT_USER, frames + n, max - n, buf);
	free(buf);
	return n;
}

/* every chain of map fd deleted (the next key after a deleted one is the map's first: the
 * next is taken before) */
static void empty_map(int fd)
{
	uint64_t key, next;
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

	t->nr_stacks = bpf_stack__entries(p);
	t->stack_buf_fd =
		bpf_map_create(BPF_MAP_TYPE_PERCPU_ARRAY, "psql_stack_buf", 4, size, 1, NULL);
	t->stacks_fd = bpf_map_create(BPF_MAP_TYPE_HASH, "psql_stacks", 8, size,
				      (uint32_t)t->nr_stacks, NULL);
	if (t->stacks_fd >= 0 && bpf_stack__swapped(p))
		t->stacks1_fd = bpf_map_create(BPF_MAP_TYPE_HASH, "psql_stacks1", 8, size,
					       (uint32_t)t->nr_stacks, NULL);
	if (t->stack_buf_fd < 0 || t->stacks_fd < 0 || (bpf_stack__swapped(p) && t->stacks1_fd < 0))
		return err_set(e, -errno, "cannot create the BPF stack map: %s", strerror(errno));
	return 0;
}

int bpf_stack__entries(const struct bpf_plan *p)
{
	uint64_t need, max = (uint64_t)p->max_groups;

	if (!bpf_stack__swapped(p) || !p->sample_freq)
		return p->max_groups;
	/* a window of a sampled event: two chains a sample on every CPU, and a quarter more */
	need = 2 * p->sample_freq * (uint64_t)p->nr_cpu_ids * (uint64_t)p->stack_window_ms / 1000;
	need += need / 4;
	return (int)(need < max ? max : need > 4 * max ? 4 * max : need);
}

bool bpf_stack__swapped(const struct bpf_plan *p)
{
	return p->stack_window_ms > 0 && p->pair.role == BPF_PAIR_NONE && bpf_plan__has_stack(p);
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

	for (int i = 0; i < t->plan.nr_keys && s->stacks; i++) {
		if (!bpf_val__is_stack(&t->plan.keys[i]))
			continue;
		memcpy(&pid, key + t->plan.key_off[i] + 4, 4);
		if (u32set__add(&s->stack_pids, pid))
			s->stacks->new_pid(s->stack_ctx, pid);
	}
}
