/*
 * bpf/pairs.c - the start and end parts of a pairs() program and its log-linear histogram
 * (see bpf/pairs.h), emitted into bpf/compile.c's program.
 *
 * The pair's area on the stack, at c->pair:
 *   +0  the key (u64): the pending map's key
 *   +8  start: the start time; end: the latency (ns)     \
 *   +16 the start value: an integer, or text (16 bytes,  | the pending value
 *       or BPF_MAX_STR of a __data_loc text: bpf/pairs.h) |  (BPF_PAIR_VALUE bytes)
 *   +32 (+80) the start's pid_tgid                        |
 *   +40 (+88) the start's comm                            /
 */
#include <assert.h>
#include <errno.h>
#include <string.h>
#include "bpf/compile_int.h"
#include "bpf/pairs.h"

#define PA_KEY 0
#define PA_TIME 8 /* the end program: the latency */
#define PA_VAL 16
#define PA_PIDTGID(pp) (PA_VAL + bpf_pair__val_size(pp))
#define PA_COMM(pp) (PA_PIDTGID(pp) + 8)

bool bpf_pair__load(struct cc *c, const struct bpf_val *v, int r)
{
	const struct bpf_pair *pp = &c->p->pair;
	int at = v->col == BCOL_PAIR_KEY    ? PA_KEY
		 : v->col == BCOL_PAIR_LAT  ? PA_TIME
		 : v->col == BCOL_PAIR_SVAL ? PA_VAL
					    : PA_PIDTGID(pp);

	emit(c, bi_ldx(BPF_DW, r, FP, (int16_t)(c->pair + at)));
	if (v->col == BCOL_PAIR_STID) {
		emit(c, bi_alu64_imm(BPF_LSH, r, 32));
		emit(c, bi_alu64_imm(BPF_RSH, r, 32));
	} else if (v->col == BCOL_PAIR_SPID) {
		emit(c, bi_alu64_imm(BPF_RSH, r, 32));
	}
	return v->col == BCOL_PAIR_KEY || v->col == BCOL_PAIR_SVAL;
}

int bpf_pair__str_at(const struct cc *c, const struct bpf_val *v)
{
	return c->pair + (v->col == BCOL_PAIR_COMM ? PA_COMM(&c->p->pair) : PA_VAL);
}

/* the start's stack key (bpf/plan.h (5)) to the group's key at fp+dst */
void bpf_pair__copy_stack(struct cc *c, int dst)
{
	for (int i = 0; i < BPF_STACK_KEY; i += 8) {
		emit(c, bi_ldx(BPF_DW, BPF_REG_1, FP, (int16_t)(c->pair + PA_VAL + i)));
		emit(c, bi_stx(BPF_DW, FP, BPF_REG_1, (int16_t)(dst + i)));
	}
}

void bpf_pair__copy_str(struct cc *c, const struct bpf_val *v, int dst)
{
	int src = bpf_pair__str_at(c, v);

	for (int i = 0; i < bpf_val__str_size(v); i += 8) {
		emit(c, bi_ldx(BPF_DW, BPF_REG_1, FP, (int16_t)(src + i)));
		emit(c, bi_stx(BPF_DW, FP, BPF_REG_1, (int16_t)(dst + i)));
	}
}

/* r1 = fp + off */
static void fp_ptr(struct cc *c, int r, int off)
{
	emit(c, bi_mov64_reg(r, FP));
	emit(c, bi_alu64_imm(BPF_ADD, r, off));
}

/* this CPU's counts[i] += 1 (r0-r5) */
static void bump(struct cc *c, int i)
{
	int skip = basm__label(c->a);

	emit(c, bi_st(BPF_W, FP, OFF_ZERO32, 0));
	basm__ld_map(c->a, BPF_REG_1, c->p->pair.counts_fd);
	fp_ptr(c, BPF_REG_2, OFF_ZERO32);
	emit(c, bi_call(BPF_FUNC_map_lookup_elem));
	basm__jmp_imm(c->a, BPF_JEQ, BPF_REG_0, 0, skip);
	emit(c, bi_ldx(BPF_DW, BPF_REG_1, BPF_REG_0, (int16_t)(8 * i)));
	emit(c, bi_alu64_imm(BPF_ADD, BPF_REG_1, 1));
	emit(c, bi_stx(BPF_DW, BPF_REG_0, BPF_REG_1, (int16_t)(8 * i)));
	basm__place(c->a, skip);
}

static void comm_to(struct cc *c, int off) { bpf_cc__current_comm(c, off); }

