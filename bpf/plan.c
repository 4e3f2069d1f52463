/*
 * bpf/plan.c - the layout of a plan's keys and values (see bpf/plan.h).
 */
#include <assert.h>
#include <string.h>
#include "bpf/plan.h"

bool bpf_plan__has_stack(const struct bpf_plan *p)
{
	for (int i = 0; i < p->nr_keys; i++)
		if (bpf_val__is_stack(&p->keys[i]))
			return true;
	return false;
}

void bpf_plan__layout(struct bpf_plan *p)
{
	int off = 0;

	for (int i = 0; i < p->nr_keys; i++) {
		const struct bpf_val *v = &p->keys[i];

		p->key_off[i] = off;
		off += bpf_val__is_stack(v) ? BPF_STACK_KEY
		       : bpf_val__is_str(v) ? (bpf_val__str_size(v) + 7) & ~7
					    : 8;
	}
	p->key_size = off ? off : 8; /* no GROUP BY: one group, key 0 */
	if (bpf_plan__has_loglin(p)) /* the bucket's slot (bpf/pairs.h) */
		p->key_size += 8;
	off = BPF_VAL_FLAGS + 8;
	for (int i = 0; i < p->nr_aggs; i++) {
		struct bpf_agg *g = &p->aggs[i];

		switch (g->kind) {
		case BA_LOG2:
			g->nr_buckets = BPF_LOG2_SLOTS;
			g->size = BPF_LOG2_NEG_OFF + 8;
			break;
		case BA_LIN: g->size = g->nr_buckets * 8; break;
		case BA_LOGLIN: g->size = 0; break; /* in rows of their own (bpf/pairs.h) */
		case BA_BARE:
			g->size =
				BPF_BARE_VAL +
				(bpf_val__is_str(&g->v) ? (bpf_val__str_size(&g->v) + 7) & ~7 : 8);
			break;
		default: g->size = 8; break;
		}
		g->off = off;
		off += g->size;
	}
	p->value_size = off;
}

bool bpf_plan__has_loglin(const struct bpf_plan *p)
{
	for (int i = 0; i < p->nr_aggs; i++)
		if (p->aggs[i].kind == BA_LOGLIN)
			return true;
	return false;
}

/* TRUE and FALSE out of AND, OR, NOT: only the root may be one (nothing the verifier would
 * find unreachable inside) */
static int fold(struct bpf_plan *p, int n)
{
	struct bpf_pred *x = &p->where[n];
	int a, b;

	if (x->kind == BP_NOT) {
		a = fold(p, x->a);
		if (p->where[a].kind == BP_TRUE || p->where[a].kind == BP_FALSE) {
			x->kind = p->where[a].kind == BP_TRUE ? BP_FALSE : BP_TRUE;
			return n;
		}
		x->a = a;
	} else if (x->kind == BP_AND || x->kind == BP_OR) {
		int absorb = x->kind == BP_AND ? BP_FALSE : BP_TRUE; /* x AND FALSE, x OR TRUE */

		a = fold(p, x->a);
		b = fold(p, x->b);
		if ((int)p->where[a].kind == absorb || (int)p->where[b].kind == absorb)
			return (int)p->where[a].kind == absorb ? a : b;
		if (p->where[a].kind == BP_TRUE || p->where[a].kind == BP_FALSE)
			return b; /* the neutral one: TRUE AND b, FALSE OR b */
		if (p->where[b].kind == BP_TRUE || p->where[b].kind == BP_FALSE)
			return a;
		x->a = a;
		x->b = b;
	}
	return n;
}

void bpf_plan__fold(struct bpf_plan *p)
{
	if (p->where_root < 0)
		return;
	p->where_root = fold(p, p->where_root);
	if (p->where[p->where_root].kind == BP_TRUE)
		p->where_root = -1;
}

int bpf_plan__values(const struct bpf_plan *p, const struct bpf_val **v)
{
	const struct bpf_pair *pp = &p->pair;
	int n = 0;

	for (int i = 0; i < p->nr_keys; i++)
		v[n++] = &p->keys[i];
	for (int i = 0; i < p->nr_aggs; i++)
		v[n++] = &p->aggs[i].v;
	for (int i = 0; i < p->nr_where; i++)
		if (p->where[i].kind == BP_CMP || p->where[i].kind == BP_STREQ)
			v[n++] = &p->where[i].v;
	for (int i = 0; i < p->nr_task_vals; i++)
		v[n++] = &p->task_vals[i];
	for (int i = 0; i < p->nr_opnds; i++)
		v[n++] = &p->opnds[i];
	if (pp->role == BPF_PAIR_END || pp->role == BPF_PAIR_BOTH)
		v[n++] = &pp->end_key;
	if (pp->role == BPF_PAIR_START || pp->role == BPF_PAIR_BOTH)
		v[n++] = &pp->start_key;
	if ((pp->role == BPF_PAIR_START || pp->role == BPF_PAIR_BOTH) && pp->has_start_val)
		v[n++] = &pp->start_val;
	if ((pp->role == BPF_PAIR_START || pp->role == BPF_PAIR_BOTH) && pp->has_start_val2)
		v[n++] = &pp->start_val2;
	assert(n <= BPF_MAX_VALS);
	return n;
}

