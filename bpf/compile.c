/*
 * bpf/compile.c - plan to instructions (see bpf/compile.h).
 *
 * Registers: r6 the context (the tracepoint record), r7 the inner map, r9 the group's value,
 * r8 its count before this event; r1-r5 scratch. The stack: bpf/compile_int.h.
 */
#include <assert.h>
#include <errno.h>
#include <stddef.h>
#include <string.h>
#include <linux/bpf_perf_event.h>
#include "bpf/compile.h"
#include "bpf/compile_int.h"

#define KEY_MAX 256

static bool fits32(int64_t k) { return k >= INT32_MIN && k <= INT32_MAX; }

int bpf_ctl_size(const struct bpf_plan *p)
{
	return BPF_CTL_CPUMASK + ((p->nr_cpu_ids + 63) / 64) * 8;
}

/* r = k */
void bpf_cc__load_const(struct cc *c, int r, int64_t k)
{
	if (fits32(k))
		emit(c, bi_mov64_imm(r, (int32_t)k));
	else
		basm__ld_imm64(c->a, r, (uint64_t)k);
}

/* r = r OP t ? 1 : 0, signed */
static void cmp_op(struct cc *c, enum bpf_op op, int r, int t)
{
	static const int jmp[] = { [BOP_LT] = BPF_JSLT, [BOP_LE] = BPF_JSLE, [BOP_GT] = BPF_JSGT,
				   [BOP_GE] = BPF_JSGE, [BOP_EQ] = BPF_JEQ,  [BOP_NE] = BPF_JNE };
	int yes = basm__label(c->a), done = basm__label(c->a);

	basm__jmp_reg(c->a, jmp[op], r, t, yes);
	emit(c, bi_mov64_imm(r, 0));
	basm__ja(c->a, done);
	basm__place(c->a, yes);
	emit(c, bi_mov64_imm(r, 1));
	basm__place(c->a, done);
}

/* The value v into register r (t: scratch); see bpf/plan.h (1). */
void bpf_cc__load_val(struct cc *c, const struct bpf_val *v, int r, int t)
{
	static const int sizes[9] = { 0, BPF_B, BPF_H, 0, BPF_W, 0, 0, 0, BPF_DW };
	bool may_neg = false;

	switch (v->col) {
	case BCOL_FIELD:
		if (c->p->hook == BPF_HOOK_TP)
			emit(c, bi_ldx(sizes[v->size], r, BPF_REG_6, (int16_t)v->off));
		else if (c->p->hook == BPF_HOOK_TP_BTF) /* the member, through the typed pointer */
			bpf_cc__task_member(c, v, r, t, sizes[v->size]);
		else
			bpf_cc__syscall_field(c, v, r);
		if (v->is_signed && v->size < 8) {
			emit(c, bi_alu64_imm(BPF_LSH, r, 64 - 8 * v->size));
			emit(c, bi_alu64_imm(BPF_ARSH, r, 64 - 8 * v->size));
		}
		may_neg = v->is_signed || v->size == 8;
		break;
	case BCOL_PID:
		emit(c, bi_ldx(BPF_DW, r, FP, OFF_PIDTGID));
		emit(c, bi_alu64_imm(BPF_RSH, r, 32));
		break;
	case BCOL_TID:
		emit(c, bi_ldx(BPF_DW, r, FP, OFF_PIDTGID));
		emit(c, bi_alu64_imm(BPF_LSH, r, 32));
		emit(c, bi_alu64_imm(BPF_RSH, r, 32));
		break;
	case BCOL_CPU: emit(c, bi_ldx(BPF_DW, r, FP, OFF_CPU)); break;
	case BCOL_CGROUP: emit(c, bi_ldx(BPF_DW, r, FP, OFF_CGROUP)); break;
	case BCOL_REG:
		bpf_cc__load_reg(c, v, r);
		may_neg = true;
		break;
	case BCOL_PAIR_KEY:
	case BCOL_PAIR_LAT:
	case BCOL_PAIR_SVAL:
	case BCOL_PAIR_STID:
	case BCOL_PAIR_SPID: may_neg = bpf_pair__load(c, v, r); break;
	case BCOL_IP:
	case BCOL_ADDR:
	case BCOL_PERIOD: /* struct bpf_perf_event_data */
		emit(c, bi_ldx(BPF_DW, r, BPF_REG_6,
			       v->col == BCOL_IP ? offsetof(struct bpf_perf_event_data, regs.rip)
			       : v->col == BCOL_ADDR
				       ? offsetof(struct bpf_perf_event_data, addr)
				       : offsetof(struct bpf_perf_event_data, sample_period)));
		may_neg = true;
		break;
	default: break;
	}
	for (int i = 0; i < v->nr_ops; i++) {
		int64_t k = v->ops[i].k;

		if (v->ops[i].opnd) { /* a column (no ops of its own: t is not used) */
			assert(v->ops[i].opnd <= c->p->nr_opnds);
			assert(!c->p->opnds[v->ops[i].opnd - 1].nr_ops);
			bpf_cc__load_val(c, &c->p->opnds[v->ops[i].opnd - 1], t, t);
		} else {
			bpf_cc__load_const(c, t, k);
		}
		if (v->ops[i].op >= BOP_LT) {
			cmp_op(c, v->ops[i].op, r, t);
			may_neg = false;
		} else if (v->ops[i].op == BOP_SHR || v->ops[i].op == BOP_SHL) {
			assert(k >= 0 && k < 64 && !v->ops[i].opnd);
			emit(c, bi_alu64_reg(v->ops[i].op == BOP_SHR ? BPF_ARSH : BPF_LSH, r, t));
			may_neg = v->ops[i].op == BOP_SHL || may_neg;
		} else if (v->ops[i].op == BOP_ADD || v->ops[i].op == BOP_SUB) {
			emit(c, bi_alu64_reg(v->ops[i].op == BOP_ADD ? BPF_ADD : BPF_SUB, r, t));
			may_neg = true;
		} else if (v->ops[i].op == BOP_AND) {
			emit(c, bi_alu64_reg(BPF_AND, r, t));
			may_neg = may_neg && k < 0;
		} else { /* k > 0: signed and unsigned agree on values >= 0 */
			emit(c, bi_divmod64_reg(v->ops[i].op == BOP_DIV ? BPF_DIV : BPF_MOD, r, t,
						may_neg));
		}
	}
}