/* is_target(key, start_time): on to done unless the key at fp+at (a tid: below 2^32) is in the
 * map of tasks now, the start's time (core/tree.c's membership never ends before the task is
 * freed, as the map's; r0-r5) */
static void member_key(struct cc *c, int at, int done)
{
	emit(c, bi_ldx(BPF_DW, BPF_REG_1, FP, (int16_t)at));
	emit(c, bi_alu64_imm(BPF_RSH, BPF_REG_1, 32));
	basm__jmp_imm(c->a, BPF_JNE, BPF_REG_1, 0, done);
	bpf_cc__member(c, at); /* the map's key: the low 4 bytes */
	basm__jmp_imm(c->a, BPF_JEQ, BPF_REG_0, 0, done);
}

/* the start's stack key into the pending value; a chain the stack map refuses is counted lost
 * (bpf_cc__stack_key) and the key's pending start, if any, deleted: its end pairs with none */
static void start_stack(struct cc *c, int done)
{
	int out = c->out, lost = basm__label(c->a), taken = basm__label(c->a);

	c->out = lost;
	bpf_cc__stack_key(c, c->pair + PA_VAL);
	c->out = out;
	basm__ja(c->a, taken);
	basm__place(c->a, lost);
	basm__ld_map(c->a, BPF_REG_1, c->p->pair.pending_fd);
	fp_ptr(c, BPF_REG_2, c->pair + PA_KEY);
	emit(c, bi_call(BPF_FUNC_map_delete_elem));
	basm__ja(c->a, done);
	basm__place(c->a, taken);
}

/* the task key k names on hook h (bpf/pairs.h (4)), or BPF_PAIR_NO_TASK */
static int key_task(enum bpf_hook h, const struct bpf_tp_btf *tb, const struct bpf_val *k)
{
	if (k->nr_ops)
		return BPF_PAIR_NO_TASK;
	if (k->col == BCOL_TID &&
	    (h == BPF_HOOK_TP_BTF || h == BPF_HOOK_SYS_ENTER || h == BPF_HOOK_SYS_EXIT))
		return BPF_PAIR_CURRENT;
	if (k->col != BCOL_FIELD || h != BPF_HOOK_TP_BTF)
		return BPF_PAIR_NO_TASK;
	for (int i = 0; i < tb->nr; i++)
		if (tb->f[i].rec_off == k->off && !strcmp(tb->f[i].member, "pid"))
			return tb->f[i].arg;
	return BPF_PAIR_NO_TASK;
}

void bpf_pair__pick_tasks(struct bpf_plan *p)
{
	struct bpf_pair *pp = &p->pair;

	pp->start_task = key_task(pp->start_hook, &pp->start_tp_btf, &pp->start_key);
	pp->end_task = key_task(p->hook, &p->tp_btf, &pp->end_key);
	pp->task_store = pp->role != BPF_PAIR_NONE && !pp->pending_rows &&
			 pp->start_task != BPF_PAIR_NO_TASK && pp->end_task != BPF_PAIR_NO_TASK;
}

/* r0 = the pending start in the storage of the task (bpf/pairs.h (4)), created when create;
 * NULL: none (r0-r5) */
static void task_slot(struct cc *c, int task, bool create)
{
	if (task == BPF_PAIR_CURRENT) {
		emit(c, bi_call(BPF_FUNC_get_current_task_btf));
		emit(c, bi_mov64_reg(BPF_REG_2, BPF_REG_0));
	} else {
		basm__note(c->a, false, "argument %d: the key's task", task);
		emit(c, bi_ldx(BPF_DW, BPF_REG_2, BPF_REG_6, (int16_t)(8 * task)));
	}
	basm__ld_map(c->a, BPF_REG_1, c->p->pair.tasks_fd);
	emit(c, bi_mov64_imm(BPF_REG_3, 0));
	emit(c, bi_mov64_imm(BPF_REG_4, create ? BPF_LOCAL_STORAGE_GET_F_CREATE : 0));
	emit(c, bi_call(BPF_FUNC_task_storage_get));
}

/* the start at fp+p+PA_TIME into its task's storage, its fields first, its time last; on to
 * stored (or, over a pending one, replaced) or dropped; key 0: on past it, to the hash */
