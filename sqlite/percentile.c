/*
 * percentile(V, P), p50(V), p90(V), p95(V), p99(V), p999(V) - aggregates: the P-th percentile
 * of V (p999 is the 99.9th).
 *
 *   SELECT syscall_name(id), p50(latency), p99(latency) FROM syscall_pairs GROUP BY id;
 *
 * (1) Up to the exact cap (PERCENTILE_EXACT_CAP = 1,000,000 values per group, changed with
 *     percentile_set_exact_cap()), the result is exact: linear interpolation between the
 *     closest ranks, numpy's default: rank = P/100 * (n-1), result = v[lo] + frac*(v[hi]-v[lo]).
 *     For 1..1000, p50 = 500.5 and p99 = 990.01.
 * (2) Past the cap, the values so far and the rest go into a DDSketch-style sketch: keys
 *     ceil(log_gamma |v|), gamma = (1+a)/(1-a), a = 0.005, so each estimate is within 0.5 % of
 *     a value of its rank; at most SKETCH_BINS_MAX bins per sign (lowest bins collapse), so the
 *     memory per group is bounded (2 x 32 KiB). Sketches merge by adding bins.
 * (3) NULL is skipped; a non-numeric or non-finite V is an error quoting it; P must be a number
 *     in [0, 100], the same on every row.
 * (4) The result is a REAL; over no rows (or only NULLs) it is NULL. Any finite values give
 *     a finite result within [min, max]: the interpolation between -1e308 and 1e308 weighs the
 *     two instead of taking their difference, and the sketch's estimates are clamped to the
 *     exact min and max (a bin's value may pass DBL_MAX). Errors name the function called
 *     (p99: value 'x' is not a finite number).
 */
#include <math.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>

#include "sqlite/functions.h"

#define PERCENTILE_EXACT_CAP 1000000L
#define SKETCH_ALPHA 0.005
#define SKETCH_BINS_MAX 4096
#define SKETCH_MIN_ABS 1e-9 /* |v| below this counts as zero */

static long exact_cap = PERCENTILE_EXACT_CAP;

void percentile_set_exact_cap(long n) { exact_cap = n < 0 ? PERCENTILE_EXACT_CAP : n; }

struct sketch_store {
	uint64_t *bins; /* bins[k - base] counts values of key k */
	int32_t base;
	uint32_t nr;
};

struct sketch {
	struct sketch_store pos, neg; /* neg holds |v| of negative values */
	uint64_t zero;
	double ln_gamma;
};

struct percentile_state {
	double *vals;
	size_t nr, alloc;
	uint64_t n; /* values seen */
	struct sketch *sk;
	double p;
	bool p_set;
	double min, max;
};

static int store_add(struct sketch_store *s, int32_t key, uint64_t count)
{
	if (!s->bins || key < s->base || key >= s->base + (int32_t)s->nr) {
		int32_t old_hi = s->base + (int32_t)s->nr - 1;
		int32_t lo = !s->bins || key < s->base ? key : s->base;
		int32_t hi = !s->bins || key > old_hi ? key : old_hi;
		int64_t span = (int64_t)hi - lo + 1, nr;
		uint64_t *bins;

		/* keep the highest keys: the lowest ones collapse into the lowest kept bin */
		if (span > SKETCH_BINS_MAX)
			span = SKETCH_BINS_MAX;
		nr = span + span / 2 + 16; /* room to grow in the direction we grew */
		if (nr > SKETCH_BINS_MAX)
			nr = SKETCH_BINS_MAX;
		lo = s->bins && key >= s->base ? hi - (int32_t)span + 1 : hi - (int32_t)nr + 1;
		bins = calloc((size_t)nr, sizeof(*bins));
		if (!bins)
			return -1;
		for (uint32_t i = 0; i < s->nr; i++) {
			int32_t k = s->base + (int32_t)i;

			bins[k < lo ? 0 : k - lo] += s->bins[i];
		}
		free(s->bins);
		s->bins = bins;
		s->base = lo;
		s->nr = (uint32_t)nr;
	}
	if (key < s->base)
		key = s->base;
	s->bins[key - s->base] += count;
	return 0;
}