/* a __data_loc text into fp+dst (BPF_MAX_STR bytes, zero after its NUL): read through the
 * record's address, at most BPF_MAX_STR bytes with the NUL (dstr_check() made sure) (r0-r3) */
static void copy_dstr(struct cc *c, const struct bpf_val *v, int dst)
{
	for (int i = 0; i < BPF_MAX_STR; i += 8)
		emit(c, bi_st(BPF_DW, FP, (int16_t)(dst + i), 0));
	emit(c, bi_ldx(BPF_W, BPF_REG_3, BPF_REG_6, (int16_t)v->off));
	emit(c, bi_alu64_imm(BPF_AND, BPF_REG_3, 0xffff));
	if (v->rel)
		emit(c, bi_alu64_imm(BPF_ADD, BPF_REG_3, v->off + 4));
	emit(c, bi_alu64_reg(BPF_ADD, BPF_REG_3, BPF_REG_6));
	emit(c, bi_mov64_reg(BPF_REG_1, FP));
	emit(c, bi_alu64_imm(BPF_ADD, BPF_REG_1, dst));
	emit(c, bi_mov64_imm(BPF_REG_2, BPF_MAX_STR));
	emit(c, bi_call(BPF_FUNC_probe_read_kernel_str));
}

/* char[size] at the record's off into fp+dst, bytes from the first NUL on zeroed (r1, r2) */
void bpf_cc__copy_str(struct cc *c, const struct bpf_val *v, int dst)
{
	int padded = (v->size + 7) & ~7, src = BPF_REG_6, off = v->off;
	const char *member = NULL;

	if (v->col == BCOL_DSTR) {
		copy_dstr(c, v, dst);
		return;
	}
	if (c->p->hook == BPF_HOOK_TP_BTF) { /* task->comm: direct loads through the pointer */
		src = BPF_REG_3;
		off = bpf_cc__task_arg(c, v->off, src, &member);
	}
	for (int i = 0; i < padded; i += 8)
		emit(c, bi_st(BPF_DW, FP, (int16_t)(dst + i), 0));
	emit(c, bi_mov64_imm(BPF_REG_2, 0xff));
	for (int i = 0; i < v->size; i++) {
		int next = basm__label(c->a);

		if (member)
			basm__note(c->a, false, "task_struct.%s + %d", member, i);
		emit(c, bi_ldx(BPF_B, BPF_REG_1, src, (int16_t)(off + i)));
		emit(c, bi_alu64_reg(BPF_AND, BPF_REG_1, BPF_REG_2));
		emit(c, bi_stx(BPF_B, FP, BPF_REG_1, (int16_t)(dst + i)));
		basm__jmp_imm(c->a, BPF_JNE, BPF_REG_1, 0, next);
		emit(c, bi_mov64_imm(BPF_REG_2, 0));
		basm__place(c->a, next);
	}
}