static void task_start(struct cc *c, int stored, int dropped)
{
	const struct bpf_pair *pp = &c->p->pair;
	int p = c->pair, hash = basm__label(c->a), fresh = basm__label(c->a);

	emit(c, bi_ldx(BPF_DW, BPF_REG_1, FP, (int16_t)(p + PA_KEY)));
	basm__jmp_imm(c->a, BPF_JEQ, BPF_REG_1, 0, hash);
	task_slot(c, pp->start_task, true);
	basm__jmp_imm(c->a, BPF_JEQ, BPF_REG_0, 0, dropped);
	emit(c, bi_ldx(BPF_DW, BPF_REG_1, BPF_REG_0, 0)); /* the pending start's time */
	for (int i = 8; i < BPF_PAIR_VALUE(pp); i += 8) {
		emit(c, bi_ldx(BPF_DW, BPF_REG_2, FP, (int16_t)(p + PA_TIME + i)));
		emit(c, bi_stx(BPF_DW, BPF_REG_0, BPF_REG_2, (int16_t)i));
	}
	emit(c, bi_ldx(BPF_DW, BPF_REG_2, FP, (int16_t)(p + PA_TIME)));
	emit(c, bi_stx(BPF_DW, BPF_REG_0, BPF_REG_2, 0));
	basm__jmp_imm(c->a, BPF_JEQ, BPF_REG_1, 0, fresh);
	bump(c, BPF_PAIR_REPLACED);
	basm__place(c->a, fresh);
	basm__ja(c->a, stored);
	basm__place(c->a, hash);
}

/* the pending value at r0 (the hash's or the task's) into the pair's area (r1) */
static void pending_to_area(struct cc *c)
{
	for (int i = 0; i < BPF_PAIR_VALUE(&c->p->pair); i += 8) {
		emit(c, bi_ldx(BPF_DW, BPF_REG_1, BPF_REG_0, (int16_t)i));
		emit(c, bi_stx(BPF_DW, FP, BPF_REG_1, (int16_t)(c->pair + PA_TIME + i)));
	}
}

/* the end's pending start from its task's storage into the area, consumed (its time 0); on
 * to got, or unmatched; key 0: on past it, to the hash */
static void task_end(struct cc *c, int unmatched, int got)
{
	const struct bpf_pair *pp = &c->p->pair;
	int p = c->pair, hash = basm__label(c->a);

	emit(c, bi_ldx(BPF_DW, BPF_REG_1, FP, (int16_t)(p + PA_KEY)));
	basm__jmp_imm(c->a, BPF_JEQ, BPF_REG_1, 0, hash);
	task_slot(c, pp->end_task, false);
	basm__jmp_imm(c->a, BPF_JEQ, BPF_REG_0, 0, unmatched);
	emit(c, bi_ldx(BPF_DW, BPF_REG_1, BPF_REG_0, 0));
	basm__jmp_imm(c->a, BPF_JEQ, BPF_REG_1, 0, unmatched);
	pending_to_area(c);
	emit(c, bi_st(BPF_DW, BPF_REG_0, 0, 0));
	basm__ja(c->a, got);
	basm__place(c->a, hash);
}