static int sketch_add(struct sketch *sk, double v)
{
	double a = fabs(v);
	int32_t key;

	if (a < SKETCH_MIN_ABS) {
		sk->zero++;
		return 0;
	}
	key = (int32_t)ceil(log(a) / sk->ln_gamma);
	return store_add(v > 0 ? &sk->pos : &sk->neg, key, 1);
}

static double key_value(const struct sketch *sk, int32_t key)
{
	double gamma = exp(sk->ln_gamma);

	return 2.0 * exp(key * sk->ln_gamma) / (gamma + 1.0);
}

/* estimate of the value of 0-based rank r */
static double sketch_rank(const struct sketch *sk, uint64_t r)
{
	uint64_t seen = 0;

	for (uint32_t i = sk->neg.nr; i-- > 0;) {
		seen += sk->neg.bins[i];
		if (seen > r)
			return -key_value(sk, sk->neg.base + (int32_t)i);
	}
	seen += sk->zero;
	if (seen > r)
		return 0;
	for (uint32_t i = 0; i < sk->pos.nr; i++) {
		seen += sk->pos.bins[i];
		if (seen > r)
			return key_value(sk, sk->pos.base + (int32_t)i);
	}
	return 0; /* not reached: r < n */
}

static void sketch_free(struct sketch *sk)
{
	if (!sk)
		return;
	free(sk->pos.bins);
	free(sk->neg.bins);
	free(sk);
}

/* moves the exact values into a new sketch */
static int to_sketch(struct percentile_state *st)
{
	st->sk = calloc(1, sizeof(*st->sk));
	if (!st->sk)
		return -1;
	st->sk->ln_gamma = log((1 + SKETCH_ALPHA) / (1 - SKETCH_ALPHA));
	for (size_t i = 0; i < st->nr; i++)
		if (sketch_add(st->sk, st->vals[i]))
			return -1;
	free(st->vals);
	st->vals = NULL;
	st->nr = st->alloc = 0;
	return 0;
}

static int add_value(struct percentile_state *st, double v)
{
	if (st->n == 0 || v < st->min)
		st->min = v;
	if (st->n == 0 || v > st->max)
		st->max = v;
	st->n++;
	if (!st->sk && st->nr >= (size_t)exact_cap && to_sketch(st))
		return -1;
	if (st->sk)
		return sketch_add(st->sk, v);
	if (st->nr == st->alloc) {
		size_t alloc = st->alloc ? st->alloc * 2 : 256;
		double *vals;

		if (alloc > (size_t)exact_cap)
			alloc = (size_t)exact_cap;
		vals = realloc(st->vals, alloc * sizeof(*vals));
		if (!vals)
			return -1;
		st->vals = vals;
		st->alloc = alloc;
	}
	st->vals[st->nr++] = v;
	return 0;
}

static void percentile_step_p(sqlite3_context *ctx, const char *fname, sqlite3_value *val, double p)
{
	struct percentile_state *st = sqlite3_aggregate_context(ctx, sizeof(*st));
	int type;
	double v;

	if (!st) {
		sqlite3_result_error_nomem(ctx);
		return;
	}
	if (!st->p_set) {
		st->p = p;
		st->p_set = true;
	} else if (st->p != p) {
		sql_result_errorf(ctx, "%s: P must be the same on every row", fname);
		return;
	}
	type = sqlite3_value_type(val);
	if (type == SQLITE_NULL)
		return;
	if (type == SQLITE_INTEGER) { /* the common case: no conversion asked of SQLite */
		v = (double)sqlite3_value_int64(val);
	} else {
		if (type != SQLITE_FLOAT)
			type = sqlite3_value_numeric_type(val);
		v = sqlite3_value_double(val);
	}
	if ((type != SQLITE_INTEGER && type != SQLITE_FLOAT) || !isfinite(v)) {
		char *v = sql_value_quote(val);

		sql_result_errorf(ctx, "%s: value %s is not a finite number", fname, v);
		sqlite3_free(v);
		return;
	}
	if (add_value(st, v))
		sqlite3_result_error_nomem(ctx);
}

/*
 * k-th smallest of a[0..n): quickselect with a three-way partition (Dijkstra's), the pivot the
 * median of the range's first, middle and last values (sorted input, such as times, stays
 * linear). Values equal to the pivot are left in place and end the search as soon as rank k
 * is among them, so many equal values (a constant column, integer latencies) cost one pass.
 * Afterwards a[k+1..n) >= a[k], and a[k..*same_out) all equal a[k].
 */