static void pred_cmp(struct cc *c, const struct bpf_pred *n, int yes, int no)
{
	static const int ops[] = { [BC_EQ] = BPF_JEQ,  [BC_NE] = BPF_JNE,  [BC_LT] = BPF_JSLT,
				   [BC_LE] = BPF_JSLE, [BC_GT] = BPF_JSGT, [BC_GE] = BPF_JSGE };

	bpf_cc__load_val(c, &n->v, BPF_REG_1, BPF_REG_2);
	if (fits32(n->k)) {
		basm__jmp_imm(c->a, ops[n->cmp], BPF_REG_1, (int32_t)n->k, yes);
	} else {
		basm__ld_imm64(c->a, BPF_REG_2, (uint64_t)n->k);
		basm__jmp_reg(c->a, ops[n->cmp], BPF_REG_1, BPF_REG_2, yes);
	}
	basm__ja(c->a, no);
}

/* text equality, 8 bytes at a time against the zero-padded literal */
static void pred_streq(struct cc *c, const struct bpf_pred *n, int yes, int no)
{
	int size = bpf_val__str_size(&n->v), buf = OFF_COMM;

	if (n->v.col == BCOL_PAIR_SSTR || n->v.col == BCOL_PAIR_COMM)
		buf = bpf_pair__str_at(c, &n->v);
	if (n->v.col == BCOL_STR || n->v.col == BCOL_DSTR) {
		bpf_cc__copy_str(c, &n->v, OFF_STR);
		buf = OFF_STR;
	}
	for (int i = 0; i < size; i += 8) {
		uint64_t w;

		memcpy(&w, n->s + i, 8);
		emit(c, bi_ldx(BPF_DW, BPF_REG_1, FP, (int16_t)(buf + i)));
		if (i + 8 > size) /* the last partial word: the buffer is zero past size */
			w &= size - i == 8 ? ~0ull : (1ull << ((size - i) * 8)) - 1;
		basm__ld_imm64(c->a, BPF_REG_2, w);
		basm__jmp_reg(c->a, BPF_JNE, BPF_REG_1, BPF_REG_2, no);
	}
	basm__ja(c->a, yes);
}

void bpf_cc__pred(struct cc *c, int i, int yes, int no)
{
	const struct bpf_pred *n = &c->p->where[i];
	int mid;

	switch (n->kind) {
	case BP_AND:
		mid = basm__label(c->a);
		bpf_cc__pred(c, n->a, mid, no);
		basm__place(c->a, mid);
		bpf_cc__pred(c, n->b, yes, no);
		break;
	case BP_OR:
		mid = basm__label(c->a);
		bpf_cc__pred(c, n->a, yes, mid);
		basm__place(c->a, mid);
		bpf_cc__pred(c, n->b, yes, no);
		break;
	case BP_NOT: bpf_cc__pred(c, n->a, no, yes); break;
	case BP_CMP: pred_cmp(c, n, yes, no); break;
	case BP_STREQ: pred_streq(c, n, yes, no); break;
	case BP_TRUE: basm__ja(c->a, yes); break;
	case BP_FALSE: /* only a root (bpf_plan__fold): a test the verifier cannot decide, so
			  * no code after it is unreachable (the control map's reserved word is 0) */
		basm__ld_map_value(c->a, BPF_REG_1, c->m->ctl, 0);
		emit(c, bi_ldx(BPF_W, BPF_REG_1, BPF_REG_1, BPF_CTL_RESERVED));
		basm__jmp_imm(c->a, BPF_JEQ, BPF_REG_1, 0, no);
		basm__ja(c->a, yes);
		break;
	}
}

static bool uses(const struct bpf_plan *p, enum bpf_col col)
{
	const struct bpf_val *v[BPF_MAX_VALS];
	int n = bpf_plan__values(p, v);

	for (int i = 0; i < n; i++)
		if (v[i]->col == col)
			return true;
	return false;
}

/* gate, thread and CPU filters, helpers' values to the stack, WHERE */
static void prologue(struct cc *c)
{
	const struct bpf_plan *p = c->p;

	emit(c, bi_mov64_reg(BPF_REG_6, BPF_REG_1));
	basm__ld_map_value(c->a, BPF_REG_1, c->m->ctl, 0);
	emit(c, bi_ldx(BPF_W, BPF_REG_2, BPF_REG_1, BPF_CTL_ENABLED));
	basm__jmp_imm(c->a, BPF_JEQ, BPF_REG_2, 0, c->out);
	if (p->hook == BPF_HOOK_SYS_ENTER || p->hook == BPF_HOOK_SYS_EXIT)
		bpf_cc__syscall_filter(c);
	bpf_cc__who(c, uses(p, BCOL_PID) || uses(p, BCOL_TID), uses(p, BCOL_CPU));
	if (uses(p, BCOL_CGROUP)) { /* once, before WHERE and the key read it */
		emit(c, bi_call(BPF_FUNC_get_current_cgroup_id));
		emit(c, bi_stx(BPF_DW, FP, BPF_REG_0, OFF_CGROUP));
	}
}

