/*
 * tests/unit/test_bpf_merge.c - one CPU's group value merged into a row (bpf_plan__merge(),
 * bpf/plan.c): the bare columns (BA_BARE, bpf/plan.h) keep SQLite 3.40's row over CPUs, the
 * group's first row or the row of the min()/max() they follow; their layout.
 */
#include <stdint.h>
#include <string.h>
#include "bpf/plan.h"
#include "tests/unit/t.h"

static void put(uint8_t *v, int off, int64_t x) { memcpy(v + off, &x, 8); }

static int64_t get(const uint8_t *v, int off)
{
	int64_t x;

	memcpy(&x, v + off, 8);
	return x;
}

/* a plan: max(x) (agg 0), a bare integer following it or the first row (agg 1), a bare comm
 * (agg 2) that follows the first row */
static struct bpf_plan plan(int follow)
{
	struct bpf_plan p = { .nr_aggs = 3 };

	p.aggs[0].kind = BA_MAX;
	p.aggs[1] = (struct bpf_agg){ .kind = BA_BARE, .follow = follow };
	p.aggs[2] = (struct bpf_agg){ .kind = BA_BARE, .follow = -1, .v.col = BCOL_COMM };
	bpf_plan__layout(&p);
	return p;
}

/* one CPU's value: count, max, the bare integer (time, value), the comm (time, text) */
static void cpu(const struct bpf_plan *p, uint8_t *v, int64_t count, int64_t max, int64_t t,
		int64_t val, const char *comm)
{
	memset(v, 0, (size_t)p->value_size);
	put(v, BPF_VAL_COUNT, count);
	put(v, p->aggs[0].off, max);
	put(v, p->aggs[1].off, t);
	put(v, p->aggs[1].off + BPF_BARE_VAL, val);
	put(v, p->aggs[2].off, t);
	memcpy(v + p->aggs[2].off + BPF_BARE_VAL, comm, strlen(comm));
}

static void test_layout(void)
{
	struct bpf_plan p = plan(0);

	T(p.aggs[1].size == 16, "a bare integer: time and value, %d bytes", p.aggs[1].size);
	T(p.aggs[2].size == 24, "a bare comm: time and 16 bytes, %d bytes", p.aggs[2].size);
	T(p.value_size == 16 + 8 + 16 + 24, "value: count, flags, max, bares: %d", p.value_size);
}

static void test_first_row(void)
{
	struct bpf_plan p = plan(-1);
	uint8_t r[128] = { 0 }, a[128], b[128];

	cpu(&p, a, 3, 10, 500, 7, "late");
	cpu(&p, b, 2, 20, 100, 9, "early");
	bpf_plan__merge(&p, r, a);
	bpf_plan__merge(&p, r, b);
	T(get(r, BPF_VAL_COUNT) == 5 && get(r, p.aggs[0].off) == 20, "count 5, max 20");
	T(get(r, p.aggs[1].off + BPF_BARE_VAL) == 9, "first row: the earlier CPU's value (9)");
	T(!strcmp((char *)r + p.aggs[2].off + BPF_BARE_VAL, "early"), "first row's comm: %s",
	  (char *)r + p.aggs[2].off + BPF_BARE_VAL);
}

static void test_follow(void)
{
	struct bpf_plan p = plan(0);
	uint8_t r[128] = { 0 }, a[128], b[128], c[128];

	cpu(&p, a, 1, 10, 100, 1, "a");
	cpu(&p, b, 1, 30, 900, 2, "b"); /* the max, later */
	cpu(&p, c, 1, 30, 300, 3, "c"); /* the same max, earlier: SQLite keeps the first */
	bpf_plan__merge(&p, r, a);
	bpf_plan__merge(&p, r, b);
	T(get(r, p.aggs[1].off + BPF_BARE_VAL) == 2, "follows max(): the CPU of the larger max");
	bpf_plan__merge(&p, r, c);
	T(get(r, p.aggs[1].off + BPF_BARE_VAL) == 3, "a tie: the row that reached it first");
	T(get(r, p.aggs[0].off) == 30, "max 30");
	T(!strcmp((char *)r + p.aggs[2].off + BPF_BARE_VAL, "a"),
	  "the comm follows the first row, not max(): %s",
	  (char *)r + p.aggs[2].off + BPF_BARE_VAL);
}

int main(void)
{
	RUN(test_layout);
	RUN(test_first_row);
	RUN(test_follow);
	return t_done("bpf_merge");
}
