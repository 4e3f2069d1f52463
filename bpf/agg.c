/*
 * bpf/agg.c - the group's value, updated by each event (bpf/compile.h (5)): count, then each
 * aggregate's state in this CPU's value (a per-CPU hash: no atomics). r9 is the value, r8 its
 * count before this event; r1-r5 scratch.
 *
 *   sum       64-bit, a signed overflow flagged (SQLite's "integer overflow")
 *   min, max  the first value of this CPU's group, then a smaller (larger) one; the bare
 *             columns that follow it (bpf/plan.h, BA_BARE) are stored with it
 *   log2_hist floor(log2(v)) by halving steps; a negative value flagged and kept
 *   lin_hist  under- and overflow buckets around (v - lo) / step
 *   bare      the row's time and the value, at this CPU's first event of the group (the first
 *             row), or with the min/max it follows
 */
#include "bpf/compile.h"
#include "bpf/compile_int.h"

#define OFF_BARE_STR (-120) /* scratch for a bare text value: compile.c's OFF_STR, free here */

/* flags |= 1 << i (r4, r5) */
static void set_flag(struct cc *c, int i)
{
	emit(c, bi_ldx(BPF_DW, BPF_REG_4, BPF_REG_9, BPF_VAL_FLAGS));
	bpf_cc__load_const(c, BPF_REG_5, (int64_t)(1ull << i));
	emit(c, bi_alu64_reg(BPF_OR, BPF_REG_4, BPF_REG_5));
	emit(c, bi_stx(BPF_DW, BPF_REG_9, BPF_REG_4, BPF_VAL_FLAGS));
}

/* sum += r1; a signed overflow sets the flag (SQLite's sum() fails with "integer overflow") */
static void agg_sum(struct cc *c, const struct bpf_agg *g, int i)
{
	int ok = basm__label(c->a);

	emit(c, bi_ldx(BPF_DW, BPF_REG_2, BPF_REG_9, (int16_t)g->off));
	emit(c, bi_mov64_reg(BPF_REG_3, BPF_REG_2));
	emit(c, bi_alu64_reg(BPF_ADD, BPF_REG_3, BPF_REG_1));
	emit(c, bi_stx(BPF_DW, BPF_REG_9, BPF_REG_3, (int16_t)g->off));
	emit(c, bi_alu64_reg(BPF_XOR, BPF_REG_2, BPF_REG_3));
	emit(c, bi_alu64_reg(BPF_XOR, BPF_REG_1, BPF_REG_3));
	emit(c, bi_alu64_reg(BPF_AND, BPF_REG_2, BPF_REG_1));
	basm__jmp_imm(c->a, BPF_JSGE, BPF_REG_2, 0, ok);
	set_flag(c, i);
	basm__place(c->a, ok);
}

/* a bare column: the time (this run's, bpf_cc__now), then the value (a text through the scratch buffer) */
static void agg_bare(struct cc *c, const struct bpf_agg *g)
{
	int at = g->off + BPF_BARE_VAL;

	bpf_cc__now(c);
	emit(c, bi_stx(BPF_DW, BPF_REG_9, BPF_REG_0, (int16_t)g->off));
	if (!bpf_val__is_str(&g->v)) {
		bpf_cc__load_val(c, &g->v, BPF_REG_1, BPF_REG_2);
		emit(c, bi_stx(BPF_DW, BPF_REG_9, BPF_REG_1, (int16_t)at));
		return;
	}
	if (g->v.col == BCOL_COMM) {
		bpf_cc__current_comm(c, OFF_BARE_STR); /* the idle task as 'swapper', as the ring */
	} else if (g->v.col == BCOL_STR || g->v.col == BCOL_DSTR) {
		bpf_cc__copy_str(c, &g->v, OFF_BARE_STR);
	} else {
		bpf_pair__copy_str(c, &g->v, OFF_BARE_STR);
	}
	for (int i = 0; i < bpf_val__str_size(&g->v); i += 8) {
		emit(c, bi_ldx(BPF_DW, BPF_REG_1, FP, (int16_t)(OFF_BARE_STR + i)));
		emit(c, bi_stx(BPF_DW, BPF_REG_9, BPF_REG_1, (int16_t)(at + i)));
	}
}

/* min/max: the first value of this CPU's group (count was 0), or a smaller/larger one; the
 * bare columns following aggregate i are taken with it */
static void agg_minmax(struct cc *c, const struct bpf_agg *g, int i)
{
	int set = basm__label(c->a), skip = basm__label(c->a);

	basm__jmp_imm(c->a, BPF_JEQ, BPF_REG_8, 0, set);
	emit(c, bi_ldx(BPF_DW, BPF_REG_2, BPF_REG_9, (int16_t)g->off));
	basm__jmp_reg(c->a, g->kind == BA_MIN ? BPF_JSGE : BPF_JSLE, BPF_REG_1, BPF_REG_2, skip);
	basm__place(c->a, set);
	emit(c, bi_stx(BPF_DW, BPF_REG_9, BPF_REG_1, (int16_t)g->off));
	for (int k = 0; k < c->p->nr_aggs; k++)
		if (c->p->aggs[k].kind == BA_BARE && c->p->aggs[k].follow == i)
			agg_bare(c, &c->p->aggs[k]);
	basm__place(c->a, skip);
}