/* a __data_loc text the program reads that is longer than it keeps (BPF_MAX_STR bytes with
 * its NUL): the event is counted lost, before anything of it is aggregated */
static void dstr_check(struct cc *c)
{
	const struct bpf_val *v[BPF_MAX_VALS];
	int n = bpf_plan__values(c->p, v), lost = basm__label(c->a), ok = basm__label(c->a);
	bool any = false;

	for (int i = 0; i < n; i++)
		if (v[i]->col == BCOL_DSTR) {
			emit(c, bi_ldx(BPF_W, BPF_REG_1, BPF_REG_6, (int16_t)v[i]->off));
			emit(c, bi_alu64_imm(BPF_RSH, BPF_REG_1, 16));
			basm__jmp_imm(c->a, BPF_JGT, BPF_REG_1, BPF_MAX_STR, lost);
			any = true;
		}
	if (!any)
		return;
	basm__ja(c->a, ok);
	basm__place(c->a, lost);
	bpf_cc__count_lost(c, 0);
	basm__place(c->a, ok);
}

/* WHERE: on to the group, or out */
static void where(struct cc *c)
{
	const struct bpf_plan *p = c->p;

	if (p->where_root >= 0) {
		int go = basm__label(c->a);

		if (uses(p, BCOL_COMM))
			bpf_cc__current_comm(c, OFF_COMM);
		bpf_cc__pred(c, p->where_root, go, c->out);
		basm__place(c->a, go);
	}
}

/* ++stats[cpu] at byte off of the stats value, then return 1 */
void bpf_cc__count_lost(struct cc *c, int off)
{
	emit(c, bi_call(BPF_FUNC_get_smp_processor_id));
	basm__jmp_imm(c->a, BPF_JGE, BPF_REG_0, c->p->nr_cpu_ids, c->out);
	emit(c, bi_alu64_imm(BPF_LSH, BPF_REG_0, 3));
	basm__ld_map_value(c->a, BPF_REG_1, c->m->stats, off);
	emit(c, bi_alu64_reg(BPF_ADD, BPF_REG_1, BPF_REG_0));
	emit(c, bi_mov64_imm(BPF_REG_2, 1));
	emit(c, bi_atomic_add64(BPF_REG_1, BPF_REG_2, 0));
	basm__ja(c->a, c->out);
}

static void build_key(struct cc *c)
{
	const struct bpf_plan *p = c->p;

	for (int i = 0; i < p->key_size; i += 8)
		emit(c, bi_st(BPF_DW, FP, (int16_t)(c->key + i), 0));
	for (int i = 0; i < p->nr_keys; i++) {
		const struct bpf_val *v = &p->keys[i];
		int at = c->key + p->key_off[i];

		if (v->col == BCOL_COMM) {
			bpf_cc__current_comm(c, at);
		} else if (v->col == BCOL_STR || v->col == BCOL_DSTR) {
			bpf_cc__copy_str(c, v, at);
		} else if (v->col == BCOL_STACK) {
			bpf_cc__stack_key(c, at);
		} else if (v->col == BCOL_PAIR_STACK) {
			bpf_pair__copy_stack(c, at);
		} else if (v->col == BCOL_PAIR_SSTR || v->col == BCOL_PAIR_COMM) {
			bpf_pair__copy_str(c, v, at);
		} else {
			bpf_cc__load_val(c, v, BPF_REG_1, BPF_REG_2);
			emit(c, bi_stx(BPF_DW, FP, BPF_REG_1, (int16_t)at));
		}
	}
}

static void key_arg(struct cc *c)
{
	emit(c, bi_mov64_reg(BPF_REG_1, BPF_REG_7));
	emit(c, bi_mov64_reg(BPF_REG_2, FP));
	emit(c, bi_alu64_imm(BPF_ADD, BPF_REG_2, c->key));
}