/* pending[START_KEY] = { now, start value, pid_tgid, comm } */
void bpf_pair__start(struct cc *c)
{
	const struct bpf_pair *pp = &c->p->pair;
	int p = c->pair, dropped = basm__label(c->a), done = basm__label(c->a);
	int stored = basm__label(c->a);

	for (int i = 0; i < BPF_PAIR_VALUE(pp); i += 8)
		emit(c, bi_st(BPF_DW, FP, (int16_t)(p + PA_TIME + i), 0));
	bpf_cc__load_val(c, &pp->start_key, BPF_REG_1, BPF_REG_2);
	emit(c, bi_stx(BPF_DW, FP, BPF_REG_1, (int16_t)(p + PA_KEY)));
	if (pp->start_member)
		member_key(c, p + PA_KEY, done);
	if (pp->has_start_val && pp->start_val.col == BCOL_STACK) {
		start_stack(c, done);
	} else if (pp->has_start_val && pp->start_val.col == BCOL_COMM) {
		comm_to(c, p + PA_VAL);
	} else if (pp->has_start_val &&
		   (pp->start_val.col == BCOL_STR || pp->start_val.col == BCOL_DSTR)) {
		bpf_cc__copy_str(c, &pp->start_val, p + PA_VAL);
	} else if (pp->has_start_val) {
		bpf_cc__load_val(c, &pp->start_val, BPF_REG_1, BPF_REG_2);
		emit(c, bi_stx(BPF_DW, FP, BPF_REG_1, (int16_t)(p + PA_VAL)));
	}
	if (pp->has_start_val2) { /* pending(): integers both, 8 bytes each */
		assert(pp->has_start_val && !bpf_val__is_str(&pp->start_val));
		bpf_cc__load_val(c, &pp->start_val2, BPF_REG_1, BPF_REG_2);
		emit(c, bi_stx(BPF_DW, FP, BPF_REG_1, (int16_t)(p + PA_VAL + 8)));
	}
	if (pp->need_tid) {
		emit(c, bi_call(BPF_FUNC_get_current_pid_tgid));
		emit(c, bi_stx(BPF_DW, FP, BPF_REG_0, (int16_t)(p + PA_PIDTGID(pp))));
	}
	if (pp->need_comm)
		comm_to(c, p + PA_COMM(pp));
	bpf_cc__now(c); /* a BOTH program's: its end's instant */
	emit(c, bi_stx(BPF_DW, FP, BPF_REG_0, (int16_t)(p + PA_TIME)));
	if (pp->task_store)
		task_start(c, stored, dropped);
	basm__ld_map(c->a, BPF_REG_1, pp->pending_fd);
	fp_ptr(c, BPF_REG_2, p + PA_KEY);
	fp_ptr(c, BPF_REG_3, p + PA_TIME);
	emit(c, bi_mov64_imm(BPF_REG_4, BPF_NOEXIST));
	emit(c, bi_call(BPF_FUNC_map_update_elem));
	basm__jmp_imm(c->a, BPF_JEQ, BPF_REG_0, 0, stored);
	basm__jmp_imm(c->a, BPF_JNE, BPF_REG_0, -EEXIST, dropped);
	bump(c, BPF_PAIR_REPLACED); /* a newer start of the key replaces the pending one */
	basm__ld_map(c->a, BPF_REG_1, pp->pending_fd);
	fp_ptr(c, BPF_REG_2, p + PA_KEY);
	fp_ptr(c, BPF_REG_3, p + PA_TIME);
	emit(c, bi_mov64_imm(BPF_REG_4, BPF_ANY));
	emit(c, bi_call(BPF_FUNC_map_update_elem));
	basm__jmp_imm(c->a, BPF_JNE, BPF_REG_0, 0, dropped);
	basm__place(c->a, stored);
	bump(c, BPF_PAIR_STARTS);
	basm__ja(c->a, done);
	basm__place(c->a, dropped); /* refused (the map is full): this start is lost */
	bump(c, BPF_PAIR_DROPPED);
	basm__place(c->a, done);
}

/* pending(): END_KEY's pending start deleted, counted as a pair (or an unmatched end) */
static void end_pending(struct cc *c)
{
	const struct bpf_pair *pp = &c->p->pair;
	int deleted = basm__label(c->a);

	assert(pp->role == BPF_PAIR_END);
	bpf_cc__load_val(c, &pp->end_key, BPF_REG_1, BPF_REG_2);
	emit(c, bi_stx(BPF_DW, FP, BPF_REG_1, (int16_t)(c->pair + PA_KEY)));
	basm__ld_map(c->a, BPF_REG_1, pp->pending_fd);
	fp_ptr(c, BPF_REG_2, c->pair + PA_KEY);
	emit(c, bi_call(BPF_FUNC_map_delete_elem));
	basm__jmp_imm(c->a, BPF_JEQ, BPF_REG_0, 0, deleted);
	bump(c, BPF_PAIR_UNMATCHED);
	basm__ja(c->a, c->out);
	basm__place(c->a, deleted);
	bump(c, BPF_PAIR_PAIRS);
}