static double select_kth(double *a, size_t n, size_t k, size_t *same_out)
{
	size_t lo = 0, hi = n; /* rank k is in [lo, hi) */

	while (hi - lo > 1) {
		double x = a[lo], y = a[lo + (hi - lo) / 2], z = a[hi - 1], pivot;
		size_t lt = lo, i = lo, gt = hi; /* [lo,lt) < pivot, [lt,i) == pivot, [gt,hi) > */

		pivot = x < y ? (y < z ? y : x < z ? z : x) : (x < z ? x : y < z ? z : y);
		while (i < gt) {
			double v = a[i];

			if (v < pivot) {
				a[i++] = a[lt];
				a[lt++] = v;
			} else if (v > pivot) {
				a[i] = a[--gt];
				a[gt] = v;
			} else {
				i++;
			}
		}
		if (k < lt) {
			hi = lt;
		} else if (k >= gt) {
			lo = gt;
		} else {
			*same_out = gt;
			return pivot;
		}
	}
	*same_out = k + 1;
	return a[k];
}

/* a + frac * (b - a), where b - a may overflow: values of opposite signs past DBL_MAX / 2 */
static double lerp(double a, double b, double frac)
{
	double d = b - a;

	return isfinite(d) ? a + frac * d : a * (1 - frac) + b * frac;
}

static double exact_result(struct percentile_state *st)
{
	double rank = st->p * (double)(st->nr - 1) / 100.0;
	size_t lo = (size_t)rank, same;
	double frac = rank - (double)lo, a, b;

	a = select_kth(st->vals, st->nr, lo, &same);
	if (frac == 0 || lo + 1 >= st->nr || lo + 1 < same)
		return a; /* rank lo + 1 holds a too: a + frac * 0 */
	b = st->vals[lo + 1];
	for (size_t i = lo + 2; i < st->nr; i++)
		if (st->vals[i] < b)
			b = st->vals[i];
	return lerp(a, b, frac);
}

static double clamp(double v, double lo, double hi) { return v < lo ? lo : v > hi ? hi : v; }

static double sketch_result(struct percentile_state *st)
{
	double rank = st->p * (double)(st->n - 1) / 100.0;
	uint64_t lo = (uint64_t)rank;
	double frac = rank - (double)lo;
	double a, b;

	/* the extremes are known exactly */
	if (rank <= 0)
		return st->min;
	if (lo + 1 >= st->n)
		return st->max;
	/* a bin's value past DBL_MAX is inf: the extremes bound every estimate */
	a = clamp(sketch_rank(st->sk, lo), st->min, st->max);
	b = a;
	if (frac > 0 && lo + 1 < st->n)
		b = clamp(sketch_rank(st->sk, lo + 1), st->min, st->max);
	return clamp(lerp(a, b, frac), st->min, st->max);
}

void percentile_final(sqlite3_context *ctx)
{
	struct percentile_state *st = sqlite3_aggregate_context(ctx, 0);

	if (!st)
		return;
	if (st->n)
		sqlite3_result_double(ctx, st->sk ? sketch_result(st) : exact_result(st));
	free(st->vals);
	sketch_free(st->sk);
	memset(st, 0, sizeof(*st));
}

void percentile_step(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	int type = sqlite3_value_numeric_type(argv[1]);
	double p = sqlite3_value_double(argv[1]);

	if ((type != SQLITE_INTEGER && type != SQLITE_FLOAT) || !(p >= 0 && p <= 100)) {
		sqlite3_result_error(ctx, "percentile: P must be a number between 0 and 100", -1);
		return;
	}
	percentile_step_p(ctx, "percentile", argv[0], p);
}

void p50_step(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	percentile_step_p(ctx, "p50", argv[0], 50);
}

void p90_step(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	percentile_step_p(ctx, "p90", argv[0], 90);
}

void p95_step(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	percentile_step_p(ctx, "p95", argv[0], 95);
}

void p99_step(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	percentile_step_p(ctx, "p99", argv[0], 99);
}

void p999_step(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	percentile_step_p(ctx, "p999", argv[0], 99.9);
}