/* r9 = this CPU's value of the key's group, created on first sight; a full map counts */
void bpf_cc__find_group(struct cc *c, int have)
{
	if (c->m->direct >= 0) {
		basm__ld_map(c->a, BPF_REG_7, c->m->direct);
	} else {
		emit(c, bi_st(BPF_W, FP, OFF_ZERO32, 0));
		basm__ld_map(c->a, BPF_REG_1, c->m->outer);
		emit(c, bi_mov64_reg(BPF_REG_2, FP));
		emit(c, bi_alu64_imm(BPF_ADD, BPF_REG_2, OFF_ZERO32));
		emit(c, bi_call(BPF_FUNC_map_lookup_elem));
		basm__jmp_imm(c->a, BPF_JEQ, BPF_REG_0, 0, c->out);
		emit(c, bi_mov64_reg(BPF_REG_7, BPF_REG_0));
	}
	key_arg(c);
	emit(c, bi_call(BPF_FUNC_map_lookup_elem));
	basm__jmp_imm(c->a, BPF_JNE, BPF_REG_0, 0, have);
	key_arg(c);
	basm__ld_map_value(c->a, BPF_REG_3, c->m->zero, 0);
	emit(c, bi_mov64_imm(BPF_REG_4, BPF_NOEXIST));
	emit(c, bi_call(BPF_FUNC_map_update_elem));
	key_arg(c); /* created here, or by another CPU meanwhile (-EEXIST) */
	emit(c, bi_call(BPF_FUNC_map_lookup_elem));
	basm__jmp_imm(c->a, BPF_JNE, BPF_REG_0, 0, have);
	bpf_cc__count_lost(c, 0);
}

/* out = floor(log2(v)) for v >= 0 (0 for 0 and 1), by halving steps; v is consumed, t scratch */
void bpf_cc__log2(struct cc *c, int v, int out, int t)
{
	assert(v != out && v != t && out != t);
	emit(c, bi_mov64_imm(out, 0));
	for (int shift = 32; shift; shift /= 2) {
		int next = basm__label(c->a);

		emit(c, bi_mov64_reg(t, v));
		emit(c, bi_alu64_imm(BPF_RSH, t, shift));
		basm__jmp_imm(c->a, BPF_JEQ, t, 0, next);
		emit(c, bi_mov64_reg(v, t));
		emit(c, bi_alu64_imm(BPF_ADD, out, shift));
		basm__place(c->a, next);
	}
}

void bpf_cc__now(struct cc *c)
{
	if (c->now)
		emit(c, bi_ldx(BPF_DW, BPF_REG_0, FP, OFF_NOW));
	else
		emit(c, bi_call(BPF_FUNC_ktime_get_ns));
}

int bpf_compile(const struct bpf_plan *p, const struct bpf_prog_maps *m,
		const struct bpf_kernel_offs *k, struct basm *a)
{
	struct cc c = { .p = p, .m = m, .k = k, .a = a };
	int have;

	if (p->key_size > KEY_MAX || p->nr_aggs > 63)
		return -E2BIG;
	if ((p->hook != BPF_HOOK_TP && !k) ||
	    (bpf_plan__has_stack(p) && (m->stacks < 0 || m->stack_buf < 0)))
		return -EINVAL;
	c.key = OFF_NOW - ((p->key_size + 7) & ~7);
	c.pair = c.key - BPF_PAIR_AREA;
	/* the frame: the helpers' slots, the text buffer, the key, the pair's area (bpf/pairs.c),
	 * all inside the 512 bytes of stack */
	assert(OFF_STR + BPF_MAX_STR + 8 <= OFF_COMM && OFF_NOW + 8 <= OFF_STR &&
	       c.key + p->key_size <= OFF_NOW);
	assert(c.pair >= -512 && c.pair % 8 == 0);
	c.out = basm__label(a);
	have = basm__label(a);
	prologue(&c);
	dstr_check(&c);
	if (p->pair.role == BPF_PAIR_START) {
		bpf_pair__start(&c);
		goto out;
	}
	if (p->pair.role != BPF_PAIR_NONE)
		bpf_pair__end(&c); /* BOTH: c.out is now the start's part */
	if (p->pair.pending_rows)  /* pending(): the hash is the rows; no group */
		goto out;
	where(&c);
	build_key(&c);
	bpf_cc__find_group(&c, have);
	basm__place(a, have);
	bpf_cc__update_group(&c);
	if (p->pair.role == BPF_PAIR_BOTH)
		bpf_pair__both_start(&c);
out:
	basm__place(a, c.out);
	/* 1: a tracepoint's other perf users see the event; 0: our own samples go nowhere
	 * (tp_btf's value is ignored: perf's own probe on the tracepoint runs regardless) */
	emit(&c, bi_mov64_imm(BPF_REG_0,
			      p->hook == BPF_HOOK_PERF || p->hook == BPF_HOOK_UPROBE ? 0 : 1));
	emit(&c, bi_exit());
	return c.bad ? -EINVAL : basm__finish(a);
}