/* bucket index in r2 -> ++counts[r2] (r3, r4) */
static void bump_bucket(struct cc *c, const struct bpf_agg *g)
{
	emit(c, bi_alu64_imm(BPF_LSH, BPF_REG_2, 3));
	emit(c, bi_mov64_reg(BPF_REG_3, BPF_REG_9));
	emit(c, bi_alu64_reg(BPF_ADD, BPF_REG_3, BPF_REG_2));
	emit(c, bi_ldx(BPF_DW, BPF_REG_4, BPF_REG_3, (int16_t)g->off));
	emit(c, bi_alu64_imm(BPF_ADD, BPF_REG_4, 1));
	emit(c, bi_stx(BPF_DW, BPF_REG_3, BPF_REG_4, (int16_t)g->off));
}

/* floor(log2(r1)) by halving steps (0 and 1 go to bucket 0); a negative value sets the flag */
static void agg_log2(struct cc *c, const struct bpf_agg *g, int i)
{
	int pos = basm__label(c->a), done = basm__label(c->a);

	basm__jmp_imm(c->a, BPF_JSGE, BPF_REG_1, 0, pos);
	emit(c, bi_stx(BPF_DW, BPF_REG_9, BPF_REG_1, (int16_t)(g->off + BPF_LOG2_NEG_OFF)));
	set_flag(c, i);
	basm__ja(c->a, done);
	basm__place(c->a, pos);
	bpf_cc__log2(c, BPF_REG_1, BPF_REG_2, BPF_REG_4);
	emit(c, bi_alu64_imm(BPF_AND, BPF_REG_2, BPF_LOG2_SLOTS - 1));
	bump_bucket(c, g);
	basm__place(c->a, done);
}

/* lin_hist's bucket: 0 below lo, nr-1 at or above hi, else 1 + (v - lo) / step (unsigned) */
static void agg_lin(struct cc *c, const struct bpf_agg *g)
{
	int under = basm__label(c->a), over = basm__label(c->a), have = basm__label(c->a);
	int last = g->nr_buckets - 1;

	bpf_cc__load_const(c, BPF_REG_3, g->lo);
	basm__jmp_reg(c->a, BPF_JSLT, BPF_REG_1, BPF_REG_3, under);
	bpf_cc__load_const(c, BPF_REG_4, g->hi);
	basm__jmp_reg(c->a, BPF_JSGE, BPF_REG_1, BPF_REG_4, over);
	emit(c, bi_mov64_reg(BPF_REG_2, BPF_REG_1));
	emit(c, bi_alu64_reg(BPF_SUB, BPF_REG_2, BPF_REG_3));
	bpf_cc__load_const(c, BPF_REG_4, g->step);
	emit(c, bi_divmod64_reg(BPF_DIV, BPF_REG_2, BPF_REG_4, false));
	emit(c, bi_alu64_imm(BPF_ADD, BPF_REG_2, 1));
	basm__jmp_imm(c->a, BPF_JLE, BPF_REG_2, last, have);
	basm__place(c->a, over);
	emit(c, bi_mov64_imm(BPF_REG_2, last));
	basm__ja(c->a, have);
	basm__place(c->a, under);
	emit(c, bi_mov64_imm(BPF_REG_2, 0));
	basm__place(c->a, have);
	bump_bucket(c, g);
}

void bpf_cc__update_group(struct cc *c)
{
	emit(c, bi_mov64_reg(BPF_REG_9, BPF_REG_0));
	emit(c, bi_ldx(BPF_DW, BPF_REG_8, BPF_REG_9, BPF_VAL_COUNT));
	for (int i = 0; i < c->p->nr_aggs; i++) {
		const struct bpf_agg *g = &c->p->aggs[i];

		if (g->kind == BA_LOGLIN) /* after the group (bpf/pairs.c) */
			continue;
		if (g->kind == BA_BARE) { /* with its min/max, or here: the first row */
			int later = basm__label(c->a);

			if (g->follow >= 0)
				continue;
			basm__jmp_imm(c->a, BPF_JNE, BPF_REG_8, 0, later);
			agg_bare(c, g);
			basm__place(c->a, later);
			continue;
		}
		bpf_cc__load_val(c, &g->v, BPF_REG_1, BPF_REG_2);
		switch (g->kind) {
		case BA_LOGLIN:
		case BA_BARE: break;
		case BA_SUM: agg_sum(c, g, i); break;
		case BA_MIN:
		case BA_MAX: agg_minmax(c, g, i); break;
		case BA_LOG2: agg_log2(c, g, i); break;
		case BA_LIN: agg_lin(c, g); break;
		}
	}
	emit(c, bi_alu64_imm(BPF_ADD, BPF_REG_8, 1));
	emit(c, bi_stx(BPF_DW, BPF_REG_9, BPF_REG_8, BPF_VAL_COUNT));
	if (bpf_plan__has_loglin(c->p))
		bpf_pair__loglin(c);
}
