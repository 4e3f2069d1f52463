/*
 * bpf/pairs_read.c - what a window's readout adds for pairs() and percentiles (bpf/pairs.h):
 * the groups' log-linear buckets sorted and merged, and the pairs' counts per CPU.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <bpf/bpf.h>
#include "bpf/pairs.h"
#include "bpf/source.h"
#include "bpf/table.h"
#include "core/session.h"

static uint64_t u64_at(const uint8_t *p, int off)
{
	uint64_t v;

	memcpy(&v, p + off, 8);
	return v;
}

static int cmp_ent(const void *x, const void *y)
{
	const struct bpf_hist_ent *a = x, *b = y;

	if (a->row != b->row)
		return a->row < b->row ? -1 : 1;
	return a->bucket < b->bucket ? -1 : a->bucket > b->bucket;
}

/* sorted by row and bucket, one entry each (a tick's reads may repeat one) */
static void merge_hist(struct bpf_table *t)
{
	size_t n = 0;

	if (!t->nr_hist)
		return;
	qsort(t->hist, t->nr_hist, sizeof(*t->hist), cmp_ent);
	for (size_t i = 1; i < t->nr_hist; i++) {
		if (t->hist[i].row == t->hist[n].row && t->hist[i].bucket == t->hist[n].bucket)
			t->hist[n].count += t->hist[i].count;
		else
			t->hist[++n] = t->hist[i];
	}
	t->nr_hist = n + 1;
}