int bpf_plan__pred(struct bpf_plan *p, const struct bpf_pred *n)
{
	if (p->nr_where == BPF_MAX_PRED)
		return -1;
	p->where[p->nr_where] = *n;
	return p->nr_where++;
}

struct bpf_plan bpf_plan__start(const struct bpf_plan *p)
{
	struct bpf_plan s = *p;

	s.pair.role = BPF_PAIR_START;
	s.tp_id = p->pair.start_tp_id;
	s.hook = p->pair.start_hook;
	s.syscall_nr = p->pair.start_syscall_nr;
	s.tp_btf = p->pair.start_tp_btf;
	s.nr_task_vals = p->pair.nr_start_task_vals;
	for (int i = 0; i < s.nr_task_vals; i++)
		s.task_vals[i] = p->pair.start_task_vals[i];
	s.nr_keys = s.nr_aggs = s.nr_where = 0;
	s.where_root = -1;
	bpf_plan__layout(&s);
	return s;
}

static uint64_t u64_at(const uint8_t *p, int off)
{
	uint64_t v;

	memcpy(&v, p + off, 8);
	return v;
}

static void put_u64(uint8_t *p, int off, uint64_t v) { memcpy(p + off, &v, 8); }

/* does CPU value v's bare column g replace the row r's: v's row is the earlier one, or v's
 * followed min/max is better, or as good and reached earlier (SQLite keeps the first) */
static bool bare_takes(const struct bpf_plan *p, const struct bpf_agg *g, const uint8_t *r,
		       const uint8_t *v)
{
	const struct bpf_agg *f = g->follow >= 0 ? &p->aggs[g->follow] : NULL;
	uint64_t rt = u64_at(r, g->off), vt = u64_at(v, g->off);
	int64_t a, b;

	if (!f)
		return vt < rt;
	a = (int64_t)u64_at(r, f->off);
	b = (int64_t)u64_at(v, f->off);
	if (a != b)
		return f->kind == BA_MIN ? b < a : b > a;
	return vt < rt;
}

/* one CPU's value v into the row's value r (r's count 0: v's states are taken as they are) */
void bpf_plan__merge(const struct bpf_plan *p, uint8_t *r, const uint8_t *v)
{
	bool first = u64_at(r, BPF_VAL_COUNT) == 0;
	uint64_t flags = u64_at(r, BPF_VAL_FLAGS) | u64_at(v, BPF_VAL_FLAGS);

	for (int i = 0; i < p->nr_aggs; i++) /* before the aggregates they follow merge */
		if (p->aggs[i].kind == BA_BARE && (first || bare_takes(p, &p->aggs[i], r, v)))
			memcpy(r + p->aggs[i].off, v + p->aggs[i].off, (size_t)p->aggs[i].size);

	put_u64(r, BPF_VAL_COUNT, u64_at(r, BPF_VAL_COUNT) + u64_at(v, BPF_VAL_COUNT));
	for (int i = 0; i < p->nr_aggs; i++) {
		const struct bpf_agg *g = &p->aggs[i];
		int64_t a = (int64_t)u64_at(r, g->off), b = (int64_t)u64_at(v, g->off), sum;

		switch (g->kind) {
		case BA_SUM:
			if (__builtin_add_overflow(a, b, &sum))
				flags |= 1ull << i;
			put_u64(r, g->off, (uint64_t)sum);
			break;
		case BA_MIN:
		case BA_MAX:
			if (first || (g->kind == BA_MIN ? b < a : b > a))
				put_u64(r, g->off, (uint64_t)b);
			break;
		case BA_LOGLIN:      /* rows of their own */
		case BA_BARE: break; /* above */
		case BA_LOG2:
		case BA_LIN:
			for (int k = 0; k < g->nr_buckets; k++)
				put_u64(r, g->off + 8 * k,
					u64_at(r, g->off + 8 * k) + u64_at(v, g->off + 8 * k));
			if (g->kind == BA_LOG2 && (u64_at(v, BPF_VAL_FLAGS) >> i) & 1)
				memcpy(r + g->off + BPF_LOG2_NEG_OFF, v + g->off + BPF_LOG2_NEG_OFF,
				       8);
			break;
		}
	}
	put_u64(r, BPF_VAL_FLAGS, flags);
}