/* the pending start of END_KEY into the area, latency computed, deleted; none: c->out */
void bpf_pair__end(struct cc *c)
{
	const struct bpf_pair *pp = &c->p->pair;
	int p = c->pair, found, unmatched, got;

	if (pp->pending_rows) {
		end_pending(c);
		return;
	}
	if (pp->role == BPF_PAIR_BOTH) { /* no pair, or not aggregated: on to the start */
		c->done = c->out;
		c->out = basm__label(c->a);
	}
	found = basm__label(c->a);
	unmatched = basm__label(c->a);
	got = basm__label(c->a);
	emit(c, bi_call(BPF_FUNC_ktime_get_ns)); /* first thing: what follows reads it */
	emit(c, bi_stx(BPF_DW, FP, BPF_REG_0, OFF_NOW));
	emit(c, bi_mov64_reg(BPF_REG_8, BPF_REG_0));
	c->now = true;
	bpf_cc__load_val(c, &pp->end_key, BPF_REG_1, BPF_REG_2);
	emit(c, bi_stx(BPF_DW, FP, BPF_REG_1, (int16_t)(p + PA_KEY)));
	if (pp->task_store)
		task_end(c, unmatched, got);
	basm__ld_map(c->a, BPF_REG_1, pp->pending_fd);
	fp_ptr(c, BPF_REG_2, p + PA_KEY);
	emit(c, bi_call(BPF_FUNC_map_lookup_elem));
	basm__jmp_imm(c->a, BPF_JNE, BPF_REG_0, 0, found);
	basm__place(c->a, unmatched);
	bump(c, BPF_PAIR_UNMATCHED);
	basm__ja(c->a, c->out);
	basm__place(c->a, found);
	pending_to_area(c);
	basm__ld_map(c->a, BPF_REG_1, pp->pending_fd);
	fp_ptr(c, BPF_REG_2, p + PA_KEY);
	emit(c, bi_call(BPF_FUNC_map_delete_elem));
	basm__place(c->a, got);
	emit(c, bi_ldx(BPF_DW, BPF_REG_1, FP, (int16_t)(p + PA_TIME)));
	emit(c, bi_alu64_reg(BPF_SUB, BPF_REG_8, BPF_REG_1));
	emit(c, bi_stx(BPF_DW, FP, BPF_REG_8, (int16_t)(p + PA_TIME)));
	bump(c, BPF_PAIR_PAIRS);
}

void bpf_pair__both_start(struct cc *c)
{
	basm__place(c->a, c->out);
	bpf_pair__start(c);
	c->out = c->done;
}

/* r2 = the log-linear bucket of r1 (>= 0), see bpf/pairs.h (3); r3, r4, r5 scratch */
static void loglin_bucket(struct cc *c)
{
	int have = basm__label(c->a);

	emit(c, bi_mov64_reg(BPF_REG_2, BPF_REG_1));
	basm__jmp_imm(c->a, BPF_JLT, BPF_REG_1, BPF_LOGLIN_EXACT, have);
	emit(c, bi_mov64_reg(BPF_REG_3, BPF_REG_1));
	bpf_cc__log2(c, BPF_REG_3, BPF_REG_2, BPF_REG_4); /* r2 = floor(log2(r1)) */
	emit(c, bi_mov64_reg(BPF_REG_5, BPF_REG_2));
	emit(c, bi_alu64_imm(BPF_SUB, BPF_REG_5, BPF_LOGLIN_SHIFT));
	emit(c, bi_alu64_imm(BPF_AND, BPF_REG_5, 63));
	emit(c, bi_mov64_reg(BPF_REG_3, BPF_REG_1));
	emit(c, bi_alu64_reg(BPF_RSH, BPF_REG_3, BPF_REG_5));
	emit(c, bi_alu64_imm(BPF_AND, BPF_REG_3, BPF_LOGLIN_SUB - 1));
	emit(c, bi_alu64_imm(BPF_SUB, BPF_REG_2, 7));
	emit(c, bi_alu64_imm(BPF_LSH, BPF_REG_2, BPF_LOGLIN_SHIFT));
	emit(c, bi_alu64_imm(BPF_ADD, BPF_REG_2, BPF_LOGLIN_EXACT));
	emit(c, bi_alu64_reg(BPF_ADD, BPF_REG_2, BPF_REG_3));
	basm__place(c->a, have);
}

/* the group's bucket row (its key, last slot 1 + bucket) counts one more value */
void bpf_pair__loglin(struct cc *c)
{
	const struct bpf_plan *p = c->p;
	int have = basm__label(c->a), pos = basm__label(c->a), g = 0;

	while (p->aggs[g].kind != BA_LOGLIN)
		g++;
	bpf_cc__load_val(c, &p->aggs[g].v, BPF_REG_1, BPF_REG_2);
	basm__jmp_imm(c->a, BPF_JSGE, BPF_REG_1, 0, pos);
	emit(c, bi_mov64_imm(BPF_REG_1, 0)); /* never for a latency: monotonic time */
	basm__place(c->a, pos);
	loglin_bucket(c);
	emit(c, bi_alu64_imm(BPF_ADD, BPF_REG_2, 1));
	emit(c, bi_stx(BPF_DW, FP, BPF_REG_2, (int16_t)(c->key + p->key_size - 8)));
	bpf_cc__find_group(c, have);
	basm__place(c->a, have);
	emit(c, bi_ldx(BPF_DW, BPF_REG_1, BPF_REG_0, BPF_VAL_COUNT));
	emit(c, bi_alu64_imm(BPF_ADD, BPF_REG_1, 1));
	emit(c, bi_stx(BPF_DW, BPF_REG_0, BPF_REG_1, BPF_VAL_COUNT));
}