const struct bpf_hist_ent *bpf_table__hist(const struct bpf_table *t, size_t i, size_t *n)
{
	size_t lo = 0, hi = t->nr_hist, end;

	while (lo < hi) { /* the first entry of row i */
		size_t mid = lo + (hi - lo) / 2;

		if (t->hist[mid].row < i)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (end = lo; end < t->nr_hist && t->hist[end].row == i; end++)
		;
	*n = end - lo;
	return t->hist + lo;
}

/* a bucket's row (bpf/pairs.h (3)): its count over CPUs, to the group's buckets */
int bpf_table__take_bucket(struct bpf_table *t, const uint8_t *key, size_t k)
{
	int ks = t->plan.key_size, vs = t->plan.value_size;
	uint8_t *gkey = malloc((size_t)ks), *row;
	uint64_t sum = 0;

	if (!gkey)
		return -ENOMEM;
	memcpy(gkey, key, (size_t)ks);
	memset(gkey + ks - 8, 0, 8);
	row = bpf_table__row_of(t, gkey);
	free(gkey);
	if (!row)
		return -ENOMEM;
	for (int c = 0; c < t->nr_possible; c++)
		sum += u64_at((uint8_t *)t->vals +
				      (k * (size_t)t->nr_possible + (size_t)c) * (size_t)vs,
			      BPF_VAL_COUNT);
	if (t->nr_hist == t->cap_hist) {
		size_t cap = t->cap_hist ? t->cap_hist * 2 : 256;
		struct bpf_hist_ent *h = realloc(t->hist, cap * sizeof(*h));

		if (!h)
			return -ENOMEM;
		t->hist = h;
		t->cap_hist = cap;
	}
	t->hist[t->nr_hist++] = (struct bpf_hist_ent){
		.row = (uint32_t)((size_t)(row - t->rows) / (size_t)t->row_size),
		.bucket = (uint32_t)(u64_at(key, ks - 8) - 1),
		.count = sum,
	};
	return 0;
}

/* this window's starts (per CPU) to the start table; pairs, lost starts, replaced starts and
 * unmatched ends to pairs()'s row */
static void read_counts(struct bpf_table *t)
{
	struct session *s = t->src->s;
	size_t sz = (size_t)t->nr_possible * 8 * BPF_PAIR_NR_COUNTS;
	uint64_t *v = malloc(sz), pairs = 0, d[BPF_PAIR_NR_COUNTS] = { 0 }, x[4];
	uint32_t zero = 0;

	if (!v || bpf_map_lookup_elem(t->counts_fd, &zero, v)) {
		free(v);
		return;
	}
	for (int c = 0; c < t->nr_possible; c++) {
		uint64_t *now = v + c * BPF_PAIR_NR_COUNTS,
			 *seen = t->counts_seen + c * BPF_PAIR_NR_COUNTS;
		uint64_t starts = now[BPF_PAIR_STARTS] + now[BPF_PAIR_DROPPED] -
				  seen[BPF_PAIR_STARTS] - seen[BPF_PAIR_DROPPED];
		int idx = c < s->nr_cpu_ids ? s->cpu_idx[c] : -1;

		if (t->start_src && idx >= 0)
			t->start_src->received[idx] += starts;
		if (t->plan.pair.pending_rows && idx >= 0) /* no group counts the ends */
			t->src->received[idx] += now[BPF_PAIR_PAIRS] + now[BPF_PAIR_UNMATCHED] -
						 seen[BPF_PAIR_PAIRS] - seen[BPF_PAIR_UNMATCHED];
		for (int i = 0; i < BPF_PAIR_NR_COUNTS; i++)
			d[i] += now[i] - seen[i];
		memcpy(seen, now, 8 * BPF_PAIR_NR_COUNTS);
	}
	pairs = d[BPF_PAIR_PAIRS];
	x[0] = d[BPF_PAIR_REPLACED];
	x[1] = d[BPF_PAIR_UNMATCHED];
	x[2] = d[BPF_PAIR_DROPPED];
	/* a skipped start or end: its pair is lost (one program for both: each skip one) */
	x[3] = bpf_prog__new_misses(t->start_prog_fd, &t->misses_seen[0]) +
	       bpf_prog__new_misses(t->prog_fd, &t->misses_seen[1]);
	session__extra_add(s, t->pair_stat, pairs, x[2] + x[3]);
	session__extra_pairs(s, t->pair_stat, x);
	free(v);
}

/* pending(): every start waiting now, read (not deleted: they wait on) in batches; the
 * hash changes under the reads, so a key may come twice or not at all only if it was
 * deleted or stored meanwhile, as the ring path's rows of a window are the state at its end */
static int read_pending(struct bpf_table *t)
{
	int vs = BPF_PAIR_VALUE(&t->plan.pair);
	size_t row = 8 + (size_t)vs;
	uint64_t keys[256];
	uint8_t *vals = malloc(256 * (size_t)vs);
	uint32_t batch = 0, n;
	bool first = true;
	int ret = 0;

	t->nr_pend = 0;
	t->pend_now = now_ns(CLOCK_MONOTONIC);
	while (vals && ret == 0) {
		if (t->cap_pend - t->nr_pend < 256) {
			size_t cap = t->cap_pend ? t->cap_pend * 2 : 1024;
			uint8_t *p = realloc(t->pend, cap * row);

			if (!p) {
				ret = -ENOMEM;
				break;
			}
			t->pend = p;
			t->cap_pend = cap;
		}
		n = 256;
		ret = bpf_map_lookup_batch(t->pending_fd, first ? NULL : &batch, &batch, keys, vals,
					   &n, NULL);
		if (ret < 0 && ret != -ENOENT)
			break;
		first = false;
		for (uint32_t k = 0; k < n; k++, t->nr_pend++) {
			memcpy(t->pend + t->nr_pend * row, &keys[k], 8);
			memcpy(t->pend + t->nr_pend * row + 8, vals + (size_t)k * (size_t)vs,
			       (size_t)vs);
		}
	}
	free(vals);
	return !vals || (ret && ret != -ENOENT) ? (ret < 0 ? ret : -ENOMEM) : 0;
}

void bpf_table__read_pairs(struct bpf_table *t)
{
	int ret;

	merge_hist(t);
	if (t->counts_fd >= 0)
		read_counts(t);
	if (t->plan.pair.pending_rows && (ret = read_pending(t)) && !t->read_failed) {
		t->read_failed = true;
		t->read_errno = -ret;
	}
}
